"""A reply that floods ayder, end to end through the real `ayder` against the fake server: thousands of
tool calls in one reply, and arguments nested thousands deep. The calls past the most one reply may run
are refused without running and the next request still fits the window; arguments nested past the
limit are a malformed call the model is told about, not a crash."""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.files import write_user_config
from support.harness import server_args
from support.requests_seen import activity_lines, of_role

from ayder_cli.agent.batch import MAX_CALLS_PER_REPLY
from ayder_cli.calls import MAX_NESTING


def native_flood(count: int) -> Reply:
    return Reply(text="", tool_calls=[{"name": "list_files", "arguments": {"path": f"d{n}"}, "id": f"c{n}"}
                                      for n in range(count)])


def written_flood(count: int) -> Reply:
    # One delta a line: the flood is in the number of calls (the scanner's splits have their own
    # property tests), and 4-character deltas would spend seconds in the fake server's SSE.
    lines = [f'[CALL] list_files {{"path": "d{n}"}}\n' for n in range(count)]
    return Reply(text="".join(lines), chunks=lines)


@pytest.mark.parametrize("count", [1_000, 10_000])
@pytest.mark.parametrize("flood", [native_flood, written_flood], ids=["native", "text"])
def test_calls_past_the_limit_are_refused_unrun_and_the_next_request_fits(fake, run_ayder, project, flood, count):
    for n in range(MAX_CALLS_PER_REPLY + 5):
        (project / f"d{n}").mkdir()
    fake.queue(flood(count), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "8192", "list them")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[-1]["body"]["messages"]  # the second request was sent: it fit
    assert len(activity_lines(result.stderr)) <= MAX_CALLS_PER_REPLY  # only those ran
    said = [line for line in result.stderr.splitlines() if "refused without running" in line]
    assert said == [f"the reply held {count:,} tool calls: the first {MAX_CALLS_PER_REPLY} are taken, "
                    f"the other {count - MAX_CALLS_PER_REPLY:,} refused without running"]
    second = fake.chat_requests()[-1]
    told = json.dumps(second["body"]["messages"][-3:])
    assert f"not run: the other {count - MAX_CALLS_PER_REPLY} calls of your reply" in told


def test_a_per_tool_cap_refuses_each_call_past_it_without_running(fake, run_ayder, project, isolated_env):
    write_user_config(isolated_env, {"tools": {"max_calls_per_message": {"list_files": 2}}})
    for n in range(5):
        (project / f"d{n}").mkdir()
    fake.queue(native_flood(5), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "list them")
    assert result.returncode == 0, result.stderr
    answers = [m["content"] for m in of_role(fake.chat_requests()[-1], "tool")]
    assert len(answers) == 5
    assert sum(a.startswith("ok") for a in answers) == 2
    assert all("may be called at most 2 times" in a for a in answers[2:])


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 1_000, 100_000])
@pytest.mark.parametrize("native", [True, False], ids=["native", "text"])
def test_arguments_nested_past_the_limit_are_a_malformed_call_not_a_crash(fake, run_ayder, project, native, depth):
    (project / "a.txt").write_text("hello\n")
    arguments = '{"file_path": "a.txt", "x": ' + "[" * depth + "]" * depth + "}"
    text = f"[CALL] read_file {arguments}"  # sent 4 KB a delta: the depth is the point, not the splits
    call = Reply.calling("read_file", arguments) if native else Reply(
        text=text, chunks=[text[at:at + 4096] for at in range(0, len(text), 4096)])
    fake.queue(call, Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "read it")
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    told = json.dumps(fake.chat_requests()[-1]["body"]["messages"][-2:])
    assert f"nested more than {MAX_NESTING} levels deep" in told
    assert "hello" not in told  # not run


def test_arguments_nested_to_the_limit_still_run(fake, run_ayder, project):
    (project / "a.txt").write_text("hello\n")
    nested = "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)
    fake.queue(Reply.calling("read_file", '{"file_path": "a.txt", "x": ' + nested + "}"), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "read it")
    assert "nested more than" not in json.dumps(fake.chat_requests()[-1]["body"]["messages"])
    assert result.returncode == 0, result.stderr
