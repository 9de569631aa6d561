"""Endpoint: where requests go and how, resolved once from the config (setup/keys.endpoint_of).

It sits at the bottom of the package: `setup.keys` builds one and `llm.make_client`
takes one, so the clients never read the config and the config never loads the
HTTP stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class Endpoint:
    provider: str  # a name in llm/providers.py: "ollama", or "openai" for any OpenAI-compatible server
    base_url: str  # without a trailing slash
    model: str
    api_key: str | None = field(default=None, repr=False)  # sent as a Bearer token; never printed
    # Where the key came from, for messages: the variable's name ("OPENAI_API_KEY"), "api_key_file"
    # or "api_key"; None: no key is sent.
    key_source: str | None = None
    # The variable hints tell the user to set (api_key_env); "": a server ayder found on this machine,
    # which gets no key from the environment.
    key_env: str = ""
    # The transport's settings: waiting to connect, for the first reply data (timeout_s), between
    # reply data once a stream has started, for a whole reply (None: no limit), and retries.
    connect_timeout_s: float
    read_timeout_s: float
    stream_idle_timeout_s: float | None
    request_timeout_s: float | None
    max_retries: int

    def serves_as(self, other: "Endpoint | None") -> bool:
        """The same model on the same server (what was learned of its window and tools still holds)."""
        return other is not None and (self.provider, self.base_url, self.model) == (
            other.provider, other.base_url, other.model)

    def describe_key(self) -> str:
        """Where the API key comes from, for messages; never the key."""
        return f"API key from {self.key_source}" if self.api_key else "no API key"
