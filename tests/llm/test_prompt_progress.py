"""A server reading a long prompt: llama.cpp's prompt progress shown and counted as life, and a
first-data deadline that follows the prompt speed the server measured (issue 23, items 1 and 2)."""

from __future__ import annotations

import json
import re

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.pty_harness import finish

from ayder_cli.llm.wire_types import ProgressDelta, PromptProgress, ReadingTime, StreamCutError
from ayder_cli.llm.http import ReplyWatch
from ayder_cli.llm.openai_compat import chunk_delta
from ayder_cli.storage.profiles import profiles_path
from ayder_cli.terminal.progress_line import describe_progress

LLAMA_CPP_PROPS = {"default_generation_settings": {"n_ctx": 8192}, "build_info": "b7000"}


def llama_cpp(fake) -> list[str]:
    """The fake server as llama.cpp: it answers /props, so ayder asks it for prompt progress."""
    fake.props = LLAMA_CPP_PROPS
    return server_args(fake, "openai")


def timeout(project, seconds: float) -> None:
    write_json(project / ".ayder" / "config.json", {"timeout_s": seconds})


def one_error_line(result) -> str:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, result.stderr
    return errors[0]


def learned(home, fake, protocol: str) -> dict:
    """What the server profile holds of the fake server (its one model there)."""
    url = fake.url if protocol == "ollama" else fake.openai_url
    path = profiles_path({"XDG_STATE_HOME": str(home / ".local" / "state")})
    entries = json.loads(path.read_text()) if path.exists() else {}
    found = [entry for key, entry in entries.items() if key.startswith(url + " ")]
    assert len(found) <= 1, entries
    return found[0] if found else {}


# --- llama.cpp's prompt progress


def test_a_read_longer_than_timeout_s_succeeds_while_llama_cpp_reports_progress(fake, run_ayder, project):
    timeout(project, 0.6)
    fake.queue(Reply(text="read it all", reading_s=1.5, progress_every_s=0.2))
    result = run_ayder(*llama_cpp(fake), "q", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "read it all\n"
    assert fake.chat_requests()[0]["body"]["return_progress"] is True
    assert "reading prompt" not in result.stderr  # stderr is not a terminal: no progress line there


def test_a_silent_llama_cpp_read_longer_than_timeout_s_fails_without_progress(fake, run_ayder, project):
    """The same read, but not asked for progress (a build that sends none): nothing shows the server lives."""
    timeout(project, 0.6)
    fake.queue(Reply(text="never", reading_s=1.0))
    result = run_ayder(*server_args(fake, "openai"), "q", timeout=30)  # no /props: not known as llama.cpp
    assert "(timeout_s)" in one_error_line(result)
    assert "return_progress" not in fake.chat_requests()[0]["body"]


def test_a_server_without_props_is_never_sent_return_progress(fake, run_ayder, protocol):
    fake.queue(Reply(text="one"), Reply(text="two"))
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    assert result.returncode == 0, result.stderr
    for request in fake.chat_requests():
        assert "return_progress" not in request["body"]


def test_a_request_that_is_not_streamed_does_not_ask_for_progress(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"stream": False})
    result = run_ayder(*llama_cpp(fake), "q", timeout=30)
    assert result.returncode == 0, result.stderr
    assert "return_progress" not in fake.chat_requests()[0]["body"]


@pytest.mark.parametrize("verbose", [[], ["-v"]])  # -v's lines stop the spinner: progress starts it again
def test_progress_is_one_updating_line_on_a_terminal_cleared_when_text_starts(fake, ayder_on_pty, project, verbose):
    timeout(project, 5)
    fake.queue(Reply(text="the answer", reading_s=1.0, progress_every_s=0.2, usage=(7310, 9), cached=1024))
    child = ayder_on_pty(*llama_cpp(fake), *verbose, "q", term="xterm")
    try:
        child.expect(r"reading prompt [\d,]+/7,310 \(1,024 cached\) · [\d,]+ tok/s · ~\d+ s left")
        child.expect_exact("\r\x1b[K")  # the line cleared before the answer
        child.expect_exact("the answer")
        assert finish(child) == 0
    finally:
        child.close(force=True)


def test_json_gives_progress_events(fake, run_ayder, project):
    fake.queue(Reply(text="done", reading_s=0.6, progress_every_s=0.2, usage=(4000, 3), cached=1000))
    result = run_ayder(*llama_cpp(fake), "--json", "q", timeout=30)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    progress = [event for event in events if event["type"] == "progress"]
    assert len(progress) >= 2
    assert progress[0]["processed"] == progress[0]["cached"] == 1000  # llama.cpp's first report: nothing read yet
    assert progress[0]["tokens_per_second"] is None and progress[0]["seconds_left"] is None
    assert progress[-1]["processed"] == progress[-1]["total"] == 4000
    assert progress[-1]["tokens_per_second"] > 0
    kinds = [event["type"] for event in events]
    assert kinds.index("text") > max(i for i, kind in enumerate(kinds) if kind == "progress")


@pytest.mark.parametrize(("progress", "line"), [
    (PromptProgress(7310, 1024, 3072, 113_800), "reading prompt 3,072/7,310 (1,024 cached) · 18 tok/s · ~4 min left"),
    (PromptProgress(900, 0, 0, 0), "reading prompt 0/900"),
    (PromptProgress(900, 0, 600, 2000), "reading prompt 600/900 · 300 tok/s · ~1 s left"),
    (PromptProgress(90_000, 0, 1000, 100_000), "reading prompt 1,000/90,000 · 10 tok/s · ~2 h 28 min left"),
])
def test_the_progress_line(progress, line):
    assert describe_progress(progress) == line


# --- what the client reads


def test_llama_cpp_progress_chunks_and_timings_are_read():
    # as llama.cpp's server sends them (tools/server/server-task.cpp): an empty assistant delta
    progress = chunk_delta({"choices": [{"finish_reason": None, "index": 0,
                                         "delta": {"role": "assistant", "content": None}}],
                            "object": "chat.completion.chunk",
                            "prompt_progress": {"total": 7310, "cache": 1024, "processed": 3072, "time_ms": 113800}})
    assert progress.progress == PromptProgress(7310, 1024, 3072, 113800)
    assert progress.content is None and progress.usage is None
    assert chunk_delta({"choices": [{"index": 0, "delta": {"content": "tok"}}]}).progress is None
    final = chunk_delta({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                         "timings": {"cache_n": 1024, "prompt_n": 6286, "prompt_ms": 349222.2,
                                     "prompt_per_second": 18.0, "predicted_n": 9, "predicted_per_second": 4.5}})
    assert (final.usage.prompt_tokens, final.usage.cached_tokens, final.usage.prompt_per_second) == (7310, 1024, 18.0)
    nothing_read = chunk_delta({"choices": [], "timings": {"cache_n": 50, "prompt_n": 0, "prompt_per_second": 0.0,
                                                           "predicted_n": 3}})
    assert nothing_read.usage.prompt_per_second is None


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_each_progress_report_starts_the_first_data_limit_again():
    clock = Clock()
    watch = ReplyWatch(first_data_s=3, idle_s=10, total_s=None, clock=clock)
    for _ in range(5):  # 10 s of reading, a report every 2 s
        clock.now += 2
        watch.saw(ProgressDelta(PromptProgress(100, 0, 10, 1000)))
        watch.check()
    clock.now += 3.5
    with pytest.raises(StreamCutError, match=r"within 3 s of the server's last progress report \(timeout_s\)"):
        watch.check()


def test_the_first_data_limit_is_twice_the_reading_time_when_longer_than_timeout_s():
    clock = Clock()
    reading = ReadingTime(tokens=900, speed=45.0)  # 20 s to read
    assert ReplyWatch(first_data_s=3, idle_s=10, total_s=None, clock=clock, reading=reading).first_data_s == 40
    assert ReplyWatch(first_data_s=300, idle_s=10, total_s=None, clock=clock, reading=reading).first_data_s == 300
    watch = ReplyWatch(first_data_s=3, idle_s=10, total_s=None, clock=clock, reading=reading)
    clock.now += 39
    watch.check()
    clock.now += 2
    with pytest.raises(StreamCutError, match=r"within 40 s of the request \(twice the 900 prompt tokens to read "
                                             r"at the 45 tok/s measured before; timeout_s is 3 s\)"):
        watch.check()


# --- the first-data deadline follows the measured prompt speed


def test_a_silent_read_longer_than_timeout_s_succeeds_once_a_reply_measured_the_speed(fake, run_ayder, project,
                                                                                      protocol, notes):
    """The first reply reports a reading speed; the next prompt takes longer than timeout_s to read, in
    silence, but less than twice what that speed needs for it: ayder waits."""
    timeout(project, 0.4)
    # The next prompt is about 800 tokens: at 500 tok/s, it is given about 3 s.
    fake.queue(Reply.calling("read_file", {"file_path": "notes.txt"}, prompt_speed=500.0),
               Reply(text="read slowly", reading_s=1.0))
    result = run_ayder(*server_args(fake, protocol), "-v", "q", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("read slowly\n")
    # -v says the limit chosen for the second request, and why
    assert re.search(r"first reply data within \d\.\d s of the request \(twice the [\d,]+ prompt tokens "
                     r"to read at the 500 tok/s measured before; timeout_s is 0\.4 s\)", result.stderr), result.stderr


def test_the_measured_speed_is_kept_in_the_profile_for_the_next_run(fake, run_ayder, project, protocol, isolated_env):
    timeout(project, 0.4)
    fake.queue(Reply(text="measured", prompt_speed=400.0))  # about 700 tokens: 3.5 s allowed for the next
    assert run_ayder(*server_args(fake, protocol), "q", timeout=30).returncode == 0
    assert learned(isolated_env, fake, protocol)["prompt_per_second"] == 400.0
    fake.queue(Reply(text="read slowly", reading_s=1.0))  # a new run, a silent read over timeout_s
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "read slowly\n"


def test_a_silent_read_without_a_known_speed_fails_at_timeout_s(fake, run_ayder, project, protocol):
    timeout(project, 0.5)
    fake.queue(Reply(text="never", reading_s=3))
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    error = one_error_line(result)
    assert "within 0.5 s of the request (timeout_s)" in error
    assert "raise timeout_s" in result.stderr
    assert result.stdout == ""


def test_the_error_says_the_measured_speed_and_the_key_to_raise(fake, run_ayder, project, protocol):
    timeout(project, 0.5)
    fake.queue(Reply(text="fast", prompt_speed=1_000_000.0),  # so fast that timeout_s is the longer limit
               Reply(text="never", reading_s=3))
    assert run_ayder(*server_args(fake, protocol), "q", timeout=30).returncode == 0  # the speed measured
    result = run_ayder(*server_args(fake, protocol), "q", timeout=30)
    error = one_error_line(result)
    assert "within 0.5 s of the request (timeout_s;" in error
    assert "at the 1,000,000 tok/s measured before" in error
    assert "raise timeout_s" in result.stderr


def test_a_short_read_does_not_set_the_pace(fake, run_ayder, project, isolated_env):
    """A continuation that reads a few tokens past a cached prompt is all fixed costs: its speed is not kept."""
    fake.queue(Reply(text="measured", prompt_speed=400.0),
               Reply(text="again", prompt_speed=3.0, usage=(900, 7), cached=880))
    assert run_ayder(*server_args(fake, "openai"), "q", timeout=30).returncode == 0
    assert run_ayder(*server_args(fake, "openai"), "q", timeout=30).returncode == 0
    assert learned(isolated_env, fake, "openai")["prompt_per_second"] == 400.0
