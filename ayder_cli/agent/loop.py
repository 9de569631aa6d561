"""ChatLoop: one user message -> model turns and tool round trips until the reply is done.

The loop never prints. It reports through a small callbacks protocol that the
console implements for the terminal and tests implement with a recorder.

What run() leans on has a module each: the message's budget of round trips and
checkpoints (turn_budget), the calls of one reply (batch), the guard against the
same calls again and again (repeats), and what the server's counts taught about
the size of a prompt (calibration).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Protocol

from ayder_cli.agent.batch import Batch
from ayder_cli.agent.calibration import Calibration, prompt_estimate
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.storage.checkpoint import COMPACT_REQUEST, SUMMARY_REQUEST, MemoryManager, compacted_message, restore_message
from ayder_cli.setup.config import Config
from ayder_cli.agent.conversation import Conversation, estimate_tokens
from ayder_cli.agent.fit import Budget, shorten_middles
from ayder_cli.intents import StreamFilter, call_format_instructions, parse
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.base import AssistantTurn, ChatClient, ChatRequest, LLMError, StreamCutError, Usage
from ayder_cli.llm.served import context_overflow
from ayder_cli.storage.profiles import ServerProfiles
from ayder_cli.agent.repeats import REPEAT_NOTE, RepeatGuard  # noqa: F401 -- re-exports REPEAT_NOTE
from ayder_cli.setup.runtime import Runtime
from ayder_cli.tools.executor import ToolExecutor
from ayder_cli.agent.budget import IterationController, Stop, TurnBudget  # noqa: F401 -- re-exports IterationController

MAX_MALFORMED_RETRIES = 2  # corrective messages in a row before the loop gives up
MAX_CONTINUATIONS = 3  # automatic "continue" after a reply cut at max_tokens
CONTINUE_PROMPT = "Your reply was cut off by the length limit. Continue exactly where it stopped."


class Callbacks(Protocol):
    def on_waiting(self) -> None:
        """A request went out; nothing has arrived yet."""

    def on_text(self, text: str) -> None: ...

    def on_thinking(self, text: str) -> None: ...

    def on_reply_end(self, turn: AssistantTurn) -> None: ...

    def on_tool_start(self, call: ToolCall) -> None: ...

    def on_tool_done(self, call: ToolCall, result: ToolResult) -> None: ...

    def on_notice(self, message: str) -> None: ...

    def on_usage(self, usage: Usage) -> None: ...

    def on_message_end(self, window: int | None) -> None:
        """The user's message is handled (answered, stopped or failed); `window`: the served context, if known."""


@dataclass
class ReplyCounts:
    """What the replies to one message did, counted to know when to stop asking; a checkpoint starts them again."""

    malformed: int = 0  # replies in a row whose calls were all malformed
    continuations: int = 0  # automatic "continue"s after replies cut at max_tokens
    repeats: RepeatGuard = field(default_factory=RepeatGuard)


@dataclass
class RunResult:
    turn: AssistantTurn | None
    interrupted: bool = False
    stopped: str | None = None  # why the loop gave up before the model finished


@dataclass
class SessionUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of prompt_tokens, reused from the server's prompt cache (where it says)
    requests: int = 0
    last: Usage | None = None  # the latest request's counts (/status)

    def totals(self) -> dict[str, int]:
        """What a session saves (so /usage goes on after --continue)."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cached_tokens": self.cached_tokens, "requests": self.requests}

    def restore(self, totals: dict[str, int]) -> None:
        """Go on from the totals an earlier run saved."""
        for key, value in totals.items():
            if key in ("prompt_tokens", "completion_tokens", "cached_tokens", "requests"):
                setattr(self, key, value)

    def add(self, usage: Usage | None) -> None:
        self.requests += 1
        self.last = usage
        if usage:
            self.prompt_tokens += usage.prompt_tokens or 0
            self.completion_tokens += usage.completion_tokens or 0
            self.cached_tokens += usage.cached_tokens or 0


class ChatLoop:
    def __init__(
        self,
        runtime: Runtime,
        conversation: Conversation,
        callbacks: Callbacks,
        executor: ToolExecutor | None = None,
        memory: MemoryManager | None = None,
        log: Callable[[str], None] = lambda message: None,
        profiles: ServerProfiles | None = None,
    ) -> None:
        self.conversation = conversation
        self.callbacks = callbacks
        self.executor = executor
        self.memory = memory  # where checkpoints go; None: the loop stops when the budget is spent
        self.compaction_failed_at = 0  # the size at which compaction last did not help
        self.log = log
        self.usage = SessionUsage()
        self.profiles = profiles  # what earlier runs learned about this server and model
        self.runtime = runtime
        self._meet_the_server()

    # --- the server and model: one Runtime, replaced whole

    @property
    def config(self) -> Config:
        return self.runtime.config

    @config.setter
    def config(self, config: Config) -> None:
        """The loop learns the window the server really serves (num_ctx) as it goes."""
        self.runtime = replace(self.runtime, config=config)

    @property
    def client(self) -> ChatClient:
        return self.runtime.client

    def use(self, runtime: Runtime) -> None:
        """Talk through `runtime` from the next request on (/model, /provider, a changed setting);
        what was learned of the server and model starts again when they are others."""
        known = runtime.endpoint.serves_as(self.runtime.endpoint)
        self.runtime = runtime
        if not known:
            self._meet_the_server()

    def _meet_the_server(self) -> None:
        """Nothing learned yet of this server and model, but what earlier runs saved (profiles)."""
        self.calibration = Calibration()  # what the server's counts taught about our estimates
        self.server_cut = False  # the server shortened the last prompt by itself: compact before the next
        config = self.runtime.config
        # None: try native tool calling and fall back to text if the server refuses it.
        self.native_tools: bool | None = {"on": True, "off": False}.get(config.native_tools)
        learned = self.profiles.get(config.resolved_base_url, config.resolved_model) if self.profiles else {}
        if self.native_tools is None and learned.get("native_tools") is False:
            self.native_tools = False  # the server refused them last time: do not fail first again
            self.log(f"tools go as text: {learned.get('reason', 'the server refused them')} (learned "
                     f"{learned.get('learned', 'earlier')}); native_tools \"on\" tries native calls again")

    # --- one user message

    def run(self, user_text: str) -> RunResult:
        """Handle one user message. Raises LLMError when the server fails."""
        try:
            return self._run(user_text)
        finally:
            self.callbacks.on_message_end(self.config.num_ctx)

    def _run(self, user_text: str) -> RunResult:
        self.conversation.add_user(user_text)
        if self.executor is not None:
            self.executor.new_message()
        budget, counts, turn = self._budget(), ReplyCounts(), None
        while True:
            turn = self._reply(first=turn is None)
            if turn.interrupted:
                return RunResult(turn, interrupted=True)
            batch = self._batch_of(turn)
            if batch.empty:
                if self._continue_after_cut(turn, counts):
                    continue
                return self._answered(turn)
            stuck = self._stop_if_stuck(turn, batch, counts)
            if stuck is not None:
                return stuck
            if batch.calls and not budget.spend():
                stopped = self._checkpoint_or_stop(turn, batch, budget)
                if stopped is not None:
                    return stopped
                counts = ReplyCounts()  # a fresh context from the checkpoint: nothing counts against it yet
                continue
            results, interrupted = self._run_batch(batch, counts.repeats)
            batch.answer(self.conversation, results)
            if interrupted:  # Ctrl-C during a tool (or at its question): back to the user
                return RunResult(turn, interrupted=True)

    def _budget(self) -> TurnBudget:
        """The message's budget: -I tool round trips, renewed by checkpoints only where they can be written."""
        return TurnBudget(self.config.iterations, self.config.max_checkpoints if self.memory is not None else 0,
                          self._memory_path())

    def _reply(self, first: bool) -> AssistantTurn:
        """The model's next reply, the conversation fitted to the window first."""
        try:
            return self._ask_fitting()
        except StreamCutError as exc:
            exc.hint = exc.hint or "what arrived is kept in the conversation; ask again to retry"
            raise  # the partial reply is kept, so the prompt stays too
        except LLMError:
            if first:
                self.conversation.drop_last_user()  # nothing arrived: as if never sent
            raise

    def _continue_after_cut(self, turn: AssistantTurn, counts: ReplyCounts) -> bool:
        """A reply that max_tokens cut: the model is asked to go on, a few times per message."""
        if turn.finish_reason != "length" or counts.continuations >= MAX_CONTINUATIONS:
            return False
        counts.continuations += 1
        self.callbacks.on_notice("the reply hit max_tokens; asking the model to continue")
        self.conversation.add_user(CONTINUE_PROMPT)
        return True

    def _answered(self, turn: AssistantTurn) -> RunResult:
        """A reply without tool calls ends the turn; one that max_tokens still cut says so."""
        if turn.finish_reason == "length":
            self.callbacks.on_notice(
                f"the reply was truncated at max_tokens ({self.config.max_tokens}); "
                "raise max_tokens or ask the model to continue"
            )
        return RunResult(turn)

    def _stop_if_stuck(self, turn: AssistantTurn, batch: Batch, counts: ReplyCounts) -> RunResult | None:
        """Stop when the model keeps writing malformed calls, or keeps making the same ones."""
        counts.malformed = counts.malformed + 1 if batch.only_malformed else 0
        if counts.malformed > MAX_MALFORMED_RETRIES:
            return self._stop(turn, f"stopped: the model wrote malformed tool calls {counts.malformed} times in a row")
        counts.repeats.see(batch.calls, batch.errors)
        if counts.repeats.stopped:
            times = counts.repeats.times
            batch.refuse(self.conversation, f"not run: the same call came {times} times in a row; the turn was stopped")
            return self._stop(turn, f"the model repeated {batch.described()} {times} times; stopped")
        return None

    def _checkpoint_or_stop(self, turn: AssistantTurn, batch: Batch, budget: TurnBudget) -> RunResult | None:
        """The budget is spent: the calls are refused; then either a checkpoint lets the work go on
        in a fresh context (None) or the turn stops."""
        batch.refuse(self.conversation, "not run: the iteration budget for this message is spent")
        then = budget.when_spent()
        if isinstance(then, Stop):
            return self._stop(turn, then.reason)
        try:
            self._checkpoint(then.cycle, budget.limit)
        except KeyboardInterrupt:
            return RunResult(turn, interrupted=True)
        return None

    def _checkpoint(self, cycle: int, budget: int) -> None:
        """Summarize the work without tools, save it, and go on in a fresh context from the summary."""
        self.callbacks.on_notice(
            f"tool budget spent (-I {budget}): writing checkpoint {cycle} to {self._memory_path()}"
        )
        summary = self.write_checkpoint(cycle)
        self.conversation.reset()
        self.conversation.add_user(restore_message(summary, cycle))

    def write_checkpoint(self, cycle: int) -> str:
        """Ask the model (no tools) to summarize the conversation so far and save it; the summary."""
        summary = self._summarize(self.conversation.for_request(), SUMMARY_REQUEST)
        summary = summary or "(the model wrote no summary)"
        self.memory.write(summary, cycle)
        return summary

    def _summarize(self, messages: list[dict], instruction: str) -> str:
        """The model's summary of `messages` (asked without tools, not shown), think blocks removed."""
        request = self.request()
        request.tools = None
        request.messages = messages + [{"role": "user", "content": instruction}]
        self._shorten_to_fit(request.messages, prompt_estimate(request))  # the summary request must fit too
        accumulator = Accumulator()
        for delta in self.client.stream(request):
            accumulator.add(delta)
        turn = accumulator.turn()
        self.usage.add(turn.usage)
        return parse(turn.text).display.strip()

    def context_tokens(self) -> int:
        """The next request's prompt in tokens: our estimate, scaled by what the server last reported."""
        return self.calibration.tokens(prompt_estimate(self.request()))

    def compact(self, only_if_needed: bool = False) -> bool:
        """Replace older turns by a summary (system prompt and the last turns kept); True if applied."""
        before = self.context_tokens()
        if only_if_needed and not self._worth_compacting(before):
            return False
        cut = self._compaction_cut(only_if_needed)
        if cut == 0:
            if not only_if_needed:
                self.callbacks.on_notice("nothing to compact: the conversation is only the latest exchange")
            return False
        messages = self.conversation.messages
        older = Conversation(self.conversation.system_prompt)
        older.messages = messages[:cut]
        summary = self._summarize(older.for_request(), COMPACT_REQUEST)
        replaced = [{"role": "user", "content": compacted_message(summary)}, *messages[cut:]]
        after = before + self.calibration.tokens(estimate_tokens(replaced[:1]) - estimate_tokens(messages[:cut]))
        if not summary or after >= before:
            self.callbacks.on_notice(f"compaction would not shrink the context (~{before} tokens); not applied")
            self.compaction_failed_at = before
            return False
        self.conversation.messages = replaced
        if self.conversation.on_message is not None:
            self.conversation.on_message(replaced[0])
        self.callbacks.on_notice(f"compacted the conversation: ~{before} -> ~{after} tokens")
        return True

    def _worth_compacting(self, tokens: int) -> bool:
        """The context nears the window, and is well past the size at which compaction last did not help."""
        limit = self.config.num_ctx
        return bool(limit) and tokens > self.config.compact_at * limit and tokens > self.compaction_failed_at * 1.2

    def _compaction_cut(self, only_if_needed: bool) -> int:
        """Where the kept messages start (0: nothing older to summarize)."""
        starts = [i for i, m in enumerate(self.conversation.messages) if m["role"] == "user"]
        # Kept: the last exchange, and during a run also the message being answered.
        keep = 2 if only_if_needed else 1
        return starts[-keep] if len(starts) >= keep else 0

    def _memory_path(self) -> str:
        return self.memory.path.relative_to(self.memory.root).as_posix() if self.memory else ""

    def _stop(self, turn: AssistantTurn, reason: str) -> RunResult:
        self.callbacks.on_notice(reason)
        return RunResult(turn, stopped=reason)

    # --- asking the model

    def request(self) -> ChatRequest:
        """The next request for the conversation as it stands: system prompt, tools (native or taught), settings."""
        config = self.config
        system = self.conversation.system_prompt
        tools = None
        offered = self.executor.offered() if self.executor is not None else []
        if offered:
            if self.native_tools is False:
                teach = call_format_instructions([spec.signature() for spec in offered])
                system = f"{system}\n\n{teach}" if system else teach
            else:
                tools = self.executor.schemas()
        return ChatRequest(
            model=config.resolved_model,
            messages=self.conversation.for_request(system),
            stream=config.stream,
            tools=tools,
            temperature=config.temperature,
            top_p=config.top_p,
            max_tokens=config.max_tokens,
            num_ctx=config.num_ctx,
            keep_alive=config.keep_alive,
        )

    def _ask_fitting(self) -> AssistantTurn:
        """Ask with the conversation made to fit the window; a server that still finds it too long
        gets one more try after compaction, then a one-line error with the numbers."""
        for last_try in (False, True):
            self._fit(forced=last_try)
            try:
                return self._ask()
            except LLMError as exc:
                overflow = context_overflow(exc.message)
                if overflow is None:
                    raise
                needed, available = overflow
                if last_try:
                    numbers = f" ({needed} tokens needed, {available} available)" if needed else ""
                    raise LLMError(f"the conversation does not fit the server's context window{numbers}: "
                                   f"{exc.message}", status=exc.status,
                                   hint="start the server with a larger window (llama.cpp -c N, Ollama num_ctx), "
                                        "set --num-ctx to what it serves, or /reset") from exc
                if available and available < (self.config.num_ctx or available + 1):
                    self.config = replace(self.config, num_ctx=available)  # what the server really serves
                self.callbacks.on_notice("the server found the conversation too long; compacting and asking once more")
        raise AssertionError("unreachable")  # pragma: no cover

    def _fit(self, forced: bool) -> None:
        """Compact when the conversation nears the window (always when `forced`); then, if one message
        is still too big for it, cut its middle: a request known not to fit is never sent."""
        if forced or self.server_cut:
            self.server_cut = False
            self.compact()
        elif self.config.auto_compact:
            self.compact(only_if_needed=True)
        self._shorten_to_fit(self.conversation.messages, prompt_estimate(self.request()))

    def _shorten_to_fit(self, messages: list[dict], estimate: int) -> None:
        """Cut the middle of the longest of `messages` (in place) if a prompt of `estimate` would not fit."""
        window = self.config.num_ctx
        if not window:
            return
        chars = self.calibration.chars_over(estimate, Budget.for_window(window, self.config.max_tokens).prompt)
        if chars:
            for note in shorten_middles(messages, chars):
                self.callbacks.on_notice(f"{note}, so the request fits the {window}-token context window")

    def _ask(self) -> AssistantTurn:
        """One model turn: stream it to the callbacks and keep it in the conversation."""
        request = self.request()
        self.log(
            f"{self.client.provider} model={request.model} messages={len(request.messages)} "
            f"tools={len(request.tools or ())} stream={str(request.stream).lower()} max_tokens={request.max_tokens}"
        )
        accumulator = Accumulator()
        # A lone </think> cannot be known before it arrives: text streams at once, and
        # the calls are read again from the whole reply, where thinking is told apart.
        display = StreamFilter(request.tools or self._schemas(), think_open=False)
        self.callbacks.on_waiting()
        try:
            self._receive(request, accumulator, display)
        except KeyboardInterrupt:
            self._show(display.finish())
            return self._keep(accumulator.turn(interrupted=True))
        except StreamCutError:
            self._show(display.finish())
            self._keep(accumulator.turn(stream_cut=True))
            raise
        self._show(display.finish())
        turn = self._keep(accumulator.turn())
        if turn.usage:
            self.callbacks.on_usage(turn.usage)
            self._calibrate(turn.usage.prompt_tokens, prompt_estimate(request))
        return turn

    def _receive(self, request: ChatRequest, accumulator: Accumulator, display: StreamFilter) -> None:
        """Stream the reply into `accumulator`, showing its text and thinking as they arrive."""
        deltas = self._stream(request)
        try:
            for delta in deltas:
                accumulator.add(delta)
                if delta.thinking:
                    self.callbacks.on_thinking(delta.thinking)
                if delta.content:
                    self._show(display.feed(delta.content))
                if delta.warning:  # e.g. malformed events the client skipped: said once per reply
                    self.callbacks.on_notice(delta.warning)
        except KeyboardInterrupt:
            deltas.close()  # closes the response: the server stops generating
            raise

    def _calibrate(self, reported: int | None, estimate: int) -> None:
        """Learn tokens per estimated token from the server's count of the prompt just sent, unless
        the count shows that the server cut the prompt to fit (older Ollamas do, silently)."""
        if self.calibration.learn(reported, estimate, prefix_tokens=self._prefix_tokens):
            self._cut_by_server(reported, estimate)

    def _cut_by_server(self, reported: int, estimate: int) -> None:
        """Say that the server shortened the prompt, serve it less from now on, compact before the next request."""
        window = self.config.num_ctx
        expected = self.calibration.tokens(estimate)
        self.callbacks.on_notice(f"the server read only {reported} of about {expected} prompt tokens: it cut "
                                 "the conversation to fit its context window; compacting before the next request")
        if self.config.provider == "ollama" and window:
            # Ollama serves the num_ctx ayder pins: the prompt was bigger than the estimate said.
            self.calibration.at_least(window / estimate * 1.1)
        else:  # it serves less than ayder was told: at most what it read
            self.config = replace(self.config, num_ctx=reported)
        self.server_cut = True

    def _prefix_tokens(self) -> int:
        """The system prompt and tool schemas of a request: what every request starts with."""
        request = self.request()
        request.messages = [message for message in request.messages[:1] if message["role"] == "system"]
        return self.calibration.tokens(prompt_estimate(request))

    def _stream(self, request: ChatRequest):
        """The client's deltas; a server that refuses native tools gets the text format instead."""
        deltas = self.client.stream(request)
        try:
            first = next(deltas)
        except StopIteration:
            return _chain(None, deltas)
        except LLMError as exc:
            # Servers say so in words: "does not support tools", "tools param requires --jinja", ...
            message = exc.message.lower()
            refused_tools = exc.status in (400, 422, 500) and "tool" in message
            # ... and a server-side tool-call parser that chokes on the model's output fails the same way
            # on every retry ("Failed to parse tool call"): ayder can read the calls from the text itself.
            parser_failed = refused_tools and "pars" in message and self.config.native_tools == "auto"
            if not request.tools or not (refused_tools and self.native_tools is None or parser_failed):
                raise
            self.native_tools = False
            what = "the server's tool-call parser failed" if parser_failed else "the server refused native tool calling"
            self.callbacks.on_notice(f"{what}; tools are now taught as text ([CALL] lines)")
            if self.profiles is not None:
                self.profiles.remember(self.config.resolved_base_url, self.config.resolved_model,
                                       native_tools=False, reason=what)
            return self._stream(self.request())
        if request.tools and self.native_tools is None:
            self.native_tools = True
        return _chain(first, deltas)

    def _show(self, pieces: list[tuple[str, str]]) -> None:
        for kind, piece in pieces:
            if kind == "thinking":
                self.callbacks.on_thinking(piece)
            else:
                self.callbacks.on_text(piece)

    def _keep(self, turn: AssistantTurn) -> AssistantTurn:
        self.usage.add(turn.usage)
        self.callbacks.on_reply_end(turn)
        self.conversation.add_assistant(turn)
        return turn

    def _schemas(self) -> list[dict] | None:
        return self.executor.schemas() if self.executor is not None else None

    # --- tool calls

    def _batch_of(self, turn: AssistantTurn) -> Batch:
        """Native calls if the reply has any, else the calls written in its text."""
        if turn.tool_calls:
            return Batch.native_calls(turn)
        if self.executor is None:
            return Batch.none()
        return Batch.written_in(turn, self._schemas())

    def _run_batch(self, batch: Batch, repeats: RepeatGuard) -> tuple[list[ToolResult], bool]:
        """Run the calls, or answer a repeat with the earlier results -> (results, interrupted)."""
        if repeats.repeating:  # the previous reply made these calls already: not run again
            described = batch.described()
            self.callbacks.on_notice(f"the model repeated {described}; not run again, it gets the earlier result")
            results, interrupted = repeats.replay(batch.calls), False
        else:
            results, interrupted = self._execute(batch.calls)
        repeats.remember(batch.calls, results)
        return results, interrupted

    def _execute(self, calls: list[ToolCall]) -> tuple[list[ToolResult], bool]:
        """Run the calls in order; Ctrl-C stops the rest (they get no result here) -> (results, interrupted)."""
        results: list[ToolResult] = []
        for call in calls:
            if call.error is not None:
                results.append(ToolResult.failure(f"not run: {call.error}"))
                continue
            self.callbacks.on_tool_start(call)
            try:
                result = self.executor.run(call)
            except KeyboardInterrupt:
                result = ToolResult.failure("interrupted by the user")
                self.callbacks.on_tool_done(call, result)
                results.append(result)
                return results, True
            self.callbacks.on_tool_done(call, result)
            results.append(result)
        return results, False


def _chain(first, rest):
    """The first delta, already taken to see whether the request was accepted, then the rest."""
    if first is not None:
        yield first
    yield from rest

