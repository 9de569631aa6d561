"""The next request: the session's settings, the conversation, and the tools natively or taught as text."""

from __future__ import annotations

from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.request import next_request, whole_reply, with_settings
from ayder_cli.calls import ToolResult
from ayder_cli.llm.wire_types import Delta, Usage
from ayder_cli.config.schema import Config
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec
from ayder_cli.tools.executor import ToolExecutor


def executor(tmp_path) -> ToolExecutor:
    spec = ToolSpec("ping", "Answer pong.", {"type": "object", "properties": {}}, "r",
                    lambda context, args: ToolResult(True, "pong"))
    return ToolExecutor(ToolRegistry([spec]), ToolContext(tmp_path))


def conversation() -> Conversation:
    chat = Conversation("You are terse.")
    chat.add_user("hi")
    return chat


def test_native_tools_go_as_schemas_with_the_settings(tmp_path):
    config = Config(num_ctx=4096, max_tokens=300, keep_alive="5m", temperature=0.2)
    request = next_request(config, conversation(), executor(tmp_path), tools_as_text=False)
    assert [tool["function"]["name"] for tool in request.tools] == ["ping"]
    assert request.messages[0] == {"role": "system", "content": "You are terse."}
    assert (request.model, request.num_ctx, request.max_tokens, request.keep_alive, request.temperature) == (
        config.resolved_model, 4096, 300, "5m", 0.2)


def test_tools_as_text_are_taught_after_the_system_prompt(tmp_path):
    request = next_request(Config(), conversation(), executor(tmp_path), tools_as_text=True)
    assert request.tools is None
    system = request.messages[0]["content"]
    assert system.startswith("You are terse.\n\n") and "[CALL] tool_name" in system and "- ping" in system


def test_no_executor_no_tools():
    request = next_request(Config(), conversation(), None, tools_as_text=False)
    assert request.tools is None and request.messages[0]["content"] == "You are terse."


def test_a_request_streams_as_configured_unless_told():
    assert with_settings(Config(stream=False), []).stream is False
    assert with_settings(Config(stream=False), [], stream=True, tool_choice="required").tool_choice == "required"


def test_the_whole_reply_is_gathered_from_its_deltas():
    class Client:
        def stream(self, request):
            yield Delta(content="a")
            yield Delta(content="b", finish_reason="stop", usage=Usage(3, 2))

    reply = whole_reply(Client(), with_settings(Config(), []))
    assert (reply.text, reply.finish_reason, reply.usage.prompt_tokens) == ("ab", "stop", 3)
