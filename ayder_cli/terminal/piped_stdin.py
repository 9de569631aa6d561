"""Piped stdin as text that never fails: bytes that are not UTF-8 become U+FFFD, and are counted.

Python reads a pipe with `surrogateescape`, so such bytes would reach the prompt
as lone surrogates and fail the moment the prompt is sent or saved. Here they
become the replacement character instead, and the caller says so once.
"""

from __future__ import annotations

import codecs
import io
from typing import BinaryIO


class LenientStdin:
    def __init__(self, raw: BinaryIO) -> None:
        self.replaced = 0  # undecodable bytes seen so far
        handler = f"ayder-stdin-{id(self)}"
        codecs.register_error(handler, self._replace)
        self.text = io.TextIOWrapper(raw, encoding="utf-8", errors=handler)

    def _replace(self, error: UnicodeError) -> tuple[str, int]:
        if not isinstance(error, UnicodeDecodeError):
            raise error
        self.replaced += error.end - error.start
        return "\ufffd", error.end

    def take_replaced(self) -> int:
        """Bytes replaced since the last call (so each notice is said once)."""
        count, self.replaced = self.replaced, 0
        return count
