"""ayder --doctor and /doctor end to end: the real process against the fake server, one line per check."""

from __future__ import annotations

import json
import os
import sys
import threading
from importlib.util import find_spec
from pathlib import Path

import pytest

from support.fakellm import FakeLLM, Reply
from support.files import write_user_config
from support.harness import read_until, server_args
from support.stdio_mcp import GENEROUS_START_S
from support.requests_seen import sent_messages

from ayder_cli.storage.profiles import profiles_path

ADD = {"name": "add", "arguments": {"a": 2, "b": 3}}
TEXT_CALL = '[CALL] add {"a": 2, "b": 3}'
MODEL = "qwen2.5-coder:7b"
OLLAMA_SHOW = {"parameters": "", "model_info": {"qwen2.context_length": 32768},
               "capabilities": ["completion", "tools", "thinking"]}
MARKS = ("✓", "✗", "–")


def doctor(fake, run_ayder, protocol, *args, **kwargs):
    return run_ayder(*server_args(fake, protocol), "-m", MODEL, *args, "--doctor", **kwargs)


def report(stderr: str) -> dict[str, str]:
    """The report's lines by label: {"native tool calls": "✓ add(a=2, b=3) came back ..."}."""
    lines = {}
    for line in stderr.splitlines():
        if line[:1] in MARKS:
            label, text = line[2:21].strip(), line[21:]
            lines[label] = f"{line[0]} {text}"
    return lines


def profile(fake, protocol) -> dict:
    servers = json.loads(profiles_path(os.environ).read_text(encoding="utf-8"))
    url = fake.url if protocol == "ollama" else fake.openai_url
    return servers[f"{url} {MODEL}"]


def serve_a_window(fake) -> None:
    fake.show = OLLAMA_SHOW  # Ollama
    fake.props = {"default_generation_settings": {"n_ctx": 16384}}  # llama.cpp


def forced_requests(fake) -> list[dict]:
    """The doctor's requests for add(a=2, b=3), streamed or not (the round trip's second leg excluded)."""
    return [r["body"] for r in fake.chat_requests()
            if r["body"]["messages"][-1]["content"].startswith("What is 2 + 3?")]


# --- a server that does everything


def test_a_server_with_native_tool_calls_passes_every_check(fake, run_ayder, protocol, project):
    serve_a_window(fake)
    fake.queue(Reply(text="", thinking="2 plus 3, so call add", tool_calls=[ADD]), Reply(text="2 + 3 = 5"),
               Reply(text="", tool_calls=[ADD]), Reply(text="Hello", usage=(901, 2)),
               Reply(text="Hello", usage=(901, 2), cached=880), Reply(text="Hello", usage=(915, 2), cached=901),
               Reply(text="Hello", usage=(915, 2), cached=870))
    result = doctor(fake, run_ayder, protocol)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # the report is on stderr
    lines = report(result.stderr)
    assert list(lines) == ["reachable", "model", "window", "native tool calls", "streaming tools", "thinking",
                           "first request", "cached prefix", "partial prefix"]
    assert all(line.startswith("✓") for line in lines.values()), result.stderr
    assert lines["model"] == f"✓ {MODEL} is served"
    assert lines["native tool calls"] == ("✓ add(a=2, b=3) came back as a native call; "
                                          "then the model answered '2 + 3 = 5'")
    assert lines["streaming tools"] == "✓ add(a=2, b=3) assembled from the streamed fragments: the same call"
    assert lines["first request"] == "✓ 901 prompt tokens (native tools)"
    assert lines["cached prefix"] == "✓ second request: 880 of 901 prompt tokens from the cache"
    assert lines["partial prefix"] == ("✓ an early message changed: 870 of 915 prompt tokens from the cache; "
                                       "it reads again only from the change on")
    assert f"learned profile written to {profiles_path(os.environ)}" in result.stderr
    learned = profile(fake, protocol)
    assert learned["native_tools"] is True and learned["streaming_tools"] is True
    assert learned["first_request_tokens"] == 901 and learned["thinking"] == "separate field"
    assert learned["partial_prefix_reuse"] is True
    assert not (project / ".ayder" / "sessions").exists()  # nothing went into a session transcript


def test_the_forced_request_asks_for_the_tool_with_tool_choice_on_openai_only(fake, run_ayder, protocol):
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]))
    result = doctor(fake, run_ayder, protocol)
    assert result.returncode == 0, result.stderr
    unstreamed, streamed = forced_requests(fake)
    assert unstreamed["stream"] is False and streamed["stream"] is True
    for body in (unstreamed, streamed):
        assert [tool["function"]["name"] for tool in body["tools"]] == ["add"]
        assert body.get("tool_choice") == ("required" if protocol == "openai" else None)
    answer = fake.chat_requests()[1]["body"]  # the result went back, and the model was not forced again
    assert "tool_choice" not in answer
    assert answer["messages"][-1]["role"] == "tool" and "5" in answer["messages"][-1]["content"]


def test_the_first_request_is_the_sessions_own_and_the_cache_line_needs_the_servers_counts(fake, run_ayder, protocol):
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]),
               Reply(text="Hi", usage=(640, 1)), Reply(text="Hi", usage=(640, 1)))
    result = doctor(fake, run_ayder, protocol)
    assert result.returncode == 0, result.stderr
    lines = report(result.stderr)
    assert lines["first request"] == "✓ 640 prompt tokens (native tools)"
    assert lines["cached prefix"] == "– the server does not report its cache"
    assert lines["partial prefix"] == "– the server does not report its cache"
    first, second = (r["body"] for r in fake.chat_requests()[-4:-2])
    assert first == second  # the same request twice
    assert sent_messages(fake.chat_requests()[-3])[-1] == {"role": "user", "content": "Say hello."}
    assert first["messages"][0]["role"] == "system" and "read_file" in json.dumps(first["tools"])
    limit = first["max_tokens"] if protocol == "openai" else first["options"]["num_predict"]
    assert limit == 8


def test_a_cache_that_saves_nothing_is_marked(fake, run_ayder):
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]),
               Reply(usage=(500, 1)), Reply(usage=(500, 1), cached=0))
    result = doctor(fake, run_ayder, "ollama")
    assert report(result.stderr)["cached prefix"] == ("✗ second request: 0 of 500 prompt tokens from the cache: "
                                                      "it read the whole prompt again")
    assert result.returncode == 0  # the model can still be used


def test_a_server_that_reads_the_whole_prompt_again_after_an_early_change_is_remembered_so(fake, run_ayder, protocol):
    """A hybrid model's server: the prompt it holds is reused only whole (the cached prefix check passes), and
    a change to an early message makes it read everything again."""
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]),
               Reply(usage=(500, 1)), Reply(usage=(500, 1), cached=499), Reply(usage=(514, 1), cached=500),
               Reply(usage=(514, 1), cached=0))
    result = doctor(fake, run_ayder, protocol)
    assert result.returncode == 0, result.stderr  # the model can still be used
    assert report(result.stderr)["partial prefix"] == (
        "✗ an early message changed: 0 of 514 prompt tokens from the cache: any change to an earlier message "
        "is a whole re-read; ayder's trims free more of the window at once")
    assert profile(fake, protocol)["partial_prefix_reuse"] is False
    first, extended, changed = (sent_messages(r) for r in fake.chat_requests()[-3:])
    assert extended[:len(first)] == first  # an extension of the request before
    assert [m["role"] for m in extended[-2:]] == ["assistant", "user"]
    differ = [i for i, (a, b) in enumerate(zip(extended, changed)) if a != b]
    assert len(changed) == len(extended) and len(differ) == 1 and differ[0] < len(extended) - 2  # an early one


def reply_limit(body: dict) -> int:
    return body["max_tokens"] if "max_tokens" in body else body["options"]["num_predict"]


def test_the_tool_checks_ask_for_few_tokens_not_the_sessions_max_tokens(fake, run_ayder, protocol):
    # On llama.cpp on a CPU, 4,096 tokens a check made the doctor take minutes.
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]))
    result = doctor(fake, run_ayder, protocol, "--max-tokens", "4096")
    assert result.returncode == 0, result.stderr
    asked = [r["body"] for r in fake.chat_requests()]
    assert len(asked) == 7  # 3 tool checks, first request, cached prefix, partial prefix (2)
    assert all(reply_limit(body) <= 512 for body in asked[:3]), [reply_limit(body) for body in asked]


def test_a_tool_check_cut_at_its_limit_says_so(fake, run_ayder):
    fake.default = Reply(text="Let me think about adding two and three", finish_reason="length")
    result = doctor(fake, run_ayder, "openai")
    assert result.returncode == 1
    assert report(result.stderr)["native tool calls"] == (
        "✗ no tool call came back (the model said 'Let me think about adding two and three'; cut at 512 tokens)")


def test_each_check_is_said_as_it_starts_while_the_model_is_still_working(fake, start_ayder):
    release = threading.Event()  # the streamed check's reply is held until the test has seen its line
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"),
               Reply.held("", after=0, release=release, text="", tool_calls=[ADD]))
    run = start_ayder(*server_args(fake, "openai"), "-m", MODEL, "--doctor")
    try:
        seen = read_until(run.stderr, b"streaming tools    checking")
        assert b"assembled from the streamed fragments" not in seen  # the server has not answered yet
        assert b"\n\xe2\x9c\x93 native tool calls" in seen  # the checks before it ended first
    finally:
        release.set()
    _, rest = run.communicate(timeout=60)
    assert run.returncode == 0, rest
    lines = (seen + rest).decode().splitlines()
    started = lines.index("… streaming tools    checking")
    assert lines[started - 1].startswith("✓ native tool calls")
    assert lines[started + 1].startswith("✓ streaming tools")


@pytest.mark.skipif(find_spec("mcp") is None, reason="needs the mcp extra: pip install -e '.[mcp]'")
def test_the_mcp_line_is_printed_once(fake, run_ayder, isolated_env):
    toy = str(Path(__file__).parents[1] / "mcp_servers" / "toy_stdlib_server.py")
    write_user_config(isolated_env, {"mcp_servers": {"toy": {"command": sys.executable, "args": [toy],
                                                              "startup_timeout_s": GENEROUS_START_S}}})
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]))
    result = doctor(fake, run_ayder, "openai")
    assert result.returncode == 0, result.stderr
    mcp_lines = [line for line in result.stderr.splitlines() if line.startswith("MCP:")]
    assert len(mcp_lines) == 1, result.stderr
    assert mcp_lines[0].startswith("MCP: 1 server · ")


# --- tools as text


def test_a_server_refusing_tools_is_reported_and_text_tools_keep_the_model_usable(fake, run_ayder, protocol):
    fake.queue(Reply(reject_tools=True), Reply(text=TEXT_CALL), Reply(text="The sum is 5."), Reply(text=TEXT_CALL))
    result = doctor(fake, run_ayder, protocol)
    assert result.returncode == 0, result.stderr
    lines = report(result.stderr)
    assert lines["native tool calls"] == ("✗ refused: tools are not supported by this model; "
                                          "ayder teaches tools as text")
    assert lines["text tool calls"] == ("✓ add(a=2, b=3) read by ayder from the reply's text; "
                                        "then the model answered 'The sum is 5.'")
    assert lines["streaming tools"] == "✓ add(a=2, b=3) read from the streamed text: the same call"
    assert lines["first request"].endswith("prompt tokens (text tools)")
    taught = fake.chat_requests()[1]["body"]
    assert "tools" not in taught and "[CALL] tool_name" in taught["messages"][0]["content"]
    first = fake.chat_requests()[-2]["body"]  # the session's first request, as the next run will send it
    assert "tools" not in first and "[CALL] tool_name" in first["messages"][0]["content"]
    learned = profile(fake, protocol)
    assert learned["native_tools"] is False
    assert learned["reason"] == "the server refused native tool calling (tools are not supported by this model)"


def test_a_native_request_answered_with_a_call_in_the_text_is_read_from_the_text(fake, run_ayder):
    written = '<think>use the tool</think><tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
    fake.queue(Reply(text=written), Reply(text="<think>it said 5</think>It is 5."), Reply(text=written))
    result = doctor(fake, run_ayder, "openai")
    assert result.returncode == 0, result.stderr
    lines = report(result.stderr)
    assert lines["native tool calls"] == "✗ no native call came back; the call was written in the reply's text"
    assert lines["text tool calls"] == ("✓ add(a=2, b=3) read by ayder from the reply's text; "
                                        "then the model answered 'It is 5.'")
    assert lines["thinking"] == "✓ comes as think tags in the text; ayder hides them (--show-thinking shows them)"
    assert fake.chat_requests()[1]["body"]["messages"][-1]["content"].startswith("Tool results:")
    assert "native_tools" not in profile(fake, "openai")  # the server took the tools: nothing to hold against it


def test_a_model_that_never_calls_the_tool_cannot_be_used(fake, run_ayder):
    fake.default = Reply(text="5")
    result = doctor(fake, run_ayder, "ollama")
    assert result.returncode == 1
    lines = report(result.stderr)
    assert lines["native tool calls"] == "✗ no tool call came back (the model said '5')"
    assert lines["text tool calls"] == "✗ no tool call came back (the model said '5')"
    assert lines["streaming tools"] == "– not checked: no tool call worked above"


def test_a_server_refusing_tool_choice_is_asked_again_without_it(fake, run_ayder):
    fake.queue(Reply(status=400, error="tool_choice 'required' is not supported"), Reply(text="", tool_calls=[ADD]),
               Reply(text="5"), Reply(text="", tool_calls=[ADD]))
    result = doctor(fake, run_ayder, "openai")
    assert result.returncode == 0, result.stderr
    assert report(result.stderr)["native tool calls"].startswith("✓ add(a=2, b=3) came back as a native call")
    assert [body.get("tool_choice") for body in forced_requests(fake)] == ["required", None, None]


def test_native_tools_refused_only_without_tool_choice_show_in_the_first_request(fake, run_ayder):
    # vLLM without --enable-auto-tool-choice: a forced call works, the session's own requests are refused
    refusal = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]),
               Reply(status=400, error=refusal), Reply(usage=(420, 1)))
    result = doctor(fake, run_ayder, "openai")
    assert result.returncode == 0, result.stderr
    assert report(result.stderr)["first request"] == ("✓ 420 prompt tokens "
                                                      f"(text tools; native tools were refused: {refusal})")
    assert profile(fake, "openai")["native_tools"] is False


# --- what stops the checks


def test_a_model_the_server_does_not_serve_lists_the_served_ones(run_ayder):
    models = tuple(f"model-{n:02}" for n in range(13))
    with FakeLLM(models=models) as fake:
        result = run_ayder("--base-url", fake.url, "-m", "missing", "--doctor")
    assert result.returncode == 1
    listed = ", ".join(models[:10])
    assert report(result.stderr)["model"] == f"✗ missing is not among the server's models: {listed}, and 3 more"
    assert "run: ollama pull missing, or pick one with -m NAME" in result.stderr


def test_an_ollama_name_without_its_tag_matches_latest(run_ayder):
    with FakeLLM(models=("llama3:latest",)) as fake:
        fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]))
        result = run_ayder("--base-url", fake.url, "-m", "llama3", "--doctor")
    assert result.returncode == 0, result.stderr
    assert report(result.stderr)["model"] == "✓ llama3 is served (as llama3:latest)"


def test_an_unreachable_server_is_one_line_and_exit_1(run_ayder, closed_url):
    result = run_ayder("--base-url", closed_url, "--doctor")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: cannot reach Ollama at {closed_url} (connection refused)"
    assert lines[1:] == ["  start it with `ollama serve`, or point base_url / OLLAMA_HOST at it"]
    assert not profiles_path(os.environ).exists()


def test_a_failing_request_stops_the_checks_with_its_error(fake, run_ayder):
    fake.queue(Reply(status=404, error="model 'qwen2.5-coder:7b' not found"))
    result = doctor(fake, run_ayder, "openai")
    assert result.returncode == 1
    lines = report(result.stderr)
    assert lines["native tool calls"] == "✗ model not found: model 'qwen2.5-coder:7b' not found"
    assert "first request" not in lines and len(fake.chat_requests()) == 1


# --- /doctor in a session


@pytest.mark.parametrize("protocol", ["ollama", "openai"])
def test_doctor_in_a_piped_script_prints_the_report_and_leaves_the_conversation_alone(fake, run_ayder, protocol,
                                                                                        project):
    fake.queue(Reply(text="", tool_calls=[ADD]), Reply(text="5"), Reply(text="", tool_calls=[ADD]),
               Reply(), Reply(), Reply(), Reply(), Reply(text="hello there"))
    result = run_ayder(*server_args(fake, protocol), "-m", MODEL, input="/doctor\nhi\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello there\n"
    lines = report(result.stderr)
    assert lines["native tool calls"].startswith("✓") and lines["first request"].startswith("✓")
    after = fake.chat_requests()[-1]
    assert [m["role"] for m in after["body"]["messages"]] == ["system", "user"]
    assert sent_messages(after)[-1] == {"role": "user", "content": "hi"}
    transcript = next((project / ".ayder" / "sessions").glob("*.jsonl")).read_text(encoding="utf-8")
    assert "Say hello." not in transcript and "What is 2 + 3?" not in transcript
