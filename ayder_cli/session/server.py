"""The server a run talks to: found on this machine when none is named, resolved to a Runtime
(endpoint, client, the window it serves), its key masked from then on."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Mapping

from ayder_cli.llm import make_client
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm.providers import is_cloud_api, provider_named
from ayder_cli.masking import Secrets
from ayder_cli.config.schema import Config
from ayder_cli.config.config_layers import names_a_server
from ayder_cli.config.keys import api_keys, endpoint_of
from ayder_cli.config.runtime import Runtime
from ayder_cli.session.url_server import FOUND, with_served_model
from ayder_cli.terminal.console import Console

if TYPE_CHECKING:
    from ayder_cli.llm.discover import FoundServer


def with_discovered_server(config: Config, env: Mapping[str, str], console: Console,
                           candidates: tuple | None = None) -> Config:
    """With no server configured anywhere: the first local server that answers (Ollama first) among
    `candidates` (None: the usual local ports)."""
    if names_a_server(config, env):
        return config
    # Loaded here, as make_client loads the HTTP stack: only once a mode needs the network.
    from ayder_cli.llm import discover

    candidates = discover.CANDIDATES if candidates is None else candidates
    found = discover.find_local_server(candidates)
    if found is None:
        ports = ", ".join(str(candidate.port) for candidate in candidates)
        # Said without -v: a server on another port is not found, and the user should know where ayder looked.
        console.notice(f"no local server answered on {ports}; using Ollama at {config.resolved_base_url} "
                       "(--base-url, OLLAMA_HOST or OPENAI_BASE_URL name another)")
        return config
    console.log(f"found {found.describe()}")
    sources = {**config.sources, "provider": FOUND, "base_url": FOUND}
    # No key at all for whatever listens here: a key goes only where your config, flags or environment
    # sent it (OPENAI_API_KEY is usually meant for a cloud API, api_key for the server you named).
    config = replace(config, provider=found.provider, base_url=found.base_url, sources=sources, api_key_env="",
                     api_key=None, api_key_file=None)
    return _with_served_model(config, found)


def _with_served_model(config: Config, found: FoundServer) -> Config:
    """No model named: the found server's only model; several without the default is a ConfigError."""
    return with_served_model(config, found.models, f"the {found.kind} server found at {found.base_url}")


def runtime_for(config: Config, env: Mapping[str, str], console: Console, secrets: Secrets,
                known: Runtime | None = None, pause: Callable[[float], None] | None = None) -> Runtime:
    """`config` resolved once to an endpoint, and a client for it (`pause`: its wait between two
    tries). The window is asked of the server unless `known` (the runtime in use) talks to the same
    model there. The key is masked first."""
    endpoint = endpoint_of(config, env)
    _mask_key(endpoint, secrets, console)
    if known is None or known.endpoint != endpoint:
        client = make_client(endpoint, log=console.log, pause=pause)
    else:
        client = known.client  # only settings the client does not hold changed
    if known is not None and endpoint.serves_as(known.endpoint):
        return Runtime(config, endpoint, client, known.window_note)
    if known is not None and config.sources.get("num_ctx", "default") == "default":
        config = replace(config, num_ctx=Config.num_ctx)  # what the old model served is not this one's
    config, window_note = with_served_window(config, client, console)
    return Runtime(config, endpoint, client, window_note)


def _mask_key(endpoint: Endpoint, secrets: Secrets, console: Console) -> None:
    """The endpoint's key joins the one masking (a server switched to may bring a new one)."""
    was_masking = bool(secrets)
    if secrets.add(endpoint.api_key) and not was_masking:
        console.mask_with(secrets)  # the console wraps its streams once there is something to mask


def with_served_window(config: Config, client, console: Console) -> tuple[Config, str]:
    """The config with num_ctx set to the window the server serves, unless a file or flag set it;
    and what the server said about its window (for /status)."""
    if is_cloud_api(config.resolved_base_url):
        return config, "not asked (a cloud API)"  # it reports no window, and the round trips cost
    window = client.served_window(config.resolved_model, config.num_ctx)
    if window is None:
        console.log(f"context window: {config.num_ctx} tokens (from the config; the server does not say)")
        return config, "the server does not say"
    console.log(f"context window: {window.describe()}")
    if config.sources.get("num_ctx", "default") == "default":
        return replace(config, num_ctx=window.tokens), f"the server serves {window.describe()}"
    if config.num_ctx and window.tokens < config.num_ctx and not provider_named(config.provider).pins_num_ctx:
        console.notice(f"num_ctx is {config.num_ctx}, but the server serves {window.tokens} tokens; "
                       "longer prompts will be cut or refused (lower num_ctx, or restart the server with more)")
    return config, f"set by you; the server serves {window.describe()}"


def secrets_of(config: Config, env: Mapping[str, str]) -> Secrets:
    """The one masking of a session: every API key the config could send (whichever the provider)
    and the values of `secret_env`. Each runtime adds its own key to it (runtime_for)."""
    return Secrets([*(env.get(name, "") for name in config.secret_env), *api_keys(config, env)])
