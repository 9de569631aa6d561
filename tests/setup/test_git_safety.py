"""The git ayder runs itself (the environment note's `git status`), end to end: a cloned project's
.git/config names programs git would run on its own; a plain `ayder "hi"` must run none of them."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from support.harness import server_args

HAS_GIT = shutil.which("git") is not None
pytestmark = pytest.mark.skipif(not HAS_GIT, reason="git is not installed")


def git(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def first_user_message(fake) -> str:
    return next(m["content"] for m in fake.chat_requests()[0]["body"]["messages"] if m["role"] == "user")


def marker_script(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A program that leaves a marker file when run (and passes stdin through, as a filter would)."""
    marker = tmp_path / f"{name}.ran"
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\necho ran >> '{marker}'\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    return script, marker


def committed_project(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    (project / "a.txt").write_text("a\n", encoding="utf-8")
    git(project, "add", "a.txt")
    git(project, "commit", "-q", "-m", "a")


def test_a_plain_run_does_not_run_the_projects_fsmonitor(fake, run_ayder, project, tmp_path):
    committed_project(project)
    script, marker = marker_script(tmp_path, "fsmonitor")
    git(project, "config", "core.fsmonitor", str(script))
    git(project, "status")  # the trap is real: git itself runs it
    assert marker.exists()
    marker.unlink()

    result = run_ayder(*server_args(fake, "ollama"), "hi")

    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert "Git: branch main, clean" in first_user_message(fake)


def test_a_plain_run_does_not_run_the_projects_clean_filter(fake, run_ayder, project, tmp_path):
    """A file whose index entry looks stale is read through its clean filter by `git status`."""
    committed_project(project)
    script, marker = marker_script(tmp_path, "filter")
    (project / ".git" / "info" / "attributes").write_text("*.txt filter=evil\n", encoding="utf-8")
    git(project, "config", "filter.evil.clean", str(script))
    git(project, "config", "filter.evil.required", "true")
    later = time.time() + 3600
    os.utime(project / "a.txt", (later, later))
    git(project, "status")
    assert marker.exists()
    marker.unlink()
    os.utime(project / "a.txt", (later + 60, later + 60))  # stale again

    result = run_ayder(*server_args(fake, "ollama"), "hi")

    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert "Git: branch main, clean" in first_user_message(fake)


def test_the_note_still_says_uncommitted_changes(fake, run_ayder, project, tmp_path):
    committed_project(project)
    script, _ = marker_script(tmp_path, "fsmonitor")
    git(project, "config", "core.fsmonitor", str(script))
    (project / "a.txt").write_text("changed\n", encoding="utf-8")

    result = run_ayder(*server_args(fake, "ollama"), "hi")

    assert result.returncode == 0, result.stderr
    assert "Git: branch main, uncommitted changes" in first_user_message(fake)


def test_a_git_that_hangs_is_given_up_at_the_deadline(fake, run_ayder, project, tmp_path):
    """Even when what it started keeps its output open."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_git = bin_dir / "git"
    fake_git.write_text("#!/bin/sh\nsleep 30 &\nsleep 30\n", encoding="utf-8")
    fake_git.chmod(0o755)

    started = time.monotonic()
    result = run_ayder(*server_args(fake, "ollama"), "hi", env={"PATH": f"{bin_dir}:/usr/bin:/bin"})

    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 15
    assert "Git: a repository, state unknown (git status took over 2 s)" in first_user_message(fake)
