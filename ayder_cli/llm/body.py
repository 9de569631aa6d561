"""A whole response body read with a size cap and a deadline: a server cannot flood or stall ayder.

Every answer ayder reads whole (a probe, a model list, an error, a non-streamed reply) goes
through read_capped(); streamed replies are decoded piece by piece instead (http.iter_body).
"""

from __future__ import annotations

import time
from typing import Callable

import requests
import urllib3

from ayder_cli.llm.wire_types import LLMError

MAX_BODY_BYTES = 4 * 1024 * 1024  # the largest whole answer ayder reads; real ones are a few KB
PIECE = 65536  # read1 returns what the socket has, up to this: a trickle cannot stall one read


def read_capped(response: requests.Response, url: str, *, deadline: float | None,
                limit: int = MAX_BODY_BYTES, cancelled: Callable[[], bool] | None = None,
                clock: Callable[[], float] = time.monotonic) -> bytes:
    """The body, decoded; LLMError once it passes `limit` bytes or the (monotonic) deadline, or when
    `cancelled` says so. The response is closed either way, so nothing is left reading."""
    raw = response.raw
    pieces: list[bytes] = []
    size = 0
    try:
        while True:
            if cancelled is not None and cancelled():
                raise LLMError(f"the answer from {url} was no longer wanted")
            if deadline is not None and clock() > deadline:
                raise LLMError(f"the answer from {url} did not arrive whole in time")
            piece = raw.read1(PIECE, decode_content=True)
            if not piece:
                return b"".join(pieces)
            size += len(piece)
            if size > limit:
                raise LLMError(f"the answer from {url} is over {limit // 1048576} MB: not read further")
            pieces.append(piece)
    except (urllib3.exceptions.HTTPError, requests.exceptions.RequestException, OSError) as exc:
        raise LLMError(f"the answer from {url} was cut off ({type(exc).__name__})") from exc
    finally:
        response.close()


def load_capped(response: requests.Response, url: str, **options) -> None:
    """Read the body of a response asked for with stream=True into it, capped, so that
    .json() and .text work as for one read whole by requests (which reads without a cap)."""
    response._content = read_capped(response, url, **options)  # requests' own cache of the body
    response._content_consumed = True
