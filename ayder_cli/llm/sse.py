"""Incremental decoders: bytes in any chunking -> SSE events or NDJSON lines.

Both split on bytes, so a chunk boundary inside a UTF-8 character or inside a
line never matters: text is decoded only once a whole line has arrived.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from ayder_cli.llm.wire_types import StreamCutError
from ayder_cli.wording import counted


_DECODER = json.JSONDecoder()
_scan_json = _DECODER.scan_once  # the C scanner alone: one value from a position, no whitespace handling


def json_value(text: str) -> Any:
    """json.loads for a str, at the price of the scan alone for the usual event (a bare object).
    Whitespace around the value, or anything malformed, goes the whole way: json's own answer."""
    try:
        value, end = _scan_json(text, 0)
    except StopIteration:
        end = -1
    return value if end == len(text) else _DECODER.decode(text)


class LineSplitter:
    """Bytes in arbitrary chunks -> complete lines (without their line ending)."""

    def __init__(self) -> None:
        self._tail = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        data = self._tail + chunk if self._tail else chunk
        if b"\r" in data:
            # CRLF and lone CR end lines too; a CR at the very end may be half of a CRLF.
            held = b"\r" if data.endswith(b"\r") else b""
            if held:
                data = data[:-1]
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            lines = data.split(b"\n")
            self._tail = lines.pop() + held
            return lines
        lines = data.split(b"\n")
        self._tail = lines.pop()
        return lines

    def holding(self) -> bool:
        """True while part of a line waits for its end."""
        return bool(self._tail)

    def finish(self) -> list[bytes]:
        """What is left at end of stream, as a final line if non-empty."""
        tail, self._tail = self._tail.rstrip(b"\r"), b""
        return [tail] if tail else []


class SSEDecoder:
    """Server-sent events: `data:` lines joined by newlines, dispatched on a blank line.

    Comment lines (starting with ':') are keep-alives and ignored. Yields
    (event_name, data) pairs; event_name is "message" unless an `event:` field set it.
    """

    def __init__(self) -> None:
        self._lines = LineSplitter()
        self._data: list[bytes] = []
        self._event = "message"

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        # The usual chunk of a server that flushes each token: one whole `data:` event, nothing
        # held from before. Its few byte checks cost less than the line-by-line way.
        if (chunk.endswith(b"\n\n") and chunk.startswith(b"data: ") and chunk.count(b"\n") == 2
                and not self._data and not self._lines.holding() and b"\r" not in chunk):
            event, self._event = self._event, "message"
            return [(event, chunk[6:-2].decode("utf-8", "replace"))]
        return self._process(self._lines.feed(chunk))

    def finish(self) -> list[tuple[str, str]]:
        # Lenient: an event not followed by a blank line at EOF still counts.
        return self._process(self._lines.finish() + [b""])

    def _process(self, lines: Iterable[bytes]) -> list[tuple[str, str]]:
        events = []
        data = self._data
        event = self._event
        for line in lines:  # hot loop: a blank line and a data line per event, so those first
            if not line:
                if data:
                    text = (data[0] if len(data) == 1 else b"\n".join(data)).decode("utf-8", "replace")
                    events.append((event, text))
                    data.clear()
                event = "message"
            elif line.startswith(b"data:"):
                data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line.startswith(b":"):
                continue  # keep-alive comment
            elif line.startswith(b"event:"):
                event = line[6:].strip().decode("utf-8", "replace") or "message"
            # id:, retry: and unknown fields do not matter to a chat stream.
        self._event = event
        return events


def decode_sse(chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.finish()


def decode_ndjson_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Non-empty lines of a newline-delimited JSON stream, as bytes."""
    splitter = LineSplitter()
    for chunk in chunks:
        for line in splitter.feed(chunk):
            if line.strip():
                yield line
    for line in splitter.finish():
        if line.strip():
            yield line


class Skipped:
    """The malformed events (or lines) of one reply: each is skipped and the reply goes on, unless
    they are most of what came: more than half of the events so far, and at least MOST_BAD of them."""

    MOST_BAD = 3

    def __init__(self, what: str) -> None:
        self.what = what  # "event" (SSE) or "line" (NDJSON)
        self.count = 0
        self.first = ""

    def add(self, sample: str, seen: int) -> None:
        """One more malformed event of `seen` so far (this one included); StreamCutError when most are bad."""
        self.count += 1
        if not self.first:
            self.first = sample[:120]
        if self.count >= self.MOST_BAD and self.count * 2 > seen:
            raise StreamCutError(f"the server sent {self.count} malformed {self.what}s of {seen}, "
                                 f"the first {self.first!r}")

    def warning(self) -> str | None:
        """The one warning of the reply, or None when nothing was skipped."""
        if not self.count:
            return None
        what = f"a malformed {self.what}" if self.count == 1 else f"{self.count} malformed {self.what}s"
        return f"skipped {what} from the server ({self.first!r}); the reply went on without it"

    def note(self) -> str:
        """What a cut stream's message adds: the malformed events it had."""
        if not self.count:
            return ""
        return f" ({counted(self.count, 'malformed ' + self.what)} skipped, the first {self.first!r})"
