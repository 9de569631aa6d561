"""The git ayder runs itself (the environment note's `git status`), end to end: a cloned project's
.git/config names programs git would run on its own; a plain `ayder "hi"` must run none of them,
nor any a submodule's own config names."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from support.fakellm import Reply
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
    """A program that leaves a marker file when run (and passes stdin through, as a filter would;
    run as an ssh command, with a host to reach, it fails instead)."""
    marker = tmp_path / f"{name}.ran"
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\necho ran >> '{marker}'\ncase \"$*\" in *example.invalid*) exit 1;; esac\ncat\n",
                      encoding="utf-8")
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
    (project / ".git").mkdir()  # a repository, as far as ayder can tell before asking git

    started = time.monotonic()
    result = run_ayder(*server_args(fake, "ollama"), "hi", env={"PATH": f"{bin_dir}:/usr/bin:/bin"})

    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 15
    assert "Git: a repository, state unknown (git status took over 2 s)" in first_user_message(fake)


# --- every key that runs a program, in the project's repository and in a submodule's own


@pytest.fixture(scope="module")
def made_with_submodule(tmp_path_factory) -> Path:
    """A committed project with a real submodule at sub/ (cloned from a repository beside it), made
    once for the module: eight git processes a test fewer."""
    made = tmp_path_factory.mktemp("with-submodule")
    upstream, project = made / "upstream", made / "project"
    upstream.mkdir()
    project.mkdir()
    committed_project(upstream)
    committed_project(project)
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "sub")
    git(project, "commit", "-q", "-m", "sub")
    return project


def project_with_submodule(project: Path, made: Path) -> Path:
    """`made` copied into the project: the submodule's links to its repository are relative, so the
    copy is a repository of its own with its own submodule -> the submodule's work tree."""
    shutil.copytree(made, project, dirs_exist_ok=True, symlinks=True)
    return project / "sub"


def _attributes(repo: Path, line: str) -> None:
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir").stdout.strip())
    (git_dir / "info").mkdir(exist_ok=True)
    with open(git_dir / "info" / "attributes", "a", encoding="utf-8") as attributes:
        attributes.write(line + "\n")


def _hook(repo: Path, script: Path) -> None:
    """post-index-change: run whenever git writes the index, as a plain `git status` does."""
    hooks = Path(git(repo, "rev-parse", "--absolute-git-dir").stdout.strip()) / "hooks"
    hooks.mkdir(exist_ok=True)
    shutil.copy(script, hooks / "post-index-change")


# Each: how it is planted in a repository, and a git command that runs it there (the trap is real).
PROGRAM_KEYS = {
    "filter clean": (lambda repo, script: (_attributes(repo, "*.txt filter=evil"),
                                           git(repo, "config", "filter.evil.clean", str(script)),
                                           git(repo, "config", "filter.evil.required", "true")),
                     ["status"]),
    "filter process": (lambda repo, script: (_attributes(repo, "*.txt filter=evil"),
                                             git(repo, "config", "filter.evil.process", str(script))),
                       ["status"]),
    "filter smudge": (lambda repo, script: (_attributes(repo, "*.txt filter=evil"),
                                            git(repo, "config", "filter.evil.smudge", str(script))),
                      ["checkout", "-f", "--", "a.txt"]),
    "core.fsmonitor": (lambda repo, script: git(repo, "config", "core.fsmonitor", str(script)), ["status"]),
    "hook": (_hook, ["status"]),
    "core.sshCommand": (lambda repo, script: (git(repo, "config", "core.sshCommand", str(script)),
                                              git(repo, "remote", "add", "evil", "ssh://example.invalid/x")),
                        ["fetch", "-q", "evil"]),
    "diff.external": (lambda repo, script: git(repo, "config", "diff.external", str(script)), ["diff"]),
    "textconv": (lambda repo, script: (_attributes(repo, "*.txt diff=evil"),
                                       git(repo, "config", "diff.evil.textconv", str(script))),
                 ["diff"]),
    "credential helper": (lambda repo, script: (git(repo, "config", "credential.helper", str(script)),
                                                git(repo, "remote", "add", "evil", "https://example.invalid/x")),
                          ["credential", "fill"]),
}


def _run_planted(repo: Path, args: list[str]) -> None:
    subprocess.run(["git", *args], check=False, cwd=repo, input="protocol=https\nhost=example.invalid\n\n",
                   capture_output=True, text=True, timeout=30, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})


def _make_stale(repo: Path, letter: str) -> None:
    """a.txt changed, its size kept and its index entry stale: status must read it (through a clean filter)."""
    (repo / "a.txt").write_text(f"{letter}\n", encoding="utf-8")
    later = time.time() + 3600 + ord(letter)
    os.utime(repo / "a.txt", (later, later))


@pytest.mark.parametrize("where", ["project", "submodule"])
@pytest.mark.parametrize("key", list(PROGRAM_KEYS))
def test_no_git_call_of_a_run_runs_a_program_the_repository_names(fake, run_ayder, project, tmp_path, key, where,
                                                                  made_with_submodule):
    """The environment note's status, and the status and prefix the checks read around a command."""
    sub = project_with_submodule(project, made_with_submodule)
    repo = project if where == "project" else sub
    script, marker = marker_script(tmp_path, "planted")
    plant, runs_it = PROGRAM_KEYS[key]
    plant(repo, script)
    _make_stale(repo, "b")
    _run_planted(repo, runs_it)
    assert marker.exists(), f"git {' '.join(runs_it)} did not run the planted {key}"
    marker.unlink()
    _make_stale(repo, "c")
    (project / ".gitignore").write_text("files.log\n", encoding="utf-8")
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": "echo y > new.py"}}]),
               Reply(text="Done."))

    result = run_ayder(*server_args(fake, "openai"), "-x", "--verify", "printf '%s\\n' {files} >> files.log", "hi")

    assert result.returncode == 0, result.stderr
    assert not marker.exists(), marker.read_text()
    assert "Git: branch main, uncommitted changes" in first_user_message(fake)
    assert (project / "files.log").read_text() == "new.py\n"  # the checks read git status all the same


def _subcommand(argv: list[str]) -> str:
    """`status` of `--no-optional-locks -c k=v status --porcelain`."""
    words = iter(argv)
    for word in words:
        if word == "-c":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return ""


def test_filter_drivers_are_listed_before_each_command_that_may_read_a_file_and_no_other(
        fake, run_ayder, project, tmp_path):
    """A filter runs only where git reads a file of the work tree (status, diff): each such call is
    preceded by the listing that turns the drivers off; rev-parse, which reads git's own records,
    starts one git process, not two."""
    committed_project(project)
    spy = tmp_path / "spy"
    spy.mkdir()
    calls = tmp_path / "git-calls"
    real_git = shutil.which("git")
    (spy / "git").write_text(f"#!/bin/sh\nprintf '%s\\037' \"$@\" >> '{calls}'\necho >> '{calls}'\n"
                             f"exec '{real_git}' \"$@\"\n", encoding="utf-8")
    (spy / "git").chmod(0o755)
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": "echo y > new.py"}}]),
               Reply(text="Done."))

    result = run_ayder(*server_args(fake, "openai"), "-x", "--verify", "printf '%s\\n' {files} >> files.log", "hi",
                       env={"PATH": f"{spy}:{os.environ['PATH']}"})

    assert result.returncode == 0, result.stderr
    assert (project / "files.log").read_text() == "new.py\n"
    started = [line.rstrip("\x1f").split("\x1f") for line in calls.read_text().splitlines()]
    commands = [_subcommand(argv) for argv in started]
    listing = [argv[-2:] == ["--get-regexp", r"^filter\."] for argv in started]
    assert "status" in commands and "rev-parse" in commands, commands
    for n, command in enumerate(commands):
        if command == "status":
            assert n > 0 and listing[n - 1], commands
        if command == "rev-parse":
            assert n == 0 or not listing[n - 1], commands
    assert sum(listing) == commands.count("status")
