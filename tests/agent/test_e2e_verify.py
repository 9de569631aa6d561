"""Checks after edits, end to end: the user's verify commands run after a reply whose calls changed
files, the model gets one short excerpt of the first failure, repairs are bounded, and the exit
status, --json and --implement say how the last check went."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from support.fakellm import Reply
from support.files import write_json, write_user_config
from support.harness import server_args
from support.requests_seen import messages

from ayder_cli.agent.verify import NOT_ASKED

# Prints 20 KB of noise, then (when app.py holds BUG) an error naming the place, and exits 1.
CHECK_PY = """\
import sys
for n in range(400):
    print(f"collecting module {n:04d} of the project ......................... ok")
source = open("app.py", encoding="utf-8").read()
if "BUG" in source:
    print("app.py:1: error: BUG is not defined")
    sys.exit(1)
print("all good")
"""
CHECK = "python3 check.py"
ERROR_LINE = "app.py:1: error: BUG is not defined"
STOPPED = "stopped: the checks still fail after 2 repair rounds"


def write(path: str, content: str, n: int = 0) -> Reply:
    return Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": path, "content": content},
                                       "id": f"call_{n}"}])


def calls(*pairs: tuple[str, dict]) -> Reply:
    return Reply(text="", tool_calls=[{"name": name, "arguments": arguments, "id": f"call_{i}"}
                                      for i, (name, arguments) in enumerate(pairs)])


def user_notes(request: dict) -> list[str]:
    """The user-role messages after the last assistant message: what came with the results."""
    sent = messages(request)
    last = max(i for i, m in enumerate(sent) if m["role"] == "assistant")
    return [m["content"] for m in sent[last + 1:] if m["role"] == "user"]


def check_note(request: dict) -> str:
    notes = [note for note in user_notes(request) if note.startswith("check failed:")]
    assert len(notes) == 1, user_notes(request)
    return notes[0]


@pytest.fixture
def checked_project(project):
    (project / "check.py").write_text(CHECK_PY, encoding="utf-8")
    (project / "app.py").write_text("x = 1\n", encoding="utf-8")
    return project


@pytest.fixture
def user_config(isolated_env):
    return lambda data: write_user_config(isolated_env, data)


def test_a_bug_is_reported_briefly_the_model_repairs_it_and_the_run_passes(fake, run_ayder, checked_project):
    fake.queue(write("app.py", "x = BUG\n"), write("app.py", "x = 2\n", 1), Reply(text="Fixed."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", CHECK, "change x")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fixed.\n"
    assert (checked_project / "app.py").read_text() == "x = 2\n"
    requests = fake.chat_requests()
    assert len(requests) == 3
    note = check_note(requests[1])
    head, excerpt = note.split("\n", 1)
    assert head.startswith(f"check failed: `{CHECK}` (exit status 1); repair round 1 of 2")
    assert len(excerpt) <= 1200  # though the check printed 20 KB
    assert ERROR_LINE in excerpt
    assert user_notes(requests[2]) == [f"checks passed: `{CHECK}`"]
    lines = result.stderr.splitlines()
    assert f"✗ check: {CHECK} (exit 1)" in lines
    assert f"✓ check: {CHECK}" in lines


def test_a_model_that_never_repairs_gets_two_rounds_then_the_run_fails_with_the_failure_shown(
        fake, run_ayder, checked_project):
    fake.queue(*[write("app.py", f"x = BUG + {n}\n", n) for n in range(3)], Reply(text="never requested"))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--verify", CHECK, "change x")

    assert result.returncode == 1
    requests = fake.chat_requests()
    assert len(requests) == 3  # the first reply and two repair rounds
    assert "repair round 2 of 2" in check_note(requests[2])
    assert result.stderr.count(f"✗ check: {CHECK} (exit 1)") == 3
    assert ERROR_LINE in result.stderr  # the failure, for the user
    assert STOPPED in result.stderr and "send a message to let the model try again" in result.stderr
    assert "never requested" not in result.stdout


def test_a_reply_that_ends_with_the_check_still_failing_exits_1(fake, run_ayder, checked_project):
    fake.queue(write("app.py", "x = BUG\n"), Reply(text="Done, I think."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--verify", CHECK, "change x")
    assert result.returncode == 1
    assert "the last check failed" in result.stderr
    assert ERROR_LINE in result.stderr  # the failure the model ended on, for the user


def test_a_script_line_whose_answer_ends_with_the_check_failing_is_named_as_failed(fake, run_ayder, checked_project):
    fake.queue(write("app.py", "x = BUG\n"), Reply(text="Done, I think."), Reply(text="x is BUG."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--verify", CHECK, input="change x\nwhat is x?\n")
    assert result.returncode == 1
    assert "the last check failed" in result.stderr
    assert ERROR_LINE in result.stderr  # the failure the model ended on, for the user
    assert result.stderr.splitlines()[-1] == "error: script line 1 failed"  # the read-only second line ran no check


def test_a_read_only_turn_runs_no_check(fake, run_ayder, checked_project):
    fake.queue(calls(("read_file", {"file_path": "app.py"}), ("list_files", {})), Reply(text="x is 1."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", "echo ran >> verify.log", "what is x?")
    assert result.returncode == 0, result.stderr
    assert not (checked_project / "verify.log").exists()
    assert "check:" not in result.stderr
    assert not any("checks passed" in note for note in user_notes(fake.chat_requests()[1]))


def test_a_failed_write_runs_no_check(fake, run_ayder, checked_project):
    fake.queue(calls(("replace_string", {"file_path": "app.py", "old_string": "nowhere", "new_string": "y"})),
               Reply(text="Could not."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", "echo ran >> verify.log", "edit")
    assert result.returncode == 0, result.stderr
    assert not (checked_project / "verify.log").exists()


def test_files_is_only_the_changed_files_each_quoted(fake, run_ayder, checked_project):
    (checked_project / "untouched.py").write_text("y = 1\n")
    fake.queue(calls(("write_file", {"file_path": "a b.py", "content": "a = 1\n"}),
                     ("write_file", {"file_path": "c.py", "content": "c = 1\n"})),
               calls(("write_file", {"file_path": "c.py", "content": "c = 2\n"})),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", "printf '%s\\n' {files} >> files.log", "go")
    assert result.returncode == 0, result.stderr
    # Once per reply that wrote; the files changed since the user's message, each once, a name with a space whole.
    assert (checked_project / "files.log").read_text().splitlines() == ["a b.py", "c.py", "a b.py", "c.py"]


def test_config_checks_without_x_and_without_a_terminal_are_not_run_and_say_why_once(
        fake, run_ayder, checked_project, user_config):
    user_config({"verify": ["echo ran >> verify.log"]})
    fake.queue(write("app.py", "x = 2\n"), write("app.py", "x = 3\n", 1), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "change x")
    assert result.returncode == 0, result.stderr
    assert not (checked_project / "verify.log").exists()
    assert result.stderr.count(NOT_ASKED) == 1


def test_config_checks_run_with_x(fake, run_ayder, checked_project, user_config):
    user_config({"verify": ["echo ran >> verify.log"]})
    fake.queue(write("app.py", "x = 2\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "-x", "change x")
    assert result.returncode == 0, result.stderr
    assert (checked_project / "verify.log").read_text() == "ran\n"
    assert "✓ check: echo ran >> verify.log" in result.stderr.splitlines()


def test_a_projects_own_verify_needs_its_trust(fake, run_ayder, checked_project):
    write_json(checked_project / ".ayder" / "config.json", {"verify": ["echo ran >> verify.log"]})
    fake.queue(write("app.py", "x = 2\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "-x", "change x")
    assert result.returncode == 0, result.stderr
    assert not (checked_project / "verify.log").exists()
    assert any("verify" in line and "ignored, the project is not trusted" in line
               for line in result.stderr.splitlines())

    fake.queue(write("app.py", "x = 3\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "-x", "--trust-project", "change x again")
    assert result.returncode == 0, result.stderr
    assert (checked_project / "verify.log").read_text() == "ran\n"


def test_an_empty_verify_command_is_a_usage_error(fake, run_ayder, checked_project):
    result = run_ayder(*server_args(fake, "openai"), "--verify", " ", "hi")
    assert result.returncode == 2
    assert "--verify: the command is empty" in result.stderr


def test_a_bad_verify_config_value_is_one_clear_line(fake, run_ayder, checked_project, user_config):
    user_config({"verify": "pytest -q"})
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 2
    assert '"verify" must be a list of commands' in result.stderr


def test_json_has_verify_events_and_the_final_event_says_whether_the_checks_passed(
        fake, run_ayder, checked_project):
    fake.queue(write("app.py", "x = BUG\n"), write("app.py", "x = 2\n", 1), Reply(text="Fixed."))
    result = run_ayder(*server_args(fake, "openai"), "--json", "-w", "--verify", CHECK, "change x")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    checks = [event for event in events if event["type"] == "verify"]
    assert [(e["command"], e["exit_status"]) for e in checks] == [(CHECK, 1), (CHECK, 0)]
    assert ERROR_LINE in checks[0]["excerpt"] and checks[0]["excerpt"] in check_note(fake.chat_requests()[1])
    assert checks[1]["excerpt"] is None
    assert events[-1]["type"] == "final" and events[-1]["checks_passed"] is True

    fake.queue(write("app.py", "x = BUG\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "--json", "-w", "--verify", CHECK, "change x")
    final = json.loads(result.stdout.splitlines()[-1])
    assert result.returncode == 1 and final["checks_passed"] is False and final["exit_status"] == 1

    fake.queue(Reply(text="Hello."))
    final = json.loads(run_ayder(*server_args(fake, "openai"), "--json", "--verify", CHECK, "hi").stdout
                       .splitlines()[-1])
    assert final["checks_passed"] is None  # none ran


def test_implement_marks_a_task_done_only_when_its_checks_pass(fake, run_ayder, checked_project):
    folder = checked_project / ".ayder" / "tasks"
    folder.mkdir(parents=True)
    task = folder / "TASK-001-change-x.md"
    task.write_text("# change x\n\n- **Status:** pending\n\nDo it.\n")
    done = {"name": "update_task_status", "arguments": {"identifier": "TASK-001", "status": "done"}}
    fake.queue(Reply(text="", tool_calls=[{"name": "write_file", "id": "c0",
                                           "arguments": {"file_path": "app.py", "content": "x = BUG\n"}}, done]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", CHECK, "--implement", "TASK-001")
    assert result.returncode == 1
    assert "TASK-001 not done: its last check failed" in result.stderr
    assert "**Status:** in_progress" in task.read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("top", ["project", "above"])
def test_a_command_that_changes_the_git_status_is_checked_and_one_that_does_not_is_not(
        fake, run_ayder, checked_project, top):
    """The work tree may start at the project or above it (its paths are then from there)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    where = checked_project if top == "project" else checked_project.parent
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=where, check=True, capture_output=True, env=env)
    fake.queue(calls(("run_shell_command", {"command": "ls"})),
               calls(("run_shell_command", {"command": "echo y = 1 > new.py"})),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-x", "--verify", "printf '%s\\n' {files} >> files.log", "go")
    assert result.returncode == 0, result.stderr
    assert (checked_project / "files.log").read_text() == "new.py\n"  # checked once: after the command that wrote


def test_at_a_terminal_the_config_checks_are_asked_once_with_the_commands_shown(
        fake, ayder_on_pty, checked_project, user_config):
    pytest.importorskip("pexpect")
    from support.pty_harness import finish, wait_for_raw_mode

    user_config({"base_url": fake.url, "verify": ["echo ran >> verify.log"]})
    fake.queue(write("app.py", "x = 2\n"), write("app.py", "x = 3\n", 1), Reply(text="All done."))
    child = ayder_on_pty("-w", "change x")
    child.expect_exact("The config names checks to run after the model changes files:")
    child.expect_exact("echo ran >> verify.log")
    child.expect_exact("Run them in this session? [y/N] ")
    wait_for_raw_mode(child)
    child.send("y")
    child.expect_exact("All done.")
    assert finish(child) == 0
    assert "Run them in this session" not in child.before  # once per session
    assert (checked_project / "verify.log").read_text() == "ran\nran\n"

    fake.queue(write("app.py", "x = 4\n"), Reply(text="Done again."))
    child = ayder_on_pty("-w", "change x again")
    child.expect_exact("Run them in this session? [y/N] ")
    wait_for_raw_mode(child)
    child.send("n")
    child.expect_exact("the verify commands will not run in this session")
    child.expect_exact("Done again.")
    assert finish(child) == 0
    assert (checked_project / "verify.log").read_text() == "ran\nran\n"


def test_a_search_replace_block_in_the_text_is_checked_and_the_result_goes_with_the_tool_results(
        fake, run_ayder, project):
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def total(items):\n    return sum(items)\n", encoding="utf-8")
    write_json(project / ".ayder" / "config.json", {"native_tools": "off"})  # calls written as text
    block = "<<<<<<< SEARCH\n    return sum(items)\n=======\n    return sum(items, 0)\n>>>>>>> REPLACE"
    fake.queue(Reply(text=f"src/app.py\n```python\n{block}\n```\n"), Reply(text="Fixed."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--verify", "printf '%s\\n' {files} >> files.log", "fix")
    assert result.returncode == 0, result.stderr
    assert (project / "files.log").read_text() == "src/app.py\n"
    results = messages(fake.chat_requests()[1])[-1]
    assert results["role"] == "user" and results["content"].startswith("Tool results:")
    assert results["content"].endswith("checks passed: `printf '%s\\n' src/app.py >> files.log`")


@pytest.mark.parametrize("num_ctx, most", [(4096, 300), (2048, 300), (8192, 600), (32768, 1200)])
def test_a_smaller_window_gets_a_shorter_excerpt(fake, run_ayder, checked_project, num_ctx, most):
    fake.queue(write("app.py", "x = BUG\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--num-ctx", str(num_ctx), "--verify", CHECK, "go")
    assert result.returncode == 1
    excerpt = check_note(fake.chat_requests()[1]).split("\n", 1)[1]
    assert len(excerpt) <= most
    assert ERROR_LINE in excerpt


def test_ctrl_c_during_a_check_stops_its_processes_and_the_turn(fake, ayder_on_pty_process, checked_project):
    pytest.importorskip("pexpect")
    import time

    from support.pty_harness import finish

    fake.queue(write("app.py", "x = 2\n"), Reply(text="never requested"))
    child = ayder_on_pty_process("--base-url", fake.url, "-w", "--verify", "sleep 60 & echo $! > pid.txt; wait",
                                 "change x")
    pid_file = checked_project / "pid.txt"
    for _ in range(400):  # the check is running once its sleep has written its pid
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.05)
    sleeper = int(pid_file.read_text())
    child.sendintr()
    assert finish(child) == 130
    gone = False
    for _ in range(100):
        try:
            os.kill(sleeper, 0)
        except ProcessLookupError:
            gone = True
            break
        time.sleep(0.05)
    assert gone  # the check's process group was stopped
    assert len(fake.chat_requests()) == 1


def test_a_check_whose_program_is_not_installed_is_said_once_and_not_sent_for_repair(fake, run_ayder, checked_project):
    fake.queue(write("app.py", "x = 2\n"), write("app.py", "x = 3\n", 1), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", "no-such-linter {files}", "--verify", CHECK,
                       "change x")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("check `no-such-linter {files}` cannot run") == 1, result.stderr
    assert "not found" in result.stderr and "is it installed?" in result.stderr
    requests = fake.chat_requests()
    assert len(requests) == 3  # no repair round was spent on it
    for request in requests[1:]:
        assert user_notes(request) == [f"checks passed: `{CHECK}`"]  # the check that could run still ran


def test_a_linter_is_given_only_the_files_of_its_language(fake, run_ayder, checked_project):
    # ruff handed notes.txt reads it as Python and fails on prose the model was then asked to "repair"
    assert shutil.which("ruff"), "ruff is a test dependency"
    fake.queue(calls(("write_file", {"file_path": "notes.txt", "content": "remember = to buy milk\n"}),
                     ("write_file", {"file_path": "app.py", "content": "x = 2\n"})),
               Reply(text="Both written."),
               write("notes.txt", "and = bread too\n"), Reply(text="Notes only."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", "ruff check --force-exclude {files}",
                       input="write both\nadd to the notes\n")
    assert result.returncode == 0, result.stderr
    assert "✓ check: ruff check --force-exclude app.py" in result.stderr.splitlines()
    assert result.stderr.count("check:") == 1  # the reply that wrote only notes.txt ran no linter
    assert user_notes(fake.chat_requests()[1]) == ["checks passed: `ruff check --force-exclude app.py`"]
