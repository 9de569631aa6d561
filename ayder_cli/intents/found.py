"""What a reply yields: the calls found in it, the errors for the model, and the view for the user."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ayder_cli.calls import ToolCall, decode_arguments
from ayder_cli.wording import short

NAME = re.compile(r"[A-Za-z_][\w.\-]*")


@dataclass
class ParsedReply:
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    display: str = ""
    thinking: list[str] = field(default_factory=list)


class Found:
    """Collects the calls of one reply, checking each name against the tools offered."""

    def __init__(self, tools: list[dict] | None) -> None:
        self.schemas = schemas_by_name(tools)
        self.calls: list[ToolCall] = []
        self.errors: list[str] = []
        self.on_found: Callable[[], None] | None = None  # told of each call and error as it is found

    def error(self, message: str) -> None:
        self.errors.append(message)
        self._found()

    def _found(self) -> None:
        if self.on_found is not None:
            self.on_found()

    def parameters(self, tool: str) -> dict:
        """The tool's parameter schema ({} when unknown)."""
        return self.schemas.get(tool) or {}

    def add_call(self, name: Any, arguments: Any, raw: str) -> None:
        if not isinstance(name, str) or not NAME.fullmatch(name):
            self.error(f"a tool call has no valid tool name (got {short(name)}): {short(raw)}")
            return
        if self.schemas and name not in self.schemas:
            close = difflib.get_close_matches(name, list(self.schemas), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; tools: {', '.join(self.schemas)}"
            self.error(f"unknown tool {name!r}{hint}")
            return
        if not isinstance(arguments, (dict, str)) and arguments is not None:
            self.error(f"{name}: the arguments must be one JSON object, got: {short(arguments)}")
            return
        if not isinstance(arguments, dict):
            arguments, problem = decode_arguments(arguments)
            if problem:
                self.error(f"{name}: {problem}")
                return
        if "" in arguments:  # an empty parameter name names nothing: ignored
            arguments = {key: value for key, value in arguments.items() if key != ""}
        self.calls.append(ToolCall(f"call_{len(self.calls)}", name, arguments))
        self._found()

    def add_edit(self, name: str, arguments: dict) -> None:
        """An edit written as text (edit_blocks): a call of a write tool, offered natively or not."""
        self.calls.append(ToolCall(f"call_{len(self.calls)}", name, arguments, written_edit=True))
        self._found()

    def add_json_call(self, item: Any, raw: str) -> bool:
        """One call object in any of the JSON shapes; False if it is not one."""
        if not isinstance(item, dict):
            return False
        if isinstance(item.get("function"), dict):
            item = item["function"]
        if "name" not in item:
            return False
        arguments = next((item[key] for key in ("arguments", "args", "parameters") if key in item), {})
        self.add_call(item["name"], arguments, raw)
        return True

    def add_json_calls(self, value: Any, raw: str, where: str) -> None:
        """One call object or a list of them; anything else is reported."""
        for item in value if isinstance(value, list) else [value]:
            if not self.add_json_call(item, raw):
                self.error(f'{where} needs {{"name": ..., "arguments": {{...}}}}, got: {short(item)}')


def is_call_object(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("function"), dict):
        item = item["function"]
    return isinstance(item.get("name"), str)


def schemas_by_name(tools: list[dict] | None) -> dict[str, dict]:
    schemas = {}
    for tool in tools or []:
        function = tool.get("function", tool)
        if function.get("name"):
            schemas[function["name"]] = function.get("parameters") or {}
    return schemas

