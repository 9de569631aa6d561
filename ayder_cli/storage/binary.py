"""Whether a file's bytes are binary, judged one way everywhere: the read, write, search and info tools
skip or refuse the same files, and the Python search agrees with ripgrep's output after it."""

from __future__ import annotations

SNIFF_BYTES = 8192  # how much of a file's start is looked at: enough to judge, cheap on a huge file


def looks_binary(data: bytes) -> bool:
    """A NUL byte in the first SNIFF_BYTES of a file's bytes (data may be the whole file or its start)."""
    return data.find(b"\0", 0, SNIFF_BYTES) != -1


def file_looks_binary(path: str) -> bool:
    """looks_binary of the file at path; an unreadable file counts as binary (nothing can be read from it)."""
    try:
        with open(path, "rb") as stream:
            return looks_binary(stream.read(SNIFF_BYTES))
    except OSError:
        return True
