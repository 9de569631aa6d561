"""Diagnostics after edits through the real ayder, the fake server and a real language server (`ruff
server`, found on PATH as the test extras put it there): an edit that breaks a Python file gets the
new error in the same tool result and the model's next edit clears it; an old error and a clean edit
add nothing; a SEARCH/REPLACE block written as text is checked too; --json has the event; /status
names the server; a project's own lsp table needs its trust; no server outlives the run."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import messages

from ayder_cli.processes.landlock import probe
from ayder_cli.processes.process_groups import descendants

APP = "def total(prices):\n    return sum(prices)\n\n\nprint(total([1, 2]))\n"
BROKEN = APP.replace("def total(prices):", "def total(prices)")
HEAD = "new in app.py after this edit (ruff): 1 error\napp.py:1: error: "
SILENT = str(Path(__file__).resolve().parents[1] / "support" / "silent_lsp.py")


def write(content: str, n: int) -> Reply:
    return Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": "app.py", "content": content},
                                       "id": f"call_{n}"}])


def tool_results(fake) -> list[str]:
    """Every tool result the model was sent, in order, once each."""
    seen: list[str] = []
    for request in fake.chat_requests():
        results = [m["content"] for m in messages(request) if m["role"] == "tool"]
        seen.extend(results[len(seen):])
    return seen


def children() -> list[int]:
    return descendants(os.getpid()) or []


def test_a_breaking_edit_gets_the_new_error_back_and_the_next_edit_clears_it(fake, run_ayder, project):
    (project / "app.py").write_text(APP)
    fake.queue(write(BROKEN, 1), write(APP, 2), Reply(text="Fixed the colon."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "rename nothing")
    assert result.returncode == 0, result.stderr
    broke, fixed = tool_results(fake)
    assert HEAD in broke and broke.index("app.py") < broke.index(HEAD)  # the write's own line first
    assert "after this edit" not in fixed
    assert "ruff: 1 new error" in result.stderr  # the activity line's summary
    assert children() == []  # the server was stopped with the run


def test_an_old_error_and_a_clean_edit_add_nothing(fake, run_ayder, project):
    (project / "app.py").write_text(BROKEN)
    fake.queue(write(BROKEN.replace("[1, 2]", "[1, 2, 3]"), 1), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "add a price")
    assert result.returncode == 0, result.stderr
    [answer] = tool_results(fake)
    assert "after this edit" not in answer and "error" not in answer


def test_a_search_replace_block_written_as_text_gets_the_new_error_in_its_result(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"native_tools": "off"})
    (project / "app.py").write_text(APP)
    block = "<<<<<<< SEARCH\ndef total(prices):\n=======\ndef total(prices)\n>>>>>>> REPLACE"
    fake.queue(Reply(text=f"app.py\n```python\n{block}\n```"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "edit it")
    assert result.returncode == 0, result.stderr
    sent = "\n".join(str(m.get("content")) for m in messages(fake.chat_requests()[-1])[-1:])
    assert "replaced 1 occurrence in app.py" in sent and HEAD in sent


def test_json_has_a_diagnostics_event_before_the_edits_result(fake, run_ayder, project):
    (project / "app.py").write_text(APP)
    fake.queue(write(BROKEN, 1), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "--json", "-w", "break it")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [event["type"] for event in events]
    assert kinds.index("diagnostics") == kinds.index("tool_result") - 1
    event = events[kinds.index("diagnostics")]
    assert event["path"] == "app.py" and event["server"] == "ruff"
    assert [(d["line"], d["severity"], d["code"]) for d in event["new"]] == [(1, "error", "invalid-syntax")]
    assert event["excerpt"] in events[kinds.index("tool_result")]["output"]


def test_status_names_the_servers_found(fake, run_ayder, project):
    result = run_ayder(*server_args(fake, "openai"), input="/status\n")
    assert result.returncode == 0, result.stderr
    assert "diagnostics:  python: ruff server" in result.stderr


def test_a_projects_own_lsp_table_needs_its_trust(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json",
               {"lsp": {"python": {"command": [sys.executable, SILENT], "timeout_s": 0.5}}})
    untrusted = run_ayder(*server_args(fake, "openai"), input="/status\n")
    assert "diagnostics:  python: ruff server" in untrusted.stderr
    trusted = run_ayder(*server_args(fake, "openai"), "--trust-project", input="/status\n")
    assert f"diagnostics:  python: {sys.executable} {SILENT}" in trusted.stderr


def test_a_silent_server_is_skipped_said_once_with_v_and_stopped(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json",
               {"lsp": {"python": {"command": [sys.executable, SILENT], "timeout_s": 0.5}}})
    (project / "app.py").write_text(APP)
    fake.queue(write(BROKEN, 1), write(APP, 2), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "-v", "--trust-project", "edit twice")
    assert result.returncode == 0, result.stderr
    assert [answer for answer in tool_results(fake) if "after this edit" in answer] == []
    assert result.stderr.count("did not answer within 0.5s; its diagnostics are skipped for this session") == 1
    assert children() == []


def ruff_servers_below(pid: int) -> list[int]:
    found = []
    for child in descendants(pid) or []:
        try:
            if b"ruff" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except OSError:
            pass
    return found


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)],
                         ids=["sigterm", "sighup", "ctrl-c"])
def test_a_signal_stops_the_language_server_too(fake, spawn_ayder, project, sent, status):
    (project / "app.py").write_text(APP)
    release = threading.Event()
    fake.queue(write(BROKEN, 1), Reply.held("never", after=0, release=release))
    ayder = spawn_ayder(*server_args(fake, "ollama"), "-w", "break it")
    try:
        fake.wait_for_chat(2, timeout_s=60)  # the edit ran, and its server answered: the model is asked again
        servers = ruff_servers_below(ayder.pid)
        assert len(servers) == 1
        ayder.send_signal(sent)
        _, stderr = ayder.communicate(timeout=30)
    finally:
        release.set()
    assert ayder.returncode == status, stderr.decode()
    deadline = time.monotonic() + 5  # a stopped process may take a moment to be reaped
    while time.monotonic() < deadline and running(servers[0]):
        time.sleep(0.05)
    assert not running(servers[0])


def test_doctor_names_the_servers_found(fake, run_ayder):
    result = run_ayder(*server_args(fake, "openai"), "--doctor")
    assert "\ndiagnostics: python: ruff server" in result.stderr


def test_a_server_missing_from_path_is_named_as_none_and_is_no_error(fake, run_ayder, project):
    (project / "app.py").write_text(APP)
    fake.queue(write(BROKEN, 1), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "break it", env={"PATH": "/nonexistent"})
    assert result.returncode == 0, result.stderr
    [answer] = tool_results(fake)
    assert "after this edit" not in answer


@pytest.mark.skipif(probe()[0] == 0, reason="Landlock is not available here")
def test_the_server_runs_in_the_kernel_sandbox(fake, spawn_ayder, project):
    (project / "app.py").write_text(APP)
    release = threading.Event()
    fake.queue(write(BROKEN, 1), Reply.held("never", after=0, release=release))
    ayder = spawn_ayder(*server_args(fake, "ollama"), "-w", "break it")
    try:
        fake.wait_for_chat(2, timeout_s=60)
        [server] = ruff_servers_below(ayder.pid)
        # Landlock needs no_new_privs, set by the child alone between fork and exec: ayder is never restricted.
        assert "NoNewPrivs:\t1" in Path(f"/proc/{server}/status").read_text()
        assert "NoNewPrivs:\t0" in Path(f"/proc/{ayder.pid}/status").read_text()
    finally:
        release.set()


def test_pylsp_named_in_the_users_config_reports_the_new_error_and_its_fix_clears_it(fake, run_ayder, project,
                                                                                    isolated_env):
    write_json(isolated_env / ".config" / "ayder" / "config.json", {"lsp": {"python": {"command": ["pylsp"]}}})
    (project / "app.py").write_text(APP)
    fake.queue(write(BROKEN, 1), write(APP, 2), Reply(text="Fixed the colon."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "rename nothing")
    assert result.returncode == 0, result.stderr
    broke, fixed = tool_results(fake)
    assert "new in app.py after this edit (pylsp): 1 error\napp.py:1: error: " in broke
    assert "after this edit" not in fixed
    assert children() == []
