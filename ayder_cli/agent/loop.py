"""ChatLoop: one user message -> model replies and tool round trips until the reply is done.

The loop never prints: it reports through the callbacks (callbacks.py) that the
console implements for the terminal and tests implement with a recorder.

This module is the message's steps only; what they lean on has a module each:
the next request (request), native tools or text (tool_fallback), one reply as
it streams (streaming), the context window (context, compaction), the calls of
one reply (batch), the same calls again and again (repeats), the budget of
round trips (budget), checkpoints (checkpoint), the tokens used (usage) and the checks after
edits (verify).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from ayder_cli.agent.batch import Batch, within_call_limit
from ayder_cli.agent.budget import MessageBudget, Stop
from ayder_cli.agent.callbacks import Callbacks, RunResult
from ayder_cli.agent.checkpoint import start_from, write_checkpoint
from ayder_cli.agent.context import ContextKeeper, SideSummary, no_side_summary
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.repeats import RepeatGuard
from ayder_cli.agent.request import next_request, pick_edit_format
from ayder_cli.agent.streaming import stream_reply
from ayder_cli.agent.tool_fallback import ToolMode
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.agent.verify import Verifier
from ayder_cli.edit_formats import fences_are_files
from ayder_cli.intents import StreamFilter
from ayder_cli.llm.wire_types import ChatClient, ChatRequest, LLMError, Reply, StreamCutError
from ayder_cli.config.schema import Config
from ayder_cli.config.runtime import Runtime
from ayder_cli.storage.checkpoint_store import CheckpointStore
from ayder_cli.storage.profiles import ServerProfiles
from ayder_cli.tools.executor import ToolExecutor

MAX_CONTINUATIONS = 3  # automatic "continue" after a reply cut at max_tokens
CONTINUE_PROMPT = "Your reply was cut off by the length limit. Continue exactly where it stopped."


@dataclass
class ReplyCounts:
    """What the replies to one message did, counted to know when to stop asking; a checkpoint starts them again."""

    malformed: int = 0  # replies in a row whose calls were all malformed
    continuations: int = 0  # automatic "continue"s after replies cut at max_tokens
    cut_text: str = ""  # the reply the first "continue" went on from
    goes_on_from: str = ""  # for the next reply only: it is a continuation of this text
    repeats: RepeatGuard = field(default_factory=RepeatGuard)


class RuntimeView(Protocol):
    """The runtime as the loop sees it: read, never assigned. Its owner (session/session.py) replaces it
    (/model, /provider, a changed setting) and narrows its window when the keeper finds the server serves less."""

    @property
    def runtime(self) -> Runtime: ...

    def narrow_window(self, num_ctx: int) -> None:
        """From the next request on, assume the server serves num_ctx tokens."""


class ChatLoop:
    def __init__(
        self,
        runtime: RuntimeView,
        conversation: Conversation,
        callbacks: Callbacks,
        executor: ToolExecutor | None = None,
        checkpoints: CheckpointStore | None = None,
        log: Callable[[str], None] = lambda message: None,
        profiles: ServerProfiles | None = None,
        verify: Verifier | None = None,
        usage: SessionUsage | None = None,
        side_summary: SideSummary = no_side_summary,
    ) -> None:
        self.view = runtime  # the server and model in use, read at every request
        self.conversation = conversation
        self.callbacks = callbacks
        self.executor = executor
        self.checkpoints = checkpoints  # where checkpoints go; None: the loop stops when the budget is spent
        self.log = log
        self.usage = usage or SessionUsage()  # the session's, which the transcript saves
        self.profiles = profiles  # what earlier runs learned about this server and model
        self.verify = verify or Verifier()  # the checks after a reply that changed files; none by default
        # The keeper reads the settings and the next request, and narrows num_ctx to what the server serves.
        self.context = ContextKeeper(self, callbacks.on_notice, side_summary)  # side_summary: compaction's
        self._meet_the_server()

    # --- the server and model: one Runtime, replaced whole by its owner

    @property
    def runtime(self) -> Runtime:
        return self.view.runtime

    @property
    def config(self) -> Config:
        return self.view.runtime.config

    @property
    def client(self) -> ChatClient:
        return self.view.runtime.client

    def narrow_window(self, num_ctx: int) -> None:
        """The keeper learned the server serves less than num_ctx said: the runtime's owner narrows it."""
        self.view.narrow_window(num_ctx)

    def runtime_replaced(self, previous: Runtime) -> None:
        """The owner now talks through another runtime (/model, /provider, a changed setting); what was
        learned of the server and model starts again when they are others than `previous`'s."""
        if not self.runtime.endpoint.serves_as(previous.endpoint):
            self._meet_the_server()
        else:  # the same model; its edit_format setting may have changed
            pick_edit_format(self.config, self.profiles, self.executor, self.log)

    def _meet_the_server(self) -> None:
        """Nothing learned yet of this server and model, but what earlier runs saved (profiles)."""
        self.context.meet_server()
        self.tool_mode = ToolMode(self.config, self.profiles, self.log, self.callbacks.on_notice)
        pick_edit_format(self.config, self.profiles, self.executor, self.log)

    def request(self) -> ChatRequest:
        """The next request for the conversation as it stands: system prompt, tools (native or taught), settings."""
        return next_request(self.config, self.conversation, self.executor, self.tool_mode.as_text)

    def write_checkpoint(self, cycle: int) -> str:
        """Ask the model (no tools) to summarize the conversation so far and save it; the summary."""
        return write_checkpoint(self.checkpoints, self.conversation.for_request(), self.context.summarize, cycle)

    # --- one user message

    def run(self, user_text: str) -> RunResult:
        """Handle one user message. Raises LLMError when the server fails."""
        self.callbacks.on_message_start(user_text)
        result = None
        try:
            result = self._run(user_text)
            return result
        finally:
            self.callbacks.on_message_end(result, self.config.num_ctx)

    def _run(self, user_text: str) -> RunResult:
        self.conversation.add_user(user_text)
        if self.executor is not None:
            self.executor.new_message()
        self.verify.new_message()
        # The message's budget: -I round trips, renewed by checkpoints only where they can be written.
        budget = MessageBudget(self.config.iterations, self.config.max_checkpoints if self.checkpoints else 0,
                               self.checkpoints.relative_path if self.checkpoints else "")
        counts, reply = ReplyCounts(), None
        while True:
            reply = self._reply(first=reply is None, goes_on_from=counts.goes_on_from)
            counts.goes_on_from = ""
            if reply.interrupted:
                return RunResult(reply, interrupted=True)
            batch = Batch.of(reply, self.executor, whole_files=self._whole_files)
            if batch.empty:
                if self._continue_after_cut(reply, counts):
                    continue
                return self._answered(reply)
            stuck = self._stop_if_stuck(reply, batch, counts)
            if stuck is not None:
                return stuck
            if batch.calls and not budget.spend():
                stopped = self._checkpoint_or_stop(reply, batch, budget)
                if stopped is not None:
                    return stopped
                counts = ReplyCounts()  # a fresh context from the checkpoint: nothing counts against it yet
                continue
            # The checks run once the calls changed files; what they found goes with the results.
            results, interrupted, checked = self.verify.run(
                batch.calls, lambda: batch.run(self.executor, self.callbacks, counts.repeats))  # noqa: B023 (called before the loop moves on)
            batch.answer(self.conversation, results, checked.notes)
            if interrupted or checked.interrupted:  # Ctrl-C during a tool, its question or a check: back to the user
                return RunResult(reply, interrupted=True)
            if checked.stopped:
                return self._stop(reply, checked.stopped)

    def _reply(self, first: bool, goes_on_from: str = "") -> Reply:
        """The model's next reply, the conversation fitted to the window first."""
        try:
            return self.context.ask_fitting(lambda: self._ask(goes_on_from))
        except StreamCutError as exc:
            exc.hint = exc.hint or "what arrived is kept in the conversation; ask again to retry"
            raise  # the partial reply is kept, so the prompt stays too
        except LLMError:
            if first:
                self.conversation.drop_last_user()  # nothing arrived: as if never sent
            raise

    def _continue_after_cut(self, reply: Reply, counts: ReplyCounts) -> bool:
        """A reply that max_tokens cut: the model is asked to go on, a few times per message."""
        if reply.finish_reason != "length" or counts.continuations >= MAX_CONTINUATIONS:
            return False
        counts.cut_text = counts.goes_on_from = counts.cut_text or reply.text
        counts.continuations += 1
        self.callbacks.on_notice("the reply hit max_tokens; asking the model to continue")
        self.conversation.add_user(CONTINUE_PROMPT)
        return True

    def _answered(self, reply: Reply) -> RunResult:
        """A reply without tool calls ends the turn; one that max_tokens still cut says so."""
        if reply.finish_reason == "length":
            self.callbacks.on_notice(
                f"the reply was truncated at max_tokens ({self.config.max_tokens}); "
                "raise max_tokens or ask the model to continue"
            )
        return RunResult(reply)

    def _stop_if_stuck(self, reply: Reply, batch: Batch, counts: ReplyCounts) -> RunResult | None:
        """Stop when the model keeps writing malformed calls, or keeps making the same ones."""
        counts.malformed = counts.malformed + 1 if batch.only_malformed else 0
        if counts.malformed > self.config.max_malformed_retries:  # corrective messages in a row, then it gives up
            return self._stop(reply, f"stopped: the model wrote malformed tool calls {counts.malformed} times in a row")
        counts.repeats.see(batch.calls, batch.errors)
        if counts.repeats.stopped:
            times = counts.repeats.times
            batch.refuse(self.conversation, f"not run: the same call came {times} times in a row; the turn was stopped")
            return self._stop(reply, f"the model repeated {batch.described()} {times} times; stopped")
        return None

    def _checkpoint_or_stop(self, reply: Reply, batch: Batch, budget: MessageBudget) -> RunResult | None:
        """The budget is spent: the calls are refused; then either a checkpoint lets the work go on
        in a fresh context (None) or the turn stops."""
        batch.refuse(self.conversation, "not run: the iteration budget for this message is spent")
        then = budget.when_spent()
        if isinstance(then, Stop):
            return self._stop(reply, then.reason)
        try:
            self.callbacks.on_notice(f"tool budget spent (-I {budget.limit}): writing checkpoint {then.cycle} "
                                     f"to {self.checkpoints.relative_path}")
            start_from(self.conversation, self.write_checkpoint(then.cycle), then.cycle)
        except KeyboardInterrupt:
            return RunResult(reply, interrupted=True)
        return None

    def _stop(self, reply: Reply, reason: str) -> RunResult:
        self.callbacks.on_notice(reason)
        return RunResult(reply, stopped=reason)

    # --- asking the model

    @property
    def _whole_files(self) -> bool:
        """A fence under a file's path is that whole file: the edit format in use (auto resolved) says so
        (intents/dialects/edit_blocks.py)."""
        return self.executor is not None and fences_are_files(self.executor.policy.edit_format)

    def _ask(self, goes_on_from: str = "") -> Reply:
        """One model reply: streamed to the callbacks and kept in the conversation; a continuation of
        `goes_on_from` that starts it again is stopped unseen."""
        request = self.context.paced(self.request())
        self.log(
            f"{self.client.provider} model={request.model} messages={len(request.messages)} "
            f"tools={len(request.tools or ())} stream={str(request.stream).lower()} max_tokens={request.max_tokens}"
        )
        # A lone </think> cannot be known before it arrives: text streams at once, and
        # the calls are read again from the whole reply, where thinking is told apart.
        schemas = request.tools or (self.executor.schemas() if self.executor is not None else None)
        display = StreamFilter(schemas, think_open=False, whole_files=self._whole_files)
        self.callbacks.on_waiting()
        rebuild = lambda: self.context.paced(self.request())  # noqa: E731
        reply = stream_reply(lambda: self.tool_mode.stream(self.client, self.config, request, rebuild),
                            display, self.callbacks, lambda reply: self._keep(reply, request.model), goes_on_from)
        if reply.usage and not reply.interrupted:
            self.callbacks.on_usage(reply.usage)
            self.context.learn(reply.usage.prompt_tokens, request)
            self.context.pace.learn(reply.usage)
        return reply

    def _keep(self, reply: Reply, model: str) -> Reply:
        reply = within_call_limit(reply)  # a flood of calls is not kept whole: the next request must fit
        self.usage.add(reply.usage, model, reply.finish_reason)  # the transcript records them with the reply
        self.callbacks.on_reply_end(reply)
        self.conversation.add_assistant(reply)
        return reply
