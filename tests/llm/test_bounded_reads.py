"""A server that answers with a body that never ends cannot flood ayder: every answer read whole is capped.

Each test points ayder at a server whose one path streams an endless body as fast as the socket
takes it, and checks that ayder ends as usual (or with one clear line), in time, having taken no
more than the cap (plus what the kernel's socket buffers hold) before closing the connection.
"""

from __future__ import annotations

import time

import pytest
from support.files import write_json
from support.flood import FloodingLLM
from support.harness import run_in_process, server_args

from ayder_cli.llm.body import MAX_BODY_BYTES
from ayder_cli.llm.discover import Candidate

# What may pass the socket beyond the cap: the loopback send and receive buffers, a few MB each.
SLACK_BYTES = 16 * 1024 * 1024
TIMEOUT_S = 3


def flooding(endless: dict[str, int], **options) -> FloodingLLM:
    return FloodingLLM(endless, **options).start()


def assert_bounded(server: FloodingLLM) -> None:
    assert server.answers >= 1, "the endless answer was never asked for"
    assert server.finished.wait(30), "ayder left an endless answer open"  # a guard; a busy machine is slow
    assert server.served <= MAX_BODY_BYTES + SLACK_BYTES, f"{server.served} bytes read"


def against_flood(run, endless: dict[str, int], protocol: str, *args: str, input: str | None = None, **flood):
    """`run` (timed_ayder) against a flooding server named by `endless` and `flood`, stopped after:
    (the server, the result, seconds it took)."""
    server = flooding(endless, **flood)
    try:
        result, took = run(*server_args(server, protocol), *args, **({} if input is None else {"input": input}))
    finally:
        server.stop()
    return server, result, took


@pytest.fixture
def timed_ayder(project, seams):
    """ayder in this process with timeout_s 3: (result, seconds it took)."""
    write_json(project / ".ayder" / "config.json", {"timeout_s": TIMEOUT_S})

    def run(*args: str, **options):
        started = time.monotonic()
        result = run_in_process(args, cwd=project, seams=seams, **options)
        return result, time.monotonic() - started

    return run


def test_an_endless_llama_cpp_props_is_an_unknown_window(timed_ayder):
    server, result, took = against_flood(timed_ayder, {"/props": 200}, "openai", "-v", "q",
                                         head=b'{"default_generation_settings": {"n_ctx": 2048, "x": "')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert "llama.cpp /props" not in result.stderr
    assert took < TIMEOUT_S + 2
    assert_bounded(server)


def test_an_endless_ollama_show_is_an_unknown_window(timed_ayder):
    server, result, took = against_flood(timed_ayder, {"/api/show": 200}, "ollama", "-v", "q",
                                         head=b'{"model_info": {"llama.context_length": 4096, "x": "')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert "trained maximum" not in result.stderr
    assert took < TIMEOUT_S + 2
    assert_bounded(server)


def test_an_endless_redirect_body_is_not_read(timed_ayder):
    server, result, took = against_flood(timed_ayder, {"/props": 302, "/api/v0/models": 302}, "openai", "-v", "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert took < TIMEOUT_S + 2
    assert server.answers == 2, result.stderr
    assert_bounded(server)


def test_a_props_that_trickles_for_ever_is_given_up_at_timeout_s(timed_ayder):
    server, result, took = against_flood(timed_ayder, {"/props": 200}, "openai", "-v", "q",
                                         head=b'{"default_generation_settings": {"n_ctx": 2048, "x": "', every_s=0.05)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert "llama.cpp /props" not in result.stderr
    assert TIMEOUT_S - 0.5 < took < TIMEOUT_S + 2  # the probe waited up to timeout_s, no longer
    assert_bounded(server)


@pytest.mark.parametrize("protocol, path", [("openai", "/v1/chat/completions"), ("ollama", "/api/chat")])
def test_an_endless_error_body_is_one_line_naming_the_status(timed_ayder, protocol, path):
    server, result, took = against_flood(timed_ayder, {path: 500}, protocol, "q", head=b'{"error": "')
    assert result.returncode == 1
    error = [line for line in result.stderr.splitlines() if "HTTP 500" in line]
    assert len(error) == 1 and f"over {MAX_BODY_BYTES // 1048576} MB" in error[0], result.stderr
    assert len(error[0]) < 300
    assert took < 4 * (TIMEOUT_S + 2)  # one read per try, each capped
    assert_bounded(server)


@pytest.mark.parametrize("protocol, path", [("openai", "/v1/models"), ("ollama", "/api/tags")])
def test_an_endless_model_list_is_one_clear_line(timed_ayder, protocol, path):
    server, result, took = against_flood(timed_ayder, {path: 200}, protocol, input="/model\n",
                                         head=b'{"models": [], "data": "')
    assert f"over {MAX_BODY_BYTES // 1048576} MB" in result.stderr
    assert "Traceback" not in result.stderr
    assert took < TIMEOUT_S + 2
    assert_bounded(server)


def test_an_endless_non_streamed_reply_is_one_clear_line(timed_ayder):
    server, result, took = against_flood(timed_ayder, {"/v1/chat/completions": 200}, "openai", "--doctor",
                                         head=b'{"choices": [], "x": "')
    assert f"over {MAX_BODY_BYTES // 1048576} MB" in result.stderr
    assert "Traceback" not in result.stderr
    assert_bounded(server)


# --- discovery


def test_a_discovery_candidate_with_an_endless_model_list_is_passed_over(project, fake):
    flood = flooding({"/api/tags": 200}, head=b'{"models": [], "x": "')
    try:
        result = run_in_process(("-m", fake.models[0], "-v", "q"), cwd=project, seams={"local_servers": (
            Candidate("ollama", "Ollama", flood.url, "/api/tags"),
            Candidate("openai", "llama.cpp-style", fake.openai_url, "/models"))})
    finally:
        flood.stop()
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert fake.openai_url in result.stderr
    assert_bounded(flood)


def test_an_abandoned_discovery_probe_is_closed_not_left_reading(project, fake):
    flood = flooding({"/v1/models": 200}, head=b'{"data": [], "x": "')
    try:
        result = run_in_process(("-m", fake.models[0], "q"), cwd=project, seams={"local_servers": (
            Candidate("ollama", "Ollama", fake.url, "/api/tags"),
            Candidate("openai", "llama.cpp-style", flood.openai_url, "/models"))})
        assert result.returncode == 0, result.stderr
        assert flood.finished.wait(30), "the losing candidate is still being read"  # a guard; a busy machine is slow
        served = flood.served
        time.sleep(0.3)
        assert flood.served == served
    finally:
        flood.stop()
    assert_bounded(flood)
