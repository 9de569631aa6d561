"""/diff's lines from an undo journal: painted on a colour terminal, each file against its first state."""

from __future__ import annotations

from ayder_cli.storage.undo import UndoJournal
from ayder_cli.terminal.session_diff import session_diff
from ayder_cli.terminal.style import GREEN, RED


def test_the_diff_is_coloured_when_asked_and_names_a_removed_file(project):
    journal = UndoJournal()
    kept, gone = project / "kept.txt", project / "gone.txt"
    for path, old, new in ((kept, b"old\n", b"new\n"), (gone, b"was here\n", b"changed\n")):
        path.write_bytes(old)
        journal.record(path, old, 0o644, "write_file", display=path.name, new=new)
        path.write_bytes(new)
    gone.unlink()
    lines = session_diff(journal, color=True)
    assert f"{RED}-old" in "\n".join(lines) and f"{GREEN}+new" in "\n".join(lines)
    assert any("gone.txt: removed since" in line for line in lines)
    assert lines[-1] == "2 files changed in this session (/undo takes changes back)"
