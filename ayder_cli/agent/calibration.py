"""How ayder's estimate of a prompt compares with the server's own count of it.

ayder estimates a prompt at about four characters a token; the count the server
reports for each prompt it read teaches the real ratio. A count that hardly grew
while the conversation did shows a server that cut the prompt by itself to fit
its context window (older Ollamas do, silently): nothing is learned from that one,
nor from a count far below any tokenizer's count of the whole prompt: a proxy's 0
or 1, or a server that counts only what its prompt cache did not hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ayder_cli.agent.conversation import estimate_tokens
from ayder_cli.agent.fit import CHARS_PER_ESTIMATED_TOKEN
from ayder_cli.llm.wire_types import ChatRequest

# What a count taught (Calibration.learn): the ratio, or nothing, for one of these reasons.
LEARNED, CUT, IMPLAUSIBLE, PARTIAL = "learned", "cut", "implausible", "partial"
# Below a twentieth of our estimate (80 characters a token and more) a count is no tokenizer's count
# of the whole prompt, once the prompt is big enough for the share to mean something.
IMPLAUSIBLE_SHARE = 0.05
IMPLAUSIBLE_FROM = 256  # estimated tokens

def prompt_estimate(request: ChatRequest) -> int:
    """Our estimate of a request's prompt: its messages and its tool schemas, about four characters a token."""
    return estimate_tokens(request.messages) + (len(json.dumps(request.tools)) // 4 if request.tools else 0)


class Calibration:
    """Server tokens per estimated token, learned from the server's count of each prompt."""

    def __init__(self) -> None:
        self.tokens_per_estimate = 1.0  # server-reported prompt tokens / our estimate, once known
        self._last_prompt: tuple[int, int] | None = None  # the last (estimate, server's count) learned from
        self._last_estimate = 0  # the last request's estimate, whatever its count

    def tokens(self, estimate: int) -> int:
        """An estimate in the server's tokens, as far as they are known."""
        return int(estimate * self.tokens_per_estimate)

    def chars_over(self, estimate: int, room: int) -> int:
        """How many characters to cut from a prompt of `estimate` so it fits `room` server tokens (0: it fits)."""
        over = self.tokens(estimate) - room
        if over <= 0:
            return 0
        return int(over / self.tokens_per_estimate * CHARS_PER_ESTIMATED_TOKEN) + 64

    def at_least(self, tokens_per_estimate: float) -> None:
        """Count prompts as no fewer than `tokens_per_estimate` server tokens per estimated token from now on."""
        self.tokens_per_estimate = max(self.tokens_per_estimate, tokens_per_estimate)

    def learn(self, reported: int | None, estimate: int, prefix_tokens: Callable[[], int]) -> str:
        """Learn from the server's count of the prompt just sent: LEARNED; or CUT when the count shows
        that the server cut the prompt to fit; or, for a count far below any tokenizer's count of the
        whole prompt, PARTIAL when it could be a count of what was added since the last request alone
        (a server leaving its cached prefix out), else IMPLAUSIBLE (some proxies report 0 or 1). The
        ratio is learned only from the first."""
        if reported is None or not estimate:
            return LEARNED
        last = self._last_prompt
        added = estimate - self._last_estimate if self._last_estimate else estimate
        self._last_estimate = estimate
        if last is not None and self._was_cut(last, estimate, reported, prefix_tokens):
            self._last_prompt = (estimate, reported)
            return CUT
        if estimate >= IMPLAUSIBLE_FROM and reported < IMPLAUSIBLE_SHARE * estimate:
            return IMPLAUSIBLE if reported < IMPLAUSIBLE_SHARE * added else PARTIAL
        if reported:
            self._last_prompt = (estimate, reported)
            self.tokens_per_estimate = reported / estimate
        return LEARNED

    def _was_cut(self, last: tuple[int, int], estimate: int, reported: int, prefix_tokens: Callable[[], int]) -> bool:
        """The conversation grew since the last request, but the server's count of it hardly did.

        A server that cuts still keeps the system prompt and tools (`prefix_tokens`): a count below even
        those is a server leaving its cached prefix out of the count (some Ollama versions), not a cut."""
        last_estimate, last_reported = last
        grown = (estimate - last_estimate) * self.tokens_per_estimate
        return grown >= 64 and reported < last_reported + 0.3 * grown and reported >= 0.9 * prefix_tokens()
