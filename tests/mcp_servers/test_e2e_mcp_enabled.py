"""The tool allowlist (tools.enabled) over MCP tools, end to end through the real `ayder` and a real
MCP server over stdio (one run: a server starts in seconds): the tools not enabled are never listed,
counted or found, and a call to one is refused in one line."""

from __future__ import annotations

import json
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_user_config
from support.harness import server_args
from support.requests_seen import of_role, tool_names
from support.stdio_mcp import GENEROUS_START_S

# find_spec, not importorskip: importing the SDK costs a second, and every worker collects every file
pytestmark = pytest.mark.skipif(find_spec("mcp") is None, reason="needs the mcp extra: pip install -e '.[mcp]'")

MANY = str(Path(__file__).with_name("many_server.py"))


def config(isolated_env, enabled: list[str], **more) -> None:
    write_user_config(isolated_env, {"tools": {"enabled": enabled}, **more, "mcp_servers": {
        "many": {"command": sys.executable, "args": [MANY], "startup_timeout_s": GENEROUS_START_S, "permission": "r"}}})


def test_mcp_tools_not_enabled_are_not_counted_nor_found_and_a_call_to_one_is_refused(fake, run_ayder, isolated_env):
    config(isolated_env, ["read_file", "many__get_refund", "many__list_refund", "many__get_refnd"],
           mcp_schema_share=0.01)
    fake.queue(Reply.calling("find_tools", {"query": "refund records"}),
               Reply.calling("many__create_refund", {"record_id": "R-1"}, id="c2"),
               Reply(text="Sorry."))
    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "8192", "refunds?")
    assert result.returncode == 0, result.stderr
    first, second, third = fake.chat_requests()
    assert "MCP: 1 server · 2 tools" in result.stderr  # of 64: only the enabled are counted
    assert "tools.enabled names 'many__get_refnd', which no MCP server has (did you mean 'many__get_refund'?)" in (
        result.stderr)
    assert tool_names(first) == ["read_file", "find_tools"]  # over 1% of the window: deferred
    assert "- many (2 tools)" in first["body"]["messages"][0]["content"]
    [found] = of_role(second, "tool")
    assert sorted(tool["name"] for tool in json.loads(found["content"].removeprefix("ok:\n"))) == [
        "many__get_refund", "many__list_refund"]  # not create_refund nor archive_refund
    refusal = of_role(third, "tool")[-1]
    assert "'many__create_refund' is not among the tools enabled" in refusal["content"]
    assert "\n" not in refusal["content"] and "done by the many server" not in refusal["content"]
