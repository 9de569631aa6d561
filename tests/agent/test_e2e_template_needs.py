"""What the families' chat templates read back (issue 28, item 5), through the real `ayder` against the
fake server in both protocols: call ids in the shape the template checks (Mistral: 9 alphanumerics, in
the call and its result; Kimi: functions.NAME:IDX), and the reasoning of the turn's tool loop sent back in
the reasoning field, for that turn's messages only."""

from __future__ import annotations

import re

import pytest
from support.fakellm import FakeLLM, Reply
from support.harness import server_args
from support.requests_seen import messages


def call_and_results(request: dict) -> tuple[list[str], list[str]]:
    """The ids of the assistant's calls and the tool_call_ids of the results, in the request's history."""
    sent = messages(request)
    calls = [call.get("id") for m in sent if m["role"] == "assistant" for call in m.get("tool_calls") or ()]
    return calls, [m.get("tool_call_id") for m in sent if m["role"] == "tool"]


@pytest.mark.parametrize(("model", "shape"), [
    ("magistral-small-2509", r"[A-Za-z0-9]{9}"),
    ("devstral-small-2", r"[A-Za-z0-9]{9}"),
    ("kimi-k2-instruct", r"functions\.read_file:[01]"),
])
def test_call_ids_have_the_shape_the_family_template_checks(run_ayder, protocol, project, model, shape):
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    with FakeLLM(models=(model,)) as fake:
        read = {"name": "read_file", "arguments": {"file_path": "a.txt"}}
        fake.queue(Reply(text="", tool_calls=[read, read]), Reply(text="", tool_calls=[read]), Reply(text="alpha."))
        result = run_ayder(*server_args(fake, protocol), "-m", model, "read a.txt")
        assert result.returncode == 0, result.stderr
        calls, results = call_and_results(fake.chat_requests()[2])
    assert len(calls) == 3 and all(re.fullmatch(shape, call) for call in calls), calls
    assert results == calls  # each result names its call by the same id
    if shape.startswith("[A-Z"):
        assert len(set(calls)) == 3  # Mistral's ids are unique in the conversation


def test_other_families_keep_the_ids_the_server_gave(fake, run_ayder, project):
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    fake.queue(Reply.calling("read_file", {"file_path": "a.txt"}, id="call_abc"), Reply(text="alpha."))
    run_ayder(*server_args(fake, "openai"), "read a.txt")
    assert call_and_results(fake.chat_requests()[1]) == (["call_abc"], ["call_abc"])


def reasoning_sent(request: dict, protocol: str) -> list[str | None]:
    field = "thinking" if protocol == "ollama" else "reasoning_content"
    return [m.get(field) for m in messages(request) if m["role"] == "assistant"]


def test_the_reasoning_of_the_turn_goes_back_and_leaves_at_the_next_turn(fake, run_ayder, protocol, project):
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    fake.queue(Reply(text="", thinking="I must read a.txt.", tool_calls=[
                   {"name": "read_file", "arguments": {"file_path": "a.txt"}}]),
               Reply(text="It says alpha.", thinking="It holds alpha."),
               Reply(text="Yes.", thinking="Easy."))
    result = run_ayder(*server_args(fake, protocol), input="read a.txt\nsure?\n")
    assert result.returncode == 0, result.stderr
    in_the_loop, next_turn = fake.chat_requests()[1], fake.chat_requests()[2]
    assert reasoning_sent(in_the_loop, protocol) == ["I must read a.txt."]  # the call's reasoning, in its turn
    assert reasoning_sent(next_turn, protocol) == [None, None]  # a new user message: the turn's reasoning left
