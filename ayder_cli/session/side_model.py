"""The side model (`side_model`): a second, smaller model for the short requests beside the work --
commit messages, compaction summaries (side_summary.py) -- on the main server or another one. Unset,
the main model answers them.

    "side_model": "qwen3:1.7b"                                   the main server, another model
    "side_model": {"model": "qwen3:1.7b", "base_url": "http://127.0.0.1:8081/v1", "provider": "openai"}

A provider named without a base_url means that provider's default URL; the key is the one the
config sends to the main server (api_key_env, api_key_file, api_key).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ayder_cli.agent.request import whole_reply
from ayder_cli.config.keys import endpoint_of
from ayder_cli.config.runtime import Runtime
from ayder_cli.config.schema import Config
from ayder_cli.intents import parse
from ayder_cli.llm import make_client
from ayder_cli.llm.providers import is_cloud_api
from ayder_cli.llm.wire_types import ChatClient, ChatRequest, Reply


@dataclass(frozen=True)
class SideModel:
    client: ChatClient
    config: Config  # the settings its requests use: model, server, window

    @property
    def name(self) -> str:
        return self.config.resolved_model

    def ask(self, system: str, text: str, max_tokens: int) -> str:
        """One short request without tools; the answer's text, thinking left out."""
        request = self.request([{"role": "system", "content": system}, {"role": "user", "content": text}],
                               max_tokens)
        return parse(self.reply(request).text).display.strip()

    def request(self, messages: list[dict], max_tokens: int | None) -> ChatRequest:
        """A request without tools for `messages`, with the side model's settings."""
        config = self.config
        return ChatRequest(config.resolved_model, messages, stream=config.stream, temperature=config.temperature,
                           max_tokens=max_tokens, num_ctx=config.num_ctx, keep_alive=config.keep_alive)

    def reply(self, request: ChatRequest) -> Reply:
        return whole_reply(self.client, request)

    def window(self) -> int | None:
        """The tokens it serves: what its server reports (asked now), else num_ctx (8192 unless the main
        model's runtime set it: see side_model())."""
        config = self.config
        if is_cloud_api(config.resolved_base_url):
            return config.num_ctx  # a cloud API reports no window (as session/server.py)
        served = _served_window(self.client, config)
        return served.tokens if served is not None else config.num_ctx


def _served_window(client, config: Config):  # both clients ask (llm/), as session/server.py does
    return client.served_window(config.resolved_model, config.num_ctx)


def side_model(main: Runtime, env: Mapping[str, str], log: Callable[[str], None] = lambda line: None) -> SideModel:
    """The side model the main runtime's config names; the main model when it names none."""
    config, side = main.config, main.config.side_model
    if not side:
        return SideModel(main.client, config)
    provider = side.get("provider") or config.provider
    base_url = side.get("base_url") or (config.base_url if provider == config.provider else None)
    # Its own window: the main model's may be far larger than a small model should load (Ollama pins it).
    config = replace(config, provider=provider, base_url=base_url, model=side["model"], num_ctx=Config.num_ctx)
    return SideModel(make_client(endpoint_of(config, env), log=log), config)
