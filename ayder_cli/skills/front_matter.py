"""The YAML front matter of a SKILL.md or a command file, read by a small parser of our own.

It reads the subset skills use: top-level `key: value` lines whose value is plain, single- or
double-quoted (over several lines too), or a `|` / `>` block; an indented mapping (`metadata:`) or a
list is kept as raw text. Other keys are tolerated, so a skill written for another agent still loads.
"""

from __future__ import annotations

import json
import re

FENCE = "---"
KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*))?$")
BLOCK = re.compile(r"^([|>])([+-]?)\d?\s*(?:#.*)?$")


class FrontMatterError(ValueError):
    """What is wrong with the front matter, in a few words."""


def split(text: str) -> tuple[dict[str, str], str] | None:
    """(the front matter's values, the body below it); None when the text has no front matter.
    FrontMatterError when it opens one and never closes it, or a line is not `key: value`."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != FENCE:
        return None
    for end in range(1, len(lines)):
        if lines[end].rstrip() in (FENCE, "..."):
            return parse(lines[1:end]), "\n".join(lines[end + 1:]).strip("\n")
    raise FrontMatterError("its front matter has no closing --- line")


def parse(lines: list[str]) -> dict[str, str]:
    """The top-level keys and their values as text."""
    values: dict[str, str] = {}
    key: str | None = None  # the key being read
    raw, more = "", list[str]()  # the text after its colon, its indented lines
    for number, line in enumerate(lines, 2):
        if key is not None and (not line.strip() or line[:1] in (" ", "\t")):
            more.append(line)
            continue
        if not line.strip() or line.startswith("#"):
            continue
        found = KEY.match(line.rstrip())
        if found is None:
            raise FrontMatterError(f"line {number} of its front matter is not `key: value`")
        if key is not None:
            values[key] = value(key, raw, more)
        key, raw, more = found[1], (found[2] or "").strip(), []
    if key is not None:
        values[key] = value(key, raw, more)
    return values


def value(key: str, raw: str, more: list[str]) -> str:
    """One key's value as text: a block, a quoted or a plain scalar, folded as YAML folds them."""
    block = BLOCK.match(raw)
    if block:
        return block_text(more, folded=block[1] == ">", keep_end=block[2] == "+")
    if raw[:1] == '"':
        joined = fold([raw, *(line.strip() for line in more)])
        try:
            text = json.loads(joined)  # YAML's double-quoted escapes are JSON's and a few more
        except ValueError:
            raise FrontMatterError(f"the value of {key} is a double-quoted string that does not end") from None
        return str(text)
    if raw[:1] == "'":
        joined = fold([raw, *(line.strip() for line in more)])
        if len(joined) < 2 or not joined.endswith("'"):
            raise FrontMatterError(f"the value of {key} is a single-quoted string that does not end")
        return joined[1:-1].replace("''", "'")
    if not raw:  # a mapping or a list below the key (metadata:, allowed-tools as a list): kept raw
        return "\n".join(line for line in more if line.strip())
    return fold([re.sub(r"\s+#.*$", "", raw), *(line.strip() for line in more)])


def fold(lines: list[str]) -> str:
    """Lines joined by spaces, a blank line kept as a newline: how YAML folds a scalar over lines."""
    parts: list[str] = []
    for line in lines:
        if not line:
            parts.append("\n")
        elif parts and parts[-1] != "\n":
            parts.append(" " + line)
        else:
            parts.append(line)
    return "".join(parts).strip()


def block_text(lines: list[str], *, folded: bool, keep_end: bool) -> str:
    """A `|` (lines kept) or `>` (lines folded) block, its common indentation removed."""
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    body = [line[indent:] for line in lines]
    while body and not body[-1].strip() and not keep_end:
        body.pop()
    return fold([line.strip() for line in body]) if folded else "\n".join(body)
