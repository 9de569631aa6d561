"""What a killed write leaves (.ayder-tmp-* files) is never shown to the model, and is removed later."""

from __future__ import annotations

import os
import time

from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.files import list_files
from ayder_cli.tools.leftovers import remove_stale_temp_files
from ayder_cli.tools.search import search_codebase


def leave_temp_file(directory, name=".ayder-tmp-0123456789ab", age_s=3600.0):
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("half of a file: needle\n")
    old = time.time() - age_s
    os.utime(path, (old, old))
    return path


def test_temp_files_are_neither_listed_nor_searched(project):
    (project / "app.py").write_text("needle = 1\n")
    leave_temp_file(project / "src")
    context = ToolContext(project)
    listed = list_files(context, {"path": ".", "recursive": True}).output
    assert "app.py" in listed and ".ayder-tmp" not in listed
    found = search_codebase(context, {"pattern": "needle"}).output
    assert "app.py" in found and ".ayder-tmp" not in found


def test_only_stale_temp_files_are_removed(project):
    stale = leave_temp_file(project / "src")
    fresh = leave_temp_file(project, ".ayder-tmp-fresh00000000", age_s=5)  # another ayder may be writing it
    kept = project / "src" / "notes.txt"
    kept.write_text("mine")
    assert remove_stale_temp_files(project) == [stale]
    assert not stale.exists() and fresh.exists() and kept.exists()


def test_a_run_removes_the_leftovers_of_a_killed_one(fake, run_ayder, project):
    stale = leave_temp_file(project / "deep" / "er")
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 0, result.stderr
    assert not stale.exists()
