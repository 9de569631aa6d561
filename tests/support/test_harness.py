"""The harness itself: each way of running ayder gives what the process would, and the readers see
what was written, or fail by their deadline. A harness that lied would make every test built on it lie."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import PipedRun, alive, read_until, run_in_process, run_process, server_args
from support.homes import Homes
from support.pty_harness import TerminalRun, finish
from support.requests_seen import sent_messages
from support.tool_calls import call_tool

# --- ayder in this process


def test_run_in_process_gives_the_exit_status_stdout_and_stderr(project):
    version = run_in_process(["--version"], cwd=project)
    assert version.returncode == 0
    assert version.stdout.startswith("ayder ") and version.stderr == ""

    wrong = run_in_process(["--no-such-flag"], cwd=project)
    assert wrong.returncode == 2
    assert wrong.stdout == "" and "--no-such-flag" in wrong.stderr


def test_run_in_process_pipes_its_input_to_ayder(fake, project):
    fake.queue(Reply(text="the answer"))
    result = run_in_process(server_args(fake, "ollama"), input="the question\n", cwd=project)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the answer\n"
    assert sent_messages(fake.chat_requests()[0])[-1] == {"role": "user", "content": "the question"}


def test_run_in_process_gives_up_at_its_timeout(fake, project):
    release = threading.Event()
    fake.queue(Reply.held("never ", "ends", after=1, release=release))
    started = time.monotonic()
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            run_in_process([*server_args(fake, "ollama"), "hi"], timeout=0.5, cwd=project)
    finally:
        release.set()
    assert time.monotonic() - started < 10


def test_run_in_process_raises_what_ayder_raised(project, monkeypatch):
    def broken_main(*args, **kwargs):
        raise RuntimeError("main broke")

    monkeypatch.setattr("ayder_cli.cli.run_in", broken_main)  # what main() and the harness both call
    with pytest.raises(RuntimeError, match="main broke"):
        run_in_process(["--version"], cwd=project)


def test_a_piped_run_gives_bytes_and_the_exit_status_as_popen_does(project):
    run = PipedRun(["--version"], env=dict(os.environ), cwd=project)
    try:
        out, err = run.communicate(timeout=20)
        assert run.wait(20) == 0 and run.poll() == 0
        assert out.startswith(b"ayder ") and err == b""
    finally:
        run.close()


def test_a_piped_run_reads_what_is_written_to_its_stdin(fake, project):
    fake.queue(Reply(text="seen"))
    run = PipedRun(server_args(fake, "ollama"), env=dict(os.environ), cwd=project, stdin=subprocess.PIPE)
    try:
        out, _ = run.communicate(b"typed in\n", timeout=20)
        assert out == b"seen\n"
        assert sent_messages(fake.chat_requests()[0])[-1]["content"] == "typed in"
    finally:
        run.close()


def test_a_run_on_a_terminal_shows_its_output_and_exit_status(project):
    pytest.importorskip("pexpect")
    run = TerminalRun(["--version"], env=dict(os.environ), cwd=project)
    try:
        run.expect_exact("ayder ")
        assert finish(run) == 0
    finally:
        run.close()


# --- the real process


def test_run_process_runs_the_real_ayder(project):
    result = run_process(["--version"], cwd=project)
    assert result.returncode == 0
    assert result.stdout.startswith("ayder ")
    assert result.stdout == run_in_process(["--version"], cwd=project).stdout


def test_alive_tells_a_running_process_from_an_ended_one():
    process = subprocess.Popen(["sleep", "30"])
    try:
        assert alive(process.pid)
    finally:
        process.kill()
    deadline = time.monotonic() + 10
    while alive(process.pid) and time.monotonic() < deadline:  # dead, not yet reaped: a zombie
        time.sleep(0.01)
    assert not alive(process.pid)
    process.wait()
    assert not alive(process.pid)


# --- reading until something arrives


def test_read_until_joins_what_arrives_in_pieces():
    read_end, write_end = os.pipe()
    try:
        def write_slowly() -> None:
            for piece in (b"wai", b"ting f", b"or it"):
                os.write(write_end, piece)
                time.sleep(0.02)

        writer = threading.Thread(target=write_slowly)
        writer.start()
        seen = read_until(read_end, b"for it", timeout_s=10)
        writer.join()
        assert seen == b"waiting for it"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_read_until_fails_at_its_deadline_saying_what_came():
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"something else")
        started = time.monotonic()
        with pytest.raises(AssertionError, match="did not arrive within 0.2 s; got b'something else'"):
            read_until(read_end, b"never", timeout_s=0.2)
        assert 0.2 <= time.monotonic() - started < 5
    finally:
        os.close(read_end)
        os.close(write_end)


def test_read_until_fails_when_the_stream_ends_first():
    read_end, write_end = os.pipe()
    os.write(write_end, b"last words")
    os.close(write_end)
    try:
        with pytest.raises(AssertionError, match="the stream ended"):
            read_until(read_end, b"more", timeout_s=10)
    finally:
        os.close(read_end)


def test_read_until_reads_a_terminal():
    master, slave = os.openpty()
    try:
        with open(os.dup(slave), "w") as terminal:
            terminal.write("on the screen\n")
        assert b"on the screen" in read_until(master, b"screen", timeout_s=10)
    finally:
        os.close(master)
        os.close(slave)


# --- the small helpers


def test_call_tool_runs_one_call_through_aliases_and_the_tool(project):
    (project / "notes.txt").write_text("the zebra line\n")
    result = call_tool(project, "read_file", path="notes.txt")  # `path`: an alias of file_path
    assert result.ok and "the zebra line" in result.output
    refused = call_tool(project, "read_file", file_path="../outside.txt")
    assert not refused.ok


def test_sent_messages_takes_the_environment_note_off_the_user_message():
    request = {"body": {"messages": [
        {"role": "system", "content": "<environment>\nkept in a system message\n</environment>\n\nrules"},
        {"role": "user", "content": "<environment>\ncwd: /somewhere\n</environment>\n\nthe question"},
        {"role": "user", "content": "no note here"},
    ]}}
    assert [m["content"] for m in sent_messages(request)] == [
        "<environment>\nkept in a system message\n</environment>\n\nrules", "the question", "no note here"]


def test_write_json_makes_the_directories(tmp_path):
    path = write_json(tmp_path / "a" / "b" / "config.json", {"num_ctx": 8192})
    assert path.read_text() == '{"num_ctx": 8192}'


def test_each_test_gets_an_empty_home(tmp_path_factory):
    homes = Homes(tmp_path_factory)
    home = homes.empty_one()
    (home / ".config" / "ayder").mkdir(parents=True)
    (home / ".config" / "ayder" / "config.json").write_text("{}")
    (home / "history").write_text("typed\n")
    (home / "link").symlink_to(tmp_path_factory.getbasetemp())  # removed, not followed
    assert homes.empty_one() == home and list(home.iterdir()) == []
    assert tmp_path_factory.getbasetemp().is_dir()
    home.chmod(0o755)  # a test changed HOME itself: the next test gets another one
    other = homes.empty_one()
    assert other != home and list(other.iterdir()) == []

