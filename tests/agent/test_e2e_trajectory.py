"""--trajectory FILE: the run written as ATIF JSON, validated with the published ATIF models (the `atif`
package), from one-shot runs, piped scripts and the REPL, and when a run is cut short."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import KEPT, server_args, sigint_mid_reply
from support.pty_harness import expect_prompt, finish

ANSWER = "notes.txt says hello."
KEY = "sk-live-SECRET-4242"


def read_call(call_id: str = "call_1", **arguments) -> dict:
    return {"name": "read_file", "arguments": {"file_path": "notes.txt", **arguments}, "id": call_id}


def trajectory_at(path: Path):
    """The file as the ATIF models read it (a ValidationError if it is not ATIF), and its JSON."""
    # The published models (Python 3.11+; the test extra installs them), imported only here: pydantic's
    # import costs every worker that collects this file a tenth of a second.
    atif = pytest.importorskip("atif")
    data = json.loads(path.read_text(encoding="utf-8"))
    return atif.Trajectory.model_validate(data), data


def sources(trajectory) -> list[str]:
    return [step.source for step in trajectory.steps]


def test_a_run_with_tool_calls_validates_against_the_atif_models(fake, run_ayder, project, protocol, tmp_path):
    (project / "notes.txt").write_text("hello\n")
    fake.queue(Reply(text="Let me read it.", thinking="The user wants the file.", tool_calls=[read_call()],
                     usage=(812, 7), cached=800),
               Reply(text=ANSWER, usage=(840, 9)))
    path = tmp_path / "run.json"
    result = run_ayder(*server_args(fake, protocol), "-m", "qwen3:8b", "--trajectory", str(path),
                       "what does notes.txt say?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(ANSWER + "\n")  # the answer on stdout as without --trajectory
    trajectory, data = trajectory_at(path)
    assert data["schema_version"] == "ATIF-v1.6" and trajectory.session_id
    assert trajectory.agent.name == "ayder" and trajectory.agent.model_name == "qwen3:8b"
    assert "read_file" in [tool["function"]["name"] for tool in trajectory.agent.tool_definitions]
    assert sources(trajectory) == ["system", "user", "agent", "agent"]
    system, user, calling, answering = trajectory.steps
    assert system.message.strip()  # the system prompt the model was sent
    assert user.message == "what does notes.txt say?"
    assert calling.message == "Let me read it." and calling.reasoning_content == "The user wants the file."
    assert calling.model_name == "qwen3:8b"
    [call] = calling.tool_calls
    assert (call.function_name, call.arguments) == ("read_file", {"file_path": "notes.txt"})
    [observed] = calling.observation.results
    assert observed.source_call_id == call.tool_call_id
    assert observed.content.startswith("ok:") and "hello" in observed.content  # as the model was sent it
    assert (calling.metrics.prompt_tokens, calling.metrics.completion_tokens) == (812, 7)
    assert calling.metrics.cached_tokens == 800
    assert answering.message == ANSWER and answering.tool_calls is None and answering.reasoning_content is None
    totals = trajectory.final_metrics
    assert (totals.total_prompt_tokens, totals.total_completion_tokens, totals.total_cached_tokens) == (1652, 16, 800)
    assert totals.total_steps == 4
    assert data["extra"] == {"exit_status": 0}


def test_calls_written_in_the_text_get_their_observations(fake, run_ayder, project, tmp_path):
    (project / "notes.txt").write_text("hello\n")
    fake.queue(Reply(text='[CALL] read_file {"file_path": "notes.txt"}'), Reply(text=ANSWER))
    path = tmp_path / "run.json"
    result = run_ayder("--base-url", fake.url, "--trajectory", str(path), "q")
    assert result.returncode == 0, result.stderr
    trajectory, _ = trajectory_at(path)
    calling = trajectory.steps[2]
    assert calling.message.startswith("[CALL] read_file")  # the reply as the model wrote it
    [call] = calling.tool_calls
    [observed] = calling.observation.results
    assert call.function_name == "read_file" and observed.source_call_id == call.tool_call_id
    assert "hello" in observed.content


def test_a_failed_call_is_observed_as_the_error_the_model_got(fake, run_ayder, tmp_path):
    fake.queue(Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "missing.txt"},
                                           "id": "call_7"}]), Reply(text="It is not there."))
    path = tmp_path / "run.json"
    assert run_ayder(*server_args(fake, "openai"), "--trajectory", str(path), "q").returncode == 0
    trajectory, _ = trajectory_at(path)
    [observed] = trajectory.steps[2].observation.results
    assert observed.source_call_id == "call_7" and observed.content.startswith("error:")


def test_a_piped_script_writes_every_message_into_one_trajectory(fake, run_ayder, tmp_path):
    fake.queue(Reply(text="First."), Reply(text="Second."))
    path = tmp_path / "run.json"
    result = run_ayder("--base-url", fake.url, "--trajectory", str(path), input="one\ntwo\n")
    assert result.returncode == 0, result.stderr
    trajectory, _ = trajectory_at(path)
    assert sources(trajectory) == ["system", "user", "agent", "user", "agent"]  # the system prompt once
    assert [step.message for step in trajectory.steps[1:]] == ["one", "First.", "two", "Second."]


def test_each_message_is_written_before_the_next_one_is_answered(fake, start_ayder, tmp_path):
    release = threading.Event()
    fake.queue(Reply(text="First."), Reply.held("Sec", "ond.", after=1, release=release))
    path = tmp_path / "run.json"
    run = start_ayder("--base-url", fake.url, "--trajectory", str(path), stdin=subprocess.PIPE)
    try:
        run.stdin.write(b"one\ntwo\n")
        run.stdin.close()
        fake.wait_for_chat(2)  # the second message is being answered, and held
        trajectory, _ = trajectory_at(path)
        assert [step.message for step in trajectory.steps[1:]] == ["one", "First."]
    finally:
        release.set()
    assert run.wait(30) == 0
    trajectory, _ = trajectory_at(path)
    assert [step.message for step in trajectory.steps[1:]] == ["one", "First.", "two", "Second."]


def test_the_repl_writes_its_messages_when_it_ends(fake, ayder_on_pty, tmp_path):
    fake.default = Reply(text="Noted.")
    path = tmp_path / "run.json"
    child = ayder_on_pty("--base-url", fake.url, "--trajectory", str(path))
    expect_prompt(child)
    child.sendline("remember this")
    child.expect_exact("Noted.")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    trajectory, data = trajectory_at(path)
    assert [step.message for step in trajectory.steps[1:]] == ["remember this", "Noted."]
    assert data["extra"] == {"exit_status": 0}


def test_ctrl_c_keeps_what_arrived_in_the_trajectory(fake, spawn_ayder, project, tmp_path):
    path = tmp_path / "run.json"
    code, out, err = sigint_mid_reply(fake, spawn_ayder, "--base-url", fake.url, "--trajectory", str(path), "q")
    assert code == 130, err
    trajectory, data = trajectory_at(path)
    assert sources(trajectory) == ["system", "user", "agent"]
    assert trajectory.steps[-1].message == KEPT
    assert trajectory.steps[-1].extra["interrupted"] is True
    assert data["extra"]["exit_status"] == 130


def test_a_server_error_keeps_the_steps_before_it_and_says_why(fake, run_ayder, project, tmp_path):
    (project / "notes.txt").write_text("hello\n")
    fake.queue(Reply(text="", tool_calls=[read_call()]), Reply.failing(400, "model crashed"))
    path = tmp_path / "run.json"
    result = run_ayder("--base-url", fake.url, "--trajectory", str(path), "q")
    assert result.returncode == 1
    trajectory, data = trajectory_at(path)
    assert sources(trajectory) == ["system", "user", "agent"]
    assert "hello" in trajectory.steps[2].observation.results[0].content  # the call's result is there
    assert data["extra"]["exit_status"] == 1 and "model crashed" in data["extra"]["error"]


def test_a_message_the_budget_stops_is_recorded_as_stopped(fake, run_ayder, project, tmp_path):
    (project / "notes.txt").write_text("hello\n")
    write_json(project / ".ayder" / "config.json", {"max_checkpoints": 0})
    fake.queue(*(Reply(text="", tool_calls=[read_call(f"call_{n}", start_line=n + 1)]) for n in range(3)))
    path = tmp_path / "run.json"
    result = run_ayder("--base-url", fake.url, "-I", "1", "--trajectory", str(path), "q")
    assert result.returncode == 1
    trajectory, data = trajectory_at(path)
    assert sources(trajectory) == ["system", "user", "agent", "agent"]
    ran, refused = trajectory.steps[2:]
    assert len(ran.observation.results) == 1
    assert "-I 1" in refused.extra["stopped"]
    assert data["extra"]["exit_status"] == 1


def test_json_events_stay_as_they_are_beside_a_trajectory(fake, run_ayder, project, tmp_path):
    (project / "notes.txt").write_text("hello\n")
    replies = (Reply(text="", tool_calls=[read_call()], usage=(812, 7)), Reply(text=ANSWER, usage=(840, 7)))
    fake.queue(*replies)
    alone = run_ayder("--base-url", fake.url, "--json", "q")
    fake.queue(*replies)
    path = tmp_path / "run.json"
    beside = run_ayder("--base-url", fake.url, "--json", "--trajectory", str(path), "q")
    assert alone.returncode == beside.returncode == 0, alone.stderr + beside.stderr
    assert beside.stdout == alone.stdout
    trajectory, _ = trajectory_at(path)
    assert trajectory.steps[-1].message == ANSWER


def test_keys_are_masked_in_the_trajectory(fake, run_ayder, tmp_path):
    fake.queue(Reply(text=f"your key is {KEY}."))
    path = tmp_path / "run.json"
    result = run_ayder(*server_args(fake, "openai"), "--trajectory", str(path), "what is my key?",
                       env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    assert KEY not in path.read_text()
    trajectory, _ = trajectory_at(path)
    assert trajectory.steps[-1].message == "your key is ***."


@pytest.mark.parametrize("where", ["missing/run.json", ".", ""])
def test_a_path_that_cannot_be_written_is_a_usage_error_before_anything_is_sent(fake, run_ayder, where):
    result = run_ayder("--base-url", fake.url, "--trajectory", where, "q")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --trajectory") and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 2  # the error and what to do
    assert fake.chat_requests() == []


def test_an_earlier_file_is_replaced_whole_and_keeps_its_mode(fake, run_ayder, tmp_path):
    (tmp_path / "runs").mkdir()
    path = tmp_path / "runs" / "run.json"
    path.write_text("x" * 100_000)
    path.chmod(0o600)
    fake.queue(Reply(text="Short."))
    assert run_ayder("--base-url", fake.url, "--trajectory", str(path), "q").returncode == 0
    trajectory, _ = trajectory_at(path)
    assert trajectory.steps[-1].message == "Short."
    assert path.stat().st_mode & 0o777 == 0o600
    assert [entry.name for entry in path.parent.iterdir()] == ["run.json"]  # no temporary file left


def test_the_checks_after_edits_are_observed_with_the_excerpt_the_model_got(fake, run_ayder, project, tmp_path):
    (project / "check.py").write_text("import sys\nif 'BUG' in open('app.py').read():\n"
                                      "    print('app.py:1: error: BUG is not defined')\n    sys.exit(1)\n")
    write = {"name": "write_file", "arguments": {"file_path": "app.py", "content": "x = BUG\n"}, "id": "call_1"}
    fake.queue(Reply(text="", tool_calls=[write]), Reply(text="", tool_calls=[{**write, "id": "call_2", "arguments": {
        "file_path": "app.py", "content": "x = 2\n"}}]), Reply(text="Fixed."))
    path = tmp_path / "run.json"
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", "python3 check.py", "--trajectory", str(path),
                       "change x")
    assert result.returncode == 0, result.stderr
    trajectory, _ = trajectory_at(path)
    failed, passed = (step.observation.results for step in trajectory.steps[2:4])
    assert [result.source_call_id for result in failed] == ["call_1", None]
    assert failed[1].content.startswith("check failed: `python3 check.py`")
    assert "app.py:1: error: BUG is not defined" in failed[1].content and failed[1].extra["exit_status"] == 1
    assert passed[1].content == "check passed: `python3 check.py`" and passed[1].extra["exit_status"] == 0


def test_a_model_switched_to_is_named_on_its_steps_and_the_run_keeps_the_first(fake, run_ayder, tmp_path):
    fake.queue(Reply(text="First."), Reply(text="Second."))
    path = tmp_path / "run.json"
    result = run_ayder("--base-url", fake.url, "-m", "small:1b", "--trajectory", str(path),
                       input="one\n/model big:70b\ntwo\n")
    assert result.returncode == 0, result.stderr
    trajectory, _ = trajectory_at(path)
    assert [step.model_name for step in trajectory.steps if step.source == "agent"] == ["small:1b", "big:70b"]
    assert trajectory.agent.model_name == "small:1b"
