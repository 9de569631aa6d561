"""--trajectory FILE: the run as an ATIF trajectory (Harbor's Agent Trajectory Interchange Format), the JSON
that benchmarks and training pipelines read agent runs in.

TrajectoryRecorder hears the loop's callbacks beside the console (callbacks.Also) and keeps the steps:
a system step for the system prompt (again when it changes), a user step per message, and an agent step
per model reply with its text, reasoning, tool calls, their observations (each result as the model was
sent it, and the checks after its edits) and the tokens the server reported. The file is written
atomically after every user message and once more at the end of the run, however it ends (Ctrl-C, a
server error, the budget spent), so what happened before is never lost. Plain JSON: the ATIF models
(the `atif` package, on pydantic) are what the tests validate the file with, never imported here.
"""

from __future__ import annotations

import json
import os
import stat
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ayder_cli import __version__
from ayder_cli.agent.conversation import render_result
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.errors import UsageError
from ayder_cli.llm.wire_types import Reply, Usage
from ayder_cli.masking import masked_within
from ayder_cli.storage.atomic import replace_with

SCHEMA_VERSION = "ATIF-v1.6"  # every field written here is in v1.6: the version Harbor and most readers take
AGENT_NAME = "ayder"


def utc_now() -> str:
    """ISO 8601 with milliseconds, in UTC, as ATIF's examples write it: 2026-11-28T11:08:51.120Z."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TrajectoryRecorder:
    """The steps of one run, kept as the loop reports them and written to `path` as ATIF JSON."""

    def __init__(self, path: Path, *, warn: Callable[[str], None], clock: Callable[[], str] = utc_now) -> None:
        self.path = path
        self.warn = warn  # a write that fails after a message is said once, and the run goes on
        self.clock = clock
        self.steps: list[dict[str, Any]] = []
        self._reply_step: dict[str, Any] | None = None  # the latest reply's step: its calls' results go in it
        self._run_id = uuid.uuid4().hex  # the session id until a session is known
        self._system_shown: str | None = None
        self._failed_write = False
        self.error: str | None = None  # the error that ended the run, as it was said
        self.path_checked = False
        self._ended: dict[str, Any] = {}  # how the run ended: its exit status and error
        # What the run knows, read when it is needed; a run whose services never came up has none of it.
        self._system: Callable[[], str] = lambda: ""
        self._model: Callable[[], str | None] = lambda: None
        self._session_id: Callable[[], str | None] = lambda: None
        self._tools: Callable[[], list[dict[str, Any]]] = list
        self._mask: Callable[[str], str] = lambda text: text
        self._tool_definitions: list[dict[str, Any]] = []

    def check_path(self, given: str) -> None:
        """A file that cannot be written is a usage error before anything runs, not a lost run at its end."""
        if not given.strip():
            raise UsageError("--trajectory: no file named", hint="give the path of a file to write")
        if self.path.is_dir():
            raise UsageError(f"--trajectory {given}: is a directory", hint="give the path of a file to write")
        if not self.path.parent.is_dir():
            raise UsageError(f"--trajectory {given}: there is no directory {self.path.parent}",
                             hint="make the directory first, or give another path")
        self.path_checked = True

    def watch(self, *, system: Callable[[], str], model: Callable[[], str | None],
              session_id: Callable[[], str | None], tools: Callable[[], list[dict[str, Any]]],
              mask: Callable[[str], str]) -> None:
        """Where the system prompt, the model, the session's id and the tools' schemas are read, and the
        masking every saved string goes through (an API key is never written)."""
        self._system, self._model, self._session_id, self._tools, self._mask = system, model, session_id, tools, mask

    # --- the loop's callbacks (the others are the console's alone)

    def on_message_start(self, text: str) -> None:
        system = self._system()
        if system and system != self._system_shown:
            self._system_shown = system
            self._add({"source": "system", "message": system})
        self._add({"source": "user", "message": text})
        self._reply_step = None

    def on_reply_end(self, reply: Reply) -> None:
        step: dict[str, Any] = {"source": "agent", "model_name": self._model(), "message": reply.text}
        if reply.thinking:
            step["reasoning_content"] = reply.thinking
        if reply.tool_calls and not reply.interrupted and not reply.stream_cut:  # as the conversation keeps them
            step["tool_calls"] = [_tool_call(call) for call in reply.tool_calls]
        if reply.usage is not None:
            step["metrics"] = _metrics(reply.usage)
        extra = {"finish_reason": reply.finish_reason, "interrupted": reply.interrupted or None,
                 "stream_cut": reply.stream_cut or None}
        step["extra"] = {key: value for key, value in extra.items() if value is not None} or None
        self._reply_step = self._add(step)

    def on_tool_start(self, call: ToolCall) -> None:
        """A call written in the text is known once it runs; a native one was listed with its reply."""
        step = self._reply_step
        if step is None:
            return
        calls = step.setdefault("tool_calls", [])
        if all(listed["tool_call_id"] != call.id for listed in calls):
            calls.append(_tool_call(call))

    def on_tool_done(self, call: ToolCall, result: ToolResult) -> None:
        if self._reply_step is None:
            return
        results = self._reply_step.setdefault("observation", {"results": []})["results"]
        results.append({"source_call_id": call.id, "content": render_result(result)})

    def on_check(self, run, excerpt: str | None) -> None:
        """A check after the reply's edits (--verify): a result of no call, with what the model was sent of a
        failure."""
        if self._reply_step is None:
            return
        said = f"check passed: `{run.command}`" if run.ok else f"check failed: `{run.command}` ({run.summary})"
        content = f"{said}\n{excerpt}" if excerpt else said
        results = self._reply_step.setdefault("observation", {"results": []})["results"]
        results.append({"content": content, "extra": {"check": run.command, "exit_status": run.exit_status}})

    def on_message_end(self, result, window: int | None) -> None:
        """How the message ended goes on its last reply; then the file, so a crash later loses nothing."""
        step = self._reply_step
        if step is not None and result is not None and (result.interrupted or result.stopped):
            step["extra"] = {**(step.get("extra") or {}), "interrupted": result.interrupted or None,
                             "stopped": result.stopped}
        self._tool_definitions = self._tools() or self._tool_definitions
        try:
            self.write()
        except OSError as exc:
            if not self._failed_write:
                self.warn(f"the trajectory could not be written to {self.path}: {exc.strerror or exc}; "
                          "trying again at the end of the run")
            self._failed_write = True

    # --- the document

    def finish(self, exit_status: int) -> None:
        """The run is over: how it ended, then the file. OSError when it cannot be written."""
        self._ended = {"exit_status": int(exit_status), "error": self.error if exit_status else None}
        self.write()

    def document(self) -> dict[str, Any]:
        """The trajectory as ATIF JSON, with no null field and every key masked."""
        # The run's model is the first reply's (a step names its own after /model); none yet: the configured one.
        first = next((step["model_name"] for step in self.steps if step.get("model_name")), None)
        agent = {"name": AGENT_NAME, "version": __version__, "model_name": first or self._model(),
                 "tool_definitions": self._tool_definitions or None}
        trajectory = {
            "schema_version": SCHEMA_VERSION,
            "session_id": self._session_id() or self._run_id,
            "agent": agent,
            "steps": [{"step_id": number, **step} for number, step in enumerate(self.steps, start=1)],
            "final_metrics": self._final_metrics(),
            "extra": self._ended or None,
        }
        return masked_within(_without_nulls(trajectory), self._mask)

    def write(self) -> None:
        """The whole document, atomically: a reader sees the last one written or this one, never half."""
        data = (json.dumps(self.document(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        try:
            mode: int | None = stat.S_IMODE(os.stat(self.path).st_mode)
        except FileNotFoundError:
            mode = None
        replace_with(self.path, data, mode)
        self._failed_write = False

    def _final_metrics(self) -> dict[str, Any]:
        metrics = [step["metrics"] for step in self.steps if step.get("metrics")]

        def total(key: str) -> int | None:
            counts = [entry[key] for entry in metrics if entry.get(key) is not None]
            return sum(counts) if counts else None

        return {"total_prompt_tokens": total("prompt_tokens"), "total_completion_tokens": total("completion_tokens"),
                "total_cached_tokens": total("cached_tokens"), "total_steps": len(self.steps)}

    def _add(self, step: dict[str, Any]) -> dict[str, Any]:
        step = {"timestamp": self.clock(), **step}
        self.steps.append(step)
        return step


def _tool_call(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    return {"tool_call_id": call.id, "function_name": call.name, "arguments": arguments,
            "extra": {"error": call.error} if call.error else None}


def _metrics(usage: Usage) -> dict[str, Any]:
    """The tokens as the server reported them; its speeds, where it says, as extras."""
    speeds = {"tokens_per_second": usage.tokens_per_second, "prompt_tokens_per_second": usage.prompt_per_second}
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "cached_tokens": usage.cached_tokens,
            "extra": {key: round(value, 2) for key, value in speeds.items() if value is not None} or None}


def _without_nulls(value: Any) -> Any:
    """ATIF leaves out a field it has no value for; a tool call's arguments are the model's, kept whole."""
    if isinstance(value, dict):
        return {key: item if key == "arguments" else _without_nulls(item)
                for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value
