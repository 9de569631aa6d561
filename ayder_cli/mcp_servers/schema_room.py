"""Keeping the MCP tools' schemas within a small context window.

The schemas are counted as a request's are (about four characters a token). When they would take
more than `mcp_schema_share` of the served window they are not sent: the system prompt names each
server in one line, and `find_tools(query)` gives the model the few schemas it asks for; a tool found
that way is offered from the next request on. Every tool can still be called by its name.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable

from ayder_cli.calls import ToolResult
from ayder_cli.tool_groups import FIND_TOOLS  # named there: the allowlist (tools.enabled) lets it through
from ayder_cli.tools.spec import ToolSpec
from ayder_cli.wording import counted

MAX_FOUND = 5  # schemas per answer: a few, so an answer stays small
WORDS = re.compile(r"[a-z0-9]+")


def schema_tokens(specs: Iterable[ToolSpec]) -> int:
    """What the specs' schemas add to a request, estimated as agent/calibration.prompt_estimate does."""
    schemas = [spec.schema() for spec in specs]
    return len(json.dumps(schemas)) // 4 if schemas else 0


def status_line(servers: int, tools: int, tokens: int, window: int | None) -> str:
    """`MCP: 2 servers · 64 tools · ~5,100 tokens = 62% of 8192`."""
    line = (f"MCP: {counted(servers, 'server')} · {counted(tools, 'tool')} · "
            f"~{tokens:,} tokens")
    return f"{line} = {tokens * 100 // window}% of {window}" if window else line


def server_line(name: str, purpose: str, count: int) -> str:
    """One compact line naming a deferred server, its tool count and what it is for."""
    purpose = " ".join(purpose.split())
    purpose = purpose if len(purpose) <= 100 else purpose[:99] + "…"
    return f"- {name} ({counted(count, 'tool')}){': ' + purpose if purpose else ''}"


def deferred_note(lines: list[str]) -> str:
    return ("More tools, of MCP servers, are not listed to save room; call find_tools(query) with a few words of "
            "what you need to get the matching ones (name, description, parameters), then call them by name:\n"
            + "\n".join(lines))


def words(text: str) -> set[str]:
    return set(WORDS.findall(text.lower().replace("_", " ")))


def matching(specs: list[ToolSpec], query: str) -> list[ToolSpec]:
    """At most MAX_FOUND specs sharing most words with the query (the name counts twice)."""
    asked = words(query)
    scored = []
    for index, spec in enumerate(specs):
        score = 2 * len(asked & words(spec.name)) + len(asked & words(spec.description))
        if score:
            scored.append((-score, index, spec))
    return [spec for _, _, spec in sorted(scored)[:MAX_FOUND]]


def find_tools_spec(search: Callable[[str], list[ToolSpec]]) -> ToolSpec:
    """The core tool that finds deferred MCP tools: `search` picks them (and marks them found)."""

    def run(_context: Any, arguments: dict[str, Any]) -> ToolResult:
        found = search(str(arguments.get("query", "")))
        if not found:
            return ToolResult(ok=True, output="no tool matches; try other words", summary="no match")
        text = json.dumps([{"name": spec.name, "description": spec.description, "parameters": spec.parameters}
                           for spec in found], ensure_ascii=False, indent=1)
        return ToolResult(ok=True, output=text, summary=", ".join(spec.name for spec in found))

    return ToolSpec(
        name=FIND_TOOLS,
        description="Find tools of the MCP servers named in the system prompt by a few words of what you need; "
                    f"gives up to {MAX_FOUND} tools' names, descriptions and parameters, callable from then on.",
        parameters={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        permission="r",
        run=run,
    )
