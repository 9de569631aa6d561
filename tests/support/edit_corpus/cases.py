"""The near-miss corpus: each edit of sources.py written the ways models get old_string wrong.

A case is the file, old_string and new_string as the model wrote them, and what must follow:
the exact file the meant edit gives, or None where the only right answer is a refusal (a
retyped word, a number changed, a block that stands in two places). Every case is a near miss:
its old_string is not in the file as written. traps.py adds the cases written one by one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.edit_corpus.sources import SOURCES


@dataclass(frozen=True)
class Case:
    name: str
    category: str
    file_name: str
    text: str
    old: str
    new: str
    expected: str | None  # None: must be refused, the file unchanged

    @property
    def lands(self) -> bool:
        return self.expected is not None


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _indented(old: str) -> bool:
    return any(line.startswith((" ", "\t")) for line in _lines(old))


def _common_indent(text: str) -> str:
    indents = [re.match(r"[ \t]*", line).group() for line in _lines(text) if line.strip()]
    common = indents[0] if indents else ""
    for indent in indents:
        while not indent.startswith(common):
            common = common[:-1]
    return common


def _dedent(text: str, by: str) -> str:
    return "".join(line[len(by):] if line.startswith(by) else line for line in _lines(text))


def _indent(text: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in _lines(text))


def _tabify(text: str) -> str:
    return re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text, flags=re.M)


def _spacify(text: str) -> str:
    return re.sub(r"^(\t+)", lambda m: "    " * len(m.group(1)), text, flags=re.M)


def _numbered(old: str, text: str, start_at: str | None = None) -> str:
    first = text[: text.index(start_at if start_at is not None else old)].count("\n") + 1
    return "".join(f"{n:>6}\t{line}" for n, line in enumerate(_lines(old), first))


def _doubled_spaces(old: str) -> str:
    """A space inside each line (after its indentation) written twice."""
    out = []
    for line in _lines(old):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        out.append(indent + body.replace(" ", "  ", 1))
    return "".join(out)


def _trailing(old: str) -> str:
    return "".join(line.rstrip("\n") + "  \n" if line.strip() else line for line in _lines(old))


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")


def _curly(text: str) -> str:
    """Straight quotes made curly and ' - ' made an en dash, as a word processor would."""
    text = re.sub(r'"([^"\n]*)"', "\u201c\\1\u201d", text)
    text = re.sub(r"(\w)'(\w)", "\\1\u2019\\2", text)
    return text.replace(" - ", " \u2013 ")


def _retyped(old: str) -> str | None:
    """The longest word cut to its first three letters (quantity -> qua)."""
    words = sorted(set(re.findall(r"[A-Za-z_]{6,}", old)), key=len, reverse=True)
    return re.sub(rf"\b{words[0]}\b", words[0][:3], old, count=1) if words else None


def _renumbered(old: str) -> str | None:
    """The first number changed (10 -> 12, 2 -> 3)."""
    match = re.search(r"\d+", old)
    if not match:
        return None
    changed = str(int(match.group()) + 2) if len(match.group()) > 1 else str((int(match.group()) + 1) % 10)
    return old[: match.start()] + changed + old[match.end():]


def _with_blank_inside(old: str) -> str | None:
    lines = _lines(old)
    blanks = [n for n, line in enumerate(lines) if not line.strip()]
    if blanks:
        return "".join(line for n, line in enumerate(lines) if n != blanks[0])  # a blank line dropped
    if len(lines) < 3:
        return None
    return "".join(lines[:2] + ["\n"] + lines[2:])  # a blank line added


def _kept_trailing(text: str, old: str, new: str) -> tuple[str, str]:
    """The file with trailing spaces on old's lines, and the file the edit leaves: the lines old
    and new share at their start and end keep the file's trailing spaces."""
    spaced_old = _trailing(old)
    old_lines, new_lines = _lines(old), _lines(new)
    most = min(len(old_lines), len(new_lines)) - 1
    head = 0
    while head < most and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while head + tail < most and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    spaced_lines = _lines(spaced_old)
    middle = new_lines[head: len(new_lines) - tail]
    replaced = "".join(spaced_lines[:head] + middle + spaced_lines[len(spaced_lines) - tail:])
    return text.replace(old, spaced_old), text.replace(old, replaced)


def _variants(text: str, old: str, new: str):
    """(category, file text, old, new, expected) for each way this edit can be got wrong."""
    meant = text.replace(old, new, 1)
    if "\n" in old.rstrip("\n"):
        crlf = text.replace("\n", "\r\n")
        yield "line endings: the file's are CRLF", crlf, old, new, meant.replace("\n", "\r\n")
        yield "line endings: the model wrote CRLF", text, old.replace("\n", "\r\n"), new.replace("\n", "\r\n"), meant
    yield "trailing whitespace: the model added it", text, _trailing(old), new, meant
    spaced_text, spaced_meant = _kept_trailing(text, old, new)
    yield "trailing whitespace: the file has it", spaced_text, old, new, spaced_meant
    yield "line numbers copied on old_string", text, _numbered(old, text), new, meant
    yield "line numbers copied on both", text, _numbered(old, text), _numbered(new, text, start_at=old), meant
    if _indented(old):
        common = _common_indent(old)
        if common:
            yield "indentation: block dedented", text, _dedent(old, common), _dedent(new, common), meant
        yield "indentation: block shifted deeper", text, _indent(old, "    "), _indent(new, "    "), meant
        if "\t" in text:
            yield "indentation: spaces for the file's tabs", text, _spacify(old), _spacify(new), meant
        else:
            yield "indentation: spaces for the file's tabs", _tabify(text), old, new, _tabify(meant)
    if re.search(r"\S \S", old):
        yield "runs of spaces inside lines", text, _doubled_spaces(old), new, meant
    yield "blank lines added at the edges", text, "\n" + old + "\n", new, meant
    # the model's own blank lines at the edges of both: the file's text there stays
    yield "blank lines at the edges of both", text, "\n" + old + "\n", "\n" + new + "\n", meant
    yield "blank lines before both", text, "\n" + old, "\n" + new, meant
    yield "blank lines after both", text, old + "\n", new + "\n", meant
    if _indented(old) and _common_indent(old):
        common = _common_indent(old)  # read_file's numbers on old_string; new_string written dedented
        yield "line numbers copied on old_string, new_string dedented", text, _numbered(old, text), \
            _dedent(new, common), meant
    after = text[text.index(old) + len(old):]
    if old.endswith("\n") and after.startswith("\n"):  # read_file's numbered blank line copied after the block
        yield "line numbers copied on old_string and the blank line after it", text, \
            _numbered(old + "\n", text, start_at=old).rstrip("\n"), new, meant
    inside = _with_blank_inside(old)
    if inside:
        yield "blank lines added or dropped inside", text, inside, new, meant
    if "\n" in old.rstrip("\n") or '"' in old:
        yield "escaped twice (JSON in JSON)", text, _escaped(old), _escaped(new), meant
    if _curly(old) != old:
        yield "lookalikes: curly quotes and dashes for plain ones", text, _curly(old), _curly(new), meant
    yield from _combined(text, old, new, meant)
    retyped = _retyped(old)
    if retyped:
        yield "trap: a word retyped", text, retyped, new, None
        yield "trap: a word retyped, and indented differently", text, _indent(retyped, "  "), _indent(new, "  "), None
    renumbered = _renumbered(old)
    if renumbered:
        yield "trap: a number changed", text, renumbered, new, None


def _combined(text: str, old: str, new: str, meant: str):
    """Two slips at once: the steps add up."""
    common = _common_indent(old) if _indented(old) else ""
    if common:
        dedented_old, dedented_new = _dedent(old, common), _dedent(new, common)
        yield "combined: dedented, with trailing whitespace", text, _trailing(dedented_old), dedented_new, meant
        if "\n" in old.rstrip("\n"):
            yield ("combined: the file's line endings are CRLF, the block dedented", text.replace("\n", "\r\n"),
                   dedented_old, dedented_new, meant.replace("\n", "\r\n"))
            yield "combined: escaped twice and dedented", text, _escaped(dedented_old), _escaped(dedented_new), meant
    before = text[: text.index(old)]
    blank_before = before == "" or before.endswith("\n\n")  # then a blank line first would be the file's
    if re.search(r"\S \S", old) and "\n" in old.rstrip("\n") and not blank_before:
        yield "combined: runs of spaces and a blank line at the edge", text, "\n" + _doubled_spaces(old), new, meant


def generated_cases() -> list[Case]:
    cases = []
    for file_name, (text, edits) in SOURCES.items():
        for number, (old, new) in enumerate(edits, 1):
            for category, file_text, wrong_old, wrong_new, expected in _variants(text, old, new):
                if wrong_old in file_text:
                    continue  # not a near miss: the exact match handles it
                name = f"{file_name} edit {number}: {category}"
                cases.append(Case(name, category, file_name, file_text, wrong_old, wrong_new, expected))
    return cases


def all_cases() -> list[Case]:
    from support.edit_corpus.traps import TRAPS

    return generated_cases() + TRAPS
