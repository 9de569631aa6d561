"""What the editor is shown of one session: the loop's callbacks as `session/update` notifications.

AcpConsole is the session's Console: every line it would print goes to stderr as always (its stdout is
stderr too in ACP), and what the editor shows becomes notifications: the answer and the thinking as they
stream, each tool call with its kind, title and files, and its end with the output and, for a file
change, the diff (the file's text before the call and after it). Replay sends a saved conversation as
the same updates, for session/load.
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.edit_formats import EDIT_TOOL_NAMES
from ayder_cli.tools.spec import EditorFiles
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment

READS = {"read_file", "get_file_info", "get_project_structure", "list_files", "load_memory", "list_tasks",
         "show_task", "get_background_output", "list_background_processes"}
SEARCHES = {"search_codebase", "find_tools"}
EDITS = EDIT_TOOL_NAMES | {"save_memory", "create_task", "update_task_status"}
RUNS = {"run_shell_command", "run_background_process", "kill_background_process"}
MAX_DIFF_CHARS = 1_000_000  # a bigger file is shown as its output only


def tool_kind(name: str) -> str:
    """ACP's kind of a tool, for the editor's icon: read, edit, execute, search or other."""
    for kind, names in (("read", READS), ("search", SEARCHES), ("edit", EDITS), ("execute", RUNS)):
        if name in names:
            return kind
    return "other"


def tool_title(name: str, arguments: dict[str, Any]) -> str:
    """One line: the command run, or the tool and the file it is about."""
    if name in RUNS and arguments.get("command"):
        return str(arguments["command"])
    subject = arguments.get("file_path") or arguments.get("path") or arguments.get("query")
    return f"{name} {subject}" if subject else name


class Updates:
    """Notifications for one ACP session; its id is known once the session is built (bind)."""

    def __init__(self, notify: Callable[[str, dict], None]) -> None:
        self._notify = notify
        self.session_id: str | None = None
        self.mask: Callable[[str], str] = lambda text: text

    def bind(self, session_id: str, mask: Callable[[str], str]) -> None:
        self.session_id, self.mask = session_id, mask

    def send(self, update: dict[str, Any]) -> None:
        if self.session_id is not None:
            self._notify("session/update", {"sessionId": self.session_id, "update": update})

    def chunk(self, kind: str, text: str) -> None:
        """kind: agent_message_chunk, agent_thought_chunk or user_message_chunk."""
        if text:
            self.send({"sessionUpdate": kind, "content": {"type": "text", "text": self.mask(text)}})


class AcpConsole(Console):
    """The loop's callbacks for one ACP session."""

    def __init__(self, environment: Environment, updates: Updates, root: Path, *, files: EditorFiles | None = None,
                 verbose: bool = False) -> None:
        super().__init__(environment, verbose=verbose)
        self.files = files  # the editor's files, where it offers them: an edit's diff starts from its text
        self.updates = updates
        self.root = root
        self.current_call: str | None = None  # the call a permission question is about
        self._before: dict[str, tuple[Path, str | None]] = {}  # an edit's file and its text before it ran
        self._ids = itertools.count(1)
        self._made: dict[int, str] = {}  # ids made for calls written in the text, by the call
        self._echo = False  # a slash command runs: its lines are the answer the editor shows

    def on_text(self, text: str) -> None:
        self.updates.chunk("agent_message_chunk", text)

    def on_thinking(self, text: str) -> None:
        self.updates.chunk("agent_thought_chunk", text)

    def on_reply_end(self, reply) -> None:
        pass  # nothing was written to a stream

    def on_tool_arriving(self, call) -> None:
        pass

    def on_tool_start(self, call: ToolCall) -> None:
        call_id = self.call_id(call)
        self.current_call = call_id
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        path = self._path(arguments)
        if path is not None and tool_kind(call.name) == "edit":
            self._before[call_id] = (path, self._text_of(path))
        self.updates.send({"sessionUpdate": "tool_call", "toolCallId": call_id, "kind": tool_kind(call.name),
                           "title": self.updates.mask(tool_title(call.name, arguments)), "status": "in_progress",
                           "locations": [] if path is None else [{"path": str(path)}],
                           "rawInput": arguments})

    def on_tool_done(self, call: ToolCall, result: ToolResult) -> None:
        call_id = self.call_id(call)
        text = result.output if result.ok else (result.error or result.output)
        content: list[dict[str, Any]] = [{"type": "content",
                                          "content": {"type": "text", "text": self.updates.mask(text or "")}}]
        if call_id in self._before:
            path, old = self._before.pop(call_id)
            new = self._text_of(path)
            if new is not None and new != old:
                content.append({"type": "diff", "path": str(path), "oldText": old, "newText": new})
        self.updates.send({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
                           "status": "completed" if result.ok else "failed", "content": content})
        self.current_call = None

    def on_message_end(self, result, window: int | None) -> None:
        self._message_usage = []  # the editor shows no usage line; -v logs each request

    @contextmanager
    def echoing(self) -> Iterator[None]:
        """While a slash command runs, each line it prints is also the editor's answer."""
        self._echo = True
        try:
            yield
        finally:
            self._echo = False

    def _line(self, text: str, colour: str | None = None, mark: str = "") -> None:
        super()._line(text, colour, mark)
        if self._echo:
            self.updates.chunk("agent_message_chunk", f"{mark}{text}\n")

    def painted_line(self, text: str) -> None:
        super().painted_line(text)
        if self._echo:
            self.updates.chunk("agent_message_chunk", text + "\n")

    def call_id(self, call: ToolCall) -> str:
        """The call's own id, or one made for a call written in the text (the same at its end)."""
        if call.id:
            return call.id
        if id(call) not in self._made:
            self._made[id(call)] = f"call-{next(self._ids)}"
        return self._made[id(call)]

    def _text_of(self, path: Path) -> str | None:
        held = self.files.read(path) if self.files is not None else None
        return held if held is not None else _text_of(path)

    def _path(self, arguments: dict[str, Any]) -> Path | None:
        given = arguments.get("file_path") or arguments.get("path")
        if not isinstance(given, str) or not given:
            return None
        path = Path(given)
        return path if path.is_absolute() else self.root / path


def _text_of(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_DIFF_CHARS:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def replay(updates: Updates, messages: list[dict[str, Any]]) -> None:
    """A saved conversation as the updates it was shown with: the user's messages, the answers, each
    tool call and its result."""
    names: dict[str, str] = {}
    for message in messages:
        role, text = message.get("role"), message.get("content")
        text = text if isinstance(text, str) else ""
        if role == "user":
            updates.chunk("user_message_chunk", text)
        elif role == "assistant":
            updates.chunk("agent_message_chunk", text)
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                names[call.get("id", "")] = function.get("name", "")
                updates.send({"sessionUpdate": "tool_call", "toolCallId": call.get("id", ""),
                              "kind": tool_kind(function.get("name", "")), "title": function.get("name", ""),
                              "status": "completed"})
        elif role == "tool":
            updates.send({"sessionUpdate": "tool_call_update", "toolCallId": message.get("tool_call_id", ""),
                          "status": "completed",
                          "content": [{"type": "content", "content": {"type": "text", "text": updates.mask(text)}}]})
