"""HTTP for both clients: retries before the stream starts, low-latency body reads, errors."""

from __future__ import annotations

import email.utils
import json
import time
import urllib.parse
from typing import Any, Callable, Iterator

import requests
import urllib3

from ayder_cli.llm.wire_types import Delta, LLMError, ReadingTime, StreamCutError
from ayder_cli.llm.body import load_capped
from ayder_cli.llm.odd_answers import describe_body, html_page_error, html_title, is_html, is_json, out_of_quota

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
        stream_idle_timeout_s: float | None = None,
        request_timeout_s: float | None = None,
        sleep: Callable[[float], None] | None = None,  # the pause between tries (default: pause_before_retry)
        clock: Callable[[], float] = time.monotonic,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.session = requests.Session()
        self.session.headers.update(headers)
        self.session.hooks["response"].append(unread_redirect_body)
        self.timeout = (connect_timeout_s, read_timeout_s)
        self.max_retries = max_retries
        self.unreachable = unreachable
        self.stream_idle_timeout_s = stream_idle_timeout_s
        self.request_timeout_s = request_timeout_s
        self.sleep = sleep if sleep is not None else pause_before_retry
        self.clock = clock
        self.log = log

    def watch(self, reading: ReadingTime | None = None) -> "ReplyWatch":
        """The deadlines of one model call, starting now: call it before sending the request.
        `reading`: the time the server needs for this prompt at its measured speed (the first-data
        limit is twice that when longer than timeout_s)."""
        return ReplyWatch(first_data_s=self.timeout[1], idle_s=self.stream_idle_timeout_s,
                          total_s=self.request_timeout_s, clock=self.clock, reading=reading)

    def request(
        self,
        method: str,
        url: str,
        *,
        body: dict[str, Any] | None = None,
        stream: bool = False,
        error_for: Callable[[requests.Response], LLMError],
        watch: ReplyWatch | None = None,
    ) -> requests.Response:
        """The response once its status is OK; an LLMError otherwise.

        Unless `stream`, the body has been read (at most MAX_BODY_BYTES, within the read timeout
        counted from the request): requests itself would read any size for as long as it comes.
        With a `watch`, its first-data limit is the read timeout (a long prompt's reading time)."""
        timeout = self.timeout if watch is None else (self.timeout[0], watch.first_data_s)
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            started = time.monotonic()
            if self.log:
                self.log(f"{method} {url}" + (f" (retry {attempt})" if attempt else "")
                         + (f"; first reply data {watch.first_data_limit()}" if watch and watch.reading else ""))
            try:
                response = self.session.request(method, url, json=body, stream=True, timeout=timeout)
            except requests.exceptions.ConnectionError as exc:
                if last or isinstance(exc, requests.exceptions.SSLError) or refused_on_loopback(url, exc):
                    raise self.unreachable(url, exc) from exc
                self.sleep(backoff_s(attempt))
                continue
            except requests.exceptions.Timeout as exc:
                if watch is not None and watch.reading is not None:
                    raise LLMError(f"no answer from {url} {watch.first_data_limit()}", hint=watch.hint()) from exc
                raise LLMError(
                    f"no answer from {url} within {self.timeout[1]:g} s",
                    hint="the model may still be loading; raise timeout_s in the config",
                ) from exc
            if self.log:
                self.log(f"HTTP {response.status_code} in {time.monotonic() - started:.2f} s")
            deadline = started + timeout[1] if timeout[1] is not None else None
            status = response.status_code
            if status == 429:  # its body says whether waiting helps: a spent quota does not come back
                _load_error_body(response, url, deadline)
            if status in RETRY_STATUSES and not last and not (status == 429 and out_of_quota(response.text)):
                wait = retry_after_s(response.headers.get("Retry-After"))
                if wait is None:
                    wait = backoff_s(attempt)
                response.close()
                self.sleep(wait)
                continue
            if status >= 400:
                _load_error_body(response, url, deadline)
                title = html_title(response)
                try:
                    raise error_for(response) if title is None else html_page_error(url, status, title)
                finally:
                    response.close()
            if stream and is_html(response):  # a web page, not a stream: not a cut stream either
                load_capped(response, url, deadline=deadline)
                raise html_page_error(url, status, html_title(response) or "")
            if not stream or is_json(response):  # JSON to a stream: a whole answer, read whole (and capped)
                load_capped(response, url, deadline=deadline)
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def probe(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        """One quick look at a server's own endpoint: its JSON, or None on any failure (never retried)."""
        return fetch_json(self.session, method, url, json=body,
                          timeout=(min(self.timeout[0], 2.0), min(self.timeout[1] or 5.0, 5.0)))

    def close(self) -> None:
        self.session.close()


def _load_error_body(response: requests.Response, url: str, deadline: float | None) -> None:
    """An error's body, read once (capped, in time); its own trouble becomes its text."""
    if response._content is not False:
        return
    try:
        load_capped(response, url, deadline=deadline)
    except LLMError as exc:  # the status still says what failed; the body's trouble is its detail
        response._content = exc.message.encode()


def unread_redirect_body(response: requests.Response, **_: Any) -> requests.Response:
    """requests reads a redirect's whole body, uncapped, before following it: leave it unread."""
    if response.is_redirect and response._content is False:
        response._content, response._content_consumed = b"", True
    return response


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


def pause_before_retry(seconds: float) -> None:
    """The wait between two tries of a Transport not given its own `sleep` (the tests replace it)."""
    time.sleep(seconds)


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


class ReplyWatch:
    """What one streamed reply has brought so far, and the deadlines the socket's timeout cannot see.

    The read timeout restarts on any byte, so keep-alive comments (or empty events) would keep a
    stream open for ever. These limits count only reply data (text, thinking, a tool-call fragment,
    a finish reason, usage): before the first of it, `timeout_s` from the request (a slow server
    reading a long prompt is what that limit is for), or twice the prompt's reading time at the
    server's measured speed when that is longer, counted again from each progress report of a server
    that sends them (llama.cpp's prompt_progress); after it, `stream_idle_timeout_s` between pieces;
    and `request_timeout_s` over the whole call. None switches a limit off.
    """

    def __init__(self, *, first_data_s: float | None, idle_s: float | None, total_s: float | None,
                 clock: Callable[[], float], reading: ReadingTime | None = None) -> None:
        self.timeout_s = first_data_s
        self.reading = reading
        if reading is not None and first_data_s is not None:
            first_data_s = max(first_data_s, reading.seconds)
        self.first_data_s = first_data_s
        self.idle_s = idle_s
        self.total_s = total_s
        self.clock = clock
        self.started = clock()
        self.alive = self.started  # the request, or the server's latest progress report
        self.last_data: float | None = None  # when the newest reply data was seen
        self.replied = False  # text, thinking, a tool call or a finish reason the server stated
        self.finished = False
        self._fresh = False  # reply data since the last check (timed at the check: one clock call a chunk)

    def saw(self, delta: Delta, *, finish_stated: bool = True) -> None:
        """One decoded delta; `finish_stated` False: its finish reason was filled in, not sent."""
        if delta.content or delta.thinking or delta.tool_calls:
            self.replied = self._fresh = True
        elif delta.usage is not None:
            self._fresh = True
        elif delta.progress is not None:  # still reading the prompt: alive, though no reply yet
            self.alive = self.clock()
        if delta.finish_reason:
            self.finished = self._fresh = True
            self.replied = self.replied or finish_stated

    def check(self) -> None:
        """Called each time a chunk has been decoded: StreamCutError once a limit has passed."""
        now = self.clock()
        if self._fresh:
            self.last_data, self._fresh = now, False
        if self.total_s is not None and not self.finished and now - self.started > self.total_s:
            raise StreamCutError(f"the reply was not complete after {self.total_s:g} s (request_timeout_s)")
        if self.last_data is None:
            if self.first_data_s is not None and now - self.alive > self.first_data_s:
                raise StreamCutError(f"no reply data {self.first_data_limit()}; the server sent only keep-alives",
                                     hint=self.hint())
        elif self.idle_s is not None and now - self.last_data > self.idle_s:
            raise StreamCutError(f"no reply data for {self.idle_s:g} s (stream_idle_timeout_s); "
                                 "the server sent only keep-alives")

    def silent(self, url: str) -> StreamCutError:
        """The socket's read timeout passed: the server sent nothing at all for that long."""
        if self.last_data is None and not self.replied:
            return StreamCutError(f"no reply data from {url} {self.first_data_limit()}", hint=self.hint())
        return StreamCutError(f"the stream from {url} stalled: no data for a long time")

    def first_data_limit(self) -> str:
        """'within 40 s of the request (twice 900 prompt tokens at 45 tok/s ...)': the limit that passed."""
        since = "the request" if self.alive == self.started else "the server's last progress report"
        why = "timeout_s" if self.reading is None else self.reading.describe(self.timeout_s)
        return f"within {round(self.first_data_s, 1):g} s of {since} ({why})"

    def hint(self) -> str:
        if self.reading is None:
            return "a server reading a long prompt can take minutes: raise timeout_s in the config"
        return f"the server reads slower than it did ({self.reading.speed:,.0f} tok/s): raise timeout_s in the config"


def empty_reply_error(url: str) -> LLMError:
    """A stream that ended well but held nothing (every chunk with empty `choices`, say): never a silent success."""
    return LLMError(f"the reply from {url} had no content, no tool calls and no finish reason",
                    "the server sent an empty stream; check its log, then try again")


def iter_body(response: requests.Response, url: str, watch: ReplyWatch | None = None) -> Iterator[bytes]:
    """The body as it arrives: each read returns what the socket has, never waits to fill.

    With a watch, its deadlines are checked each time the consumer comes back for more, that is
    once the events of the chunk before have been decoded and seen: a chunk of keep-alives counts
    for nothing, a chunk with reply data resets the idle limit. A silent connection is ended by the
    read timeout instead.
    """
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
                if watch is not None:
                    watch.check()
    except urllib3.exceptions.ReadTimeoutError as exc:
        if watch is not None:
            raise watch.silent(url) from exc
        raise StreamCutError(f"the stream from {url} stalled: no data for a long time") from exc
    except (urllib3.exceptions.HTTPError, requests.exceptions.RequestException, OSError) as exc:
        raise StreamCutError(f"the stream from {url} was cut off ({type(exc).__name__})") from exc
    finally:
        response.close()


class NotJSONError(LLMError):
    """A non-streamed reply whose body is not JSON at all: a proxy's page or text, an empty body."""


def whole_json(response: requests.Response, url: str, redact: Callable[[str], str]) -> dict[str, Any]:
    """A non-streamed reply body as a JSON object; an error object in it becomes an LLMError."""
    try:
        payload = response.json()
    except ValueError as exc:
        raise NotJSONError(f"{url} answered with {redact(describe_body(response))}, not JSON: check base_url, "
                           "and any proxy between ayder and the server") from exc
    finally:
        response.close()
    if not isinstance(payload, dict):
        raise LLMError(f"{url} answered with JSON that is not an object")
    if payload.get("error"):
        raise LLMError(f"the server reported an error: {redact(error_text(payload))}")
    return payload


def whole_json_asked_twice(response: requests.Response, again: Callable[[], requests.Response], url: str,
                           redact: Callable[[str], str], log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """whole_json of `response`; when its body is not JSON (a proxy's passing page), of the answer
    `again` gets by sending the request once more."""
    try:
        return whole_json(response, url, redact)
    except NotJSONError as exc:
        if log:
            log(f"{exc.message}; asking once more")
    return whole_json(again(), url, redact)


def fetch_json(session: requests.Session, method: str, url: str, *, timeout: tuple[float, float],
               cancelled: Callable[[], bool] | None = None, **options: Any) -> Any:
    """The JSON a server answers with 200, or None on any failure: no retry, no error. The body is
    capped and must be whole within the read timeout from the request (or until `cancelled`)."""
    deadline = time.monotonic() + timeout[1]
    try:
        response = session.request(method, url, stream=True, timeout=timeout, **options)
    except requests.exceptions.RequestException:
        return None
    with response:
        if response.status_code != 200:
            return None
        try:
            load_capped(response, url, deadline=deadline, cancelled=cancelled)
            return response.json()
        except (LLMError, ValueError):
            return None


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
            upstream = _upstream_error(error)
            error = (error.get("message") or error) if not sizes else f"{error.get('message') or ''} {sizes}"
            error = f"{error}: {upstream}" if upstream else error
        return error_text(error) if isinstance(error, str) and error.startswith("{") else str(error)
    return str(data)


def _upstream_error(error: dict) -> str:
    """A router's "Provider returned error" keeps the provider's own body in metadata.raw (OpenRouter)."""
    metadata = error.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    if isinstance(raw, dict):
        raw = raw.get("data", raw)
    return error_text(raw)[:200] if isinstance(raw, str) and raw.strip() else ""


def _context_sizes(error: dict) -> str:
    """llama.cpp's over-long prompt error keeps its numbers beside the message: say them."""
    needed, window = error.get("n_prompt_tokens"), error.get("n_ctx")
    if isinstance(needed, int) and isinstance(window, int) and str(needed) not in str(error.get("message")):
        return f"(the request has {needed} tokens, the context {window} tokens)"
    return ""
