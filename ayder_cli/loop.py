"""ChatLoop: one user message -> model turns and tool round trips until the reply is done.

The loop never prints. It reports through a small callbacks protocol that the
console implements for the terminal and tests implement with a recorder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Protocol

from ayder_cli.calls import ToolCall
from ayder_cli.checkpoint import COMPACT_REQUEST, SUMMARY_REQUEST, MemoryManager, compacted_message, restore_message
from ayder_cli.config import Config
from ayder_cli.conversation import Conversation, estimate_tokens
from ayder_cli.fit import CHARS_PER_ESTIMATED_TOKEN, Budget, shorten_middles
from ayder_cli.intents import StreamFilter, call_format_instructions, parse
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.base import AssistantTurn, ChatClient, ChatRequest, LLMError, StreamCutError, Usage
from ayder_cli.llm.served import context_overflow
from ayder_cli.profiles import ServerProfiles
from ayder_cli.tools.base import ToolResult
from ayder_cli.tools.executor import ToolExecutor, describe

MAX_MALFORMED_RETRIES = 2  # corrective messages in a row before the loop gives up
MAX_CONTINUATIONS = 3  # automatic "continue" after a reply cut at max_tokens
CONTINUE_PROMPT = "Your reply was cut off by the length limit. Continue exactly where it stopped."
REPEATS_TO_STOP = 3  # the same calls in this many replies in a row stop the turn
REPEAT_NOTE = ("[not run again: your previous reply made this same call with the same arguments, "
               "so here is the same result again. Do something different, or answer with what you have.]")
# Tools whose result changes by itself (polling a background process): calling them again is not repeating.
POLLING_TOOLS = frozenset({"get_background_output", "list_background_processes"})


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


class IterationController:
    """Counts tool round trips for one user message against the budget (-I)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def next_turn(self) -> bool:
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    @property
    def exhausted(self) -> bool:
        return self.used >= self.limit


class RepeatGuard:
    """Spots a model making the same tool calls in consecutive replies, within one user message.

    A reply repeats when its calls (names and arguments) are exactly those of the
    reply before it. The first repeat is not run: the model gets the earlier
    results again, with a note. The next one stops the turn. A reply with any
    other call, or a malformed one, starts the count again.
    """

    def __init__(self, stop_at: int = REPEATS_TO_STOP) -> None:
        self.stop_at = stop_at
        self.times = 0  # replies in a row that made the current calls
        self._keys: list[tuple[str, str]] | None = None  # the previous reply's calls
        self._results: dict[tuple[str, str], ToolResult] = {}  # their results, from when they ran

    def see(self, calls: list[ToolCall], errors: list[str]) -> None:
        """Count one reply's calls: the previous reply's again, or new ones."""
        keys = None
        if not errors and not any(call.error is not None or call.name in POLLING_TOOLS for call in calls):
            keys = sorted(_call_key(call) for call in calls)
        same = keys is not None and keys == self._keys and all(key in self._results for key in keys)
        self.times = self.times + 1 if same else 1
        self._keys = keys

    @property
    def repeating(self) -> bool:
        """This reply's calls are the previous reply's: answer them without running them."""
        return self.times > 1

    @property
    def stopped(self) -> bool:
        return self.times >= self.stop_at

    def remember(self, calls: list[ToolCall], results: list[ToolResult]) -> None:
        """The results of calls that ran, to send back when they are repeated."""
        if not self.repeating:
            self._results = {_call_key(call): result for call, result in zip(calls, results)}

    def replay(self, calls: list[ToolCall]) -> list[ToolResult]:
        """The earlier result of each repeated call, with a note that it is a repeat."""
        replayed = []
        for call in calls:
            earlier = self._results[_call_key(call)]
            if earlier.ok:
                replayed.append(ToolResult(True, f"{REPEAT_NOTE}\n\n{earlier.output}", summary=earlier.summary))
            else:
                replayed.append(ToolResult(False, error=f"{REPEAT_NOTE}\n{earlier.error}", summary=earlier.summary))
        return replayed


def _call_key(call: ToolCall) -> tuple[str, str]:
    """A call's name and arguments as canonical JSON: equal calls, equal keys."""
    return call.name, json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)


def _described(calls: list[ToolCall]) -> str:
    """read_file(file_path="a.py"), list_files() -- as the activity lines show them."""
    return ", ".join(describe(call.name, call.arguments) for call in calls)


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
        client: ChatClient,
        conversation: Conversation,
        config: Config,
        callbacks: Callbacks,
        executor: ToolExecutor | None = None,
        memory: MemoryManager | None = None,
        log: Callable[[str], None] = lambda message: None,
        profiles: ServerProfiles | None = None,
    ) -> None:
        self.client = client
        self.conversation = conversation
        self.config = config
        self.callbacks = callbacks
        self.executor = executor
        self.memory = memory  # where checkpoints go; None: the loop stops when the budget is spent
        self.tokens_per_estimate = 1.0  # server-reported prompt tokens / our estimate, once known
        self.compaction_failed_at = 0  # the size at which compaction last did not help
        self.server_cut = False  # the server shortened the last prompt by itself: compact before the next
        self._last_prompt: tuple[int, int] | None = None  # the last request's (estimate, server's count)
        self.log = log
        self.usage = SessionUsage()
        # None: try native tool calling and fall back to text if the server refuses it.
        self.native_tools: bool | None = {"on": True, "off": False}.get(config.native_tools)
        self.profiles = profiles  # what earlier runs learned about this server and model
        learned = profiles.get(config.resolved_base_url, config.resolved_model) if profiles else {}
        if self.native_tools is None and learned.get("native_tools") is False:
            self.native_tools = False  # the server refused them last time: do not fail first again
            log(f"tools go as text: {learned.get('reason', 'the server refused them')} (learned "
                f"{learned.get('learned', 'earlier')}); native_tools \"on\" tries native calls again")

    # --- one user message

    def run(self, user_text: str) -> RunResult:
        """Handle one user message. Raises LLMError when the server fails."""
        self.conversation.add_user(user_text)
        if self.executor is not None:
            self.executor.new_message()
        iterations, repeats = IterationController(self.config.iterations), RepeatGuard()
        malformed = continuations = checkpoints = 0
        first = True
        while True:
            try:
                turn = self._ask_fitting()
            except StreamCutError as exc:
                exc.hint = exc.hint or "what arrived is kept in the conversation; ask again to retry"
                raise  # the partial reply is kept, so the prompt stays too
            except LLMError:
                if first:
                    self.conversation.drop_last_user()  # nothing arrived: as if never sent
                raise
            first = False
            if turn.interrupted:
                return RunResult(turn, interrupted=True)
            calls, errors, native = self._calls_of(turn)
            if not calls and not errors:
                if turn.finish_reason == "length" and continuations < MAX_CONTINUATIONS:
                    continuations += 1
                    self.callbacks.on_notice("the reply hit max_tokens; asking the model to continue")
                    self.conversation.add_user(CONTINUE_PROMPT)
                    continue
                if turn.finish_reason == "length":
                    self.callbacks.on_notice(
                        f"the reply was truncated at max_tokens ({self.config.max_tokens}); "
                        "raise max_tokens or ask the model to continue"
                    )
                return RunResult(turn)
            runnable = [call for call in calls if call.error is None]
            malformed = 0 if runnable or not errors else malformed + 1
            if malformed > MAX_MALFORMED_RETRIES:
                return self._stop(turn, f"stopped: the model wrote malformed tool calls {malformed} times in a row")
            repeats.see(calls, errors)
            if repeats.stopped:
                return self._stop_repeating(turn, calls, native, repeats.times)
            if calls and not iterations.next_turn():
                refused = [ToolResult.failure("not run: the iteration budget for this message is spent")] * len(calls)
                self.conversation.add_results(calls, refused, native)
                if self.memory is not None and checkpoints < self.config.max_checkpoints:
                    checkpoints += 1
                    try:
                        self._checkpoint(checkpoints, iterations.limit)
                    except KeyboardInterrupt:
                        return RunResult(turn, interrupted=True)
                    iterations, repeats = IterationController(self.config.iterations), RepeatGuard()
                    malformed = continuations = 0
                    continue
                if checkpoints:
                    return self._stop(turn, f"stopped after {checkpoints} checkpoint{'s' * (checkpoints != 1)} "
                                      f"(max_checkpoints); the latest summary is in {self._memory_path()}; "
                                      "send another message to go on")
                return self._stop(
                    turn, f"stopped after {iterations.limit} tool round trip{'s' * (iterations.limit != 1)} "
                    f"(-I {iterations.limit}); "
                    "send another message to let it go on, or raise -I"
                )
            results, interrupted = self._replay(calls, repeats) if repeats.repeating else self._execute(calls)
            repeats.remember(calls, results)
            notes = [self._correction(errors)] if errors else []
            self.conversation.add_results(calls, results, native, notes)
            if interrupted:  # Ctrl-C during a tool (or at its question): back to the user
                return RunResult(turn, interrupted=True)

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
        return int(prompt_estimate(self.request()) * self.tokens_per_estimate)

    def compact(self, only_if_needed: bool = False) -> bool:
        """Replace older turns by a summary (system prompt and the last turns kept); True if applied."""
        limit = self.config.num_ctx
        before = self.context_tokens()
        if only_if_needed and (not limit or before <= self.config.compact_at * limit
                               or before <= self.compaction_failed_at * 1.2):
            return False
        messages = self.conversation.messages
        starts = [i for i, m in enumerate(messages) if m["role"] == "user"]
        # Kept: the last exchange, and during a run also the message being answered.
        keep = 2 if only_if_needed else 1
        cut = starts[-keep] if len(starts) >= keep else 0
        if cut == 0:
            if not only_if_needed:
                self.callbacks.on_notice("nothing to compact: the conversation is only the latest exchange")
            return False
        older = Conversation(self.conversation.system_prompt)
        older.messages = messages[:cut]
        summary = self._summarize(older.for_request(), COMPACT_REQUEST)
        replaced = [{"role": "user", "content": compacted_message(summary)}, *messages[cut:]]
        after = before + int((estimate_tokens(replaced[:1]) - estimate_tokens(messages[:cut])) * self.tokens_per_estimate)
        if not summary or after >= before:
            self.callbacks.on_notice(f"compaction would not shrink the context (~{before} tokens); not applied")
            self.compaction_failed_at = before
            return False
        self.conversation.messages = replaced
        if self.conversation.on_message is not None:
            self.conversation.on_message(replaced[0])
        self.callbacks.on_notice(f"compacted the conversation: ~{before} -> ~{after} tokens")
        return True

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
                    self.config = self.config.with_values(num_ctx=available)  # what the server really serves
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
        over = int(estimate * self.tokens_per_estimate) - Budget.for_window(window, self.config.max_tokens).prompt
        if over > 0:
            chars = int(over / self.tokens_per_estimate * CHARS_PER_ESTIMATED_TOKEN) + 64
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
        callbacks = self.callbacks
        callbacks.on_waiting()
        deltas = None
        try:
            deltas = self._stream(request)
            for delta in deltas:
                accumulator.add(delta)
                if delta.thinking:
                    callbacks.on_thinking(delta.thinking)
                if delta.content:
                    self._show(display.feed(delta.content))
        except KeyboardInterrupt:
            if deltas is not None:
                deltas.close()  # closes the response: the server stops generating
            self._show(display.finish())
            return self._keep(accumulator.turn(interrupted=True))
        except StreamCutError:
            self._show(display.finish())
            self._keep(accumulator.turn(cut_off=True))
            raise
        self._show(display.finish())
        turn = self._keep(accumulator.turn())
        if turn.usage:
            callbacks.on_usage(turn.usage)
            self._calibrate(turn.usage.prompt_tokens, prompt_estimate(request))
        return turn

    def _calibrate(self, reported: int | None, estimate: int) -> None:
        """Learn tokens per estimated token from the server's count of the prompt just sent, unless
        the count shows that the server cut the prompt to fit (older Ollamas do, silently)."""
        if not reported or not estimate:
            return
        last, self._last_prompt = self._last_prompt, (estimate, reported)
        if last is not None and self._was_cut(last, estimate, reported):
            self._cut_by_server(reported, estimate)
            return
        self.tokens_per_estimate = reported / estimate

    def _was_cut(self, last: tuple[int, int], estimate: int, reported: int) -> bool:
        """The conversation grew since the last request, but the server's count of it hardly did.

        A server that cuts still keeps the system prompt and tools: a count below even those is a
        server leaving its cached prefix out of the count (some Ollama versions), not a cut."""
        last_estimate, last_reported = last
        grown = (estimate - last_estimate) * self.tokens_per_estimate
        return grown >= 64 and reported < last_reported + 0.3 * grown and reported >= 0.9 * self._prefix_tokens()

    def _cut_by_server(self, reported: int, estimate: int) -> None:
        """Say that the server shortened the prompt, serve it less from now on, compact before the next request."""
        window = self.config.num_ctx
        expected = int(estimate * self.tokens_per_estimate)
        self.callbacks.on_notice(f"the server read only {reported} of about {expected} prompt tokens: it cut "
                                 "the conversation to fit its context window; compacting before the next request")
        if self.config.provider == "ollama" and window:
            # Ollama serves the num_ctx ayder pins: the prompt was bigger than the estimate said.
            self.tokens_per_estimate = max(self.tokens_per_estimate, window / estimate * 1.1)
        else:  # it serves less than ayder was told: at most what it read
            self.config = self.config.with_values(num_ctx=reported)
        self.server_cut = True

    def _prefix_tokens(self) -> int:
        """The system prompt and tool schemas of a request: what every request starts with."""
        request = self.request()
        request.messages = [message for message in request.messages[:1] if message["role"] == "system"]
        return int(prompt_estimate(request) * self.tokens_per_estimate)

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

    def _calls_of(self, turn: AssistantTurn) -> tuple[list[ToolCall], list[str], bool]:
        """Native calls if the reply has any, else the calls written in its text."""
        if turn.tool_calls:
            # Every native call needs a result: a broken one is not run and gets its error as the result.
            errors = [f"{call.name}: {call.error}" for call in turn.tool_calls if call.error is not None]
            return turn.tool_calls, errors, True
        if self.executor is None:
            return [], [], False
        # Nothing before a lone </think> is run, nor a call that a max_tokens cut left without its end.
        parsed = parse(turn.text, self._schemas(), cut_off=turn.finish_reason == "length")
        return parsed.calls, parsed.errors, False

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

    def _replay(self, calls: list[ToolCall], repeats: RepeatGuard) -> tuple[list[ToolResult], bool]:
        """Calls the previous reply made already: not run again, their earlier results sent back."""
        self.callbacks.on_notice(f"the model repeated {_described(calls)}; not run again, it gets the earlier result")
        return repeats.replay(calls), False

    def _stop_repeating(self, turn: AssistantTurn, calls: list[ToolCall], native: bool, times: int) -> RunResult:
        refused = ToolResult.failure(f"not run: the same call came {times} times in a row; the turn was stopped")
        self.conversation.add_results(calls, [refused] * len(calls), native)
        return self._stop(turn, f"the model repeated {_described(calls)} {times} times; stopped")

    def _correction(self, errors: list[str]) -> str:
        """What was wrong with the calls, and the one format that always works."""
        listed = "\n".join(f"- {error}" for error in errors)
        return (
            f"These tool calls could not be run:\n{listed}\n"
            'Call a tool by writing a line on its own: [CALL] tool_name {"argument": "value"} '
            "with the arguments as one JSON object on that line."
        )


def prompt_estimate(request: ChatRequest) -> int:
    """Our estimate of a request's prompt: its messages and its tool schemas, about four characters a token."""
    return estimate_tokens(request.messages) + (len(json.dumps(request.tools)) // 4 if request.tools else 0)


def _chain(first, rest):
    """The first delta, already taken to see whether the request was accepted, then the rest."""
    if first is not None:
        yield first
    yield from rest

