"""WindowHold: the next request held within the window the server serves, before every request of a
message, its tool loop's too.

Compaction as the conversation nears the window runs between messages; inside
one message a tool loop can outgrow the window round by round. When the next
request would not fit the prompt's share of the window (fit.WindowShare: the
window less room for the reply), the remedies come cheapest first, each only while it still does
not fit. The first two are a trim: any change to an earlier message makes the
server read the prompt again (prompt_cache.py), so a trim frees room for
several rounds at once, down to a part of the prompt's share (less where the server
reads the whole prompt again), and says what the re-read costs:

1. the results of earlier tool calls cleared, oldest first (fit.py): no request
   to the model, the task and the calls themselves stay, a result can be had
   again by calling again;
2. instead, compaction of the earlier rounds (auto_compact), when clearing
   would free too little and a pile of them (calls, cleared stubs, replies)
   is left: one request, but the summary keeps what the results taught (it
   sees them whole: clear or summarize, not both); not for a few short messages;
3. the system prompt (with the project instructions) cut in its middle to what
   half the prompt's share leaves beside the tool schemas, once for the session;
4. the middle of the longest messages cut (fit.py);
5. between messages, where compaction at compact_at has had its turn and kept
   the last exchange: if the request is still over the window itself (not only
   the prompt's share), that exchange is compacted too, as a server's "too long" would
   have led to.

What still does not fit the window is a one-line error naming --num-ctx, as is
a window that cannot hold even the tool schemas and the least of the system
prompt: nothing is sent over the window.
"""

from __future__ import annotations

from typing import Protocol

from ayder_cli.agent.calibration import Calibration, prompt_estimate
from ayder_cli.agent.compaction import Compaction
from ayder_cli.agent.conversation import Conversation, estimate_tokens
from ayder_cli.agent.fit import MARKER, MIN_KEPT_CHARS, WindowShare, clear_old_results, latest_round, shorten_middles
from ayder_cli.agent.prompt_cache import PromptCache
from ayder_cli.llm.wire_types import ChatRequest, LLMError
from ayder_cli.llm.served import context_overflow
from ayder_cli.config.schema import Config
from ayder_cli.wording import counted

SMALLEST_CUT_SYSTEM = 2 * MIN_KEPT_CHARS + len(MARKER)  # what a system prompt cut to its least still holds


class Keeper(Protocol):
    """What the hold uses of the ContextKeeper (context.py)."""

    host: "Host"
    calibration: Calibration
    compaction: Compaction
    cache: PromptCache

    def reread_note(self) -> str:
        """What the next request makes the server read again, said for a notice."""

    def notice(self, message: str) -> None: ...

    def tokens(self) -> int:
        """The next request's prompt in the server's tokens, as far as they are known."""

    def prefix_tokens(self) -> int:
        """The system prompt and tool schemas every request starts with, in tokens."""

    def shorten_to_fit(self, messages: list[dict], estimate: int) -> None:
        """Cut the middle of the longest of `messages` if a prompt of `estimate` would not fit."""


class Host(Protocol):
    """What the hold uses of the loop: the conversation it may shorten, the settings, the next request."""

    conversation: Conversation

    @property
    def config(self) -> Config: ...  # read only: the hold never changes the settings

    def request(self) -> ChatRequest: ...


class WindowHold:
    def __init__(self, keeper: Keeper) -> None:
        self.keeper = keeper

    def hold(self) -> None:
        """Make the next request fit the prompt's share of the window (the remedies in the module's docstring);
        LLMError, and nothing sent, when it cannot fit the window."""
        keeper, host = self.keeper, self.keeper.host
        window = host.config.num_ctx
        if not window or not self._over():
            return
        fixed = self._fixed_tokens()
        if fixed > self._share().prompt:
            self._refuse(fixed)
        # A trim: room for several rounds freed at once (to keeper.cache.trim_to of the prompt's share), so the
        # rounds after it append again; not one old result a request, each a re-read of the prompt.
        prompt = self._share().prompt
        goal = int(prompt * keeper.cache.trim_to)
        kept = list(host.conversation.messages)
        cleared = clear_old_results(host.conversation.messages, self._over(goal))
        # Clearing freed too little, and what is left before the latest round is worth a summary: summarize.
        if self._over(goal + prompt // 8) and self._before_latest_round() > prompt // 6 and host.config.auto_compact:
            host.conversation.messages[:] = kept  # the summary sees the results; clear or summarize, not both
            cleared = 0 if self._compact(between_messages=False) else \
                clear_old_results(host.conversation.messages, self._over(goal))
        if cleared:
            keeper.notice(f"cleared the results of {counted(cleared, 'earlier tool call')} (they can be made again), "
                          f"to make room in the {window}-token context window; {keeper.reread_note()}")
        if self._over():
            self._cut_system_prompt()
        if self._over():
            keeper.shorten_to_fit(host.conversation.messages, prompt_estimate(host.request()))
        if keeper.tokens() > window and host.config.auto_compact:
            self._compact(between_messages=True)  # what the server's refusal would have led to
            keeper.shorten_to_fit(host.conversation.messages, prompt_estimate(host.request()))
        if keeper.tokens() > window:  # within the window it is sent: the reply has less room, that is all
            self._refuse(fixed)

    def _share(self) -> WindowShare:
        config = self.keeper.host.config
        return WindowShare.for_window(config.num_ctx, config.max_tokens)

    def _over(self, room: int | None = None) -> int:
        """Characters to cut before the next request fits `room` tokens, the prompt's share by default (0: it fits)."""
        room = self._share().prompt if room is None else room
        return self.keeper.calibration.chars_over(prompt_estimate(self.keeper.host.request()), room)

    def _before_latest_round(self) -> int:
        """Tokens of the messages before the latest round: what a summary would replace."""
        messages = self.keeper.host.conversation.messages
        return self.keeper.calibration.tokens(estimate_tokens(messages[:latest_round(messages)]))

    def _compact(self, between_messages: bool) -> bool:
        keeper = self.keeper
        prompt, tokens = self._share().prompt, keeper.tokens()
        # Worth a request when what it replaces would make the request fit, or is a quarter of the
        # prompt's share; never for less than an eighth of it (a summary of a summary frees nothing).
        worth = max(min(tokens - prompt, prompt // 4), prompt // 8)
        try:
            return keeper.compaction.compact_to_fit(tokens, keeper.calibration, worth, between_messages)
        except LLMError as exc:  # the summary's own request refused as too long: on to the next remedy
            if context_overflow(exc.message) is None:
                raise
            keeper.notice("compaction did not fit the window either; not applied")
            return False

    def _cut_system_prompt(self) -> None:
        """The system prompt cut in its middle to what half the prompt's share leaves beside the tool schemas.
        The cut prompt stays for the session, so this happens once."""
        keeper = self.keeper
        conversation = keeper.host.conversation
        system = conversation.system_prompt
        share = self._share().prompt // 2 - (keeper.prefix_tokens() - self._system_tokens(system))
        keep = max(int(share / keeper.calibration.tokens_per_estimate * 4), SMALLEST_CUT_SYSTEM)
        if len(system) <= keep + MIN_KEPT_CHARS:  # not again for a few characters more or less
            return
        shortened = [{"role": "system", "content": system}]
        shorten_middles(shortened, len(system) - keep)
        conversation.system_prompt = shortened[0]["content"]
        keeper.notice(f"the system prompt (with the project instructions) is about {self._system_tokens(system)} "
                      f"tokens: {len(system) - len(conversation.system_prompt)} characters cut from its middle, "
                      f"so requests fit the {keeper.host.config.num_ctx}-token context window")

    def _system_tokens(self, system: str) -> int:
        return self.keeper.calibration.tokens(len(system) // 4)

    def _fixed_tokens(self) -> int:
        """What every request carries, the tool schemas and the system prompt as cut to its least, in tokens."""
        system = self._system_tokens(self.keeper.host.conversation.system_prompt)
        return self.keeper.prefix_tokens() - system + min(system, SMALLEST_CUT_SYSTEM // 4)

    def _refuse(self, fixed: int) -> None:
        window = self.keeper.host.config.num_ctx
        raise LLMError(f"the request does not fit the {window}-token context window: about {self.keeper.tokens()} "
                       f"tokens, {fixed} of them the tool schemas and system prompt every request carries; "
                       "give a larger window with --num-ctx N (and the server: llama.cpp -c N, Ollama num_ctx)")
