"""The undo journal on disk beside the session: /undo after a restart, after a kill, within its limits."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.storage.atomic import atomic_write
from ayder_cli.storage.undo import MAX_FILE_BYTES, UndoError, UndoJournal
from ayder_cli.storage.undo_store import UndoStore

OLD = "the old text\n"


def journal_at(root: Path, **limits) -> UndoJournal:
    """A journal kept where a session called `s` would keep it."""
    warnings: list[str] = []
    journal = UndoJournal(UndoStore(root / ".ayder" / "sessions" / "s.undo", root), warn=warnings.append,
                          **limits)
    journal.warnings = warnings
    return journal


def next_run(journal: UndoJournal) -> tuple[UndoJournal, list[str]]:
    """What the next run of the same session loads."""
    again = UndoJournal(journal.store)
    return again, again.load()


def write(root: Path, journal: UndoJournal, name: str, text: str) -> None:
    atomic_write(root / name, text, root, journal, "write_file")


def wait_until(condition, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not hold in time")
        time.sleep(0.02)


# --- the journal and its store, in this process


def test_the_next_run_of_the_session_undoes_what_an_earlier_run_wrote(project):
    (project / "notes.txt").write_text(OLD)
    (project / "notes.txt").chmod(0o640)
    journal = journal_at(project)
    write(project, journal, "notes.txt", "new\n")
    write(project, journal, "sub/made.txt", "made\n")

    again, warnings = next_run(journal)
    assert warnings == []
    assert [entry.describe() for entry in again.entries()] == ["notes.txt (write_file)",
                                                               "sub/made.txt (created by write_file)"]
    assert all(again.is_earlier(entry) for entry in again.entries())
    assert again.undo() == "removed sub/made.txt (created by write_file)"
    assert not (project / "sub").exists()
    assert again.undo() == "restored notes.txt (write_file)"
    assert (project / "notes.txt").read_text() == OLD
    assert (project / "notes.txt").stat().st_mode & 0o777 == 0o640
    assert len(next_run(again)[0]) == 0  # the undos are on disk too
    assert list(journal.store.directory.glob("*.old")) == []


def test_old_contents_are_private_files_and_not_held_in_memory(project):
    (project / "notes.txt").write_text(OLD)
    journal = journal_at(project)
    write(project, journal, "notes.txt", "new\n")
    [entry] = journal.entries()
    assert entry.previous is None and entry.saved  # read back from disk by /undo
    [content] = journal.store.directory.glob("*.old")
    assert content.read_text() == OLD
    assert content.stat().st_mode & 0o777 == 0o600
    assert journal.store.directory.stat().st_mode & 0o777 == 0o700


def test_a_file_over_the_limit_is_listed_but_not_restorable(project):
    (project / "big.txt").write_text("x" * 100)
    journal = journal_at(project, max_file_bytes=50)
    write(project, journal, "big.txt", "small\n")
    again, _ = next_run(journal)
    [entry] = again.entries()
    assert not entry.restorable and "over the" in entry.not_kept
    with pytest.raises(UndoError, match="big.txt .*old content was not kept"):
        again.undo()
    assert (project / "big.txt").read_text() == "small\n"
    assert len(again) == 0


def test_the_oldest_contents_go_first_beyond_the_session_total(project):
    for name in ("a.txt", "b.txt", "c.txt"):
        (project / name).write_text("123456\n")
    journal = journal_at(project, max_total_bytes=15)
    for name in ("a.txt", "b.txt", "c.txt"):
        write(project, journal, name, "x\n")
    again, _ = next_run(journal)
    assert [(entry.display, entry.restorable) for entry in again.entries()] == [
        ("a.txt", False), ("b.txt", True), ("c.txt", True)]
    assert len(list(journal.store.directory.glob("*.old"))) == 2


def test_a_write_killed_after_its_entry_is_undone_without_harm(project):
    """The entry goes to disk before the tool writes: a kill in between leaves an entry for a write that never happened."""
    (project / "notes.txt").write_text(OLD)
    journal = journal_at(project)
    journal.record(project / "notes.txt", OLD.encode(), 0o644, "write_file", display="notes.txt", new=b"new\n")
    journal.record(project / "dir" / "new.txt", None, None, "write_file", display="dir/new.txt", new=b"n\n",
                   made_dirs=(project / "dir",))
    (project / "dir").mkdir()  # made, then the kill came before the file

    again, _ = next_run(journal)
    assert again.undo() == "dir/new.txt already is as it was before write_file; nothing to restore"
    assert not (project / "dir").exists()
    assert again.undo() == "notes.txt already is as it was before write_file; nothing to restore"
    assert (project / "notes.txt").read_text() == OLD


def test_when_the_disk_refuses_the_chat_goes_on_and_a_notice_says_so(project):
    (project / "notes.txt").write_text(OLD)
    journal = journal_at(project)
    journal.store.directory.parent.mkdir(parents=True)
    journal.store.directory.write_text("a file where the journal's directory should be")
    write(project, journal, "notes.txt", "new\n")

    assert (project / "notes.txt").read_text() == "new\n"
    assert len(journal.warnings) == 1 and "notes.txt" in journal.warnings[0]
    assert "unavailable after ayder exits" in journal.warnings[0]
    assert journal.undo() == "restored notes.txt (write_file)"  # this run still has it


def test_a_journal_naming_paths_outside_the_project_is_not_trusted(project, outside):
    """A journal edited by hand, or committed to a repository, cannot make /undo write elsewhere."""
    journal = journal_at(project)
    (project / "ok.txt").write_text(OLD)
    write(project, journal, "ok.txt", "new\n")
    index_path = journal.store.directory / "index.json"
    index = json.loads(index_path.read_text())
    [good] = index["entries"]
    bad = [{**good, "number": 7, "path": "../outside/secret.txt"}, {**good, "number": 8, "path": ".git/config"},
           {**good, "number": 9, "path": str(outside / "secret.txt")}]
    index["entries"] = [good, *bad]
    index_path.write_text(json.dumps(index))

    again, warnings = next_run(journal)
    assert [entry.display for entry in again.entries()] == ["ok.txt"]
    assert len(warnings) == 3 and all("not a path inside the project" in warning for warning in warnings)


def test_a_broken_index_starts_empty_with_a_warning(project):
    journal = journal_at(project)
    (project / "ok.txt").write_text(OLD)
    write(project, journal, "ok.txt", "new\n")
    (journal.store.directory / "index.json").write_text('{"version": 1, "entries": [')
    again, warnings = next_run(journal)
    assert len(again) == 0
    assert len(warnings) == 1 and "cannot read the undo journal" in warnings[0]


def test_content_no_entry_names_is_removed_at_load(project):
    journal = journal_at(project)
    (project / "ok.txt").write_text(OLD)
    write(project, journal, "ok.txt", "new\n")
    orphan = journal.store.directory / "000099.old"
    orphan.write_text("left by a crash")
    next_run(journal)
    assert not orphan.exists()


# --- the real ayder, one run after another


def write_call(path: str, content: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": path, "content": content}}])


def test_undo_after_continue_restores_what_the_first_run_replaced(fake, run_ayder, project):
    (project / "notes.txt").write_text(OLD)
    fake.queue(write_call("notes.txt", "rewritten\n"), Reply(text="Done."))
    first = run_ayder(*server_args(fake, "ollama"), "-w", "rewrite notes.txt")
    assert first.returncode == 0, first.stderr
    assert (project / "notes.txt").read_text() == "rewritten\n"

    second = run_ayder(*server_args(fake, "ollama"), "--continue", input="/undo\n")
    assert second.returncode == 0, second.stderr
    assert "1 change to /undo" in second.stderr
    assert "restored notes.txt (write_file)" in second.stderr
    assert (project / "notes.txt").read_text() == OLD


def test_undo_after_a_sigkill_right_after_the_write(fake, spawn_ayder, run_ayder, project):
    (project / "notes.txt").write_text(OLD)
    release = threading.Event()
    fake.queue(write_call("notes.txt", "rewritten\n"), Reply(text="never seen", hold_after=0, release=release))
    process = spawn_ayder(*server_args(fake, "ollama"), "-w", "rewrite notes.txt")
    wait_until(lambda: (project / "notes.txt").read_text() == "rewritten\n")
    process.send_signal(signal.SIGKILL)
    process.wait()
    release.set()

    result = run_ayder(*server_args(fake, "ollama"), "--continue", input="/undo\n")
    assert result.returncode == 0, result.stderr
    assert "restored notes.txt (write_file)" in result.stderr
    assert (project / "notes.txt").read_text() == OLD


def test_a_file_over_the_size_limit_is_reported_as_not_restorable(fake, run_ayder, project):
    big = project / "big.txt"
    big.write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    fake.queue(write_call("big.txt", "small\n"), Reply(text="Done."))
    assert run_ayder(*server_args(fake, "ollama"), "-w", "shrink big.txt").returncode == 0

    result = run_ayder(*server_args(fake, "ollama"), "--continue", input="/undo list\n/undo\n")
    assert result.returncode == 1  # the /undo failed
    assert "big.txt (write_file)" in result.stderr and "content not kept: over the 8 MB limit" in result.stderr
    assert "cannot restore big.txt (write_file): its old content was not kept" in result.stderr
    assert big.read_text() == "small\n"
    assert not list(project.glob(".ayder/sessions/*.undo/*.old"))  # nothing of it was kept


def test_undo_list_shows_which_run_each_entry_came_from(fake, run_ayder, project):
    fake.queue(write_call("one.txt", "1\n"), Reply(text="Done."))
    assert run_ayder(*server_args(fake, "ollama"), "-w", "write one").returncode == 0

    fake.queue(write_call("two.txt", "2\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--continue", input="write two\n/undo list\n")
    assert result.returncode == 0, result.stderr
    listing = [line for line in result.stderr.splitlines() if line.startswith("  ") and ". " in line]
    assert len(listing) == 2
    assert listing[0].startswith("  1. two.txt (created by write_file)") and listing[0].endswith("this run")
    assert listing[1].startswith("  2. one.txt (created by write_file)") and listing[1].endswith("earlier run")
    assert "2 changes to undo, newest first" in result.stderr


def test_a_new_session_starts_a_new_journal(fake, run_ayder, project):
    fake.queue(write_call("one.txt", "1\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="write one\n/reset\n/undo\n")
    assert result.returncode == 1  # the /undo after /reset had nothing to undo
    assert "nothing to undo" in result.stderr
    assert (project / "one.txt").exists()

    again = run_ayder(*server_args(fake, "ollama"), "--resume", first_session_id(project), input="/undo\n")
    assert again.returncode == 0, again.stderr  # the first session's journal is still there
    assert "removed one.txt (created by write_file)" in again.stderr


def first_session_id(project: Path) -> str:
    oldest = sorted((project / ".ayder" / "sessions").glob("*.jsonl"))[0]
    return oldest.stem.rsplit("-", 1)[1]
