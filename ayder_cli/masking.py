"""The one masking of secrets: every value that must never be shown or saved becomes ***.

Built once from the config (the API keys it resolves) and handed to everything
that prints or writes: the console (stdout and stderr), sessions, checkpoints,
memories and task files. A server switched to later (/provider, /model) adds
its key to the same object. A streamed text is masked by MaskedStream, which holds
back the end of a write that could be the start of a secret until the next
write shows whether it is.
"""

from __future__ import annotations

from typing import IO, Any, Callable, Iterable

from ayder_cli.partial import partial_at_end

MASK = "***"
MIN_SECRET_CHARS = 6  # shorter values would mask ordinary words


class Secrets:
    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values: list[str] = []  # longest first: a key inside a longer one
        self.add(*values)

    def add(self, *values: str | None) -> bool:
        """Mask these too from now on (the key of a server switched to); True if one was not masked yet."""
        kept = {value.strip() for value in values if value and len(value.strip()) >= MIN_SECRET_CHARS}
        new = kept - set(self.values)
        if new:
            self.values = sorted([*self.values, *new], key=len, reverse=True)
        return bool(new)

    def __bool__(self) -> bool:
        return bool(self.values)

    def mask(self, text: str) -> str:
        for value in self.values:
            if value in text:
                text = text.replace(value, MASK)
        return text

    def contains(self, text: str) -> bool:
        return any(value in text for value in self.values)

    def split_unfinished(self, text: str) -> tuple[str, str]:
        """(what can be shown now, masked; the end that could still become a secret, held back)."""
        held = partial_at_end(text, self.values)
        return self.mask(text[: len(text) - held]), text[len(text) - held:]


class MaskedStream:
    """A text stream that masks secrets, even one split across two writes."""

    def __init__(self, stream: IO[str], secrets: Secrets) -> None:
        self.stream = stream
        self.secrets = secrets
        self._held = ""  # the end of the last write, which may be the start of a secret

    def write(self, text: str) -> int:
        ready, self._held = self.secrets.split_unfinished(self._held + text)
        self.stream.write(ready)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def settle(self) -> None:
        """Write what was held back: nothing more is coming that could complete a secret."""
        if self._held:
            held, self._held = self._held, ""
            self.stream.write(self.secrets.mask(held))
        self.stream.flush()

    def __getattr__(self, name: str):  # isatty, fileno, encoding, ... of the real stream
        return getattr(self.stream, name)


def masked_within(value: Any, mask: Callable[[str], str]) -> Any:
    """`value` with every string inside it (in dicts and lists, however deep), dict keys too (a
    tool call's argument names are the model's to choose), passed through `mask`."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        masked: dict = {}
        for key, item in value.items():
            masked[_masked_key(key, mask, masked)] = masked_within(item, mask)
        return masked
    if isinstance(value, (list, tuple)):
        return [masked_within(item, mask) for item in value]
    return value


def _masked_key(key: Any, mask: Callable[[str], str], taken: dict) -> Any:
    """The key masked; two keys masked alike stay two (`***`, `***#2`), so no value is lost."""
    if not isinstance(key, str):
        return key
    masked = mask(key)
    if masked not in taken:
        return masked
    number = 2
    while f"{masked}#{number}" in taken:
        number += 1
    return f"{masked}#{number}"
