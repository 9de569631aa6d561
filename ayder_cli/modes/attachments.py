"""`@path` in a prompt: the file's text attached to the message, as read_file would show it.

Only an `@` that starts a word counts, so an address such as a@b.c is left alone;
`@@word` sends `@word` as it is. The file is read through read_file, so it
must be a text file inside the project (links and `..` resolved first) and is
cut as a read is; a file that cannot be read is a one-line error and the
message is not sent. In a multi-line message (a block, often pasted code
with decorators such as @property) a word that names no file stays as it is.
"""

from __future__ import annotations

import re
from typing import Callable

from ayder_cli.errors import AyderError, ToolError
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.files import read_file

AT_WORD = re.compile(r"(?<!\S)@(\S+)")
TRAILING = ".,;:!?)]}'\""  # punctuation after a path in a sentence: "look at @app.py."
ESCAPE_HINT = "@ at the start of a word attaches a file; write @@word to send @word as it is"


def attach_files(text: str, context: ToolContext, said: Callable[[str], None]) -> str:
    """The message with each `@path`'s file appended; `said(line)` for each file attached."""
    pasted = "\n" in text
    attached: list[str] = []
    parts: list[str] = []

    def replace(match: re.Match) -> str:
        word = match.group(1)
        if word.startswith("@"):
            return word  # @@word: the word as it is, one @ less
        path = _existing(word, context)
        if pasted and not (context.root / path).is_file():
            return match.group(0)  # @property in pasted code, not a file
        if path not in attached:
            try:
                result = read_file(context, {"file_path": path})
            except ToolError as exc:
                raise AyderError(f"cannot attach @{path}: {exc}", ESCAPE_HINT) from None
            attached.append(path)
            parts.append(f"[{path}, attached by the user]\n{result.output}")
            said(f"attached {path} ({result.summary})")
        return match.group(0)

    message = AT_WORD.sub(replace, text)
    return "\n\n".join([message, *parts])


def _existing(word: str, context: ToolContext) -> str:
    """The path a word names: as written, or without the punctuation after it when that is what exists."""
    stripped = word.rstrip(TRAILING)
    if stripped and stripped != word and not (context.root / word).exists() and (context.root / stripped).exists():
        return stripped
    return word
