"""A streamed request answered with the whole reply as one JSON body: a server (or a proxy) that ignores
"stream". Transport.request reads such a body whole (capped); the clients read it as the complete reply,
and decode anything else as the stream it is."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import requests

from ayder_cli.llm.http import NotJSONError, ReplyWatch, iter_body, whole_json
from ayder_cli.llm.odd_answers import is_json


def whole_answer(response: requests.Response, url: str, redact: Callable[[str], str]) -> dict[str, Any] | None:
    """To a streamed request, the whole answer as one JSON object when the server sent that instead of a
    stream (it ignores "stream"); None for a stream, one mislabelled as JSON included."""
    if not is_json(response):
        return None
    try:
        return whole_json(response, url, redact)
    except NotJSONError:
        return None


def stream_chunks(response: requests.Response, url: str, watch: ReplyWatch | None = None) -> Iterator[bytes]:
    """A streamed answer's chunks: as they arrive (iter_body), or the body Transport.request read whole."""
    return iter([response.content]) if is_json(response) else iter_body(response, url, watch)
