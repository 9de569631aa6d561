"""The first request of a session stays small and the same from run to run (DESIGN: prompt budget)."""

from __future__ import annotations

import json

import pytest

from ayder_cli.config import Config
from ayder_cli.conversation import Conversation
from ayder_cli.loop import ChatLoop
from ayder_cli.prompts import load_system_prompt
from ayder_cli.tools import default_registry
from ayder_cli.tools.base import ToolContext
from ayder_cli.tools.executor import ToolExecutor

BUDGET_CHARS = 8_000  # about 2,000 tokens


class NoClient:
    provider = "none"

    def stream(self, request):  # pragma: no cover - never asked
        raise AssertionError("no request is sent in these tests")


def first_request(project, native: str) -> tuple[str, list | None]:
    config = Config(native_tools=native)
    loop = ChatLoop(NoClient(), Conversation(load_system_prompt(config.prompts, project)), config,
                    callbacks=None, executor=ToolExecutor(default_registry(), ToolContext(project)))
    loop.conversation.add_user("hi")
    request = loop._request()
    return request.messages[0]["content"], request.tools


@pytest.mark.parametrize("native", ["on", "off"])
def test_system_prompt_and_tool_schemas_fit_the_budget(project, native):
    system, tools = first_request(project, native)
    size = len(system) + len(json.dumps(tools or []))
    assert size < BUDGET_CHARS, size
    if native == "off":
        assert tools is None and "[CALL]" in system and "read_file(" in system
    else:
        assert {t["function"]["name"] for t in tools} >= {"read_file", "list_files"}


def test_first_request_is_identical_across_runs(project, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert first_request(project, "off") == first_request(other, "off")
    assert first_request(project, "on") == first_request(other, "on")
