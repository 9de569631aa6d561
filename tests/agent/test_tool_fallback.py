"""Native tool calls or tools taught as text: the one refusal test, the profile memory, the retry as text."""

from __future__ import annotations

import pytest

from ayder_cli.agent.tool_fallback import ToolMode, parser_failed, refuses_tools
from ayder_cli.llm.wire_types import ChatRequest, Delta, LLMError
from ayder_cli.config.schema import Config
from ayder_cli.storage.profiles import ServerProfiles


@pytest.mark.parametrize("status, message", [
    (400, 'registry.ollama.ai/library/gemma:2b does not support tools'),
    (500, "tools param requires --jinja flag"),
    (400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
    (500, "Failed to parse tool call arguments as JSON"),
])
def test_a_server_refusing_the_tools_says_so_in_words(status, message):
    assert refuses_tools(LLMError(message, status=status))


@pytest.mark.parametrize("status, message", [
    (404, "no tool here: model not found"),  # not a refusal of the request
    (400, "the request exceeds the available context size"),
    (None, "connection refused"),
])
def test_other_failures_are_not_refusals(status, message):
    assert not refuses_tools(LLMError(message, status=status))


def test_a_failing_tool_call_parser_is_a_refusal_that_mentions_parsing():
    assert parser_failed(LLMError("Failed to parse tool call", status=500))
    assert not parser_failed(LLMError("does not support tools", status=400))


def mode(tmp_path, native_tools="auto", learned=None, logged=None, notices=None):
    config = Config(native_tools=native_tools)
    profiles = ServerProfiles(tmp_path / "servers.json")
    if learned is not None:
        profiles.remember(config.resolved_base_url, config.resolved_model, **learned)
    return ToolMode(config, profiles, (logged if logged is not None else []).append,
                    (notices if notices is not None else []).append), config, profiles


def test_the_setting_decides_and_auto_starts_unknown(tmp_path):
    assert mode(tmp_path, "on")[0].native is True
    assert mode(tmp_path, "off")[0].as_text
    assert mode(tmp_path, "auto")[0].native is None


def test_a_refusal_learned_by_an_earlier_run_starts_with_text_and_says_why_with_v(tmp_path):
    logged = []
    tools, _, _ = mode(tmp_path, learned={"native_tools": False, "reason": "it said no"}, logged=logged)
    assert tools.as_text
    assert "tools go as text: it said no" in logged[0]
    assert mode(tmp_path / "on", "on", learned={"native_tools": False})[0].native is True  # "on" tries again


class RefusingOnce:
    """Refuses the first request that carries tools; answers the next."""

    def __init__(self, message: str, status: int = 400) -> None:
        self.error = LLMError(message, status=status)
        self.requests = []

    def stream(self, request):
        self.requests.append(request)
        if request.tools and len(self.requests) == 1:
            raise self.error
        yield Delta(content="ok", finish_reason="stop")


def test_a_refusal_is_retried_as_text_said_once_and_remembered(tmp_path):
    notices = []
    tools, config, profiles = mode(tmp_path, notices=notices)
    client = RefusingOnce("model does not support tools")
    as_text = ChatRequest(model="m", messages=[], tools=None)
    deltas = tools.stream(client, config, ChatRequest(model="m", messages=[], tools=[{"x": 1}]), lambda: as_text)
    assert [delta.content for delta in deltas] == ["ok"]
    assert client.requests[1] is as_text and tools.as_text
    assert notices == ["the server refused native tool calling; tools are now taught as text ([CALL] lines)"]
    assert profiles.get(config.resolved_base_url, config.resolved_model)["native_tools"] is False


def test_with_native_tools_on_a_refusal_is_the_error(tmp_path):
    tools, config, _ = mode(tmp_path, "on")
    client = RefusingOnce("model does not support tools")
    with pytest.raises(LLMError):
        list(tools.stream(client, config, ChatRequest(model="m", messages=[], tools=[{"x": 1}]), lambda: None))


def test_tools_the_server_took_are_native_from_then_on(tmp_path):
    tools, config, _ = mode(tmp_path)

    class Answering:
        def stream(self, request):
            yield Delta(content="ok", finish_reason="stop")

    list(tools.stream(Answering(), config, ChatRequest(model="m", messages=[], tools=[{"x": 1}]), lambda: None))
    assert tools.native is True
