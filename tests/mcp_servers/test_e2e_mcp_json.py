"""A project's .mcp.json, end to end through the real `ayder`: a cloned project's servers start nothing
until you approve them once at a terminal (remembered per real path and file content) or give
--mcp-trust for one run; a server of your own config with the same name wins; a broken file is one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json, write_user_config
from support.harness import server_args
from support.stdio_mcp import GENEROUS_START_S

TOY = str(Path(__file__).with_name("toy_stdlib_server.py"))  # the SDK's toy server starts ten times slower
NOT_STARTED = "not started (planted): approve them at a terminal, or give --mcp-trust for one run"


def planted(project: Path, marker: Path, **more) -> Path:
    """A cloned project's .mcp.json whose server, if ever started, leaves a marker file."""
    command = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
    return write_json(project / ".mcp.json", {"mcpServers": {"planted": command, **more}})


def approvals(isolated_env) -> dict:
    path = isolated_env / ".local" / "state" / "ayder" / "trusted_mcp_servers.json"
    return json.loads(path.read_text()) if path.exists() else {}


def tool_names(request) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def test_a_cloned_projects_servers_do_not_start_without_approval(fake, run_ayder, project, isolated_env, tmp_path):
    marker = tmp_path / "started"
    planted(project, marker)
    fake.queue(Reply(text="hello"))

    result = run_ayder(*server_args(fake, "openai"), "hi")

    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    lines = [line for line in result.stderr.splitlines() if "MCP servers of" in line]
    assert len(lines) == 1 and lines[0].endswith(NOT_STARTED), result.stderr
    assert tool_names(fake.chat_requests()[0]) and not any(
        name.startswith("planted__") for name in tool_names(fake.chat_requests()[0]))
    assert approvals(isolated_env) == {}


def test_json_runs_never_ask_and_do_not_start_them(fake, run_ayder, project, tmp_path):
    marker = tmp_path / "started"
    planted(project, marker)
    fake.queue(Reply(text="hello"))

    result = run_ayder(*server_args(fake, "openai"), "--json", "hi")

    assert result.returncode == 0, result.stderr
    assert not marker.exists() and NOT_STARTED in result.stderr


def test_mcp_trust_starts_them_for_this_run_and_your_server_of_the_same_name_wins(
        fake, run_ayder, project, isolated_env, tmp_path):
    pytest.importorskip("mcp")
    marker = tmp_path / "started"
    # Your config names "planted" too: yours (the toy server) runs, the project's marker never appears.
    write_user_config(isolated_env,
                      {"mcp_servers": {"planted": {"command": sys.executable, "args": [TOY], "permission": "r",
                                                   "startup_timeout_s": GENEROUS_START_S}}})
    planted(project, marker, toy={"type": "stdio", "command": sys.executable, "args": [TOY]})
    fake.queue(Reply.calling("toy__echo", {"text": "from .mcp.json"}), Reply(text="done"))

    result = run_ayder(*server_args(fake, "openai"), "-x", "--mcp-trust", "use it")

    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert {"toy__echo", "planted__echo"} <= set(tool_names(fake.chat_requests()[0]))
    assert "toy says: from .mcp.json" in json.dumps(fake.chat_requests()[1]["body"]["messages"])
    assert "not started" not in result.stderr
    assert approvals(isolated_env) == {}  # the flag is for this run only


def test_approved_at_a_terminal_is_remembered_and_a_changed_file_asks_again(
        fake, ayder_on_pty, run_ayder, project, isolated_env, tmp_path):
    pytest.importorskip("pexpect")
    from support.pty_harness import finish, wait_for_raw_mode

    marker = tmp_path / "started"
    path = planted(project, marker)
    fake.default = Reply(text="answered")

    child = ayder_on_pty(*server_args(fake, "openai"), "hi")
    child.expect_exact("names MCP servers, programs ayder would start or reach")
    child.expect_exact(f"planted: {sys.executable} -c")
    child.expect_exact("Start these MCP servers? [y/N] ")
    wait_for_raw_mode(child)
    child.send("y")
    child.expect_exact("answered")
    assert finish(child) == 0
    assert marker.exists()  # approved: it started
    assert list(approvals(isolated_env)) == [str(project.resolve())]

    # Remembered: a run without a terminal starts it too, nobody asked.
    marker.unlink()
    result = run_ayder(*server_args(fake, "openai"), "hi again")
    assert result.returncode == 0 and "not started" not in result.stderr, result.stderr
    assert marker.exists()

    # The file changed: asked again; no starts nothing and says so in one line.
    marker.unlink()
    planted(project, marker, other={"url": "https://mcp.example.invalid/mcp",
                                    "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}})
    assert path.exists()
    child = ayder_on_pty(*server_args(fake, "openai"), "hi")
    child.expect_exact("other: https://mcp.example.invalid/mcp  (given your $GITHUB_TOKEN)")
    child.expect_exact("Start these MCP servers? [y/N] ")
    wait_for_raw_mode(child)
    child.send("n")
    child.expect_exact("not started (planted, other): you answered no")
    child.expect_exact("answered")
    assert finish(child) == 0
    assert not marker.exists()


@pytest.mark.parametrize("text, said", [
    ("{not json", "is not valid JSON"),
    ('{"servers": {}}', 'expected {"mcpServers": {NAME: {command, args, env} | {url, headers}}}'),
    ('{"mcpServers": {"s": {"type": "sse", "url": "https://x.invalid/sse"}}}', "type 'sse' is not supported"),
    ('{"mcpServers": {"s": {"type": "http", "command": "x"}}}', "type 'http' needs 'url'"),
    ('{"mcpServers": {"s": {"command": "x", "args": "not a list"}}}', "'args' must be a list of strings"),
])
def test_a_broken_mcp_json_is_one_line_and_the_run_goes_on(fake, run_ayder, project, text, said):
    (project / ".mcp.json").write_text(text)
    fake.queue(Reply(text="hello"))

    result = run_ayder(*server_args(fake, "openai"), "hi")

    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if ".mcp.json" in line]
    assert len(lines) == 1 and said in lines[0] and lines[0].endswith("its MCP servers are not started"), lines
    assert "hello" in result.stdout
