"""Many MCP tools in a small window, end to end through the real `ayder`: 64 tools of a server (over
stdio) would fill most of an 8k window, so their schemas are not sent; the system prompt names the server,
the model finds a tool with find_tools, and the tool found is offered and runs."""

from __future__ import annotations

import json
import re
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_user_config
from support.harness import server_args
from support.stdio_mcp import GENEROUS_START_S

# find_spec, not importorskip: importing the SDK costs a second, and every worker collects every file
pytestmark = pytest.mark.skipif(find_spec("mcp") is None, reason="needs the mcp extra: pip install -e '.[mcp]'")

MANY = str(Path(__file__).with_name("many_server.py"))


def user_config(isolated_env, data: dict) -> None:
    write_user_config(isolated_env, data)


def size(request) -> int:
    """A request's prompt in estimated tokens: its messages and tools, four characters a token."""
    body = request["body"]
    return len(json.dumps(body["messages"])) // 4 + len(json.dumps(body.get("tools", []))) // 4


def tool_names(request) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def system(request) -> str:
    return request["body"]["messages"][0]["content"]


def results(request) -> str:
    return "\n".join(str(m.get("content")) for m in request["body"]["messages"] if m["role"] in ("tool", "user"))


def test_many_tools_wait_behind_find_tools_and_a_found_one_runs(fake, run_ayder, isolated_env):
    window = ("--num-ctx", "8192")
    fake.queue(Reply(text="plain"))
    assert run_ayder(*server_args(fake, "openai"), *window, "hi").returncode == 0
    without = size(fake.chat_requests()[0])
    fake.requests.clear()

    user_config(isolated_env, {"mcp_servers": {"many": {"command": sys.executable, "args": [MANY], "startup_timeout_s": GENEROUS_START_S,
                                                        "permission": "r"}}})
    fake.queue(Reply.calling("find_tools", {"query": "refund records"}),
               Reply.calling("many__get_refund", {"record_id": "R-7"}),
               Reply(text="Refund found."))
    result = run_ayder(*server_args(fake, "openai"), *window, "hi")

    assert result.returncode == 0, result.stderr
    first, second, third = fake.chat_requests()
    assert size(first) - without <= 800
    assert "find_tools" in tool_names(first) and not any(name.startswith("many__") for name in tool_names(first))
    assert "- many (64 tools): business records" in system(first)
    line = re.search(r"MCP: 1 server · 64 tools · ~([\d,]+) tokens = (\d+)% of 8192 \(over 10%", result.stderr)
    assert line and int(line[2]) > 10, result.stderr
    assert '"name": "many__get_refund"' in results(second)  # its schema, for the model to call it right
    assert "many__get_refund" in tool_names(third)  # found: offered from then on
    assert "get refund R-7: done by the many server" in results(third)
    assert "Refund found." in result.stdout


def test_as_text_a_tool_called_by_name_runs_before_it_is_found(fake, run_ayder, isolated_env):
    user_config(isolated_env, {"native_tools": "off", "mcp_servers": {
        "many": {"command": sys.executable, "args": [MANY], "startup_timeout_s": GENEROUS_START_S, "permission": "r"}}})
    fake.queue(Reply(text='[CALL] many__list_survey {"record_id": "S-1"}'), Reply(text="Listed."))

    result = run_ayder(*server_args(fake, "ollama"), "--num-ctx", "8192", "surveys?")

    assert result.returncode == 0, result.stderr
    first, second = fake.chat_requests()
    assert "find_tools(query)" in system(first) and "many__" not in system(first).split("- many (64 tools)")[0]
    assert "many__list_survey" not in system(first)
    assert "list survey S-1: done by the many server" in results(second)
    assert "many__list_survey(record_id, note?, limit?)" in system(second)  # called: offered from then on


def test_slash_mcp_shows_state_costs_and_what_is_deferred_and_doctor_the_share(fake, run_ayder, isolated_env):
    user_config(isolated_env, {"mcp_servers": {"many": {"command": sys.executable, "args": [MANY], "startup_timeout_s": GENEROUS_START_S,
                                                        "permission": "r"}}})
    fake.queue(Reply.calling("find_tools", {"query": "refund"}), Reply(text="Found them."))

    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "8192",
                       input="/mcp\nrefunds please\n/mcp\n/doctor\n")

    before, _, after = result.stderr.partition("find_tools(")  # the first /mcp, then the first request
    assert result.stderr.count("MCP: 1 server ·") == 3, result.stderr  # started by the first /mcp; the second; /doctor
    assert "many: started" in before, result.stderr
    assert re.search(r"many__list_invoice  ~\d+ tokens  deferred", before)
    assert "many: started" in after
    assert re.search(r"many__get_refund  ~\d+ tokens  found, sent", after), after
    assert re.search(r"many__list_invoice  ~\d+ tokens  deferred", after)
    assert "Found them." in result.stdout
    doctor = after.partition("many__archive_timesheet")[2]  # after /mcp's last tool: the doctor's report
    assert re.search(r"MCP: 1 server · 64 tools · ~[\d,]+ tokens = \d+% of \d+", doctor), doctor


def test_a_share_outside_0_to_1_is_a_one_line_error(fake, run_ayder, isolated_env):
    user_config(isolated_env, {"mcp_schema_share": 1.5})

    result = run_ayder(*server_args(fake, "openai"), "hi")

    assert result.returncode != 0
    assert "mcp_schema_share" in result.stderr and "<= 1" in result.stderr
    assert "Traceback" not in result.stderr and fake.chat_requests() == []
