"""One usage line per user message, on stderr: tokens in/out, the context used of the window, tokens/s."""

from __future__ import annotations

import io

from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.usage_line import describe_message_usage
from ayder_cli.llm.wire_types import Usage
from ayder_cli.llm.ollama import _speed
from ayder_cli.llm.openai_compat import _usage as openai_usage


def usage_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("tokens: ")]


def test_a_message_with_a_tool_call_gets_one_usage_line_for_both_requests(fake, run_ayder, protocol, project):
    (project / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    fake.queue(
        Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"}, "id": "c1"}],
              usage=(100, 10), speed=20.0),
        Reply(text="Two lines.", usage=(150, 30), speed=60.0),
    )
    result = run_ayder(*server_args(fake, protocol), "--num-ctx", "1000", "what is in notes.txt?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Two lines.\n"
    # 40 tokens in 0.5 + 0.5 seconds: 40 tokens/s; the last request used 180 of the 1000-token window.
    line = "tokens: in 250 · out 40 · 2 requests · context 180 of 1000 (18%) · 40.0 tokens/s"
    assert usage_lines(result.stderr) == [line]


def test_each_message_of_a_script_gets_its_own_usage_line(fake, run_ayder):
    fake.queue(Reply(text="A1", usage=(12, 7)), Reply(text="A2", usage=(30, 5)))
    result = run_ayder(*server_args(fake, "openai"), input="Q1\nQ2\n")
    assert result.returncode == 0, result.stderr
    assert [line.split(" · context")[0] for line in usage_lines(result.stderr)] == [
        "tokens: in 12 · out 7", "tokens: in 30 · out 5"]


def test_a_server_without_timings_shows_no_speed(fake, run_ayder, protocol):
    fake.queue(Reply(text="hi", usage=(12, 7)))
    result = run_ayder(*server_args(fake, protocol), "q")
    [line] = usage_lines(result.stderr)
    assert line.startswith("tokens: in 12 · out 7") and "tokens/s" not in line


def test_the_json_mode_keeps_usage_per_call_and_no_usage_line(fake, run_ayder):
    fake.queue(Reply(text="hi", usage=(12, 7)))
    result = run_ayder(*server_args(fake, "openai"), "--json", "q")
    assert result.returncode == 0, result.stderr
    assert usage_lines(result.stderr) == []
    assert '"usage"' in result.stdout


# --- the pieces

def test_the_line_sums_the_cache_and_leaves_out_what_is_unknown():
    line = describe_message_usage([Usage(901, 5, 880), Usage(950, 3, 940)])
    assert line == "tokens: in 1851 (1820 cached, 31 read) · out 8 · 2 requests"
    assert describe_message_usage([]) is None
    assert describe_message_usage([Usage()]) is None


def test_the_context_is_the_last_requests_share_of_the_window():
    assert describe_message_usage([Usage(100, 10), Usage(3000, 72)], 4096).endswith("context 3072 of 4096 (75%)")


def test_llama_cpp_timings_and_ollama_durations_give_the_speed():
    assert openai_usage({"prompt_tokens": 5, "completion_tokens": 9},
                        {"predicted_n": 9, "predicted_per_second": 31.5}).tokens_per_second == 31.5
    assert openai_usage({"prompt_tokens": 5, "completion_tokens": 9}).tokens_per_second is None
    assert _speed({"eval_count": 50, "eval_duration": 2_000_000_000}) == 25.0
    assert _speed({"eval_count": 50}) is None
    assert Usage(1, 2).merged(Usage(None, None, None, 12.5)).tokens_per_second == 12.5


def test_the_console_prints_the_line_once_when_the_message_ends():
    err = io.StringIO()
    console = Console(Environment(stdout=io.StringIO(), stderr=err, no_color=True))
    console.on_usage(Usage(10, 2))
    console.on_usage(Usage(20, 3))
    assert err.getvalue() == ""
    console.on_message_end(None, 100)
    assert err.getvalue() == "tokens: in 30 · out 5 · 2 requests · context 23 of 100 (23%)\n"
    console.on_message_end(None, 100)  # nothing more was counted: no second line
    assert err.getvalue().count("tokens:") == 1
