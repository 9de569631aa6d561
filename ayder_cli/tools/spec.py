"""What a tool is (ToolSpec), what it runs with (ToolContext), and the registry that holds the tools."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping, Protocol

from ayder_cli.calls import ToolResult
from ayder_cli.tool_groups import CORE
from ayder_cli.tools.seen_lines import SeenLines

Permission = Literal["r", "w", "x"]


class OutputWatch(Protocol):
    """What sees one command's output while it runs (the terminal's live view): run_shell_command
    calls it from its read loop, so it must return at once and draw only now and then."""

    def output(self, stream: int, data: bytes) -> None:
        """A chunk the command wrote: stream 1 is its stdout, 2 its stderr."""

    def tick(self) -> None:
        """A turn of the read loop (at least 20 a second), with output or without: a chance to redraw."""

    def end(self) -> None:
        """The command is over (done, timed out or interrupted): what stays on the screen is drawn."""


class EditorFiles(Protocol):
    """The files as an editor holds them (ACP's fs/read_text_file and fs/write_text_file)."""

    def read(self, path: Path) -> str | None:
        """The editor's text of the file, unsaved changes and all; None: read it from disk."""

    def wrote(self, path: Path, text: str) -> None:
        """ayder wrote the file (journaled for /undo as always): the editor's buffer gets the same text."""


@dataclass
class ToolContext:
    root: Path  # the project root; tools touch nothing outside it
    max_output_chars: int = 20_000
    journal: Any = None  # ayder_cli.storage.undo.UndoJournal: every write records what it replaced
    processes: Any = None  # ayder_cli.tools.background.ProcessManager for background commands
    shell_deny: tuple[str, ...] = ()  # regular expressions of commands that are always refused
    shell_timeout_s: float = 120.0  # default timeout of run_shell_command
    tool_timeout_s: float = 30.0  # the other tools' time limit: a search or tree walk stops there, keeping what it found
    mask: Callable[[str], str] = lambda text: text  # hides API keys in what tools save in .ayder/
    # The environment commands start with (None: ayder's own); the API key is left out of it.
    env: Mapping[str, str] | None = None
    clock: Callable[[], float] = time.monotonic  # what tool_timeout_s is measured by (tests pass one that jumps)
    sandbox: Any = None  # ayder_cli.processes.sandbox.Sandbox: where commands may write; None: no sandbox
    search_backend: str = "auto"  # search_codebase's: ripgrep when on PATH, else Python; "python" or "rg" force one
    seen: SeenLines = field(default_factory=SeenLines)  # what the model saw of each file's lines (replace_lines)
    # A command's output as it comes: called with the command, it gives the OutputWatch of that run
    # (the terminal's live view, wired in session/services.py); None: nobody watches.
    watch: Callable[[str], OutputWatch] | None = None
    # Where .ayder/ is (tasks, notes): the git work tree's top, which may hold root; None: root.
    repo_root: Path | None = None
    # ACP with an editor that offers its files: reads see its buffers, writes show in them; None: the disk only.
    editor: EditorFiles | None = None

    def __post_init__(self) -> None:
        # Resolved once here, so every containment check compares real paths.
        self.root = Path(self.root).resolve()
        self.repo_root = self.root if self.repo_root is None else Path(self.repo_root).resolve()


@dataclass(frozen=True)
class Preview:
    """What a write would change, shown as a diff before the user confirms it."""

    path: str  # as the user sees it, relative to the project root
    old: str | None  # None: the file does not exist yet
    new: str


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str  # what a model needs to call it right, in as few words: it is sent with every request
    parameters: dict[str, Any]  # JSON schema of the arguments object
    permission: Permission
    run: Callable[[ToolContext, dict[str, Any]], ToolResult]
    aliases: dict[str, str] = field(default_factory=dict)  # other names models use -> the parameter
    path_args: tuple[str, ...] = ()  # parameters holding project paths (normalized before validation)
    # For a write: what it would change, computed without writing (for the confirmation diff).
    # It may return None (nothing to show, e.g. a command) or raise ToolError (refused before asking).
    preview: Callable[[ToolContext, dict[str, Any]], Preview | None] | None = None
    group: str = CORE  # offered by default, or only when its group is asked for (tool_groups.py)
    # Other names the config's tools.enabled / tools.disabled may give it: an MCP tool's SERVER__TOOL
    # before it was cut or hashed to fit (mcp_servers/tools.py).
    config_names: tuple[str, ...] = ()

    def names(self) -> frozenset[str]:
        return frozenset((self.name, *self.config_names))

    def schema(self) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def signature(self, types: bool = False) -> str:
        """`read_file(file_path, start_line?)`; with types, `read_file(file_path: string, ...)`."""
        required = set(self.parameters.get("required", ()))
        parts = []
        for name, prop in self.parameters.get("properties", {}).items():
            part = name if name in required else f"{name}?"
            parts.append(f"{part}: {prop.get('type', 'any')}" if types else part)
        return f"{self.name}({', '.join(parts)})"


class ToolRegistry:
    """The tools the model may call, in the order they are offered to it."""

    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"tool {spec.name!r} registered twice")
            self._specs[spec.name] = spec

    def names(self) -> list[str]:
        return list(self._specs)

    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def callable_specs(self) -> list[ToolSpec]:
        """What the model may call: the offered ones and those not offered yet (deferred MCP tools)."""
        return self.specs()

    def prompt_note(self) -> str:
        """A few lines for the system prompt about tools not offered yet (mcp_servers/schema_room.py); "" here."""
        return ""


def cap_output(text: str, limit: int) -> str:
    """Cut the middle out of text longer than limit, keeping head and tail on whole lines where possible."""
    if len(text) <= limit:
        return text
    room = max(limit - 60, 0)  # leave space for the marker line
    head_end, tail_start = room // 2, len(text) - (room - room // 2)
    # Snap to line ends when one is near, so no line is shown half-cut.
    newline = text.rfind("\n", 0, head_end)
    if newline >= head_end // 2:
        head_end = newline + 1
    newline = text.find("\n", tail_start)
    if newline != -1 and newline - tail_start <= (len(text) - tail_start) // 2:
        tail_start = newline + 1
    cut = tail_start - head_end
    marker = f"[... {cut:,} characters cut from the middle ...]"
    head = text[:head_end]
    if head and not head.endswith("\n"):
        head += "\n"
    return f"{head}{marker}\n{text[tail_start:]}"
