"""ayder --doctor and /doctor: check the configured server and model, one line per check.

The checks run in order, each a short method of Doctor that returns its mark and
text; run_doctor() prints them on stderr as they finish and writes what they
learned to the server profile (storage/profiles.py), so the next session starts from it.
Every request the doctor sends is built by the session's own request building
(agent/request.py) over a throwaway conversation: the session's conversation and
transcript never see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.prompt_cache import PROFILE_KEY as PARTIAL_REUSE_KEY
from ayder_cli.agent.request import next_request, whole_reply, with_settings
from ayder_cli.agent.tool_fallback import refuses_tools
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.edit_formats import doctor_line
from ayder_cli.errors import ExitStatus
from ayder_cli.intents import call_format_instructions, parse
from ayder_cli.llm.wire_types import ChatRequest, LLMError, Reply
from ayder_cli.llm.providers import provider_named
from ayder_cli.llm.served import ServedWindow
from ayder_cli.modes.doctor_replies import (
    ADD_TOOL,
    TOOL_CHECK_MAX_TOKENS,
    call_in,
    right_call,
    said,
    served_name,
    server_words,
)
from ayder_cli.storage.profiles import ServerProfiles, profiles_path
from ayder_cli.terminal.console import describe_call
from ayder_cli.wording import counted, short

OK, FAILED, UNKNOWN = "✓", "✗", "–"
LABEL_WIDTH = 19
LISTED_MODELS = 10  # a longer model list ends in "and N more"

ADD_SIGNATURE = "add(a: integer, b: integer)"
ASK_FOR_CALL = "What is 2 + 3? Use the add tool: call it with a=2 and b=3, then tell me the result."
ADD_RESULT = "5"
FORCED = "required"  # tool_choice: with one tool offered, the model must call it
FIRST_PROMPT = "Say hello."
# The partial-prefix probe: the first request with an answer and one more message, then the same with its
# first message changed; a server that reuses a partial prefix reads only from the change on.
PROBE_ANSWER, PROBE_NEXT, CHANGED_PROMPT = "Hello.", "Say it once more.", "Say hi."
FIRST_MAX_TOKENS = 8  # the prompt is what is measured, not the answer


@dataclass
class Result:
    mark: str
    text: str
    hint: str | None = None


@dataclass
class ToolTry:
    """One forced call: how the tool was offered, what came back, and the answer to its result."""

    native: bool  # offered as a native tool (else taught as text in the system prompt)
    reply: Reply
    call: ToolCall | None = None
    from_text: bool = False  # the call was read from the reply's text, not a native call
    answer: str = ""  # what the model said after the result came back


@dataclass
class Findings:
    """What the checks learned; the profile is written from it."""

    models: list[str] = field(default_factory=list)
    model_served: bool | None = None  # None: the server lists no models
    window: ServedWindow | None = None
    native_tools: bool | None = None  # None: the server took the tools, but no native call came back
    refusal: str | None = None  # the server's words when it refused the tools parameter
    native_try: ToolTry | None = None
    working: ToolTry | None = None  # the round trip that worked, native or as text
    streaming_tools: bool | None = None
    thinking: str | None = None
    first_request: ChatRequest | None = None
    first_request_tokens: int | None = None
    partial_prefix_reuse: bool | None = None  # None: the server does not report its cache
    replies: list[Reply] = field(default_factory=list)  # every reply, for the thinking check


class Doctor:
    """The checks against the session's client, config and prompt; `found` holds what they learned."""

    def __init__(self, session, pick_model: str = "-m NAME") -> None:
        self.session = session
        self.pick_model = pick_model  # how this run switches model: the flag, or /model in a session
        self.loop = session.loop
        self.client = session.loop.client
        self.config = session.loop.config
        self.found = Findings()
        self.tool_choice: str | None = FORCED  # None once the server refuses tool_choice

    def checks(self) -> Iterator[tuple[str, Callable[[], Result | None]]]:
        """After `reachable` (run_doctor lists the models): each check's label and method, in order;
        text tool calls only when native ones did not work."""
        yield from [("model", self.model), ("window", self.window), ("native tool calls", self.native_tools)]
        if not self.found.native_tools:
            yield "text tool calls", self.text_tools
        yield from [("streaming tools", self.streaming), ("thinking", self.thinking),
                    ("first request", self.first_request), ("cached prefix", self.cached_prefix),
                    ("partial prefix", self.partial_prefix)]

    @property
    def usable(self) -> bool:
        """The model can work here: it is served and its tool calls come back, natively or as text."""
        return self.found.model_served is not False and self.found.working is not None

    # --- the checks

    def reachable(self) -> Result:
        count = len(self.found.models)
        return Result(OK, f"{self.client.provider} server at {self.client.base_url} answers "
                          f"({counted(count, 'model')})")

    def model(self) -> Result:
        wanted, models = self.config.resolved_model, self.found.models
        if not models:
            return Result(UNKNOWN, f"the server lists no models; {wanted} may still be served")
        name = served_name(wanted, models)
        self.found.model_served = name is not None
        if name is not None:
            return Result(OK, f"{wanted} is served" + (f" (as {name})" if name != wanted else ""))
        listed = ", ".join(models[:LISTED_MODELS])
        if len(models) > LISTED_MODELS:
            listed += f", and {len(models) - LISTED_MODELS} more"
        hint = provider_named(self.client.provider).missing_model_hint(wanted)
        pull = f"{hint}, or " if hint else ""
        return Result(FAILED, f"{wanted} is not among the server's models: {listed}", f"{pull}pick one with {self.pick_model}")

    def window(self) -> Result:
        served = self.client.served_window(self.config.resolved_model, self.config.num_ctx)
        self.found.window = served
        used = self.config.num_ctx
        if served is None:
            return Result(UNKNOWN, f"the server does not say; ayder uses {used or '?'} tokens (num_ctx)")
        text = served.describe() + (f"; ayder uses {used} (num_ctx)" if used and used != served.tokens else "")
        if served.capabilities is not None:
            text += f"; capabilities: {', '.join(served.capabilities) or 'none listed'}"
        return Result(OK, text)

    def native_tools(self) -> Result:
        try:
            tried = self._round(native=True, stream=False)
        except LLMError as exc:
            if not refuses_tools(exc):
                raise
            self.found.native_tools, self.found.refusal = False, server_words(exc)
            return Result(FAILED, f"refused: {self.found.refusal}; ayder teaches tools as text")
        self.found.native_try = tried
        if tried.call is None:
            return Result(FAILED, f"no tool call came back ({said(tried.reply)})")
        if tried.from_text:
            return Result(FAILED, "no native call came back; the call was written in the reply's text")
        self.found.native_tools = True
        return self._round_result(tried, "came back as a native call")

    def text_tools(self) -> Result | None:
        """When native calls did not work: calls written as text, which ayder reads itself."""
        if self.found.native_tools:
            return None
        tried = self.found.native_try
        if tried is None or tried.call is None:  # refused, or no call at all: teach the text format
            tried = self._round(native=False, stream=False)
        return self._round_result(tried, "read by ayder from the reply's text")

    def streaming(self) -> Result:
        working = self.found.working
        if working is None:
            return Result(UNKNOWN, "not checked: no tool call worked above")
        tried = self._round(native=working.native, stream=True)
        self.found.streaming_tools = (tried.call is not None and tried.from_text == working.from_text
                                      and right_call(tried.call))
        how = "read from the streamed text" if working.from_text else "assembled from the streamed fragments"
        if self.found.streaming_tools:
            return Result(OK, f"{describe_call(tried.call)} {how}: the same call")
        got = describe_call(tried.call) if tried.call else f"no call ({said(tried.reply)})"
        return Result(FAILED, f"the streamed reply gave {got}, not {describe_call(working.call)}")

    def thinking(self) -> Result:
        replies = self.found.replies
        if any(reply.thinking for reply in replies):
            where = provider_named(self.client.provider).thinking_field
            self.found.thinking = "separate field"
            return Result(OK, f"comes in a separate field ({where}); shown with --show-thinking")
        if any(parse(reply.text).thinking for reply in replies):
            self.found.thinking = "think tags"
            return Result(OK, "comes as think tags in the text; ayder hides them (--show-thinking shows them)")
        self.found.thinking = "none seen"
        return Result(UNKNOWN, "none seen in these replies")

    def first_request(self) -> Result:
        request, note = self._first_request(), ""
        try:
            reply = self._send(request)
        except LLMError as exc:  # a server that takes forced tools but not the session's own request
            if not (request.tools and refuses_tools(exc)):
                raise
            self.found.native_tools, self.found.refusal = False, server_words(exc)
            request, note = self._first_request(), f"; native tools were refused: {self.found.refusal}"
            reply = self._send(request)
        self.found.first_request = request
        tools = "native tools" if request.tools else "text tools" if self.loop.executor else "no tools"
        tokens = reply.usage.prompt_tokens if reply.usage else None
        if tokens is None:
            return Result(UNKNOWN, f"the server reports no token counts ({tools}{note})")
        self.found.first_request_tokens = tokens
        return Result(OK, f"{tokens} prompt tokens ({tools}{note})")

    def cached_prefix(self) -> Result:
        usage = self._send(self.found.first_request).usage
        cached = usage.cached_tokens if usage else None
        if cached is None:
            return Result(UNKNOWN, "the server does not report its cache")
        of = f" of {usage.prompt_tokens}" if usage.prompt_tokens is not None else ""
        text = f"second request: {cached}{of} prompt tokens from the cache"
        return Result(OK, text) if cached else Result(FAILED, f"{text}: it read the whole prompt again")

    def partial_prefix(self) -> Result | None:
        """Two requests, the second with an early message changed: how much of it came from the cache.
        Where the server keeps no partial prefix (hybrid and sliding-window models), any change to an
        earlier message is a whole re-read, and ayder's trims free more at once (agent/prompt_cache.py)."""
        first = self.found.first_request
        if first is None:
            return None
        extended = [*first.messages, {"role": "assistant", "content": PROBE_ANSWER},
                    {"role": "user", "content": PROBE_NEXT}]
        self._send(replace(first, messages=extended))
        changed = [dict(message) for message in extended]
        asked = next(i for i, message in enumerate(changed) if message["role"] == "user")
        changed[asked]["content"] = changed[asked]["content"].replace(FIRST_PROMPT, CHANGED_PROMPT)
        usage = self._send(replace(first, messages=changed)).usage
        if usage is None or usage.cached_tokens is None or not usage.prompt_tokens:
            return Result(UNKNOWN, "the server does not report its cache")
        # The change comes after the system prompt and tools: most of the first request's tokens.
        reused = usage.cached_tokens >= (self.found.first_request_tokens or usage.prompt_tokens) // 2
        self.found.partial_prefix_reuse = reused
        text = (f"an early message changed: {usage.cached_tokens} of {usage.prompt_tokens} prompt tokens "
                "from the cache")
        if reused:
            return Result(OK, f"{text}; it reads again only from the change on")
        return Result(FAILED, f"{text}: any change to an earlier message is a whole re-read; ayder's trims "
                              "free more of the window at once")

    # --- requests

    def _round(self, native: bool, stream: bool) -> ToolTry:
        """Ask for add(a=2, b=3); when it comes back right (not streamed), send its result and read the answer."""
        conversation = Conversation("" if native else call_format_instructions([ADD_SIGNATURE]))
        conversation.add_user(ASK_FOR_CALL)
        reply = self._ask_for_call(conversation, native, stream)
        call, from_text = call_in(reply)
        tried = ToolTry(native, reply, call, from_text)
        if stream or call is None or not right_call(call):
            return tried
        conversation.add_assistant(reply)
        conversation.add_results([call], [ToolResult(True, ADD_RESULT)], native=not from_text)
        answer = self._send(self._request(conversation, native, stream=False, forced=False))
        tried.answer = parse(answer.text, [ADD_TOOL]).display.strip()
        return tried

    def _ask_for_call(self, conversation: Conversation, native: bool, stream: bool) -> Reply:
        request = self._request(conversation, native, stream, forced=True)
        try:
            return self._send(request)
        except LLMError as exc:
            if request.tool_choice is None or "tool_choice" not in exc.message:
                raise
        self.tool_choice = None  # the server does not take tool_choice: ask without it from now on
        return self._send(self._request(conversation, native, stream, forced=True))

    def _request(self, conversation: Conversation, native: bool, stream: bool, forced: bool) -> ChatRequest:
        # The session's settings: Ollama reloads a model when num_ctx changes.
        request = with_settings(self.config, conversation.for_request(), stream=stream,
                                tools=[ADD_TOOL] if native else None,
                                tool_choice=self.tool_choice if native and forced else None)
        request.max_tokens = min(request.max_tokens or TOOL_CHECK_MAX_TOKENS, TOOL_CHECK_MAX_TOKENS)
        return request

    def _first_request(self) -> ChatRequest:
        """The first request of a new session, as the loop builds it, over a throwaway conversation."""
        real = self.loop.conversation
        scratch = Conversation(real.system_prompt)  # no on_message: nothing reaches the transcript
        scratch.preamble = real.preamble
        scratch.add_user(FIRST_PROMPT)
        as_text = self.loop.tool_mode.as_text
        if self.config.native_tools == "auto" and self.found.native_tools is not None:
            as_text = self.found.native_tools is False  # as the next session starts
        request = next_request(self.config, scratch, self.loop.executor, tools_as_text=as_text)
        request.max_tokens = FIRST_MAX_TOKENS
        return request

    def _send(self, request: ChatRequest) -> Reply:
        reply = whole_reply(self.client, request)
        self.found.replies.append(reply)
        return reply

    def _round_result(self, tried: ToolTry, how: str) -> Result:
        if tried.call is None:
            return Result(FAILED, f"no tool call came back ({said(tried.reply)})")
        if not right_call(tried.call):
            return Result(FAILED, f"{describe_call(tried.call)} {how}, but add(a=2, b=3) was asked for")
        if not tried.answer:
            return Result(FAILED, f"{describe_call(tried.call)} {how}, but after its result the model did not answer")
        self.found.working = tried
        return Result(OK, f"{describe_call(tried.call)} {how}; then the model answered {short(tried.answer, 60)!r}")

    # --- the profile

    def remember(self) -> Path:
        """Write what was learned to the server profile; where it went."""
        found, config = self.found, self.config
        facts: dict[str, Any] = {
            "native_tools": found.native_tools,
            "streaming_tools": found.streaming_tools,
            "window": found.window.tokens if found.window else None,
            "capabilities": list(found.window.capabilities) if found.window and found.window.capabilities else None,
            "thinking": found.thinking,
            "first_request_tokens": found.first_request_tokens,
            PARTIAL_REUSE_KEY: found.partial_prefix_reuse,
        }
        if found.native_tools is False:
            facts["reason"] = f"the server refused native tool calling ({found.refusal})"
        profiles = self.loop.profiles or ServerProfiles(profiles_path(self.session.environment.env))
        profiles.remember(config.resolved_base_url, config.resolved_model,
                          **{key: value for key, value in facts.items() if value is not None})
        return profiles.path


def run_doctor(session, in_session: bool = False) -> int:
    """Run the checks, one line each on stderr, and remember what they learned; the exit status.
    in_session: /doctor, where a model is picked with /model rather than -m."""
    console = session.console
    doctor = Doctor(session, "/model NAME" if in_session else "-m NAME")
    mcp_started = session.mcp is not None and session.mcp.hub is not None  # else starting them says their line
    try:
        doctor.found.models = doctor.client.list_models()
    except LLMError as exc:
        console.error(exc.message, exc.hint)
        return ExitStatus.ERROR
    show(console, "reachable", doctor.reachable())
    failed = False
    for label, check in doctor.checks():
        console.passing(f"… {label:<{LABEL_WIDTH}}checking")  # a check may wait minutes on a slow model
        try:
            result = check()
        except LLMError as exc:  # the checks after this one need the same server: stop here
            show(console, label, Result(FAILED, exc.message, exc.hint))
            failed = True
            break
        if result is not None:
            show(console, label, result)
    sandbox = session.executor.context.sandbox
    if sandbox is not None:  # not a check of the server (no mark): it never fails the doctor
        console.info(f"sandbox: {sandbox.describe()}")
    if session.executor.edits is not None:  # the language servers found: named, never a failure
        console.info(f"diagnostics: {session.executor.edits.describe()}")
    if session.mcp is not None:  # what the MCP tools' schemas take of the window
        session.executor.offered()  # starts them if the first request did not
        if mcp_started:
            console.info(session.mcp.report()[0])
    config = doctor.config  # a suggestion, not a check: it never fails the doctor
    profiles = doctor.loop.profiles
    console.info(doctor_line(config.edit_format, config.resolved_model,
                             profiles.get(config.resolved_base_url, config.resolved_model) if profiles else None))
    console.info(f"learned profile written to {doctor.remember()}")
    return ExitStatus.OK if doctor.usable and not failed else ExitStatus.ERROR


def show(console, label: str, result: Result) -> None:
    console.info(f"{result.mark} {label:<{LABEL_WIDTH}}{result.text}")
    if result.hint:
        console.dim_line(f"  {'':<{LABEL_WIDTH}}{result.hint}")
