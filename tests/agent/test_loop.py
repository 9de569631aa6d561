"""ChatLoop with a scripted client and a recording console: the loop never prints, it reports."""

from __future__ import annotations

from ayder_cli.config.schema import Config
from ayder_cli.config.keys import endpoint_of
from ayder_cli.agent.conversation import Conversation
from ayder_cli.calls import ToolResult
from ayder_cli.llm.wire_types import Delta, ToolCallFragment, Usage
from ayder_cli.agent.loop import ChatLoop
from ayder_cli.session.session import RuntimeHold
from ayder_cli.config.runtime import Runtime
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec
from ayder_cli.tools.executor import ToolExecutor


class ScriptedClient:
    """Answers each request with the next list of deltas; remembers the requests."""

    provider = "scripted"

    def __init__(self, *replies: list[Delta]) -> None:
        self.replies = list(replies)
        self.requests = []

    def stream(self, request):
        self.requests.append(request)
        yield from self.replies.pop(0)


class Recorder:
    def __init__(self) -> None:
        self.events = []

    def __getattr__(self, name):
        return lambda *args: self.events.append((name, *args))


def native_calls(*names: str) -> list[Delta]:
    fragments = [ToolCallFragment(index=i, id=f"id{i}", name=name, arguments="{}") for i, name in enumerate(names)]
    return [Delta(tool_calls=fragments), Delta(finish_reason="tool_calls", usage=Usage(5, 2))]


def tool(name: str, run) -> ToolSpec:
    return ToolSpec(name, "test tool", {"type": "object", "properties": {}}, "r", run)


def make_loop(client, tools, tmp_path, **config):
    recorder = Recorder()
    settings = Config(**config)
    runtime = RuntimeHold(Runtime(settings, endpoint_of(settings, {}), client))
    loop = ChatLoop(runtime, Conversation("system"), recorder,
                    executor=ToolExecutor(ToolRegistry(tools), ToolContext(tmp_path)))
    return loop, recorder


def test_ctrl_c_in_a_tool_stops_the_rest_and_keeps_the_conversation_valid(tmp_path):
    ran = []

    def interrupted(context, args):
        ran.append("slow")
        raise KeyboardInterrupt

    def never(context, args):
        ran.append("never")
        return ToolResult(True, "x")

    # "after" writes: it waits for the call before it (two reads would run side by side, see test_side_by_side.py).
    after = ToolSpec("after", "test tool", {"type": "object", "properties": {}}, "w", never)
    client = ScriptedClient(native_calls("slow", "after"), [Delta(content="next answer", finish_reason="stop")])
    loop, recorder = make_loop(client, [tool("slow", interrupted), after], tmp_path)
    result = loop.run("go")
    assert result.interrupted
    assert ran == ["slow"]  # the second call never started
    done = [event for event in recorder.events if event[0] == "on_tool_done"]
    assert len(done) == 1 and done[0][2].error == "interrupted by the user"

    loop.run("again")  # the next request is valid: both calls answered, in order
    sent = client.requests[-1].messages
    tool_messages = [m for m in sent if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["id0", "id1"]
    assert "interrupted" in tool_messages[0]["content"] and "interrupted" in tool_messages[1]["content"]


def test_the_loop_reports_through_callbacks_in_order(tmp_path):
    client = ScriptedClient(native_calls("ping"), [Delta(content="pong!", finish_reason="stop")])
    loop, recorder = make_loop(client, [tool("ping", lambda context, args: ToolResult(True, "pong", summary="1 pong"))],
                               tmp_path)
    loop.run("ping please")
    names = [event[0] for event in recorder.events]
    assert names == ["on_message_start", "on_waiting", "on_tool_arriving", "on_reply_end", "on_usage",
                     "on_tool_start", "on_tool_done", "on_waiting", "on_text", "on_reply_end", "on_message_end"]
    assert loop.usage.requests == 2 and loop.usage.prompt_tokens == 5
