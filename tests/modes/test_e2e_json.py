"""Headless runs: --json events on stdout, the per-run flags, and denial by policy without a terminal."""

from __future__ import annotations

import json
import subprocess

import pexpect
import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import KEPT, ayder_command, server_args, sigint_mid_reply

ANSWER = "The file says hello."
KEY = "sk-live-SECRET-4242"


def events_of(stdout: str) -> list[dict]:
    """Every line of stdout is one JSON object with a type; nothing else is there."""
    assert stdout.endswith("\n")
    events = [json.loads(line) for line in stdout.splitlines()]
    assert all(isinstance(event, dict) and isinstance(event.get("type"), str) for event in events)
    return events


def kinds(events: list[dict]) -> list[str]:
    """The sequence of event types, a run of deltas as one."""
    seen: list[str] = []
    for event in events:
        if not (seen and seen[-1] == event["type"] and event["type"] in ("text", "thinking")):
            seen.append(event["type"])
    return seen


def joined(events: list[dict], kind: str) -> str:
    return "".join(event["text"] for event in events if event["type"] == kind)


def read_call(call_id: str = "call_1") -> dict:
    return {"name": "read_file", "arguments": {"file_path": "notes.txt"}, "id": call_id}


def test_json_events_of_a_reply_with_a_tool_call(fake, run_ayder, project, protocol):
    (project / "notes.txt").write_text("hello\n")
    fake.queue(Reply(text="", tool_calls=[read_call()], usage=(812, 7)), Reply(text=ANSWER, usage=(840, 7)))
    result = run_ayder(*server_args(fake, protocol), "--json", "what does notes.txt say?")
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    assert kinds(events) == ["user", "usage", "tool_call", "tool_result", "text", "usage", "answer", "final"]
    user, _, call, done = events[:4]
    assert user["text"].startswith("what does notes.txt say?")
    assert call["name"] == "read_file" and call["arguments"] == {"file_path": "notes.txt"}
    assert done["ok"] is True and "hello" in done["output"] and done["error"] is None
    if protocol == "openai":
        assert call["id"] == done["id"] == "call_1"
    assert joined(events, "text") == ANSWER
    usage = [event for event in events if event["type"] == "usage"]
    assert usage[0]["prompt_tokens"] == 812 and usage[0]["completion_tokens"] == 7 and usage[0]["total_tokens"] == 819
    answer, final = events[-2:]
    assert answer == {"type": "answer", "text": ANSWER, "status": "ok", "reason": None}
    assert final["answer"] == ANSWER and final["exit_status"] == 0 and final["error"] is None
    assert final["totals"] == {"requests": 2, "prompt_tokens": 1652, "completion_tokens": 14,
                               "tool_calls": 1, "denials": 0}
    assert "read_file" in result.stderr  # the activity line stays on stderr


def test_usage_events_carry_the_speed_where_the_server_reports_timings(fake, run_ayder, protocol):
    fake.queue(Reply(text=ANSWER, usage=(100, 10), speed=46.9406), Reply(text=ANSWER))
    timed = run_ayder(*server_args(fake, protocol), "--json", "hi")
    untimed = run_ayder(*server_args(fake, protocol), "--json", "hi")
    assert timed.returncode == untimed.returncode == 0, timed.stderr + untimed.stderr
    [usage] = [event for event in events_of(timed.stdout) if event["type"] == "usage"]
    assert usage["tokens_per_second"] == 46.94  # to two decimals
    [usage] = [event for event in events_of(untimed.stdout) if event["type"] == "usage"]
    assert usage["tokens_per_second"] is None


def test_ctrl_c_gives_an_interrupted_answer_and_a_final_event_with_130(fake, spawn_ayder, protocol):
    code, out, err = sigint_mid_reply(fake, spawn_ayder, *server_args(fake, protocol), "--json", "q")
    assert code == 130, err
    events = events_of(out)
    answer, final = events[-2:]
    assert answer["type"] == "answer" and answer["status"] == "interrupted" and answer["text"] == KEPT
    assert final["type"] == "final" and final["exit_status"] == 130 and final["answer"] == KEPT
    assert joined(events, "text") == KEPT and "Traceback" not in err


def test_thinking_events_only_with_show_thinking(fake, run_ayder, protocol):
    fake.queue(Reply(text=ANSWER, thinking="Let me think."), Reply(text=ANSWER, thinking="Let me think."))
    shown = run_ayder(*server_args(fake, protocol), "--json", "--show-thinking", "hi")
    hidden = run_ayder(*server_args(fake, protocol), "--json", "hi")
    assert shown.returncode == hidden.returncode == 0, shown.stderr + hidden.stderr
    assert joined(events_of(shown.stdout), "thinking") == "Let me think."
    assert "thinking" not in kinds(events_of(hidden.stdout))
    assert joined(events_of(shown.stdout), "text") == joined(events_of(hidden.stdout), "text") == ANSWER


def test_stdout_holds_json_only_and_notices_stay_on_stderr(fake, run_ayder):
    fake.queue(Reply(text=ANSWER))
    result = run_ayder("--base-url", fake.url, "--json", "-v", "hi", input="piped context\n")
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    assert events[0]["type"] == "user" and "piped context" in events[0]["text"]
    assert result.stderr.strip()  # -v metadata went to stderr
    assert ANSWER not in result.stderr


def test_script_mode_gives_each_message_its_events_and_one_final(fake, run_ayder):
    fake.queue(Reply(text="First."), Reply(text="Second."))
    result = run_ayder("--base-url", fake.url, "--json", input="one\ntwo\n")
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    assert kinds(events) == ["user", "text", "usage", "answer", "user", "text", "usage", "answer", "final"]
    assert [event["text"] for event in events if event["type"] == "answer"] == ["First.", "Second."]
    assert events[-1]["answer"] == "Second." and events[-1]["totals"]["requests"] == 2


def test_a_failed_run_still_ends_with_the_final_event(run_ayder, closed_url):
    result = run_ayder("--base-url", closed_url, "--json", "hi")
    assert result.returncode == 1
    final = events_of(result.stdout)[-1]
    assert final["type"] == "final" and final["exit_status"] == 1 and final["error"]
    assert "error:" in result.stderr


def test_a_usage_error_ends_with_the_final_event(run_ayder, project):
    write_json(project / "bad.json", {"temperature": "hot"})
    result = run_ayder("--json", "--config", "bad.json", "hi")
    assert result.returncode == 2
    [final] = events_of(result.stdout)
    assert final["exit_status"] == 2 and "temperature" in final["error"]


def test_keys_are_masked_in_json_events_even_split_across_deltas(fake, run_ayder):
    fake.queue(Reply(text=f"your key is {KEY}.", chunks=["your key is sk-li", "ve-SECR", "ET-4242."]))
    result = run_ayder(*server_args(fake, "openai"), "--json", "what is my key?", env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    assert KEY not in result.stdout and "sk-li" not in result.stdout
    events = events_of(result.stdout)
    assert joined(events, "text") == "your key is ***."
    assert events[-1]["answer"] == "your key is ***."


def test_keys_are_masked_in_json_events_when_a_tool_call_uses_one_as_an_argument_name(fake, run_ayder, project):
    (project / "notes.txt").write_text("hello\n")
    call = {"name": "read_file", "arguments": {"file_path": "notes.txt", KEY: {KEY: "x"}}, "id": "call_1"}
    fake.queue(Reply(text="", tool_calls=[call]), Reply(text=ANSWER))
    result = run_ayder(*server_args(fake, "openai"), "--json", "read it", env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    assert KEY not in result.stdout and KEY not in result.stderr
    [tool_call] = [event for event in events_of(result.stdout) if event["type"] == "tool_call"]
    assert tool_call["arguments"] == {"file_path": "notes.txt", "***": {"***": "x"}}
    saved = "".join(path.read_text() for path in (project / ".ayder").rglob("*.jsonl"))
    assert saved and KEY not in saved


def test_denial_without_a_terminal_is_said_once_and_counted(fake, project):
    """No controlling terminal: every write is denied by policy, said once on stderr, counted in --json."""
    target = project / "a.txt"
    target.write_text("old\n")
    calls = [{"name": "write_file", "arguments": {"file_path": "a.txt", "content": f"new {n}\n"}, "id": f"call_{n}"}
             for n in (1, 2)]
    fake.queue(Reply(text="", tool_calls=calls[:1]), Reply(text="", tool_calls=calls[1:]), Reply(text=ANSWER))
    done = subprocess.run([*ayder_command(), "--base-url", fake.url, "--json", "write it"], cwd=project, check=False,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          start_new_session=True)
    assert done.returncode == 0, done.stderr
    assert target.read_text() == "old\n"
    said = [line for line in done.stderr.splitlines() if "no terminal to ask" in line]
    assert len(said) == 1 and "denied by policy" in said[0] and "-w" in said[0]
    events = events_of(done.stdout)
    results = [event for event in events if event["type"] == "tool_result"]
    assert [event["ok"] for event in results] == [False, False]
    assert all(event["error"].startswith("denied") for event in results)
    assert events[-1]["totals"]["denials"] == 2 and events[-1]["totals"]["tool_calls"] == 2


# --- per-run flags


def test_temperature_and_max_tokens_reach_the_request(fake, run_ayder, protocol):
    fake.queue(Reply(text=ANSWER))
    result = run_ayder(*server_args(fake, protocol), "--temperature", "0.2", "--max-tokens", "321", "hi")
    assert result.returncode == 0, result.stderr
    [request] = fake.chat_requests()
    body = request["body"]
    if protocol == "ollama":
        assert body["options"]["temperature"] == 0.2 and body["options"]["num_predict"] == 321
    else:
        assert body["temperature"] == 0.2 and body["max_tokens"] == 321


@pytest.mark.parametrize("how", ["text", "file"])
def test_system_flag_replaces_the_system_prompt(fake, run_ayder, project, protocol, how):
    prompt = "You are a terse assistant.\nAnswer in one word."
    if how == "file":
        (project / "system.txt").write_text(prompt + "\n")
    fake.queue(Reply(text=ANSWER))
    given = prompt if how == "text" else "@system.txt"
    result = run_ayder(*server_args(fake, protocol), "--system", given, "hi")
    assert result.returncode == 0, result.stderr
    [request] = fake.chat_requests()
    system = [m["content"] for m in request["body"]["messages"] if m["role"] == "system"]
    assert system and system[0].startswith(prompt)
    assert "You are ayder" not in system[0]  # the prompt files are replaced


def test_system_flag_keeps_the_project_instructions_and_survives_reload(fake, run_ayder, project):
    (project / "AGENTS.md").write_text("RULE: run make test.\n")
    fake.queue(Reply(text="First."), Reply(text="Second."))
    result = run_ayder("--base-url", fake.url, "--system", "Be terse.", input="one\n/reload\ntwo\n")
    assert result.returncode == 0, result.stderr
    for request in fake.chat_requests():
        system = request["body"]["messages"][0]
        assert system["role"] == "system" and system["content"].startswith("Be terse.\n\n")
        assert "RULE: run make test." in system["content"] and "You are ayder" not in system["content"]


@pytest.mark.parametrize("flags, says", [
    (["--temperature", "2.5"], "temperature"),
    (["--temperature", "-1"], "temperature"),
    (["--temperature", "warm"], "temperature"),
    (["--max-tokens", "0"], "max_tokens"),
    (["--max-tokens", "many"], "max-tokens"),
    (["--system", "@missing.txt"], "missing.txt"),
    (["--system", "  "], "empty"),
    (["--system", "@"], "no file"),
    (["--no-such-flag"], "no-such-flag"),
])
def test_bad_flag_values_are_usage_errors(fake, run_ayder, flags, says):
    result = run_ayder("--base-url", fake.url, *flags, "hi")
    assert result.returncode == 2, result.stderr
    assert says in result.stderr
    assert result.stdout == ""
    assert fake.chat_requests() == []


def test_the_executor_counts_every_denial_and_says_the_policy_once(project):
    """Denied by policy (no terminal) or by the user: each is counted; the policy is said once."""
    from ayder_cli.calls import ToolCall
    from ayder_cli.tools import default_registry
    from ayder_cli.tools.spec import ToolContext
    from ayder_cli.tools.executor import Answer, Decision, NoTerminal, ToolExecutor

    said: list[str] = []
    executor = ToolExecutor(default_registry(), ToolContext(project), confirmer=NoTerminal(), warn=said.append)
    for n in range(3):
        result = executor.run(ToolCall(f"c{n}", "write_file", {"file_path": f"f{n}.txt", "content": "x"}))
        assert not result.ok and result.error.startswith("denied")
    assert executor.denials == 3 and len(said) == 1 and "denied by policy" in said[0]
    assert not any(project.glob("f*.txt"))

    class Saying:
        def __init__(self, *answers):
            self.answers = list(answers)

        def confirm(self, request):
            return self.answers.pop(0)

    executor = ToolExecutor(default_registry(), ToolContext(project),
                            confirmer=Saying(Answer(Decision.NO), Answer(Decision.DENY, "no"), Answer(Decision.YES)))
    for n in range(3):
        executor.run(ToolCall(f"c{n}", "write_file", {"file_path": f"g{n}.txt", "content": "x"}))
    assert executor.denials == 2
    assert [path.name for path in project.glob("g*.txt")] == ["g2.txt"]


def test_a_run_the_budget_stops_says_stopped_and_exits_1(fake, run_ayder, project):
    (project / "notes.txt").write_text("hello\n")
    write_json(project / ".ayder" / "config.json", {"max_checkpoints": 0})
    reads = [{"name": "read_file", "arguments": {"file_path": "notes.txt", "start_line": n + 1}, "id": f"call_{n}"}
             for n in range(3)]
    fake.queue(*(Reply(text="", tool_calls=[read]) for read in reads))
    result = run_ayder("--base-url", fake.url, "--json", "-I", "1", "q")
    assert result.returncode == 1
    events = events_of(result.stdout)
    [answer] = [event for event in events if event["type"] == "answer"]
    assert answer["status"] == "stopped" and "-I 1" in answer["reason"]
    assert events[-1]["exit_status"] == 1 and events[-1]["error"] == answer["reason"]
    assert events[-1]["totals"]["tool_calls"] == 1


def test_a_denial_shows_a_short_mark_not_the_words_for_the_model(fake, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "x"},
                                           "id": "call_1"}]), Reply(text=ANSWER))
    result = subprocess.run([*ayder_command(), "--base-url", fake.url, "write it"], cwd=project, check=False,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                            start_new_session=True)  # no controlling terminal
    assert result.returncode == 0, result.stderr
    assert result.stdout == ANSWER + "\n"
    assert "✗ denied\n" in result.stderr and "do not retry" not in result.stderr
    assert result.stderr.count("no terminal to ask") == 1


def test_json_with_a_person_at_the_prompt_is_a_usage_error(fake, ayder_on_pty):
    child = ayder_on_pty("--base-url", fake.url, "--json")
    child.expect_exact("--json is for runs without a person at the prompt")
    child.expect(pexpect.EOF)
    child.thread.join(30)  # a guard: the run has ended its output already
    assert child.exitstatus == 2
