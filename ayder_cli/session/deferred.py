"""Deferred: a value built the first time it is needed, and closed only if it was built.

The REPL holds its Session this way, so its first prompt is drawn before the
HTTP stack, the parser and the tools are imported and before the server is
asked anything; the first entry typed builds it.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class Deferred(Generic[T]):
    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None

    @property
    def built(self) -> bool:
        return self._value is not None

    def get(self) -> T:
        """The value, built now if it was not yet; a failed build is tried again at the next get()."""
        if self._value is None:
            self._value = self._build()
        return self._value

    def close(self) -> None:
        """value.close(), if it was ever built."""
        if self._value is not None:
            self._value.close()
