"""A small MCP server over stdio on the standard library alone, for the tests' toy servers.

A server built on the `mcp` SDK costs most of a second of CPU to start (pydantic, anyio, ...), and the
end-to-end tests start one or more per test; this one starts in a few hundredths. It speaks the stdio
transport as the MCP specification describes it: one JSON-RPC 2.0 message a line on stdin and stdout,
nothing else on stdout. It answers initialize (the client's protocol version when it is one of ours),
ping, tools/list and tools/call, ignores notifications, and answers any other method "Method not found".

The tools, their schemas and their answers are those the SDK's MCPServer (FastMCP) gives for the same
functions (arguments titled "<function>Arguments", the result also as structuredContent {"result": ...},
a raised exception as isError "Error executing tool <name>"), so a test sees the same thing from either;
tests/mcp_servers/toy_server.py, built on the SDK, is kept for the tests of that interoperation.

Each tools/call runs on a thread of its own, as the SDK runs a synchronous tool: a slow call holds up
neither a ping nor another call. Over HTTP (support/http_mcp.py) each message is answered by handle().
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, Callable

# What the tests' server configs allow a server to start in (startup_timeout_s), where that limit is not
# what the test checks: on a busy machine a Python server (the SDK's above all) takes many seconds.
GENEROUS_START_S = 120

# The handshake versions of the specification, oldest first; the newest is answered to any other.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

# JSON-RPC 2.0's error codes
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602

JSON_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
REQUIRED = object()


class ArgumentError(ValueError):
    """An argument missing or of the wrong type: said as pydantic says it, one error a line."""


class Tool:
    """One tool: a Python function, its schema read from its parameters' annotations and defaults."""

    def __init__(self, function: Callable[..., Any], name: str, description: str) -> None:
        self.function, self.name, self.description = function, name, description
        code = function.__code__
        names = code.co_varnames[:code.co_argcount]
        defaults = function.__defaults__ or ()
        annotations = function.__annotations__
        self.params: dict[str, tuple[str, Any]] = {}
        for index, param in enumerate(names):
            default_at = index - (len(names) - len(defaults))
            kind = JSON_TYPES[_type_name(annotations[param])]
            self.params[param] = (kind, defaults[default_at] if default_at >= 0 else REQUIRED)

    def listing(self) -> dict:
        properties = {}
        for param, (kind, default) in self.params.items():
            properties[param] = ({} if default is REQUIRED else {"default": default}) | {
                "title": param.replace("_", " ").title(), "type": kind}
        schema: dict[str, Any] = {"properties": properties}
        required = [param for param, (_, default) in self.params.items() if default is REQUIRED]
        if required:
            schema["required"] = required
        schema |= {"type": "object", "title": f"{self.function.__name__}Arguments"}
        output = {"properties": {"result": {"title": "Result", "type": "string"}}, "required": ["result"],
                  "type": "object", "title": f"{self.function.__name__}Output"}
        return {"description": self.description, "inputSchema": schema, "name": self.name, "outputSchema": output}

    def call(self, arguments: dict) -> dict:
        try:
            values = self._checked(arguments)
        except ArgumentError as exc:
            return _failed(f"Error executing tool {self.name}: {exc}")
        try:
            text = str(self.function(**values))
        except Exception:  # the SDK keeps the exception's own text from the client
            return _failed(f"Error executing tool {self.name}")
        return {"content": [{"type": "text", "text": text}], "isError": False, "structuredContent": {"result": text}}

    def _checked(self, arguments: dict) -> dict:
        values, errors = {}, []
        for param, (kind, default) in self.params.items():
            if param not in arguments:
                if default is REQUIRED:
                    errors.append(f"{param}\n  Field required")
                else:
                    values[param] = default
                continue
            try:
                values[param] = _converted(arguments[param], kind)
            except ValueError as exc:
                errors.append(f"{param}\n  {exc}")
        if errors:
            count = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''}"
            raise ArgumentError(f"{count} for {self.function.__name__}Arguments\n" + "\n".join(errors))
        return values


class StdioServer:
    """The tools of one server, offered on stdin and stdout until stdin ends."""

    def __init__(self, name: str, instructions: str | None = None) -> None:
        self.name, self.instructions = name, instructions
        self.tools: dict[str, Tool] = {}
        self._write_lock = threading.Lock()
        self._cancelled: set[Any] = set()  # requests the client gave up: their late answers are dropped

    def tool(self, name: str | None = None, description: str | None = None):
        """A decorator: the function becomes a tool, named after it and described by its docstring."""
        def add(function: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name or function.__name__
            self.tools[tool_name] = Tool(function, tool_name, description or (function.__doc__ or "").strip())
            return function

        return add

    def run(self) -> None:
        for line in sys.stdin.buffer:
            if line.strip():
                self._receive(line)
        # stdin ended: the client is done with us (calls still running on their threads end with us)

    def handle(self, message: Any) -> dict | None:
        """The answer to one JSON-RPC message, a tool's call run to its end; None for a notification or
        an answer. The transport over HTTP (support/http_mcp.py) answers each request this way."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return None  # an answer to a request of ours: we send none
            return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "Invalid Request"}}
        method, params = message["method"], message.get("params")
        params = params if isinstance(params, dict) else {}  # by name, or none
        if "id" not in message:  # a notification: initialized, cancelled, ... answer none
            if method == "notifications/cancelled":
                self._cancelled.add(params.get("requestId"))
            return None
        request_id = message["id"]
        if method == "tools/call":
            return self._call(request_id, params)
        if method == "initialize":
            asked = params.get("protocolVersion")
            result = {"capabilities": {"tools": {"listChanged": False}}}
            if self.instructions:
                result["instructions"] = self.instructions
            result |= {"protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
                       "serverInfo": {"name": self.name, "version": ""}}
            return _answer(request_id, result)
        if method == "ping":
            return _answer(request_id, {})
        if method == "tools/list":
            return _answer(request_id, {"tools": [tool.listing() for tool in self.tools.values()]})
        return {"jsonrpc": "2.0", "id": request_id,
                "error": {"code": METHOD_NOT_FOUND, "message": "Method not found", "data": method}}

    def _receive(self, line: bytes) -> None:
        """One line of stdin answered on stdout; a call on a thread of its own, its answer dropped if the
        client cancelled it meanwhile."""
        try:
            message = json.loads(line)
        except ValueError:
            self._send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "Parse error"}})
            return
        if isinstance(message, dict) and message.get("method") == "tools/call" and "id" in message:
            threading.Thread(target=self._answer_call, args=(message,), daemon=True).start()
            return
        answer = self.handle(message)
        if answer is not None:
            self._send(answer)

    def _answer_call(self, message: dict) -> None:
        answer = self.handle(message)
        if message["id"] not in self._cancelled:
            self._send(answer)

    def _call(self, request_id: Any, params: dict) -> dict:
        tool = self.tools.get(params.get("name"))
        arguments = params.get("arguments") or {}
        if tool is None:
            return _answer(request_id, _failed(f"Unknown tool: {params.get('name')}"))
        if not isinstance(arguments, dict):
            return {"jsonrpc": "2.0", "id": request_id,
                    "error": {"code": INVALID_PARAMS, "message": "arguments must be an object"}}
        return _answer(request_id, tool.call(arguments))

    def _send(self, message: dict) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._write_lock:  # whole lines: calls answer from their own threads
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()


def _answer(request_id: Any, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _failed(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _type_name(annotation: Any) -> str:
    """The annotation's name: a string under `from __future__ import annotations`, else the type."""
    return annotation if isinstance(annotation, str) else annotation.__name__


def _converted(value: Any, kind: str) -> Any:
    """The value as the schema's type, converted as pydantic's lax mode does, or ValueError as it says it."""
    if kind == "string":
        if isinstance(value, str):
            return value
        raise ValueError(f"Input should be a valid string [input_value={value!r}]")
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        raise ValueError(f"Input should be a valid boolean [input_value={value!r}]")
    if kind == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                pass
            raise ValueError(f"Input should be a valid integer, unable to parse string as an integer "
                             f"[input_value={value!r}]")
        raise ValueError(f"Input should be a valid integer [input_value={value!r}]")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
        raise ValueError(f"Input should be a valid number, unable to parse string as a number "
                         f"[input_value={value!r}]")
    raise ValueError(f"Input should be a valid number [input_value={value!r}]")
