"""--json: the loop's events as JSON Lines on stdout, one object per line.

JsonEvents is the loop's callbacks for a run with --json. It is a Console, so
every stderr line (notices, errors, tool activity, -v metadata) stays as it is;
only what the console would put on stdout becomes events, and anything else
written to the console's stdout goes to stderr, so stdout holds JSON only.

Events (each has "type"):
  user         {"text"}                        a user message, as the loop got it
  text         {"text"}                        a piece of the reply as it streams (deltas)
  thinking     {"text"}                        with --show-thinking only (deltas)
  tool_call    {"id", "name", "arguments"}     id is null for calls written in the text
  tool_result  {"id", "name", "ok", "output", "error"}   output capped as the model gets it
  progress     {"total", "cached", "processed", "time_ms", "tokens_per_second", "seconds_left"}
                                               how far the server has read the prompt (llama.cpp), before
                                               the reply; the last two null until it can tell
  usage        {"prompt_tokens", "completion_tokens", "cached_tokens", "total_tokens",
                "tokens_per_second"}           per model call; null where the server does not say
  verify       {"command", "exit_status", "excerpt"}   a check after edits; excerpt: what the model was
                                               sent of a failure (null when it passed)
  diagnostics  {"path", "server", "new", "excerpt"}   what a language server found new in a file an edit
                                               changed (new: [{"line", "severity", "message", "code"}]);
                                               excerpt: what the model was sent, in that edit's tool_result
  answer       {"text", "status", "reason"}    the end of one user message: status ok, interrupted or
                                               stopped (the loop gave up; reason says why, else null)
  final        {"answer", "exit_status", "error", "totals", "checks_passed"}   the last line of the run;
                                               checks_passed: how the last check went (null: none ran)

Secrets are masked in every string before it is encoded; a secret split across two
text deltas is masked too (the end that could start one is held back a delta).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ayder_cli.llm.wire_types import Reply, Usage
from ayder_cli.masking import MaskedStream, Secrets, masked_within
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment


class JsonEvents(Console):
    """The loop's callbacks as JSON Lines on stdout; the console's stderr lines unchanged."""

    def __init__(self, environment: Environment, *, show_thinking: bool = False, verbose: bool = False) -> None:
        super().__init__(environment, show_thinking=show_thinking, verbose=verbose)
        self._spinner = None  # stderr may be a terminal, but a script reads this run
        self.draws_in_place = False  # so nothing is redrawn: a command's last lines are printed once
        self.out = self.err  # stray writes to the console's stdout go to stderr: stdout is JSON only
        self.events = environment.stdout
        self.secrets = Secrets()
        self._held = {"text": "", "thinking": ""}  # a delta's end that could start a secret
        self._reply = ""  # the text of the reply streaming now (and of the ones cut at max_tokens before it)
        self._last_reply = ""
        self.answer = ""  # the text of the latest answer
        self.requests = self.prompt_tokens = self.completion_tokens = self.tool_calls = 0
        self.denials: Callable[[], int] = lambda: 0
        self.last_error: str | None = None
        self.checks_passed: Callable[[], bool | None] = lambda: None

    def mask_with(self, secrets: Secrets) -> None:
        self.secrets = secrets  # the same object: keys added later are masked too
        if secrets:
            self.err = MaskedStream(self.environment.stderr, secrets)
            self.out = self.err

    def watch(self, session) -> None:
        """The final event counts the executor's denials and says how the last check went."""
        executor, verify = session.executor, session.loop.verify
        self.denials = lambda: executor.denials
        self.checks_passed = lambda: verify.passed

    # --- the loop's callbacks

    def on_message_start(self, text: str) -> None:
        self.emit("user", text=text)
        self._reply = self._last_reply = self.answer = ""  # a message that fails has no answer

    def on_message_end(self, result, window: int | None) -> None:
        """The "answer" event of a message the loop handled (None: it failed; the final event says why)."""
        super().on_message_end(result, window)
        if result is None:
            return
        status = "interrupted" if result.interrupted else "stopped" if result.stopped else "ok"
        if result.stopped:
            self.last_error = result.stopped  # the run exits 1: the final event says why
        self.answer = (self._last_reply or self._reply).strip("\n")
        self.emit("answer", text=self.answer, status=status, reason=result.stopped)

    def on_waiting(self) -> None:
        pass

    def on_progress(self, progress) -> None:
        speed, left = progress.speed, progress.seconds_left()
        self.emit("progress", total=progress.total, cached=progress.cached, processed=progress.processed,
                  time_ms=progress.time_ms, tokens_per_second=None if speed is None else round(speed, 2),
                  seconds_left=None if left is None else round(left, 1))

    def on_text(self, text: str) -> None:
        self._reply += text
        self._delta("text", text)

    def on_thinking(self, text: str) -> None:
        if self.show_thinking:
            self._delta("thinking", text)

    def on_reply_end(self, reply: Reply) -> None:
        for kind in self._held:
            self._delta(kind, "", final=True)
        self.settle()  # stderr's masked stream
        self.requests += 1
        if reply.interrupted:
            self.notice("interrupted; the partial reply is kept")
        if reply.finish_reason != "length" or reply.interrupted:  # else the loop asks for the rest, which goes on
            self._last_reply, self._reply = self._reply, ""

    def on_tool_arriving(self, call) -> None:
        pass  # the tool_call event comes once the call is whole; a line redrawn in place is no event

    def on_tool_start(self, call) -> None:
        self.tool_calls += 1
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        self.emit("tool_call", id=call.id or None, name=call.name, arguments=arguments)
        super().on_tool_start(call)  # the activity line on stderr, as without --json

    def on_tool_done(self, call, result) -> None:
        self.emit("tool_result", id=call.id or None, name=call.name, ok=result.ok, output=result.output,
                  error=result.error)
        super().on_tool_done(call, result)

    def on_check(self, run, excerpt: str | None) -> None:
        self.emit("verify", command=run.command, exit_status=run.exit_status, excerpt=excerpt)
        super().on_check(run, excerpt)

    def on_diagnostics(self, found) -> None:
        """lsp.after_edit.Found: an edit's new diagnostics, before its tool_result event."""
        self.emit("diagnostics", path=found.path, server=found.server, new=[d.as_dict() for d in found.new],
                  excerpt=found.excerpt)

    def on_usage(self, usage: Usage) -> None:
        self.prompt_tokens += usage.prompt_tokens or 0
        self.completion_tokens += usage.completion_tokens or 0
        self.emit("usage", prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                  cached_tokens=usage.cached_tokens, total_tokens=usage.total_tokens,
                  tokens_per_second=None if usage.tokens_per_second is None else round(usage.tokens_per_second, 2))

    def error(self, message: str, hint: str | None = None) -> None:
        self.last_error = message
        super().error(message, hint)

    # --- events

    def finish(self, exit_status: int) -> None:
        """The last line of the run: the answer, the exit status, what went wrong, and the totals."""
        error = self.last_error if exit_status else None
        self.emit("final", answer=self.answer, exit_status=int(exit_status), error=error, totals={
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tool_calls": self.tool_calls,
            "denials": self.denials(),
        }, checks_passed=self.checks_passed())

    def emit(self, kind: str, **fields: Any) -> None:
        """One event on one line of stdout, secrets masked."""
        line = json.dumps({"type": kind, **masked_within(fields, self.secrets.mask)}, ensure_ascii=False)
        self.events.write(line + "\n")
        self.events.flush()

    def _delta(self, kind: str, text: str, final: bool = False) -> None:
        """A text or thinking delta, held back where its end could start a secret (until the next, or the end)."""
        text = self._held[kind] + text
        ready, self._held[kind] = (text, "") if final else self.secrets.split_unfinished(text)
        if ready:
            self.emit(kind, text=ready)
