"""How the loop reports: the Callbacks it calls, and the RunResult a user message ends with.

The loop never prints. The console implements these callbacks for the terminal,
--json for its events, and tests with a recorder: the loop stays the same
whoever watches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from ayder_cli.agent.arriving import ArrivingCall
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.llm.wire_types import PromptProgress, Reply, Usage


@dataclass
class RunResult:
    reply: Reply | None
    interrupted: bool = False
    stopped: str | None = None  # why the loop gave up before the model finished


class Callbacks(Protocol):
    def on_message_start(self, text: str) -> None:
        """A user message, as the loop got it, before anything is sent."""

    def on_waiting(self) -> None:
        """A request went out; nothing has arrived yet."""

    def on_progress(self, progress: PromptProgress) -> None:
        """How far the server has read the prompt (llama.cpp reports it), before the reply starts."""

    def on_text(self, text: str) -> None: ...

    def on_thinking(self, text: str) -> None: ...

    def on_reply_end(self, reply: Reply) -> None: ...

    def on_tool_arriving(self, call: ArrivingCall) -> None:
        """A native call's fragment came: its name, subject and size so far (the call is not whole yet)."""

    def on_tool_start(self, call: ToolCall) -> None: ...

    def on_tool_done(self, call: ToolCall, result: ToolResult) -> None: ...

    def on_notice(self, message: str) -> None: ...

    def on_aside(self, message: str) -> None:
        """A dim line of what ayder did on its own that is no warning (a call found in the reasoning)."""

    def on_usage(self, usage: Usage) -> None: ...

    def on_message_end(self, result: RunResult | None, window: int | None) -> None:
        """The user's message is handled: `result` says how (None: it failed with an error);
        `window`: the served context, if known."""


class Also:
    """The loop's callbacks as `callbacks` implements them, each also told first to `listener` where it
    has that method (--trajectory's recorder hears what the console hears)."""

    def __init__(self, callbacks: Callbacks, listener: object) -> None:
        self.callbacks, self.listener = callbacks, listener

    def __getattr__(self, name: str) -> Callable[..., Any]:
        reported = getattr(self.callbacks, name)
        heard = getattr(self.listener, name, None) if name.startswith("on_") else None
        if heard is None:
            return reported

        def both(*args: Any) -> Any:
            heard(*args)
            return reported(*args)

        return both
