"""The diagnostics an edit introduced: those of the file after it that the file before it did not have.

A diagnostic before the edit still counts as the same one after it when it says the same
(severity, code, message) on the line the unchanged text moved it to, or, failing that, on any
line (an edit above an old error moves it; an edited line keeps its old complaint). Only errors
and warnings count; hints and information are not worth a small model's attention.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from ayder_cli.wording import counted

ERROR, WARNING = 1, 2
SEVERITY_WORDS = {ERROR: "error", WARNING: "warning"}
MAX_MESSAGE_CHARS = 200  # one diagnostic's line: some servers write paragraphs


@dataclass(frozen=True)
class Diagnostic:
    line: int  # 1-based, as read_file numbers lines
    severity: int
    message: str
    code: str

    @property
    def key(self) -> tuple[int, str, str]:
        return self.severity, self.code, self.message

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "severity": SEVERITY_WORDS[self.severity], "message": self.message,
                "code": self.code or None}


def read_diagnostics(items: Iterable[dict[str, Any]]) -> list[Diagnostic]:
    """The errors and warnings of an LSP Diagnostic[] (a missing severity is an error), in line order."""
    found = []
    for item in items:
        severity = item.get("severity") or ERROR
        start = (item.get("range") or {}).get("start") or {}
        line = start.get("line")
        message = item.get("message")
        if severity not in SEVERITY_WORDS or not isinstance(line, int) or not isinstance(message, str):
            continue
        code = item.get("code")
        code = str(code) if isinstance(code, (str, int)) and not isinstance(code, bool) else ""
        text = " ".join(message.split())
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS - 1] + "…"
        found.append(Diagnostic(line + 1, severity, text, code))
    return sorted(set(found), key=lambda d: (d.line, d.severity, d.message))


def introduced(before: list[Diagnostic], after: list[Diagnostic], old: str, new: str) -> list[Diagnostic]:
    """The diagnostics of `after` (the file `new`) that none of `before` (the file `old`) accounts for."""
    moved = _moved_lines(old, new)
    unmatched = list(after)
    left = Counter(d.key for d in before)
    at = Counter((d.key, moved.get(d.line)) for d in before)
    still = []
    for diagnostic in unmatched:  # first the old ones found on the line their text moved to
        if at[(diagnostic.key, diagnostic.line)] > 0 and left[diagnostic.key] > 0:
            at[(diagnostic.key, diagnostic.line)] -= 1
            left[diagnostic.key] -= 1
        else:
            still.append(diagnostic)
    new_ones = []
    for diagnostic in still:  # then the same complaint anywhere else
        if left[diagnostic.key] > 0:
            left[diagnostic.key] -= 1
        else:
            new_ones.append(diagnostic)
    return new_ones


def _moved_lines(old: str, new: str) -> dict[int, int]:
    """Old line number -> new line number, for the lines above and below the part the edit changed
    (an edit is one change, mostly; a line-by-line diff of a big file would cost more than the server)."""
    before, after = old.splitlines(), new.splitlines()
    same = min(len(before), len(after))
    top = next((i for i in range(same) if before[i] != after[i]), same)
    bottom = 0
    while bottom < same - top and before[-1 - bottom] == after[-1 - bottom]:
        bottom += 1
    moved = {line: line for line in range(1, top + 1)}
    shift = len(after) - len(before)
    moved.update({line: line + shift for line in range(len(before) - bottom + 1, len(before) + 1)})
    return moved


def excerpt(path: str, server: str, found: list[Diagnostic], limit: int) -> str:
    """What the model is sent: a head line, then `path:LINE: severity: message [code]` lines, whole
    lines within `limit` characters, a last line saying how many were left out."""
    errors = sum(d.severity == ERROR for d in found)
    warnings = len(found) - errors
    counts = ", ".join([counted(errors, "error")] * bool(errors) + [counted(warnings, "warning")] * bool(warnings))
    head = f"new in {path} after this edit ({server}): {counts}"
    lines = [f"{path}:{d.line}: {SEVERITY_WORDS[d.severity]}: {d.message}" + (f" [{d.code}]" if d.code else "")
             for d in found]
    kept = [head]
    for index, line in enumerate(lines):
        rest = len(lines) - index - 1
        marker = f"\n[... {rest} more]" if rest else ""
        if len("\n".join([*kept, line])) + len(marker) > limit:
            kept.append(f"[... {len(lines) - index} more]")
            break
        kept.append(line)
    text = "\n".join(kept)
    return text if len(text) <= limit else text[:limit - 1] + "…"

