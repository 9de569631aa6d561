"""A server named by its URL alone (--base-url, AYDER_BASE_URL or a config file's base_url, no
provider): the API it speaks, and with no model named, the model it serves.

A path ending in /v1 is the OpenAI API. Any other URL is asked once, all at once: Ollama's
/api/tags, an OpenAI-compatible /v1/models (or /models under the URL's own path), and llama.cpp's
/props (llama.cpp lists its models at /api/tags too, but chats in OpenAI's format). The answer is
kept in the server profiles, so later runs do not ask again.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Mapping
from urllib.parse import urlsplit

from ayder_cli.errors import ConfigError
from ayder_cli.llm import make_client
from ayder_cli.llm.providers import OLLAMA, OPENAI, PROVIDERS, is_cloud_api, provider_named
from ayder_cli.config.schema import Config
from ayder_cli.config.config_layers import OPENAI_URL_ALONE, names_a_server
from ayder_cli.config.keys import endpoint_of
from ayder_cli.storage.profiles import ServerProfiles
from ayder_cli.terminal.console import Console
from ayder_cli.wording import listed

FOUND = "found on this machine"  # the source of a discovered server (session/server.py), for -v


def names_only_a_url(config: Config, env: Mapping[str, str]) -> bool:
    """A base URL was given and no provider: OLLAMA_HOST and OPENAI_BASE_URL name their provider's server."""
    if config.sources.get("provider") == OPENAI_URL_ALONE:
        return True  # OPENAI_BASE_URL alone: its server's only model is used as --base-url's is
    source = config.sources.get("base_url", "default")
    if config.sources.get("provider", "default") != "default" or config.base_url is None or source == "default":
        return False
    return source != "environment" or bool(env.get("AYDER_BASE_URL"))


def with_server_of_url(config: Config, env: Mapping[str, str], console: Console, profiles: ServerProfiles) -> Config:
    """The provider a URL given alone speaks (its base URL completed with /v1 where that is the API),
    and with no model named, the only one it serves."""
    if not names_only_a_url(config, env):
        return _with_its_only_model(config, env)
    url = config.resolved_base_url
    served = None
    known = known_before_asking(config, profiles)
    if known is not None:
        config = _speaking(config, *known)
    else:
        answer = _ask(config, env, url)
        if answer is None:  # nothing lists models there: the request itself will say what answers
            console.log(f"no model list at {url} ({OLLAMA.models_path}, /v1{OPENAI.models_path}); "
                        f"taking it for {config.provider}")
            return config
        provider, base_url, served = answer
        profiles.remember_server(url, provider=provider, base_url=base_url)
        config = _speaking(config, provider, base_url, f"{url} answered as {provider_named(provider).kind}")
    console.log(f"{config.provider} at {config.resolved_base_url} ({config.sources['provider']})")
    return _with_its_model(config, env, served)


def known_before_asking(config: Config, profiles: ServerProfiles) -> tuple[str, str, str] | None:
    """(provider, base URL, why) of a URL given alone, where nothing need be asked to know them: the URL
    ends in /v1, or a run before asked it; None: the server will be asked."""
    url = config.resolved_base_url
    known = profiles.server(url)
    if urlsplit(url).path.endswith("/v1"):
        return OPENAI.name, url, "the URL ends in /v1"
    if known.get("provider") in PROVIDERS and isinstance(known.get("base_url"), str):
        return known["provider"], known["base_url"], f"{url} asked on {known.get('learned')}"
    return None


def _speaking(config: Config, provider: str, base_url: str, why: str) -> Config:
    return replace(config, provider=provider, base_url=base_url, sources={**config.sources, "provider": why})


def _ask(config: Config, env: Mapping[str, str], url: str) -> tuple[str, str, tuple[str, ...]] | None:
    """(provider, base URL, its models) of what answers at `url`, all asked at once; None if nothing lists models."""
    ollama, openai_v1 = _client(config, env, OLLAMA.name, url), _client(config, env, OPENAI.name, url + "/v1")
    asks = {"tags": ollama.served_models, "v1": openai_v1.served_models, "props": openai_v1.is_llama_cpp}
    if urlsplit(url).path:  # an API under a path of its own (.../openai): its model list is right there
        asks["here"] = _client(config, env, OPENAI.name, url).served_models
    with ThreadPoolExecutor(len(asks), thread_name_prefix="ayder-probe") as pool:
        pending = {name: pool.submit(ask) for name, ask in asks.items()}
        answers = {name: future.result() for name, future in pending.items()}
    if answers["tags"] is not None and not answers["props"]:
        return OLLAMA.name, url, answers["tags"]
    for name, base_url in (("v1", url + "/v1"), ("here", url), ("tags", url + "/v1")):
        if answers.get(name) is not None:
            return OPENAI.name, base_url, answers[name]
    return None


def _client(config: Config, env: Mapping[str, str], provider: str, base_url: str):
    """A client of `provider` at `base_url`, with the key that provider would send there."""
    return make_client(endpoint_of(replace(config, provider=provider, base_url=base_url), env))


def _with_its_model(config: Config, env: Mapping[str, str], served: tuple[str, ...] | None) -> Config:
    if config.model is not None or config.sources.get("model", "default") != "default":
        return config
    if served is None:
        served = _client(config, env, config.provider, config.resolved_base_url).served_models() or ()
    where = f"the {provider_named(config.provider).kind} server at {config.resolved_base_url}"
    return with_served_model(config, served, where)


def _with_its_only_model(config: Config, env: Mapping[str, str]) -> Config:
    """A provider named, with no model: when its server serves exactly one model, that one (the provider's
    default, gpt-4.1-mini say, is not there). Several, or no list, leave the default as it was."""
    if config.model is not None or config.sources.get("model", "default") != "default":
        return config
    if not names_a_server(config, env) or config.sources.get("provider") == FOUND:  # discovery chose already
        return config
    if is_cloud_api(config.resolved_base_url):
        return config  # a cloud API serves the default among many: no round trip
    served = _client(config, env, config.provider, config.resolved_base_url).served_models() or ()
    if len(served) != 1 or served[0] == config.resolved_model:
        return config
    return replace(config, model=served[0], sources={**config.sources, "model": "the only one served"})


def with_served_model(config: Config, served: tuple[str, ...], where: str) -> Config:
    """No model named: the server's only model; several without the provider's default is a ConfigError
    listing them (`where` names the server). An empty list changes nothing."""
    if config.model is not None or config.sources.get("model", "default") != "default":
        return config
    if len(served) == 1:
        return replace(config, model=served[0], sources={**config.sources, "model": "the only one served"})
    if len(served) > 1 and config.resolved_model not in served:
        raise ConfigError(f"no model named, and {where} serves {listed(served, 'model')}", hint="pick one with -m NAME")
    return config

