"""new_string made to fit where a forgiving match landed: the file's indentation and its lookalike characters.

The model's new text was written against its own idea of the file; where the match forgave a
difference (a block shifted, tabs for spaces, straight quotes for curly ones), the same
difference is applied to the new text so the file keeps its own style.
"""

from __future__ import annotations

from dataclasses import dataclass

from ayder_cli.matching.edit_text import ELLIPSIS, LOOKALIKES, canon, leading, width
from ayder_cli.wording import counted

TAB_SIZES = (4, 8, 2)  # a tab is read as this many columns, the first that makes the shift constant


@dataclass(frozen=True)
class Shift:
    """How the file indents the matched block against how old_string did."""

    columns: int  # the file's indentation minus old_string's
    tab: int
    tabs: bool  # the file's block indents with tabs
    exact: dict[str, str]  # old_string's indentation -> the file's, as seen on the matched lines

    def apply(self, line: str) -> str:
        if not line.strip(" \t"):
            return line
        indent = leading(line)
        if indent in self.exact:
            return self.exact[indent] + line[len(indent):]
        columns = max(0, width(indent, self.tab) + self.columns)
        fitted = "\t" * (columns // self.tab) + " " * (columns % self.tab) if self.tabs else " " * columns
        return fitted + line[len(indent):]

    def describe(self, old_indent: str, file_indent: str) -> str:
        return (f"the file indents this block with {_spoken(file_indent)} where old_string has "
                f"{_spoken(old_indent)}; new text re-indented")


def _spoken(indent: str) -> str:
    if not indent:
        return "no indentation"
    tabs, spaces = indent.count("\t"), indent.count(" ")
    parts = [counted(tabs, "tab")] if tabs else []
    parts += [counted(spaces, "space")] if spaces else []
    return " and ".join(parts)


def shift_of(pairs: list[tuple[str, str]]) -> Shift | None:
    """The one shift that takes each old line's indentation to its file line's, or None when the
    block was not shifted as a whole. pairs: (old line, file line), blank lines left out."""
    pairs = [(o, f) for o, f in pairs if o.strip(" \t") and f.strip(" \t")]
    exact = {}
    for old, found in pairs:
        exact.setdefault(leading(old), leading(found))
    tabs = any("\t" in indent for indent in exact.values())
    if all(leading(o) == leading(f) for o, f in pairs):
        return Shift(0, 4, tabs, exact)
    for tab in TAB_SIZES:
        shifts = {width(leading(f), tab) - width(leading(o), tab) for o, f in pairs}
        if len(shifts) == 1:
            return Shift(shifts.pop(), tab, tabs, exact)
    return None


# --- lookalike characters

_PLAIN_FOR = {**LOOKALIKES, ELLIPSIS: "."}


def aligned_characters(old_line: str, file_line: str) -> list[tuple[str, str]]:
    """(old character, file character) for each place a lookalike or its plain twin stands, in two
    lines that are equal once lookalikes are folded and spaces collapsed."""
    old_key, old_pos = _stripped_canon(old_line)
    file_key, file_pos = _stripped_canon(file_line)
    if old_key != file_key:
        return []
    plain = set(_PLAIN_FOR.values())
    found = []
    for k, char in enumerate(old_key):
        if char in plain and char != " ":
            found.append((old_line[old_pos[k]], file_line[file_pos[k]]))
    return found


def _stripped_canon(line: str) -> tuple[str, list[int]]:
    text, pos = canon(line, lookalikes=True)
    if text.startswith(" "):
        text, pos = text[1:], pos[1:]
    if text.endswith(" "):
        text, pos = text[:-1], pos[:-1]
    return text, pos


@dataclass(frozen=True)
class Lookalikes:
    """What the file writes for what old_string wrote, where the match read one for the other."""

    seen: dict[str, set[str]]  # old_string's character -> the file's characters at the same places

    @classmethod
    def of(cls, alignments: list[tuple[str, str]]) -> "Lookalikes":
        seen: dict[str, set[str]] = {}
        for old, found in alignments:
            seen.setdefault(old, set()).add(found)
        return cls(seen)

    def spoken(self) -> str:
        """'“ ” where old_string has "' for each character read as another."""
        parts = []
        for old, founds in sorted(self.seen.items()):
            other = sorted(found for found in founds if found != old)
            if other:
                parts.append(f"{' '.join(_visible(f) for f in other)} where old_string has {_visible(old)}")
        return "; ".join(parts)

    def apply(self, line: str) -> str:
        """new_string's line with old_string's characters replaced by the file's where the file
        always used one (or, for quotes, an opening and a closing one) in their place."""
        for old, founds in self.seen.items():
            if founds == {old} or old == " ":
                continue  # a plain space never becomes a lookalike: spaces are everywhere
            if old == "." and founds == {ELLIPSIS}:
                line = line.replace("...", ELLIPSIS)
            elif old == ELLIPSIS and founds == {"."}:
                line = line.replace(ELLIPSIS, "...")
            elif len(founds) == 1:
                line = line.replace(old, next(iter(founds)))
            elif old == '"' and founds == {"\u201c", "\u201d"}:
                line = _paired(line, '"', "\u201c", "\u201d")
            elif old == "'" and founds <= {"\u2018", "\u2019"}:
                line = _paired(line, "'", "\u2018", "\u2019")
        return line


def _visible(char: str) -> str:
    return repr(char) if char.isspace() else char


def _paired(line: str, plain: str, opening: str, closing: str) -> str:
    """Straight quotes made curly: an apostrophe inside a word closes, the rest open and close in turn."""
    out, is_open = [], False
    for index, char in enumerate(line):
        if char != plain:
            out.append(char)
            continue
        inside_word = 0 < index < len(line) - 1 and line[index - 1].isalnum() and line[index + 1].isalnum()
        if plain == "'" and inside_word:
            out.append(closing)
            continue
        out.append(closing if is_open else opening)
        is_open = not is_open
    return "".join(out)
