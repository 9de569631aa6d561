"""ContextKeeper: each request made to fit the context window the server serves.

Before every request, a tool loop's too: compaction when the conversation nears
the window (or the server showed it cut the last prompt); then, if the request
would still not fit, the cheapest remedy first (window.py): a request known
not to fit is never sent. A server that still refuses the prompt as too
long gets one more try after compaction. After a request: the server's count
of the prompt calibrates our estimate (calibration.py), unless it is too low
to be true; a count that shows the server cut the prompt narrows the window
ayder assumes (num_ctx, in the loop's settings).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ayder_cli.agent.calibration import CUT, IMPLAUSIBLE, Calibration, prompt_estimate
from ayder_cli.agent.compaction import Compaction
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.fit import WindowShare, shorten_middles
from ayder_cli.agent.prompt_cache import PromptCache, describe_reread
from ayder_cli.agent.prompt_pace import PromptPace
from ayder_cli.agent.request import whole_reply
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.agent.window import WindowHold
from ayder_cli.intents import parse
from ayder_cli.llm.wire_types import ChatClient, ChatRequest, LLMError, Reply
from ayder_cli.llm.providers import provider_named
from ayder_cli.llm.served import context_overflow
from ayder_cli.config.schema import Config
from ayder_cli.storage.profiles import ServerProfiles


class Host(Protocol):
    """What the keeper uses of the loop whose context it keeps."""

    conversation: Conversation
    usage: SessionUsage
    profiles: ServerProfiles | None  # what earlier runs learned of the server (its prompt speed)

    @property
    def config(self) -> Config: ...

    @property
    def client(self) -> ChatClient: ...

    def narrow_window(self, num_ctx: int) -> None:
        """Ask the runtime's owner to assume the server serves num_ctx tokens (the keeper never writes the config)."""

    def request(self) -> ChatRequest:
        """The next request for the conversation as it stands."""


# A compaction summary by another model (the side model): (messages, instruction) -> its summary, or
# None for the main model's.
SideSummary = Callable[[list[dict], str], "str | None"]


def no_side_summary(messages: list[dict], instruction: str) -> str | None:
    return None


class ContextKeeper:
    def __init__(self, host: Host, notice: Callable[[str], None], side_summary: SideSummary = no_side_summary) -> None:
        self.host = host
        self.notice = notice
        self.side_summary = side_summary
        self.compaction = Compaction(host.conversation, self.compaction_summary, notice, self.reread_note)
        self.window = WindowHold(self)  # the next request held within the window, cheapest remedy first
        self.doubted = False  # a server count too low to be true was noticed (once a session)
        self.meet_server()

    def meet_server(self) -> None:
        """Another server or model: nothing learned of its counts yet."""
        self.calibration = Calibration()  # what the server's counts taught about our estimates
        self.server_cut = False  # the server shortened the last prompt by itself: compact before the next
        config = self.host.config
        self.pace = PromptPace(self.host.profiles, config.resolved_base_url, config.resolved_model)
        self.cache = PromptCache(self.host.profiles, config.resolved_base_url, config.resolved_model)
        self.summary_reread = 0  # what the last summary request made the server read again

    # --- before a request

    def ask_fitting(self, ask: Callable[[], Reply]) -> Reply:
        """`ask()` with the conversation made to fit the window; a server that still finds it too long
        gets one more try after compaction, then a one-line error with the numbers."""
        for last_try in (False, True):
            self.fit(forced=last_try)
            try:
                return ask()
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
                config = self.host.config
                if available and available < (config.num_ctx or available + 1):
                    self.host.narrow_window(available)  # what the server really serves
                self.notice("the server found the conversation too long; compacting and asking once more")
        raise AssertionError("unreachable")  # pragma: no cover

    def fit(self, forced: bool) -> None:
        """Compact when the conversation nears the window (always when `forced`); then hold the
        request within the window."""
        if forced or self.server_cut:
            self.server_cut = False
            self.compact()
        elif self.host.config.auto_compact:
            self.compact(only_if_needed=True)
        self.window.hold()

    def shorten_to_fit(self, messages: list[dict], estimate: int) -> None:
        """Cut the middle of the longest of `messages` (in place) if a prompt of `estimate` would not fit."""
        config = self.host.config
        window = config.num_ctx
        if not window:
            return
        chars = self.calibration.chars_over(estimate, WindowShare.for_window(window, config.max_tokens).prompt)
        if chars:
            for note in shorten_middles(messages, chars):
                self.notice(f"{note}, so the request fits the {window}-token context window")

    def tokens(self) -> int:
        """The next request's prompt in tokens: our estimate, scaled by what the server last reported."""
        return self.calibration.tokens(prompt_estimate(self.host.request()))

    def compact(self, only_if_needed: bool = False) -> bool:
        """Replace older turns by the model's summary of them (compaction.py); True if applied."""
        return self.compaction.compact(self.tokens(), self.calibration, self.host.config, only_if_needed)

    def compaction_summary(self, messages: list[dict], instruction: str) -> str:
        """The side model's summary when it gives one, else the main model's."""
        summary = self.side_summary(messages, instruction)
        return self.summarize(messages, instruction) if summary is None else summary

    def summarize(self, messages: list[dict], instruction: str) -> str:
        """The model's summary of `messages` (asked without tools, not shown), think blocks removed."""
        request = self.host.request()
        request.tools = None
        request.messages = messages + [{"role": "user", "content": instruction}]
        self.shorten_to_fit(request.messages, prompt_estimate(request))  # the summary request must fit too
        again = self.cache.reread(request)
        request = self.paced(request)
        self.summary_reread = self.calibration.tokens(again)  # said with the compaction
        reply = whole_reply(self.host.client, request)
        self.host.usage.add(reply.usage, request.model, reply.finish_reason)
        self.pace.learn(reply.usage)
        return parse(reply.text).display.strip()

    def paced(self, request: ChatRequest) -> ChatRequest:
        """`request`, about to be sent, with the time the server needs to read it at its measured speed (the
        first-data deadline); what it makes the server read again is counted in the session's usage."""
        request.reading = self.pace.reading(self.calibration.tokens(prompt_estimate(request)))
        self.summary_reread = 0  # a summary request sets it again after this
        self.host.usage.reread_tokens += self.calibration.tokens(self.cache.sent(request))
        return request

    def reread_note(self) -> str:
        """What the next request (and a summary request just before it) makes the server read again, and
        about how long that takes where its prompt speed is known: for the notice of a trim or compaction."""
        tokens = self.summary_reread + self.calibration.tokens(self.cache.reread(self.host.request()))
        self.summary_reread = 0
        return describe_reread(tokens, self.pace.speed)

    # --- after a request

    def learn(self, reported: int | None, request: ChatRequest) -> None:
        """Learn tokens per estimated token from the server's count of the prompt just sent, unless
        the count shows that the server cut the prompt to fit (older Ollamas do, silently), or is
        too low to be true (said once a session: ayder then goes by its own estimate)."""
        estimate = prompt_estimate(request)
        taught = self.calibration.learn(reported, estimate, prefix_tokens=self.prefix_tokens)
        if taught == CUT:
            self._cut_by_server(reported, estimate)
        elif taught == IMPLAUSIBLE and not self.doubted:
            self.doubted = True
            self.notice(f"the server reports {reported} prompt tokens for a request of about {estimate}; "
                        "ayder estimates the window from its own count")

    def _cut_by_server(self, reported: int, estimate: int) -> None:
        """Say that the server shortened the prompt, serve it less from now on, compact before the next request."""
        config = self.host.config
        window = config.num_ctx
        expected = self.calibration.tokens(estimate)
        self.notice(f"the server read only {reported} of about {expected} prompt tokens: it cut "
                    "the conversation to fit its context window; compacting before the next request")
        if provider_named(config.provider).pins_num_ctx and window:
            # Ollama serves the num_ctx ayder pins: the prompt was bigger than the estimate said.
            self.calibration.at_least(window / estimate * 1.1)
        else:  # it serves less than ayder was told: at most what it read
            self.host.narrow_window(reported)
        self.server_cut = True

    def prefix_tokens(self) -> int:
        """The system prompt and tool schemas of a request: what every request starts with."""
        request = self.host.request()
        request.messages = [message for message in request.messages[:1] if message["role"] == "system"]
        return self.calibration.tokens(prompt_estimate(request))
