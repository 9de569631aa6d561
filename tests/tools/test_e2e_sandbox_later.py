"""The sandbox and what runs after a command: nothing a sandboxed command does may plant code that
runs later, unsandboxed (the project's .git, the package managers' bin/ and profile files), reach
the user's terminal, or read ayder's key; and a refused write is named, to the model and the user.
Through the real `ayder -x` against the fake server, in a real Landlock sandbox where the kernel has one."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
from pathlib import Path

import pytest

from support.fakellm import Reply
from support.harness import server_args

from test_e2e_sandbox import REFUSED_TAIL, needs_landlock


@pytest.fixture
def run_env(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    return {"TMPDIR": str(temp)}


def ask_to_run(fake, run_ayder, run_env, command, *args):
    """`ayder -x` with a model that asks for one command; what the tool answered the model, and the run."""
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": command}}]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-x", *args, "go", env=run_env)
    assert result.returncode == 0, result.stderr
    answer = [m for m in fake.chat_requests()[-1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    return answer, result


# --- a refusal names the path refused, to the model and to the user


@needs_landlock
def test_a_refused_redirection_names_its_path_to_the_model_and_the_user(fake, run_ayder, run_env, project, outside):
    answer, result = ask_to_run(fake, run_ayder, run_env, "echo x > ../outside/f; echo done")
    assert not (outside / "f").exists()
    line = f"sandbox: writing {outside}/f {REFUSED_TAIL}"
    assert line in answer, answer
    assert f"✓ exit code 0; {line}" in result.stderr, result.stderr
    assert "/bin/sh was refused" not in answer


# --- the package managers' programs and profile files are not caches


@needs_landlock
@pytest.mark.parametrize(("planted", "cache"), [
    (".cargo/env", ".cargo/registry/index/x"),
    (".cargo/bin/git", ".cargo/git/db/x"),
    (".cargo/config.toml", ".cargo/registry/cache/x"),
    ("go/bin/git", "go/pkg/mod/cache/x"),
    (".npm/_npx/1/node_modules/.bin/prettier", ".npm/_cacache/x"),
])
def test_a_command_writes_the_download_caches_but_plants_nothing_a_shell_runs_later(
        fake, run_ayder, run_env, isolated_env, planted, cache):
    home = isolated_env
    target, kept = home / planted, home / cache
    for path in (target, kept):
        path.parent.mkdir(parents=True, exist_ok=True)
    for top in {Path(planted).parts[0], Path(cache).parts[0]}:  # the homes themselves, and the caches
        (home / top).mkdir(exist_ok=True)
    for part in ("registry", "git"):
        (home / ".cargo" / part).mkdir(parents=True, exist_ok=True)
    (home / "go" / "pkg" / "mod").mkdir(parents=True, exist_ok=True)
    (home / ".npm" / "_cacache").mkdir(parents=True, exist_ok=True)
    if target.name == "env":
        target.write_text('export PATH="$HOME/.cargo/bin:$PATH"\n')

    command = f"echo cached > ~/{cache}; echo 'touch /tmp/pwned' >> ~/{planted}"
    answer, result = ask_to_run(fake, run_ayder, run_env, command)

    assert kept.read_text() == "cached\n"
    assert not target.exists() or "pwned" not in target.read_text()
    assert f"sandbox: writing {target} {REFUSED_TAIL}" in answer, answer
    assert f"sandbox: writing {target}" in result.stderr


# --- the user's terminal is out of reach


@pytest.fixture
def users_terminal():
    """A terminal of the user's (as the shell ayder was started from has): its master and its path."""
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


def _pending(fd: int) -> bytes:
    """What is waiting to be read on fd, without waiting for more."""
    got = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        got += chunk
    return got


@needs_landlock
def test_a_command_cannot_write_escape_sequences_to_the_users_terminal_by_path(fake, run_ayder, run_env,
                                                                                users_terminal):
    master, path = users_terminal
    answer, _ = ask_to_run(fake, run_ayder, run_env, f"printf '\\033]52;c;cHduZWQ=\\007' > {path}; echo x > /dev/null")
    assert _pending(master) == b""
    assert f"sandbox: writing {path} {REFUSED_TAIL}" in answer, answer


@needs_landlock
@pytest.mark.skipif(os.geteuid() != 0, reason="TIOCSTI on another terminal needs root (CAP_SYS_ADMIN)")
def test_a_command_cannot_push_keystrokes_into_the_users_terminal(fake, run_ayder, run_env, users_terminal):
    _, path = users_terminal
    push = (f"python3 -c \"import fcntl, termios; t = open('{path}', 'rb', buffering=0); "
            f"[fcntl.ioctl(t, termios.TIOCSTI, bytes([c])) for c in b'touch pwned\\n']\"")
    answer, _ = ask_to_run(fake, run_ayder, run_env, push)
    slave = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        assert _pending(slave) == b"", "keystrokes were pushed into the user's terminal"
    finally:
        os.close(slave)
    assert "exit code 1" in answer, answer


@needs_landlock
def test_a_command_has_no_controlling_terminal_and_still_writes_dev_null_and_shm(fake, run_ayder, run_env):
    answer, _ = ask_to_run(fake, run_ayder, run_env, "echo x > /dev/tty || echo no-tty; echo y > /dev/null && "
                                                     "echo z > /dev/shm/ayder-test-$$ && rm /dev/shm/ayder-test-$$ && "
                                                     "head -c 4 /dev/zero | wc -c")
    # stdout and stderr share one pipe: the shell's word on /dev/tty, then what the command printed
    assert answer.startswith("ok:\nexit code 0\n--- output ---\n"), answer
    assert "cannot create /dev/tty" in answer and "\nno-tty\n4" in answer, answer


# --- the project's .git: nothing planted there runs at the user's next git command


def git(project, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def repository(project):
    if shutil.which("git") is None:
        pytest.skip("no git")
    git(project, "init", "-q", "-b", "main")
    (project / "a.txt").write_text("a\n")
    git(project, "add", "a.txt")
    git(project, "commit", "-q", "-m", "a")
    return project


GIT_TAIL = ("was refused (the project's .git is read-only to commands, so that nothing they write there runs "
            "later; run git commands that change it yourself, or set sandbox to off)")


@needs_landlock
@pytest.mark.parametrize(("command", "named"), [
    ("printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config", ".git/config"),
    ("git config core.fsmonitor 'touch pwned'", ".git/config"),
    ("printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change",
     ".git/hooks/post-index-change"),
    ("mv .git/hooks .git/old-hooks && mkdir .git/hooks && printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit",
     ".git/hooks"),
])
def test_a_command_cannot_plant_in_the_projects_git_what_the_users_next_git_runs(fake, run_ayder, run_env,
                                                                                repository, command, named):
    config = (repository / ".git" / "config").read_text()
    answer, result = ask_to_run(fake, run_ayder, run_env, f"{command}; echo made > b.txt")

    assert (repository / "b.txt").read_text() == "made\n"  # the rest of the project stays writable
    assert (repository / ".git" / "config").read_text() == config
    assert not (repository / ".git" / "hooks" / "post-index-change").exists()
    (repository / "a.txt").write_text("b\n")
    git(repository, "status")  # the user's own, unsandboxed
    git(repository, "commit", "-q", "-am", "b")
    assert not (repository / "pwned").exists()
    assert f"sandbox: writing {repository / named}" in answer and GIT_TAIL in answer, answer
    assert f"sandbox: writing {repository / named}" in result.stderr


@needs_landlock
def test_a_commit_by_a_command_is_refused_and_said_so(fake, run_ayder, run_env, repository):
    (repository / "a.txt").write_text("changed\n")
    answer, _ = ask_to_run(fake, run_ayder, run_env, "git commit -qam change")
    assert "exit code 128" in answer
    assert f"sandbox: writing {repository}/.git/index.lock {GIT_TAIL}" in answer, answer
    assert git(repository, "log", "--format=%s").stdout == "a\n"


# --- ayder's key stays ayder's


KEY = "sk-ayder-test-key-0123456789"


@pytest.mark.parametrize("sandbox", ["workspace-write", "off"])
def test_a_command_cannot_read_the_key_from_its_environment_or_ayders(fake, run_ayder_process, isolated_env,
                                                                       run_env, sandbox):
    """The real process: /proc/PPID/environ shows the environment ayder was started with."""
    (isolated_env / ".config" / "ayder").mkdir(parents=True, exist_ok=True)
    (isolated_env / ".config" / "ayder" / "config.json").write_text(f'{{"sandbox": "{sandbox}"}}')
    look = (f"for where in /proc/$PPID/environ /proc/self/environ; do "
            f"if grep -qa {KEY} $where 2>/dev/null; then echo \"key in $where\"; fi; done; echo looked")
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": look}}]),
               Reply(text="Done."))
    result = run_ayder_process(*server_args(fake, "openai"), "-x", "go", env={**run_env, "OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    answer = [m for m in fake.chat_requests()[-1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "looked" in answer and "key in" not in answer, answer
    assert fake.chat_requests()[0]["headers"].get("Authorization") == f"Bearer {KEY}"  # ayder still has it


@needs_landlock
def test_a_command_cannot_point_a_submodule_at_a_repository_of_its_own(fake, run_ayder, run_env, repository, tmp_path):
    """A submodule's .git file names its repository; pointed at one the command made, with an fsmonitor in its
    config, the user's next `git status` at the top would run it."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "commit", "-q", "--allow-empty", "-m", "start")
    git(repository, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "sub")
    git(repository, "commit", "-q", "-m", "sub")
    pointer = (repository / "sub" / ".git").read_text()
    command = ("cp -r .git/modules/sub evil && printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> evil/config && "
               "printf 'gitdir: ../evil\\n' > sub/.git")

    answer, _ = ask_to_run(fake, run_ayder, run_env, command)

    assert (repository / "sub" / ".git").read_text() == pointer
    git(repository, "status")
    assert not (repository / "pwned").exists() and not (repository / "sub" / "pwned").exists()
    assert f"sandbox: writing {repository}/sub/.git {GIT_TAIL}" in answer, answer


def test_a_command_started_from_ayder_on_a_terminal_has_none_to_write_to_or_push_into(fake, ayder_on_pty_process):
    """ayder's terminal is its controlling terminal; a command's /dev/tty must not reach it."""
    pytest.importorskip("pexpect")
    from support.pty_harness import finish

    reach = ("printf '\\033]0;pwned-title\\007' > /dev/tty && echo reached-tty || echo no-tty; "
             "python3 -c \"import fcntl, termios, os; fd = os.open('/dev/tty', os.O_RDONLY); "
             "fcntl.ioctl(fd, termios.TIOCSTI, b'x'); print('pushed')\" 2>/dev/null || echo no-push")
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": reach}}]),
               Reply(text="Done."))
    child = ayder_on_pty_process("--base-url", fake.url, "-x", "go")
    child.expect_exact("Done.")
    assert finish(child) == 0
    answer = [m for m in fake.chat_requests()[-1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "no-tty" in answer and "no-push" in answer, answer
    assert "pwned-title" not in (child.before or "")
