"""One tool call through the whole pipeline, as the model sent it, without a server or a loop."""

from __future__ import annotations

from ayder_cli.calls import ToolCall
from ayder_cli.tools import ToolContext, ToolRegistry, ToolResult, default_registry
from ayder_cli.tools.executor import Permissions, ToolExecutor


def run_call(where, call: ToolCall, tools=None) -> ToolResult:
    """One call as the model sent it (arguments of any shape, or a decoding error) through the whole
    pipeline: aliases, path normalization, validation, permission (every one granted), execution.
    where: the project root, a ToolContext, or a ToolExecutor (used as it is); tools: the specs
    offered (default: every tool)."""
    if isinstance(where, ToolExecutor):
        return where.run(call)
    context = where if isinstance(where, ToolContext) else ToolContext(where)
    registry = ToolRegistry(tools) if tools is not None else default_registry()
    return ToolExecutor(registry, context, Permissions({"r", "w", "x"})).run(call)


def call_tool(where, name: str, /, tools=None, **arguments) -> ToolResult:
    """run_call for the call `name(**arguments)`."""
    return run_call(where, ToolCall("call-1", name, arguments), tools)
