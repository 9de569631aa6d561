"""Talking to servers. Knows nothing of tools, config files or the terminal: make_client takes an Endpoint.

May import: the leaves.
(The layers, bottom to top: tests/project/test_house.py.)

    accumulate.py        deltas -> Reply (text, thinking, native calls; legacy function_call converted)
    body.py              a whole answer read with a 4 MB cap and a deadline (MAX_BODY_BYTES)
    discover.py          with no server configured: the usual local ports asked at once
    endpoint.py          Endpoint: all a client needs (provider, URL, model, key, timeouts, retries)
    http.py              Transport: retries before a stream starts, low-latency body reads
    odd_answers.py       answers that are not the API's in a few words: an HTML page's title, a spent quota
    ollama.py            POST {base_url}/api/chat, NDJSON
    openai_compat.py     POST {base_url}/chat/completions, SSE
    providers.py         one record per provider (URLs, defaults, key, num_ctx, hints, client): a third provider is
                         one record and one client module
    served.py            the window each kind of server reports, and its "too long" errors read
    sse.py               incremental SSE and NDJSON decoders (bytes in any chunking)
    unstreamed.py        a streamed request answered with one whole JSON body, read as the complete reply
    wire_types.py        ChatRequest, Delta, Reply, Usage, LLMError, the client protocol
"""

from __future__ import annotations

import importlib
from typing import Callable

from ayder_cli.llm.wire_types import ChatClient, LLMError
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm.providers import provider_named


def make_client(endpoint: Endpoint, log: Callable[[str], None] | None = None,
                pause: Callable[[float], None] | None = None) -> ChatClient:
    """The client for the endpoint's provider, with its key, timeouts, stream deadlines and retries
    (`pause`: how it waits between two tries; None: a real sleep)."""
    # The HTTP stack (requests) is loaded here, when a mode needs the network, not at import.
    from ayder_cli.llm.http import Transport

    provider = provider_named(endpoint.provider)
    base_url, key = endpoint.base_url, endpoint.api_key
    headers = {"User-Agent": "ayder"}
    if key:
        headers["Authorization"] = f"Bearer {key}"

    def redact(text: str) -> str:
        return text.replace(key, "***") if key else text

    def unreachable(url: str, exc: Exception) -> LLMError:
        reason = redact(_reason(exc))
        return LLMError(f"cannot reach {provider.server_called} at {base_url} ({reason})", provider.unreachable_hint)

    transport = Transport(
        headers=headers,
        connect_timeout_s=endpoint.connect_timeout_s,
        read_timeout_s=endpoint.read_timeout_s,
        max_retries=endpoint.max_retries,
        unreachable=unreachable,
        stream_idle_timeout_s=endpoint.stream_idle_timeout_s,
        request_timeout_s=endpoint.request_timeout_s,
        log=log,
        sleep=pause,
    )
    # The client's module loads requests too: imported here for the same reason.
    module, _, name = provider.client.partition(":")
    client_class = getattr(importlib.import_module(module), name)
    return client_class(endpoint, transport, redact=redact)


def _reason(exc: Exception) -> str:
    text = str(exc)
    for known in ("Connection refused", "Name or service not known", "timed out", "No route to host",
                  "Temporary failure in name resolution", "certificate verify failed"):
        if known in text:
            return known.lower()
    return type(exc).__name__
