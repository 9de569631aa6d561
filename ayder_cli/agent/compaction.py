"""Compaction: older turns replaced by the model's summary of them, to free the context window.

It happens before a request when the conversation nears the window (auto_compact,
at compact_at of it), when the server showed that it cut or refused a prompt as
too long, and on /compact. The system prompt and the latest exchange stay as
they are. Inside one message's tool loop, when the next request would not fit
even with the earlier results cleared, everything before the latest round is
summarized, and the request being worked on is repeated under the summary; a compaction that would not shrink the conversation is not applied,
and is not tried again until the conversation has grown well past that size.
When what it would replace is too small for any summary to be smaller (or is
only the summary of the last compaction), the model is not asked at all.
"""

from __future__ import annotations

from collections.abc import Callable

from ayder_cli.agent.calibration import Calibration
from ayder_cli.agent.conversation import Conversation, estimate_tokens, holds_results
from ayder_cli.agent.fit import latest_round
from ayder_cli.config.schema import Config

COMPACT_REQUEST = (
    "The conversation is getting too long for the context window. Summarize everything above "
    "so the work can go on from your summary alone: the user's requests, decisions made, files "
    "read or changed (with the facts that matter), commands run and their outcome, and what is "
    "still open. Be specific and brief. Do not call any tool."
)


SUMMARY_HEADER = "[Summary of the earlier part of this conversation, made to save context]\n\n"
# The shortest summary worth expecting (about 50 tokens): older turns no bigger than it and the
# header are not sent to the model, whose summary could only be as big.
SHORTEST_SUMMARY_CHARS = 200


def compacted_message(summary: str) -> str:
    """The user message that stands for the summarized turns."""
    return f"{SUMMARY_HEADER}{summary.strip()}"


def too_small(older: list[dict]) -> str:
    """Why summarizing `older` could not shrink the context ("": it could)."""
    if len(older) == 1 and str(older[0].get("content") or "").startswith(SUMMARY_HEADER):
        return "nothing new since the last compaction"
    if estimate_tokens(older) <= estimate_tokens([{"content": SUMMARY_HEADER + "x" * SHORTEST_SUMMARY_CHARS}]):
        return f"the earlier turns (~{estimate_tokens(older)} tokens) are smaller than a summary would be"
    return ""


WORKING_ON = "\n\nThe request being worked on:\n\n"


def working_on(summary: str, request: str) -> str:
    """The user message that stands for the earlier rounds of the request still being worked on."""
    return compacted_message(summary) + WORKING_ON + request


def cut_point(messages: list[dict], only_if_needed: bool) -> int:
    """Where the kept messages start (0: nothing older to summarize)."""
    # Where an exchange starts: the user's words, not the results of calls written as text.
    starts = [i for i, m in enumerate(messages) if m["role"] == "user" and not holds_results(m)]
    # Kept: the last exchange, and during a run also the message being answered.
    keep = 2 if only_if_needed else 1
    return starts[-keep] if len(starts) >= keep else 0


class Compaction:
    """Compacts one conversation; remembers the size at which it last did not help."""

    def __init__(self, conversation: Conversation, summarize: Callable[[list[dict], str], str],
                 notice: Callable[[str], None], reread: Callable[[], str] = lambda: "") -> None:
        self.conversation = conversation
        self.summarize = summarize  # (messages, instruction) -> the model's summary of them
        self.notice = notice
        self.reread = reread  # what the server must read again after a compaction, said in its notice
        self.failed_at = 0  # the size at which compaction last did not help

    def worth_it(self, tokens: int, config: Config) -> bool:
        """The context nears the window, and is well past the size at which compaction last did not help."""
        limit = config.num_ctx
        return bool(limit) and tokens > config.compact_at * limit and tokens > self.failed_at * 1.2

    def compact(self, before: int, calibration: Calibration, config: Config, only_if_needed: bool = False) -> bool:
        """Replace older turns by a summary (system prompt and the last turns kept); True if applied.
        `before`: the next request's size now, in the server's tokens as far as `calibration` knows them."""
        if only_if_needed and not self.worth_it(before, config):
            return False
        messages = self.conversation.messages
        cut = cut_point(messages, only_if_needed)
        if cut == 0:
            if not only_if_needed:
                self.notice("nothing to compact: the conversation is only the latest exchange")
            return False
        return self._replace(cut, before, calibration, compacted_message)

    def compact_to_fit(self, before: int, calibration: Calibration, worth: int, between_messages: bool) -> bool:
        """Make room for the next request, which would not fit. Inside a tool loop: the rounds before the
        latest one replaced by a summary, the request being worked on repeated under it. Between messages
        (compaction() has had its turn there) only if `between_messages`: all before the latest message.
        Tried only where what it replaces is more than `worth` tokens (a summary costs a request; a few
        short messages are not worth one). True if applied."""
        messages = self.conversation.messages
        asked = [i for i, m in enumerate(messages) if m["role"] == "user" and not holds_results(m)]
        if not asked:
            return False
        cut = latest_round(messages)
        if asked[-1] > cut:  # between messages: the model has not answered the latest yet
            cut = asked[-1]
            return between_messages and calibration.tokens(estimate_tokens(messages[:cut])) > worth and \
                self._replace(cut, before, calibration, compacted_message)
        if calibration.tokens(estimate_tokens(messages[:cut]) - estimate_tokens([messages[asked[-1]]])) <= worth:
            return False  # the first round (nothing before it but the request), or too little before it
        request = messages[asked[-1]]["content"].rpartition(WORKING_ON)[2]  # not a summary of a summary
        return self._replace(cut, before, calibration, lambda summary: working_on(summary, request))

    def _replace(self, cut: int, before: int, calibration: Calibration, message: Callable[[str], str]) -> bool:
        """messages[:cut] replaced by one user message, `message(the model's summary of them)`, if smaller."""
        messages = self.conversation.messages
        why_not = too_small(messages[:cut])
        if why_not:  # no request for a summary that could not help
            self.notice(f"compaction would not shrink the context (~{before} tokens): {why_not}; "
                        "not applied, no model call")
            self.failed_at = before
            return False
        older = Conversation(self.conversation.system_prompt)
        older.messages = messages[:cut]
        summary = self.summarize(older.for_request(), COMPACT_REQUEST)
        replaced = [{"role": "user", "content": message(summary)}, *messages[cut:]]
        after = before + calibration.tokens(estimate_tokens(replaced[:1]) - estimate_tokens(messages[:cut]))
        if not summary or after >= before:
            self.notice(f"compaction would not shrink the context (~{before} tokens); not applied")
            self.failed_at = before
            return False
        self.conversation.messages = replaced
        if self.conversation.on_message is not None:
            self.conversation.on_message(replaced[0])
        cost = self.reread()
        self.notice(f"compacted the conversation: ~{before} -> ~{after} tokens" + (f"; {cost}" if cost else ""))
        return True
