"""Lines read with a cap: of a line longer than the cap only its start is held, the rest skipped and counted.

A minified bundle or a dump can be one line of a gigabyte; read_file and the ripgrep search
show a few hundred characters of a line, so they never need to hold the rest of it.
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

LONG_LINE_BYTES = 8192  # a line longer than this is cut with its rest counted in bytes, not characters


class CutLine(bytes):
    """The start of a line whose rest (`skipped` bytes, the line break not counted) was not read."""

    skipped: int = 0


def bounded_lines(stream: BinaryIO, head_bytes: int) -> Iterator[bytes]:
    """Each line of the stream as it is, or as a CutLine of its first `head_bytes` when it is longer."""
    while head := stream.readline(head_bytes):
        if head.endswith(b"\n") or len(head) < head_bytes:  # whole, or the last line, whole
            yield head
            continue
        skipped = 0
        while (rest := stream.readline(1 << 16)) and not rest.endswith(b"\n"):
            skipped += len(rest)
        skipped += len(rest.rstrip(b"\r\n"))
        if not skipped:
            yield head
            continue
        line = CutLine(head)
        line.skipped = skipped
        yield line


def bytes_after(text: str, chars: int, skipped: int = 0) -> int:
    """How many bytes of the line come after its first `chars` characters."""
    return len(text[chars:].encode("utf-8", errors="surrogateescape")) + skipped
