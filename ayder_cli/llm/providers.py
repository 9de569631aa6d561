"""The providers ayder talks to, one record each: everything the rest of the code would otherwise
decide by comparing provider names.

A third provider is one record here and one client module beside ollama.py and openai_compat.py.
This module loads nothing: the config reads it at start-up, and make_client imports the client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


def normalize_ollama_host(value: str) -> str:
    """OLLAMA_HOST may be 'host', 'host:port' or a full URL.

    As in the ollama CLI, port 11434 is added only when no scheme is given:
    'https://host' means port 443.
    """
    value = value.strip().strip("\"'").strip()
    if value.startswith(("http://", "https://")):
        return value.rstrip("/")
    host = value.split("/", 1)[0]
    if ":" not in host.rsplit("]", 1)[-1]:
        value = f"{host}:11434" + value[len(host) :]
    return ("http://" + value).rstrip("/")


def _as_given(value: str) -> str:
    return value


@dataclass(frozen=True, kw_only=True)
class Provider:
    name: str  # the config's `provider` value, and what -p takes
    client: str  # "module:Class" of its ChatClient, called as Class(endpoint, transport, redact=...)
    default_base_url: str
    default_model: str
    base_url_env: str  # the environment variable that names its server
    url_from_env: Callable[[str], str]  # that variable's value -> a base URL (checked like base_url after)
    # It expects an API key: it gets the one the variable api_key_env names, and messages say whether
    # one is set. A provider that does not gets a key only when the config names one (api_key_file, api_key).
    wants_key: bool
    # It serves the num_ctx each request sends (ayder's, pinned for the session), so a prompt it cut was
    # bigger than the estimate said; other servers serve a window of their own.
    pins_num_ctx: bool
    server_called: str  # how messages name its server: "cannot reach Ollama at ..."
    kind: str  # what answered at a URL given alone, in messages: "answered as Ollama", "the Ollama server at ..."
    models_path: str  # GET base URL + this lists the models it serves (discovery, a URL given alone, /model)
    unreachable_hint: str  # the next step when nothing answers at its URL
    fetch_model: str  # the command that gets a model it lacks, "{model}" filled in; "": none
    thinking_field: str  # where a reply's thinking arrives, apart from the text

    def missing_model_hint(self, model: str) -> str:
        """What to run to get a model the server does not have ("" where nothing can)."""
        return f"run: {self.fetch_model.format(model=model)}" if self.fetch_model else ""


OLLAMA = Provider(
    name="ollama",
    client="ayder_cli.llm.ollama:OllamaClient",
    default_base_url="http://localhost:11434",
    default_model="qwen2.5-coder:7b",
    base_url_env="OLLAMA_HOST",
    url_from_env=normalize_ollama_host,
    wants_key=False,
    pins_num_ctx=True,
    server_called="Ollama",
    kind="Ollama",
    models_path="/api/tags",
    unreachable_hint="start it with `ollama serve`, or point base_url / OLLAMA_HOST at it",
    fetch_model="ollama pull {model}",
    thinking_field="Ollama's thinking",
)

OPENAI = Provider(  # any OpenAI-compatible server: llama.cpp, vLLM, LM Studio, the OpenAI API, ...
    name="openai",
    client="ayder_cli.llm.openai_compat:OpenAIClient",
    default_base_url="https://api.openai.com/v1",
    default_model="gpt-4.1-mini",
    base_url_env="OPENAI_BASE_URL",
    url_from_env=_as_given,
    wants_key=True,
    pins_num_ctx=False,
    server_called="the server",
    kind="OpenAI-compatible",
    models_path="/models",
    unreachable_hint="is it running? check base_url / OPENAI_BASE_URL",
    fetch_model="",
    thinking_field="reasoning_content",
)

PROVIDERS: dict[str, Provider] = {provider.name: provider for provider in (OLLAMA, OPENAI)}
DEFAULT = OLLAMA  # the config's provider when nothing names one (README: "Ollama first")


def is_cloud_api(base_url: str) -> bool:
    """The openai provider's own hosted API: it reports no window and serves many models, so neither is asked
    of it (the round trips cost)."""
    from urllib.parse import urlsplit  # --help loads this module: the parser only when a URL is judged

    return urlsplit(base_url).hostname == urlsplit(OPENAI.default_base_url).hostname


def provider_named(name: str) -> Provider:
    """The record of a provider the config named (a KeyError for a name the config check refuses)."""
    return PROVIDERS[name]
