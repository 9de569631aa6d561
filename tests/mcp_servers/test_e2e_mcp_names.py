"""MCP tool names end to end through the real `ayder` and real MCP servers over stdio: two servers can
never build the same SERVER__TOOL name, and a tool the config disables is neither offered nor run,
whatever name it had to be given to fit."""

from __future__ import annotations

import hashlib
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_user_config
from support.harness import server_args
from support.requests_seen import all_request_text, of_role, tool_names

pytestmark = pytest.mark.skipif(find_spec("mcp") is None, reason="needs the mcp extra: pip install -e '.[mcp]'")

NAMED = str(Path(__file__).with_name("named_server.py"))


def named(*tools: str) -> dict:
    return {"command": sys.executable, "args": [NAMED, *tools], "permission": "r"}


def test_a_server_name_that_could_build_another_servers_tool_name_is_refused(fake, run_ayder, isolated_env):
    # a's tool b__echo and a__b's tool echo would both be a__b__echo
    write_user_config(isolated_env, {"mcp_servers": {"a": named("b__echo"), "a__b": named("echo")}})
    fake.queue(Reply.calling("a__b__echo", {"text": "hi"}), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "echo hi")
    assert result.returncode == 2
    [line] = [line for line in result.stderr.splitlines() if "a__b" in line]
    assert "may not hold \"__\"" in line
    assert "ran:" not in all_request_text(fake)


def test_a_project_mcp_json_server_with_such_a_name_is_one_line_and_the_run_goes_on(fake, run_ayder, project,
                                                                                   isolated_env):
    (project / ".mcp.json").write_text('{"mcpServers": {"x_": {"command": "true"}}}')
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "--mcp-trust", "hi")
    assert result.returncode == 0, result.stderr
    assert "'x_'" in result.stderr and "may not hold" in result.stderr


def test_a_disabled_tool_cut_to_fit_is_neither_offered_nor_run(fake, run_ayder, isolated_env):
    long = "search_" + "x" * 60  # SERVER__TOOL is over 64 characters: it is cut and hashed to fit
    write_user_config(isolated_env, {"tools": {"disabled": [f"docs__{long}"]},
                                     "mcp_servers": {"docs": named(long, "other")}})
    full = f"docs__{long}"
    offered_as = f"{full[:55]}_{hashlib.sha256(full.encode()).hexdigest()[:8]}"
    fake.queue(Reply.calling(offered_as, {"text": "hi"}), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "search")
    assert result.returncode == 0, result.stderr
    first, second = fake.chat_requests()
    assert tool_names(first)[-1:] == ["docs__other"]  # the disabled one under no name at all
    assert not any(name.startswith("docs__search") for name in tool_names(first))
    [answer] = of_role(second, "tool")
    assert "ran:" not in answer["content"]
