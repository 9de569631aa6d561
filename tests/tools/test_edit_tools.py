"""The write tools, atomic writes and /undo: real files in a temporary project."""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import OUTSIDE_SECRET
from support.harness import server_args
from support.tool_calls import call_tool

from ayder_cli.repl.commands import CommandResult, run_command
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.modes.entries import command_context
from ayder_cli.config.schema import Config
from ayder_cli.session.services import build_session
from ayder_cli.calls import ToolCall
from ayder_cli.tools import ToolContext, ToolError, ToolRegistry
from ayder_cli.storage.atomic import TEMP_PREFIX, atomic_write
from ayder_cli.tools.edit import DELETE_LINE, EDIT_TOOLS, INSERT_LINE, REPLACE_STRING, WRITE_FILE
from ayder_cli.tools.executor import Answer, Decision, Permissions, ToolExecutor
from ayder_cli.storage.undo import UndoError, UndoJournal

SECRET = OUTSIDE_SECRET + "\n"
LINES = "one\ntwo\nthree\n"


@pytest.fixture
def context(root) -> ToolContext:
    return ToolContext(root, journal=UndoJournal())


@pytest.fixture
def lines_file(root) -> Path:
    path = root / "lines.txt"
    path.write_text(LINES)
    return path


def executor(context: ToolContext, granted=("r", "w"), confirmer=None) -> ToolExecutor:
    return ToolExecutor(ToolRegistry(EDIT_TOOLS), context, Permissions(set(granted)), confirmer=confirmer)


def temp_files(directory: Path) -> list[Path]:
    return [path for path in directory.rglob("*") if path.name.startswith(TEMP_PREFIX)]


def snapshot(directory: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(directory)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(directory.rglob("*"))}


# --- write_file


def test_write_file_creates_a_file_and_its_directories(context, root):
    result = call_tool(context, "write_file", file_path="src/pkg/new.py", content="a = 1\nb = 2\n")
    assert result.ok, result.error
    assert (root / "src/pkg/new.py").read_text() == "a = 1\nb = 2\n"
    assert result.summary == "wrote 2 lines"
    assert "src/pkg/new.py" in result.output and "a = 1" not in result.output  # a confirmation, not the file


def test_write_file_overwrites_with_exactly_the_text_given(context, root):
    (root / "a.txt").write_text("old\n")
    result = call_tool(context, "write_file", file_path="a.txt", content="new\r\nno newline at the end")
    assert result.ok, result.error
    assert (root / "a.txt").read_bytes() == b"new\r\nno newline at the end"
    assert result.summary == "wrote 2 lines"


def test_write_file_keeps_the_mode_of_an_existing_file(context, root):
    script = root / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    assert call_tool(context, "write_file", file_path="run.sh", content="echo new\n").ok
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "echo new\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_write_file_keeps_the_owner_of_an_existing_file(context, root):
    shared = root / "shared.txt"
    shared.write_text("old\n")
    os.chown(shared, 4321, 4321)
    assert call_tool(context, "write_file", file_path="shared.txt", content="new\n").ok
    assert (shared.stat().st_uid, shared.stat().st_gid) == (4321, 4321)


def test_write_file_gives_a_new_file_the_usual_mode(context, root):
    old_umask = os.umask(0o022)
    try:
        assert call_tool(context, "write_file", file_path="new.txt", content="x\n").ok
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((root / "new.txt").stat().st_mode) == 0o644  # not mkstemp's 0o600


def test_write_file_with_the_same_content_changes_nothing(context, root):
    (root / "same.txt").write_text("same\n")
    result = call_tool(context, "write_file", file_path="same.txt", content="same\n")
    assert result.ok and "nothing changed" in result.output
    assert context.journal.entries() == []


def test_write_file_through_a_symlink_inside_the_root_writes_the_target(context, root):
    (root / "real.txt").write_text("old\n")
    (root / "link.txt").symlink_to("real.txt")
    assert call_tool(context, "write_file", file_path="link.txt", content="new\n").ok
    assert (root / "link.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


@pytest.mark.parametrize("path", ["docs", ".", "docs/.."])
def test_write_file_refuses_a_directory(context, root, path):
    (root / "docs").mkdir()
    result = call_tool(context, "write_file", file_path=path, content="x")
    assert not result.ok and "is a directory" in result.error
    assert temp_files(root) == []


def test_write_file_under_a_file_says_which_parent_is_a_file(context, root):
    (root / "notes").write_text("a file\n")
    result = call_tool(context, "write_file", file_path="notes/today.txt", content="x")
    assert not result.ok and "notes" in result.error and "not a directory" in result.error
    assert (root / "notes").read_text() == "a file\n"


# --- replace_string


def test_replace_string_replaces_one_occurrence(context, lines_file):
    result = call_tool(context, "replace_string", file_path="lines.txt", old_string="two\n", new_string="TWO\n2\n")
    assert result.ok, result.error
    assert lines_file.read_text() == "one\nTWO\n2\nthree\n"
    assert result.summary == "replaced 1 occurrence"
    assert "line 2" in result.output


def test_replace_string_missing_text_names_the_nearest_line(context, root):
    (root / "app.py").write_text("import os\n\ndef main(argv):\n    return 0\n")
    result = call_tool(context, "replace_string", file_path="app.py", old_string="def main(args):", new_string="x")
    assert not result.ok
    assert "not found in app.py" in result.error
    assert "line 3" in result.error and "def main(argv):" in result.error
    assert (root / "app.py").read_text().startswith("import os")


def test_replace_string_several_occurrences_need_replace_all(context, root):
    path = root / "dup.txt"
    path.write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    result = call_tool(context, "replace_string", file_path="dup.txt", old_string="x = 1", new_string="x = 3")
    assert not result.ok
    assert "3 times" in result.error and "lines 1, 3, 4" in result.error and "replace_all" in result.error
    assert path.read_text() == "x = 1\ny = 2\nx = 1\nx = 1\n"

    result = call_tool(context, "replace_string", file_path="dup.txt", old_string="x = 1", new_string="x = 3",
                  replace_all=True)
    assert result.ok and result.summary == "replaced 3 occurrences"
    assert path.read_text() == "x = 3\ny = 2\nx = 3\nx = 3\n"


@pytest.mark.parametrize("old, new, expected", [("", "x", "empty"), ("two", "two", "the same")])
def test_replace_string_refuses_a_change_that_is_no_change(context, lines_file, old, new, expected):
    result = call_tool(context, "replace_string", file_path="lines.txt", old_string=old, new_string=new)
    assert not result.ok and expected in result.error
    assert lines_file.read_text() == LINES


def test_replace_string_matches_a_crlf_file_and_keeps_its_endings(context, root):
    path = root / "win.txt"
    path.write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    result = call_tool(context, "replace_string", file_path="win.txt", old_string="alpha\nbeta\n", new_string="A\nB\n")
    assert result.ok, result.error
    assert path.read_bytes() == b"A\r\nB\r\ngamma\r\n"


def test_replace_string_needs_an_existing_file(context, root):
    result = call_tool(context, "replace_string", file_path="nope.txt", old_string="a", new_string="b")
    assert not result.ok and "no such file: nope.txt" in result.error
    assert not (root / "nope.txt").exists()


# --- insert_line


@pytest.mark.parametrize("line, expected", [
    (1, "new\none\ntwo\nthree\n"),
    (2, "one\nnew\ntwo\nthree\n"),
    (4, "one\ntwo\nthree\nnew\n"),  # line count + 1 appends
])
def test_insert_line_goes_before_the_line_given(context, lines_file, line, expected):
    result = call_tool(context, "insert_line", file_path="lines.txt", line_number=line, content="new")
    assert result.ok, result.error
    assert lines_file.read_text() == expected
    assert result.summary == "inserted 1 line"


def test_insert_line_several_lines(context, lines_file):
    result = call_tool(context, "insert_line", file_path="lines.txt", line_number=3, content="a\nb\n")
    assert result.ok and result.summary == "inserted 2 lines"
    assert lines_file.read_text() == "one\ntwo\na\nb\nthree\n"


@pytest.mark.parametrize("line", [0, 5, -1])
def test_insert_line_out_of_range_gives_the_line_count(context, lines_file, line):
    result = call_tool(context, "insert_line", file_path="lines.txt", line_number=line, content="x")
    assert not result.ok
    assert "has 3 lines" in result.error and "1 to 4" in result.error
    assert lines_file.read_text() == LINES


def test_insert_line_appends_to_a_file_without_a_final_newline(context, root):
    path = root / "open.txt"
    path.write_text("one\ntwo")
    assert call_tool(context, "insert_line", file_path="open.txt", line_number=3, content="three").ok
    assert path.read_text() == "one\ntwo\nthree\n"


def test_insert_line_into_an_empty_file_and_a_crlf_file(context, root):
    (root / "empty.txt").write_text("")
    assert call_tool(context, "insert_line", file_path="empty.txt", line_number=1, content="first").ok
    assert (root / "empty.txt").read_text() == "first\n"
    (root / "win.txt").write_bytes(b"a\r\nc\r\n")
    assert call_tool(context, "insert_line", file_path="win.txt", line_number=2, content="b1\nb2").ok
    assert (root / "win.txt").read_bytes() == b"a\r\nb1\r\nb2\r\nc\r\n"


# --- delete_line


@pytest.mark.parametrize("line, expected", [(1, "two\nthree\n"), (2, "one\nthree\n"), (3, "one\ntwo\n")])
def test_delete_line_removes_that_line(context, lines_file, line, expected):
    result = call_tool(context, "delete_line", file_path="lines.txt", line_number=line)
    assert result.ok, result.error
    assert lines_file.read_text() == expected
    assert result.summary == f"deleted line {line}"


def test_delete_line_out_of_range_gives_the_line_count(context, root, lines_file):
    result = call_tool(context, "delete_line", file_path="lines.txt", line_number=4)
    assert not result.ok and "has 3 lines" in result.error and "1 to 3" in result.error
    (root / "empty.txt").write_text("")
    result = call_tool(context, "delete_line", file_path="empty.txt", line_number=1)
    assert not result.ok and "has 0 lines" in result.error
    assert lines_file.read_text() == LINES


# --- files the write tools leave alone


EVERY_TOOL = [
    ("write_file", {"content": "x\n"}),
    ("replace_string", {"old_string": "a", "new_string": "b"}),
    ("insert_line", {"line_number": 1, "content": "x"}),
    ("delete_line", {"line_number": 1}),
]
TOOL_IDS = [name for name, _ in EVERY_TOOL]


@pytest.mark.parametrize("name, arguments", EVERY_TOOL, ids=TOOL_IDS)
def test_binary_files_are_refused(context, root, name, arguments):
    blob = b"a\x00b\nPNG\x00\x01\x02\n"
    (root / "image.bin").write_bytes(blob)
    result = call_tool(context, name, file_path="image.bin", **arguments)
    assert not result.ok and "binary" in result.error
    assert (root / "image.bin").read_bytes() == blob


@pytest.mark.parametrize("name, arguments", EVERY_TOOL, ids=TOOL_IDS)
@pytest.mark.parametrize("path", [".git/config", ".git/hooks/post-commit", "sub/.git/HEAD"])
def test_git_directories_are_never_written(context, root, name, arguments, path):
    for git in (root / ".git", root / "sub" / ".git"):
        (git / "hooks").mkdir(parents=True)
        (git / "config").write_text("a\n")
        (git / "HEAD").write_text("a\n")
    before = snapshot(root)
    result = call_tool(context, name, file_path=path, **arguments)
    assert not result.ok and ".git is never written" in result.error
    assert snapshot(root) == before


@pytest.fixture
def escapes(root, outside) -> dict[str, str]:
    """Paths that try to leave the project, each naming something outside it."""
    (root / "out_dir").symlink_to(outside, target_is_directory=True)
    (root / "out_file.txt").symlink_to(outside / "secret.txt")
    return {
        "dotdot": "../outside/secret.txt",
        "dotdot_new": "../outside/new.txt",
        "absolute": str(outside / "secret.txt"),
        "symlinked_dir": "out_dir/secret.txt",
        "symlinked_dir_new": "out_dir/new.txt",
        "symlinked_file": "out_file.txt",
    }


@pytest.mark.parametrize("name, arguments", EVERY_TOOL, ids=TOOL_IDS)
@pytest.mark.parametrize("which", ["dotdot", "dotdot_new", "absolute", "symlinked_dir", "symlinked_dir_new",
                                   "symlinked_file"])
def test_paths_outside_the_root_are_refused(context, root, outside, escapes, name, arguments, which):
    before = snapshot(outside)
    args = {"file_path": escapes[which], **arguments}
    if name == "replace_string":
        args["old_string"] = "TOP"  # text the outside file holds
    result = call_tool(context, name, **args)
    assert not result.ok and "outside the project root" in result.error
    assert snapshot(outside) == before
    assert (outside / "secret.txt").read_text() == SECRET
    assert context.journal.entries() == []


@pytest.mark.parametrize("spec", EDIT_TOOLS, ids=[spec.name for spec in EDIT_TOOLS])
def test_etc_passwd_is_refused_before_anything_is_asked(context, spec):
    arguments = {"file_path": "/etc/passwd", "content": "x", "old_string": "root", "new_string": "x",
                 "line_number": 1, "start_line": 1, "end_line": 1}
    arguments = {key: value for key, value in arguments.items() if key in spec.parameters["properties"]}
    with pytest.raises(ToolError, match="outside the project root"):
        spec.preview(context, arguments)
    asked = Recorder(Decision.YES)
    result = executor(context, granted=("r",), confirmer=asked).run(ToolCall("c", spec.name, arguments))
    assert not result.ok and "outside the project root" in result.error and asked.requests == []


def test_only_write_file_changes_a_file_that_is_not_utf8(context, root):
    path = root / "latin1.txt"
    path.write_bytes("café\n".encode("latin-1"))
    result = call_tool(context, "replace_string", file_path="latin1.txt", old_string="caf", new_string="bar")
    assert not result.ok and "not UTF-8" in result.error
    assert call_tool(context, "write_file", file_path="latin1.txt", content="café\n").ok
    assert path.read_text(encoding="utf-8") == "café\n"
    context.journal.undo()
    assert path.read_bytes() == "café\n".encode("latin-1")


# --- the pipeline: aliases, paths, preview


@pytest.mark.parametrize("alias", ["path", "filepath", "file", "filename", "target_file"])
def test_path_aliases_reach_the_tool(context, root, alias):
    result = call_tool(context, "write_file", **{alias: "aliased.txt", "text": "hi\n"})
    assert result.ok, result.error
    assert (root / "aliased.txt").read_text() == "hi\n"


def test_an_absolute_path_inside_the_root_is_accepted(context, root, lines_file):
    result = call_tool(context, "delete_line", absolute_path=str(root / "lines.txt"), line="2")
    assert result.ok, result.error
    assert lines_file.read_text() == "one\nthree\n"


@pytest.mark.parametrize("old_name, new_name", [("old", "new"), ("old_str", "new_str"), ("search", "replace")])
def test_replace_string_aliases(context, lines_file, old_name, new_name):
    result = call_tool(context, "replace_string", path="lines.txt", **{old_name: "three", new_name: "3"})
    assert result.ok, result.error
    assert lines_file.read_text() == "one\ntwo\n3\n"


@pytest.mark.parametrize("line_name", ["line", "line_no"])
def test_line_number_aliases(context, lines_file, line_name):
    assert call_tool(context, "insert_line", file="lines.txt", text="zero", **{line_name: 1}).ok
    assert lines_file.read_text() == "zero\n" + LINES


def test_unknown_arguments_are_reported_and_nothing_is_written(context, lines_file):
    result = call_tool(context, "write_file", file_path="lines.txt", content="x", mode="append")
    assert not result.ok and "unknown argument 'mode'" in result.error
    assert lines_file.read_text() == LINES


class Recorder:
    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.requests = []

    def confirm(self, request):
        self.requests.append((request, request.preview and Path(request.preview.path)))
        return Answer(self.decision)


def test_the_preview_shows_the_change_before_anything_is_written(context, root, lines_file):
    recorder = Recorder(Decision.NO)
    ask = executor(context, granted=("r",), confirmer=recorder)
    result = ask.run(ToolCall("c", "replace_string", {"path": str(lines_file), "old": "two", "new": "2"}))
    assert not result.ok and "denied by the user" in result.error
    [(request, _)] = recorder.requests
    assert request.preview.path == "lines.txt"
    assert (request.preview.old, request.preview.new) == (LINES, "one\n2\nthree\n")
    assert lines_file.read_text() == LINES  # asked, refused: untouched
    assert temp_files(root) == [] and context.journal.entries() == []

    recorder.decision = Decision.YES
    assert ask.run(ToolCall("c", "replace_string", {"path": "lines.txt", "old": "two", "new": "2"})).ok
    assert lines_file.read_text() == "one\n2\nthree\n"


def test_a_preview_of_a_new_file_has_no_old_text(context, root):
    preview = WRITE_FILE.preview(context, {"file_path": "fresh.txt", "content": "hello\n"})
    assert (preview.path, preview.old, preview.new) == ("fresh.txt", None, "hello\n")
    assert not (root / "fresh.txt").exists()


def test_a_write_that_cannot_happen_is_refused_without_asking(context, lines_file):
    recorder = Recorder(Decision.YES)
    result = executor(context, granted=("r",), confirmer=recorder).run(
        ToolCall("c", "replace_string", {"file_path": "lines.txt", "old_string": "four", "new_string": "4"}))
    assert not result.ok and "not found" in result.error
    assert recorder.requests == []


@pytest.mark.parametrize("spec, arguments", [
    (WRITE_FILE, {"content": "new\n"}),
    (REPLACE_STRING, {"old_string": "two", "new_string": "2"}),
    (INSERT_LINE, {"line_number": 2, "content": "x"}),
    (DELETE_LINE, {"line_number": 2}),
], ids=TOOL_IDS)
def test_preview_and_run_agree(context, lines_file, spec, arguments):
    preview = spec.preview(context, {"file_path": "lines.txt", **arguments})
    assert lines_file.read_text() == LINES
    assert spec.run(context, {"file_path": "lines.txt", **arguments}).ok
    assert (preview.old, lines_file.read_text()) == (LINES, preview.new)


def test_schemas_are_short(context):
    import json

    for spec in EDIT_TOOLS:
        assert spec.permission == "w" and spec.path_args == ("file_path",)
        assert "\n" not in spec.description and len(spec.description) <= 80
    # The write tools of edit_format replace; replace_lines comes in their place with edit_format lines.
    by_format = {"replace": ("write_file", "replace_string", "insert_line", "delete_line"),
                 "lines": ("write_file", "replace_lines")}
    assert {name for names in by_format.values() for name in names} == {spec.name for spec in EDIT_TOOLS}
    for names in by_format.values():
        assert len(json.dumps([spec.schema() for spec in EDIT_TOOLS if spec.name in names])) < 1750


# --- atomic writes leave no temporary file behind


def test_no_temporary_file_after_success(context, root):
    for n in range(3):
        assert call_tool(context, "write_file", file_path=f"d/f{n}.txt", content="x\n").ok
    assert call_tool(context, "replace_string", file_path="d/f0.txt", old_string="x", new_string="y").ok
    assert temp_files(root) == []


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_failed_write_leaves_the_file_and_no_temporary(context, root, monkeypatch, failing):
    path = root / "keep.txt"
    path.write_text("precious\n")

    def broken(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, failing, broken)
    result = call_tool(context, "write_file", file_path="keep.txt", content="replacement\n")
    monkeypatch.undo()
    assert not result.ok and "cannot write keep.txt: No space left on device" in result.error
    assert path.read_text() == "precious\n"
    assert temp_files(root) == []
    assert context.journal.entries() == []  # nothing to undo: nothing happened


def test_a_failed_new_file_leaves_no_directories(context, root, monkeypatch):
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    result = call_tool(context, "write_file", file_path="a/b/c.txt", content="x")
    monkeypatch.undo()
    assert not result.ok and "I/O error" in result.error
    assert list(root.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_gives_a_clear_error(context, root):
    (root / "ro").mkdir()
    (root / "ro" / "a.txt").write_text("old\n")
    (root / "ro").chmod(0o555)
    try:
        result = call_tool(context, "write_file", file_path="ro/a.txt", content="new\n")
    finally:
        (root / "ro").chmod(0o755)
    assert not result.ok and "cannot write ro/a.txt: Permission denied" in result.error
    assert (root / "ro" / "a.txt").read_text() == "old\n" and temp_files(root) == []


def test_atomic_write_without_a_journal_still_writes(root):
    assert atomic_write(root / "x.txt", "é\n", root, None, "write_file") is True
    assert (root / "x.txt").read_bytes() == "é\n".encode()
    assert WRITE_FILE.run(ToolContext(root), {"file_path": "x.txt", "content": "y\n"}).ok
    assert (root / "x.txt").read_text() == "y\n"


def test_text_that_is_not_valid_unicode_is_refused(context, root):
    result = call_tool(context, "write_file", file_path="bad.txt", content="half a pair \ud800")
    assert not result.ok and "not valid Unicode" in result.error
    assert not (root / "bad.txt").exists() and temp_files(root) == []


# --- undo


def test_undo_removes_a_created_file_and_its_new_directories(context, root):
    assert call_tool(context, "write_file", file_path="new/dir/file.txt", content="x\n").ok
    assert context.journal.undo() == "removed new/dir/file.txt (created by write_file)"
    assert list(root.iterdir()) == []


def test_undo_restores_an_overwritten_file_and_its_mode(context, root):
    path = root / "tool.sh"
    path.write_text("echo old\n")
    path.chmod(0o755)
    assert call_tool(context, "write_file", file_path="tool.sh", content="echo new\n").ok
    assert context.journal.undo() == "restored tool.sh (write_file)"
    assert path.read_text() == "echo old\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert temp_files(root) == []


@pytest.mark.parametrize("name, arguments", [
    ("replace_string", {"old_string": "two", "new_string": "2"}),
    ("insert_line", {"line_number": 2, "content": "x"}),
    ("delete_line", {"line_number": 2}),
], ids=TOOL_IDS[1:])
def test_undo_after_each_edit(context, lines_file, name, arguments):
    assert call_tool(context, name, file_path="lines.txt", **arguments).ok
    assert lines_file.read_text() != LINES
    assert context.journal.undo() == f"restored lines.txt ({name})"
    assert lines_file.read_text() == LINES


def test_several_undos_walk_back_through_the_session(context, root, lines_file):
    assert call_tool(context, "replace_string", file_path="lines.txt", old_string="one", new_string="1").ok
    assert call_tool(context, "write_file", file_path="other.txt", content="other\n").ok
    assert call_tool(context, "delete_line", file_path="lines.txt", line_number=3).ok
    assert call_tool(context, "insert_line", file_path="lines.txt", line_number=1, content="zero").ok
    assert [entry.tool for entry in context.journal.entries()] == [
        "replace_string", "write_file", "delete_line", "insert_line"]

    assert context.journal.undo() == "restored lines.txt (insert_line)"
    assert lines_file.read_text() == "1\ntwo\n"
    assert context.journal.undo() == "restored lines.txt (delete_line)"
    assert lines_file.read_text() == "1\ntwo\nthree\n"
    assert context.journal.undo() == "removed other.txt (created by write_file)"
    assert not (root / "other.txt").exists()
    assert context.journal.undo() == "restored lines.txt (replace_string)"
    assert lines_file.read_text() == LINES
    with pytest.raises(UndoError, match="nothing to undo"):
        context.journal.undo()


def test_undo_will_not_overwrite_changes_made_after_the_tool(context, lines_file):
    assert call_tool(context, "write_file", file_path="lines.txt", content="by the tool\n").ok
    lines_file.write_text("edited by hand\n")
    with pytest.raises(UndoError, match="changed after write_file") as refused:
        context.journal.undo()
    assert "/undo force" in refused.value.hint
    assert lines_file.read_text() == "edited by hand\n"
    assert context.journal.undo(force=True) == "restored lines.txt (write_file)"
    assert lines_file.read_text() == LINES


def test_the_journal_forgets_the_oldest_contents_beyond_its_limit(root):
    journal = UndoJournal(max_total_bytes=10)
    context = ToolContext(root, journal=journal)
    for n in range(3):
        (root / f"f{n}.txt").write_text("123456\n")
        assert call_tool(context, "write_file", file_path=f"f{n}.txt", content="x\n").ok
    # the entries stay listed; only the newest still has its old content
    assert [(entry.display, entry.restorable) for entry in journal.entries()] == [
        ("f0.txt", False), ("f1.txt", False), ("f2.txt", True)]
    assert journal.undo() == "restored f2.txt (write_file)"
    with pytest.raises(UndoError, match="cannot restore f1.txt .*not kept") as refused:
        journal.undo()
    assert "/undo again" in refused.value.hint
    assert (root / "f1.txt").read_text() == "x\n"
    assert [entry.display for entry in journal.entries()] == ["f0.txt"]


# --- /undo


@pytest.fixture
def commands_for(root):
    """-> make(journal): the slash commands' context of a run in root whose tools write to journal, and its stderr."""
    built = []

    def make(journal):
        err = io.StringIO()
        environment = Environment(stdout=io.StringIO(), stderr=err, no_color=True, local_servers=())
        services = build_session(Config(), environment, root=root, console=Console(environment))
        built.append(services)
        services.executor.context.journal = journal  # the journal the test's own tool calls wrote to
        err.seek(0), err.truncate()  # what building said (no server configured) is not /undo's output
        return command_context(services), err

    yield make
    for services in built:
        services.close()


def test_undo_command_restores_and_repeats(context, root, lines_file, commands_for):
    assert call_tool(context, "write_file", file_path="new.txt", content="n\n").ok
    assert call_tool(context, "delete_line", file_path="lines.txt", line_number=1).ok
    commands, err = commands_for(context.journal)

    assert run_command("/undo list", commands) is CommandResult.OK
    assert "1. lines.txt (delete_line)" in err.getvalue() and "2. new.txt (created by write_file)" in err.getvalue()
    assert run_command("/undo", commands) is CommandResult.OK
    assert run_command("/undo", commands) is CommandResult.OK
    assert run_command("/undo", commands) is CommandResult.FAILED
    lines = err.getvalue().splitlines()
    assert lines[-4:] == ["restored lines.txt (delete_line)", "removed new.txt (created by write_file)",
                          "error: nothing to undo", "  no file has been changed by a tool in this session"]
    assert lines_file.read_text() == LINES and not (root / "new.txt").exists()
    assert commands.console.environment.stdout.getvalue() == ""


def test_undo_command_without_a_journal(context, commands_for):
    commands, err = commands_for(None)
    assert run_command("/undo", commands) is CommandResult.FAILED
    assert "undo is unavailable" in err.getvalue()


def test_undo_in_a_piped_session(fake, run_ayder, project):
    """The real process: the model edits a file, the script's /undo puts it back."""
    (project / "notes.txt").write_text(LINES)
    fake.queue(
        Reply(text="", tool_calls=[{"name": "replace_string",
                                    "arguments": {"path": "notes.txt", "old": "two", "new": "2"}}]),
        Reply(text="Changed."),
    )
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change notes.txt\n/undo\n")
    assert result.returncode == 0, result.stderr
    assert "restored notes.txt (replace_string)" in result.stderr
    assert (project / "notes.txt").read_text() == LINES
    tool_message = [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"][0]
    assert "replaced 1 occurrence" in tool_message["content"]
