"""One writer per session: a second ayder on a session in use starts a new one (or exits 1), naming the other."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args

from ayder_cli.config.schema import KEYS, Config
from ayder_cli.storage.session_lock import EMPTY_PID_FILE_STALE_S, SessionLock, read_holder
from ayder_cli.storage.sessions import Session, SessionInUse, SessionStore
from ayder_cli.storage.transcript import load


def sessions_of(project: Path) -> list[Path]:
    return sorted((project / ".ayder" / "sessions").glob("*.jsonl"))


def user_messages(path: Path) -> list[str]:
    return [message["content"].split("\n\n")[-1] for message in load(path)[0] if message["role"] == "user"]


def dead_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# --- the lock itself


@pytest.mark.parametrize("use_flock", [True, False], ids=["flock", "pid-file"])
def test_one_holder_at_a_time_and_the_other_is_named(tmp_path, use_flock):
    first, second = (SessionLock(tmp_path / "s.lock", use_flock=use_flock) for _ in range(2))
    assert first.acquire() is None and first.held
    holder = second.acquire()
    assert holder is not None and holder.pid == os.getpid() and holder.since is not None
    assert f"another ayder (pid {os.getpid()}, since " in holder.describe()
    first.release()
    assert not (tmp_path / "s.lock").exists()
    assert second.acquire() is None


def test_a_pid_file_left_by_a_dead_process_is_taken_over(tmp_path):
    path = tmp_path / "s.lock"
    path.write_text(json.dumps({"pid": dead_pid(), "since": "2026-01-01T00:00:00+00:00"}))
    lock = SessionLock(path, use_flock=False)
    assert lock.acquire() is None
    assert read_holder(path).pid == os.getpid()


def test_a_pid_file_of_a_live_process_is_respected_and_an_old_empty_one_is_not(tmp_path):
    path = tmp_path / "s.lock"
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as alive:
        try:
            path.write_text(json.dumps({"pid": alive.pid}))
            assert SessionLock(path, use_flock=False).acquire().pid == alive.pid
        finally:
            alive.kill()
    path.write_text("")  # a writer killed between creating the file and filling it
    assert SessionLock(path, use_flock=False).acquire() is not None  # it may still be writing
    old = time.time() - EMPTY_PID_FILE_STALE_S - 1
    os.utime(path, (old, old))
    assert SessionLock(path, use_flock=False).acquire() is None


LOCKER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from ayder_cli.storage.session_lock import SessionLock
    assert SessionLock(Path(sys.argv[1])).acquire() is None
    print("locked", flush=True)
    sys.stdin.read()
""")


def test_a_flock_held_by_a_killed_process_does_not_block(tmp_path):
    path = tmp_path / "s.lock"
    child = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "locked\n"
        assert SessionLock(path).acquire().pid == child.pid
        child.send_signal(signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdin.close()
        child.stdout.close()
    assert path.exists()  # the file stays, the lock went with the process
    assert SessionLock(path).acquire() is None


def test_a_second_writer_of_a_session_is_refused(tmp_path):
    store = SessionStore(tmp_path)
    session = store.start()
    session.append({"role": "user", "content": "first"})
    other = Session.resume(store.find(session.id))
    with pytest.raises(SessionInUse, match=f"in use by another ayder \\(pid {os.getpid()}"):
        other.append({"role": "user", "content": "interleaved"})
    session.close()
    other.append({"role": "user", "content": "after"})
    assert [message["content"] for message in load(session.path)[0]] == ["first", "after"]


# --- the real ayder, two at once


@pytest.fixture
def first_run(fake, spawn_ayder, project):
    """An ayder holding its session: its first reply is held until the test lets it go."""
    release = threading.Event()
    fake.queue(Reply(text="first answer", hold_after=0, release=release))
    process = spawn_ayder(*server_args(fake, "ollama"), "first question")
    fake.wait_for_chat(1)  # its message is in the transcript, so the session is locked
    yield process
    release.set()


def test_a_second_continue_while_the_first_runs_starts_a_new_session(fake, first_run, run_ayder, project):
    fake.queue(Reply(text="second answer"))
    second = run_ayder(*server_args(fake, "ollama"), "--continue", "second question")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "second answer\n"
    [notice] = [line for line in second.stderr.splitlines() if "in use" in line]
    assert f"is in use by another ayder (pid {first_run.pid}, since " in notice
    assert notice.endswith("; starting a new session")

    fake.release_all()
    assert first_run.wait(timeout=20) == 0
    first, new = sorted(sessions_of(project), key=lambda path: user_messages(path))
    assert user_messages(first) == ["first question"]  # nothing of the second run in it
    assert user_messages(new) == ["second question"]


def session_in_use_fail(project: Path, monkeypatch) -> list[str]:
    """The flags that set session_in_use: "fail" (until config/schema.py knows the key: set on the Config class)."""
    if "session_in_use" in KEYS:
        return ["-c", str(write_json(project / "fail.json", {"session_in_use": "fail"}))]
    monkeypatch.setattr(Config, "session_in_use", "fail", raising=False)
    return []


def test_with_session_in_use_fail_the_second_exits_1(fake, first_run, run_ayder, project, monkeypatch):
    flags = session_in_use_fail(project, monkeypatch)
    result = run_ayder(*server_args(fake, "ollama"), *flags, "--continue", "second question")
    assert result.returncode == 1
    assert f"is in use by another ayder (pid {first_run.pid}" in result.stderr
    assert len(fake.chat_requests()) == 1  # the second never asked the model
    assert len(sessions_of(project)) == 1


def test_a_session_left_by_a_killed_ayder_continues(fake, first_run, run_ayder, project):
    first_run.send_signal(signal.SIGKILL)
    first_run.wait()
    fake.queue(Reply(text="second answer"))
    second = run_ayder(*server_args(fake, "ollama"), "--continue", "second question")
    assert second.returncode == 0, second.stderr
    assert "in use" not in second.stderr and "resumed" in second.stderr
    [session] = sessions_of(project)
    assert user_messages(session) == ["first question", "second question"]


def test_the_lock_is_gone_after_a_normal_exit(fake, run_ayder, project):
    assert run_ayder(*server_args(fake, "ollama"), "hello").returncode == 0
    assert list((project / ".ayder" / "sessions").glob("*.lock")) == []
