"""/diff: each file ayder changed in this session, as a unified diff against what it held before
the session's first change to it (the undo journal keeps that), bounded and painted as the
confirmation's diff is."""

from __future__ import annotations

from ayder_cli.storage.binary import looks_binary
from ayder_cli.storage.undo import UndoError, UndoJournal
from ayder_cli.terminal.confirm import DIFF_STYLES, painted_diff, painter
from ayder_cli.terminal.safe_text import safe_text
from ayder_cli.tools.spec import Preview
from ayder_cli.wording import counted

MAX_FILES = 20  # files shown as diffs; the rest are named
MAX_READ_BYTES = 2 * 1024 * 1024  # a file bigger than this now is named with its size, not diffed


def session_diff(journal: UndoJournal, color: bool) -> list[str]:
    """The lines /diff prints, painted: a diff or a one-line note per changed file, then how many; or
    'no changes'. File names are the project's text: made safe before they are painted."""
    painted = painter(color)

    def paint(text: str, *styles: str) -> str:
        return painted(safe_text(text), *styles)

    lines: list[str] = []
    changed, named = 0, []
    for entry in journal.first_changes():
        try:
            before = journal.content_before(entry)
        except UndoError as exc:
            lines.append(paint(f"{entry.display}: changed; {exc.message}", *DIFF_STYLES["note"]))
            changed += 1
            continue
        now = _read_now(entry.path)
        if now == before:
            continue  # undone, or changed back: nothing to show
        changed += 1
        if changed > MAX_FILES:
            named.append(entry.display)
            continue
        if isinstance(now, str):
            lines.append(paint(f"{entry.display}: {now}", *DIFF_STYLES["note"]))
        elif now is None:
            lines.append(paint(f"{entry.display}: removed since", *DIFF_STYLES["note"]))
        elif looks_binary(now) or (before is not None and looks_binary(before)):
            lines.append(paint(f"{entry.display}: a binary file, changed", *DIFF_STYLES["note"]))
        else:
            old = None if before is None else before.decode("utf-8", "replace")
            lines += painted_diff(Preview(entry.display, old, now.decode("utf-8", "replace")), paint)
    if not changed:
        return ["no changes: no file ayder changed in this session differs from before it"]
    if named:
        lines.append(safe_text(f"also changed: {', '.join(named)}"))
    lines.append(f"{counted(changed, 'file')} changed in this session (/undo takes changes back)")
    return lines


def _read_now(path) -> bytes | str | None:
    """The file's bytes now; None: it is gone; a str: why it is not diffed."""
    try:
        if path.is_symlink():
            return "now a symbolic link; not followed"
        size = path.stat().st_size
        if size > MAX_READ_BYTES:
            return f"changed; now {size:,} bytes, too big to diff here"
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read now ({exc.strerror or exc})"
