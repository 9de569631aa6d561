"""MCP servers as tools, end to end through the real `ayder`: the servers of the user's config start at
the first request, their tools are offered (natively and as text) and run through the ToolExecutor
(permission, time limit, errors), a server that fails or dies is said once, and none outlives the run."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json, write_user_config
from support.harness import server_args
from support.http_mcp import HttpMcp
from support.stdio_mcp import GENEROUS_START_S, StdioServer

import toy_tools  # beside this file

# find_spec, not importorskip: importing the SDK costs a second, and every worker collects every file
pytestmark = pytest.mark.skipif(find_spec("mcp") is None, reason="needs the mcp extra: pip install -e '.[mcp]'")

# The toy server on the standard library: it starts in a few hundredths of a second, the SDK's in most of one.
TOY = str(Path(__file__).with_name("toy_stdlib_server.py"))
# The same tools built on the official SDK, for the test of interoperation with it.
SDK_TOY = str(Path(__file__).with_name("toy_server.py"))
TOKEN = "toy-token-0123456789abcdef"
REPO = Path(__file__).resolve().parents[2]  # the checkout these tests run from, installed editable


def toy(pids: Path, script: str = TOY, **more) -> dict:
    return {"command": sys.executable, "args": [script], "env": {"TOY_PID_FILE": str(pids), **more.pop("env", {})},
            "startup_timeout_s": GENEROUS_START_S, **more}


def python_module(*args: str) -> dict:
    """A server installed from PyPI, run as a module of this Python (it loads the SDK: seconds on a busy machine)."""
    return {"command": sys.executable, "args": ["-m", *args], "startup_timeout_s": GENEROUS_START_S}


def user_config(isolated_env, data: dict) -> Path:
    return write_user_config(isolated_env, data)


def messages(request) -> list[dict]:
    return request["body"]["messages"]


def tool_names(request) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def tool_results(request) -> str:
    """What the tools answered, as the model reads them in the request."""
    return "\n".join(str(m.get("content")) for m in messages(request) if m["role"] in ("tool", "user"))


def started(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 30  # a stopped process may take a moment to be reaped (seconds, when busy)
    while time.monotonic() < deadline and any(_running(pid) for pid in pids):
        time.sleep(0.05)
    assert [pid for pid in pids if _running(pid)] == []


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_native_calls_reach_the_model_and_no_server_outlives_the_run(fake, run_ayder, isolated_env, tmp_path):
    """Interoperation with servers built on the official SDK: the toy server of toy_server.py (MCPServer,
    or FastMCP in mcp 1.x) and mcp-server-time, over stdio."""
    pids = tmp_path / "pids"
    user_config(isolated_env, {"mcp_servers": {
        "toy": toy(pids, SDK_TOY, permission="r", env={"TOY_TOKEN": "${MY_TOY_TOKEN}"}),
        "time": python_module("mcp_server_time"),
    }})
    fake.queue(Reply.calling("toy__echo", {"text": "hello"}),
               Reply.calling("time__get_current_time", {"timezone": "UTC"}),
               Reply.calling("toy__fail", {}),
               Reply(text=f"done {TOKEN}"))

    result = run_ayder(*server_args(fake, "openai"), "-v", "use the tools", env={"MY_TOY_TOKEN": TOKEN})

    assert result.returncode == 0, result.stderr
    requests = fake.chat_requests()
    assert {"toy__echo", "toy__slow", "toy__fail", "toy__crash", "time__get_current_time"} <= set(
        tool_names(requests[0]))
    assert "MCP: 2 of 2 servers running, 6 tools" in result.stderr
    assert "toy says: hello" in tool_results(requests[1])
    # The time server's tools need -x (the default permission, whatever its readOnlyHint says): no terminal.
    assert "denied: time__get_current_time needs execute permission" in tool_results(requests[2])
    # isError: a failed result (mcp 2.x servers keep the exception's text to themselves)
    assert "error: Error executing tool fail" in tool_results(requests[3])
    assert TOKEN not in result.stdout and "done ***" in result.stdout  # a ${VAR} of a server's env is a secret
    assert len(started(pids)) == 1
    assert_all_gone(started(pids))


def test_the_servers_from_pypi_answer_the_model_with_x(fake, run_ayder, isolated_env, project):
    """mcp-server-git and mcp-server-time as a user installs them: with -x their tools run, the answers reach
    the model."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "new.txt").write_text("untracked\n")
    user_config(isolated_env, {"mcp_servers": {
        "git": python_module("mcp_server_git", "--repository", str(project)),
        "time": python_module("mcp_server_time"),
    }})
    fake.queue(Reply.calling("git__git_status", {"repo_path": str(project)}),
               Reply.calling("time__convert_time", {"source_timezone": "UTC", "time": "12:00",
                                                    "target_timezone": "Asia/Tokyo"}),
               Reply(text="Done."))

    result = run_ayder(*server_args(fake, "openai"), "-x", "status and time")

    assert result.returncode == 0, result.stderr
    requests = fake.chat_requests()
    assert "new.txt" in tool_results(requests[1])  # git status of the planted repository
    assert "21:00" in tool_results(requests[2])  # noon UTC is 21:00 in Tokyo
    assert result.stdout == "Done.\n"


def test_text_format_calls_are_taught_and_run(fake, run_ayder, isolated_env, tmp_path):
    pids = tmp_path / "pids"
    user_config(isolated_env, {"native_tools": "off", "mcp_servers": {"toy": toy(pids, permission="r")}})
    fake.queue(Reply(text='[CALL] toy__echo {"text": "as text"}'), Reply(text="Echoed."))

    result = run_ayder(*server_args(fake, "ollama"), "echo it")

    assert result.returncode == 0, result.stderr
    first, second = fake.chat_requests()
    assert "tools" not in first["body"]
    assert "toy__echo(text)" in messages(first)[0]["content"]
    assert "toy says: as text" in tool_results(second)
    assert_all_gone(started(pids))


def test_a_server_that_does_not_start_is_said_once_and_the_run_goes_on(fake, run_ayder, isolated_env, tmp_path):
    pids = tmp_path / "pids"
    user_config(isolated_env, {"mcp_servers": {
        "missing": {"command": str(tmp_path / "no-such-server")},
        "silent": toy(pids, env={"TOY_HANG": "1"}, startup_timeout_s=0.5),
        "toy": toy(pids, permission="r"),
    }})
    fake.queue(Reply.calling("toy__echo", {"text": "still here"}), Reply(text="ok"))

    result = run_ayder(*server_args(fake, "ollama"), "go")

    assert result.returncode == 0, result.stderr
    assert result.stderr.count("MCP server missing did not start") == 1
    assert "MCP server silent did not start: no answer within 0.5 s (startup_timeout_s)" in result.stderr
    assert not any(name.startswith(("missing__", "silent__")) for name in tool_names(fake.chat_requests()[0]))
    assert "toy says: still here" in tool_results(fake.chat_requests()[1])
    assert_all_gone(started(pids))


def test_slash_mcp_before_the_first_request_starts_and_checks_a_new_server(fake, run_ayder, isolated_env, tmp_path):
    pids = tmp_path / "pids"
    user_config(isolated_env, {"mcp_servers": {"missing": {"command": str(tmp_path / "no-such-server")},
                                               "toy": toy(pids, permission="r")}})

    result = run_ayder(*server_args(fake, "ollama"), input="/mcp\n")

    assert result.returncode == 0, result.stderr
    assert result.stderr.count("MCP server missing did not start") == 1, result.stderr
    assert "  toy: started" in result.stderr and "toy__echo  ~" in result.stderr
    assert result.stderr.count("MCP: 1 server · 4 tools") == 1, result.stderr
    assert fake.chat_requests() == []  # the model was not asked
    assert_all_gone(started(pids))


def test_a_server_that_dies_mid_call_is_said_once_and_its_tools_then_fail(fake, run_ayder, isolated_env, tmp_path):
    pids = tmp_path / "pids"
    user_config(isolated_env, {"mcp_servers": {"toy": toy(pids, permission="r")}})
    fake.queue(Reply.calling("toy__crash", {}), Reply.calling("toy__echo", {"text": "anyone?"}), Reply(text="gone"))

    result = run_ayder(*server_args(fake, "ollama"), "crash it")

    assert result.returncode == 0, result.stderr
    assert result.stderr.count("MCP server toy: it stopped") == 1
    after = fake.chat_requests()
    assert "MCP server toy is not running" in tool_results(after[1])
    assert "MCP server toy is not running" in tool_results(after[2]).split("anyone?", 1)[-1]
    assert_all_gone(started(pids))


def test_a_slow_tool_stops_at_its_time_limit(fake, run_ayder, isolated_env, tmp_path):
    pids = tmp_path / "pids"
    user_config(isolated_env, {"mcp_servers": {"toy": toy(pids, permission="r", tool_timeout_s=0.5)}})
    fake.queue(Reply.calling("toy__slow", {"seconds": 30}), Reply.calling("toy__slow", {"seconds": "soon"}),
               Reply(text="ok"))

    result = run_ayder(*server_args(fake, "ollama"), "wait")

    assert result.returncode == 0, result.stderr
    after = fake.chat_requests()
    assert "MCP server toy did not answer slow within 0.5 s (tool_timeout_s)" in tool_results(after[1])
    assert "toy__slow: " in tool_results(after[2]) and "number" in tool_results(after[2])  # the server's schema
    assert_all_gone(started(pids))


@pytest.fixture
def toy_over_http():
    """The toy server's echo and fail on streamable HTTP at a free loopback port, served from this process
    (support/http_mcp.py) -> it, with .url and the .headers of every request it was sent."""
    server = StdioServer("toy")
    for tool in (toy_tools.echo, toy_tools.fail):  # not crash: it would end this process
        server.tool()(tool)
    with HttpMcp(server) as web:
        yield web


def test_a_server_over_http_with_a_header_from_the_environment(fake, run_ayder, isolated_env, toy_over_http):
    user_config(isolated_env, {"mcp_servers": {"web": {"url": toy_over_http.url, "permission": "r",
                                                       "startup_timeout_s": GENEROUS_START_S,
                                                       "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}}})
    fake.queue(Reply.calling("web__echo", {"text": "over http"}), Reply(text=f"sent {TOKEN}"))

    result = run_ayder(*server_args(fake, "ollama"), "echo", env={"WEB_TOKEN": TOKEN})

    assert result.returncode == 0, result.stderr
    assert "toy says: over http" in tool_results(fake.chat_requests()[1])
    assert result.stdout == "sent ***\n"
    # the handshake, the listing and the call each carried the header, its ${VAR} filled in
    assert len(toy_over_http.headers) >= 3
    assert {seen.get("authorization") for seen in toy_over_http.headers} == {f"Bearer {TOKEN}"}


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["sigterm", "ctrl-c"])
def test_a_signal_during_a_call_stops_the_server_too(fake, spawn_ayder, isolated_env, tmp_path, sent, status):
    pids, mark = tmp_path / "pids", tmp_path / "slow-started"
    user_config(isolated_env, {"mcp_servers": {"toy": toy(pids, permission="r", env={"TOY_SLOW_MARK": str(mark)})}})
    fake.queue(Reply.calling("toy__slow", {"seconds": 60}))

    ayder = spawn_ayder(*server_args(fake, "ollama"), "wait long")
    deadline = time.monotonic() + 30  # a guard against a hang, not a timing
    while not mark.exists() and ayder.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mark.exists(), ayder.stderr.read().decode() if ayder.poll() is not None else "no call started"
    ayder.send_signal(sent)
    _, stderr = ayder.communicate(timeout=30)

    assert ayder.returncode == status, stderr.decode()
    assert len(started(pids)) == 1
    assert_all_gone(started(pids))


def test_an_untrusted_project_config_starts_no_server(fake, run_ayder, project, tmp_path):
    pids = tmp_path / "pids"
    write_json(project / ".ayder" / "config.json", {"mcp_servers": {"toy": toy(pids, permission="r")}})
    fake.queue(Reply(text="hi"))

    result = run_ayder(*server_args(fake, "ollama"), "hi")

    assert result.returncode == 0, result.stderr
    assert "mcp_servers ignored, the project is not trusted" in result.stderr
    assert not any(name.startswith("toy__") for name in tool_names(fake.chat_requests()[0]))
    assert started(pids) == []


def test_servers_without_the_sdk_installed_are_one_clear_error(fake, run_ayder, isolated_env, tmp_path,
                                                               monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    user_config(isolated_env, {"mcp_servers": {"toy": toy(tmp_path / "pids")}})

    result = run_ayder(*server_args(fake, "ollama"), "hi")

    assert result.returncode != 0
    error, hint = result.stderr.strip().splitlines()
    assert error == "error: mcp_servers is set but the mcp package is not installed"
    # The extra from the checkout this ayder was installed from (editable, by the test extra's install),
    # with this Python's pip: no index has ayder, and `pip` on PATH may be another environment's.
    assert hint.startswith("  add the mcp extra: ")
    assert shlex.split(hint.split(": ", 1)[1]) == [sys.executable, "-m", "pip", "install", "-e", f"{REPO}[mcp]"]
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["mcp"]
    assert project["name"] == "ayder-cli" and any(need.startswith("mcp") for need in extra)
    assert fake.chat_requests() == []


def test_bad_server_config_is_one_clear_error(fake, run_ayder, isolated_env):
    user_config(isolated_env, {"mcp_servers": {"toy": {"command": "x", "url": "http://localhost:1/mcp"}}})

    result = run_ayder(*server_args(fake, "ollama"), "hi")

    assert result.returncode != 0
    assert 'needs exactly one of "command" (stdio) or "url"' in result.stderr
    assert json.dumps("x") not in result.stdout and fake.chat_requests() == []
    assert os.environ.get("MY_TOY_TOKEN") is None
