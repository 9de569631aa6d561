"""HTTP for both clients: retries before the stream starts, low-latency body reads, errors."""

from __future__ import annotations

import email.utils
import json
import time
import urllib.parse
from typing import Any, Callable, Iterator

import requests
import urllib3

from ayder_cli.llm.base import LLMError, StreamCutError

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 60.0
READ_SIZE = 65536


class Transport:
    """POSTs with retry and backoff; never retries once a body has started to arrive."""

    def __init__(
        self,
        *,
        headers: dict[str, str],
        connect_timeout_s: float,
        read_timeout_s: float,
        max_retries: int,
        unreachable: Callable[[str, Exception], LLMError],
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.session = requests.Session()
        self.session.headers.update(headers)
        self.timeout = (connect_timeout_s, read_timeout_s)
        self.max_retries = max_retries
        self.unreachable = unreachable
        self.sleep = sleep
        self.log = log

    def request(
        self,
        method: str,
        url: str,
        *,
        body: dict[str, Any] | None = None,
        stream: bool = False,
        error_for: Callable[[requests.Response], LLMError],
    ) -> requests.Response:
        """The response once its status is OK; an LLMError otherwise."""
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            started = time.monotonic()
            if self.log:
                self.log(f"{method} {url}" + (f" (retry {attempt})" if attempt else ""))
            try:
                response = self.session.request(method, url, json=body, stream=stream, timeout=self.timeout)
            except requests.exceptions.ConnectionError as exc:
                if last or isinstance(exc, requests.exceptions.SSLError) or refused_on_loopback(url, exc):
                    raise self.unreachable(url, exc) from exc
                self.sleep(backoff_s(attempt))
                continue
            except requests.exceptions.Timeout as exc:
                raise LLMError(
                    f"no answer from {url} within {self.timeout[1]:g} s",
                    hint="the model may still be loading; raise timeout_s in the config",
                ) from exc
            if self.log:
                self.log(f"HTTP {response.status_code} in {time.monotonic() - started:.2f} s")
            if response.status_code in RETRY_STATUSES and not last:
                wait = retry_after_s(response.headers.get("Retry-After"))
                if wait is None:
                    wait = backoff_s(attempt)
                response.close()
                self.sleep(wait)
                continue
            if response.status_code >= 400:
                try:
                    raise error_for(response)
                finally:
                    response.close()
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def probe(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        """One quick look at a server's own endpoint: its JSON, or None on any failure (never retried)."""
        try:
            response = self.session.request(method, url, json=body, timeout=(min(self.timeout[0], 2.0), 5.0))
        except requests.exceptions.RequestException:
            return None
        with response:
            if response.status_code != 200:
                return None
            try:
                return response.json()
            except ValueError:
                return None

    def close(self) -> None:
        self.session.close()


def refused_on_loopback(url: str, exc: BaseException) -> bool:
    """Nothing listens on this machine's port: nothing will change in a second, so do not retry."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    if not (host == "localhost" or host == "::1" or host.startswith("127.")):
        return False
    for _ in range(10):  # urllib3 wraps the socket's error a few levels deep
        if exc is None:
            return False
        if isinstance(exc, ConnectionRefusedError):
            return True
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = exc.__cause__ or exc.__context__ or inner or getattr(exc, "reason", None)
    return False


def backoff_s(attempt: int) -> float:
    return min(MAX_BACKOFF_S, 0.25 * 2**attempt)


def retry_after_s(value: str | None) -> float | None:
    """Retry-After as seconds or an HTTP date; capped so a server cannot stall us for long."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, min(seconds, MAX_RETRY_AFTER_S))


def iter_body(response: requests.Response, url: str) -> Iterator[bytes]:
    """The body as it arrives: each read returns what the socket has, never waits to fill."""
    raw = response.raw
    try:
        if raw.chunked and raw.supports_chunked_reads():
            # Servers flush one HTTP chunk per token; each is handed over as soon as it is whole.
            pieces = raw.read_chunked(decode_content=True)
        else:
            pieces = iter(lambda: raw.read1(READ_SIZE, decode_content=True), b"")
        for chunk in pieces:
            if chunk:
                yield chunk
    except urllib3.exceptions.ReadTimeoutError as exc:
        raise StreamCutError(f"the stream from {url} stalled: no data for a long time") from exc
    except (urllib3.exceptions.HTTPError, requests.exceptions.RequestException, OSError) as exc:
        raise StreamCutError(f"the stream from {url} was cut off ({type(exc).__name__})") from exc
    finally:
        response.close()


def whole_json(response: requests.Response, url: str, redact: Callable[[str], str]) -> dict[str, Any]:
    """A non-streamed reply body as a JSON object; an error object in it becomes an LLMError."""
    try:
        payload = response.json()
    except ValueError as exc:
        raise LLMError(f"{url} answered with something that is not JSON") from exc
    finally:
        response.close()
    if not isinstance(payload, dict):
        raise LLMError(f"{url} answered with JSON that is not an object")
    if payload.get("error"):
        raise LLMError(f"the server reported an error: {redact(error_text(payload))}")
    return payload


def server_message(response: requests.Response) -> str:
    """The error text a server put in its body, in any of the usual shapes."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason or ""
    return error_text(data)[:300]


def error_text(data: Any) -> str:
    if isinstance(data, str) and data.startswith("{"):
        try:  # Ollama passes on its runner's JSON error as a string
            data = json.loads(data)
        except ValueError:
            return data
    if isinstance(data, dict):
        error = data.get("error", data.get("message", data.get("detail", data)))
        if isinstance(error, dict):
            sizes = _context_sizes(error)
            error = (error.get("message") or error) if not sizes else f"{error.get('message') or ''} {sizes}"
        return error_text(error) if isinstance(error, str) and error.startswith("{") else str(error)
    return str(data)


def _context_sizes(error: dict) -> str:
    """llama.cpp's over-long prompt error keeps its numbers beside the message: say them."""
    needed, window = error.get("n_prompt_tokens"), error.get("n_ctx")
    if isinstance(needed, int) and isinstance(window, int) and str(needed) not in str(error.get("message")):
        return f"(the request has {needed} tokens, the context {window} tokens)"
    return ""
