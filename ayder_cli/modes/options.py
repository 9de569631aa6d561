"""Options: the command line, read once into one frozen value the modes are given.

Each field is a flag of `ayder --help` (click's parameter name), with click's
value: None where the flag was not given, False for a flag that is off.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Mode(Enum):
    DOCTOR = "doctor"
    IMPLEMENT = "implement"
    ONE_SHOT = "one-shot"
    REPL = "REPL"
    SCRIPT = "script"


@dataclass(frozen=True)
class Options:
    prompt: tuple[str, ...] = ()  # the words of the prompt
    prompt_file: str | None = None  # -f FILE
    read_stdin: bool = False  # --stdin
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    config_file: str | None = None  # --config FILE
    prompts: str | None = None  # --prompts LIST, as typed
    no_instructions: bool = False
    tool_groups: str | None = None  # --tools LIST, as typed
    edit_format: str | None = None  # --edit-format FORMAT
    allow_read: bool = False
    allow_write: bool = False
    allow_execute: bool = False
    auto_commit: bool = False  # --auto-commit: a git commit after each turn that changed files
    root: str | None = None
    verify: tuple[str, ...] = ()  # --verify CMD, repeatable: the checks of this run, instead of the config's
    trust_project: bool = False  # --trust-project: the project config's settings that need trust, for this run
    mcp_trust: bool = False  # --mcp-trust: the MCP servers of the project's .mcp.json start, for this run
    continue_session: bool = False
    resume_id: str | None = None
    restore: bool = False
    list_tasks: bool = False
    implement_id: str | None = None
    implement_all: bool = False
    doctor: bool = False
    iterations: int | None = None
    num_ctx: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    system_text: str | None = None  # --system TEXT or @FILE
    json_events: bool = False
    trajectory: str | None = None  # --trajectory FILE: the run written there as ATIF JSON
    no_stream: bool = False
    show_thinking: bool | None = None  # --show-thinking / --hide-thinking
    no_color: bool = False
    verbose: bool = False
    debug: bool = False

    def config_flags(self) -> dict[str, Any]:
        """The flags that are config values, for the last layer of the config (None: not given)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "prompts": self.prompts,
            "tool_groups": self.tool_groups,
            "edit_format": self.edit_format,
            "iterations": self.iterations,
            "num_ctx": self.num_ctx,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": False if self.no_stream else None,
            "show_thinking": self.show_thinking,
            "auto_commit": True if self.auto_commit else None,
        }

    @property
    def granted(self) -> set[str]:
        """What runs without asking: reading always, writing with -w, commands with -x."""
        return {"r"} | {letter for letter, allowed in (("w", self.allow_write), ("x", self.allow_execute)) if allowed}

    @property
    def resuming(self) -> bool:
        """--continue or --resume ID."""
        return bool(self.continue_session or self.resume_id)
