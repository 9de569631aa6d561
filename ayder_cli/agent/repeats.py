"""RepeatGuard: a model making the same tool calls reply after reply is answered, not obeyed."""

from __future__ import annotations

import json

from ayder_cli.calls import ToolCall, ToolResult

REPEATS_TO_STOP = 3  # the same calls in this many replies in a row stop the turn
REPEAT_NOTE = ("[not run again: your previous reply made this same call with the same arguments, "
               "so here is the same result again. Do something different, or answer with what you have.]")
# Tools whose result changes by itself (polling a background process): calling them again is not repeating.
POLLING_TOOLS = frozenset({"get_background_output", "list_background_processes"})


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


# --- text: small models loop in their words too

MIN_BLOCK = 200  # a block of at least this many characters ...
BLOCK_TIMES = 3  # ... this many times in a row is a loop
MAX_BLOCK = 4096  # longer blocks are not looked for: the check reads at most BLOCK_TIMES of these
CHECK_EVERY = 64  # characters between two checks: the cost per delta stays a few comparisons
RESTART_CHARS = 40  # a continuation starting with this much of the answer it was to continue ...
MIN_RESTART = 12  # ... or with all of it, if it is shorter but at least this long, restarted it


class RepeatingText:
    """Spots a reply that repeats itself: the same block of MIN_BLOCK+ characters BLOCK_TIMES times
    in a row at its end. Fed each delta; only every CHECK_EVERY characters does it look, and then
    only at the last BLOCK_TIMES * MAX_BLOCK characters."""

    def __init__(self) -> None:
        self.reset()
        self.block = 0  # the repeated block's length, once found (0: none)

    def reset(self) -> None:
        """Count from here: what came before is not in a row with what follows (a call written as text)."""
        self._parts: list[str] = []
        self._size = 0
        self._next_check = MIN_BLOCK * BLOCK_TIMES

    def add(self, text: str) -> bool:
        """Take a delta's text in; True once the reply ends in a repeated block (see `block`)."""
        self._parts.append(text)
        self._size += len(text)
        if self._size < self._next_check:
            return False
        self._next_check = self._size + CHECK_EVERY
        tail = "".join(self._parts)[-BLOCK_TIMES * MAX_BLOCK:]
        self._parts = [tail]
        self.block = repeated_block(tail)
        return bool(self.block)

    def kept(self, text: str) -> str:
        """The reply's text up to the end of the block's first copy: the repeats taken off."""
        block = self.block
        if not block:
            return text
        start = len(text) - BLOCK_TIMES * block  # back to where the repeating began
        while start > 0 and text[start - 1] == text[start - 1 + block]:
            start -= 1
        return text[: start + block]


def repeated_block(text: str) -> int:
    """The length of the shortest block (MIN_BLOCK to MAX_BLOCK characters) that `text` ends with
    BLOCK_TIMES times in a row; 0 when there is none."""
    probe = text[-MIN_BLOCK:]
    end = len(text) - MIN_BLOCK  # an earlier copy of the probe ends at least MIN_BLOCK before the end
    for _ in range(16):  # the nearest copies of the probe are the candidates: a few are enough
        start = text.rfind(probe, 0, end)
        if start < 0:
            return 0
        block = len(text) - (start + MIN_BLOCK)
        if block > MAX_BLOCK or block * BLOCK_TIMES > len(text):
            return 0
        if text[-block:] * BLOCK_TIMES == text[-block * BLOCK_TIMES:]:
            return block
        end = start + MIN_BLOCK - 1
    return 0


class RestartCheck:
    """A continuation's first words, held until they show whether it goes on from the reply max_tokens
    cut or starts that reply again (SmolLM2 does): RESTART_CHARS of its start, whitespace and case aside."""

    def __init__(self, cut: str) -> None:
        self._start = _plain(cut)[:RESTART_CHARS]
        self._deciding = len(self._start) >= MIN_RESTART  # a shorter start would match by chance
        self._held: list[str] = []
        self.restarted = False

    def feed(self, text: str) -> str:
        """A delta's text; what can be shown now ("" while held, and once it is known to restart)."""
        if not self._deciding:
            return text
        self._held.append(text)
        so_far = "".join(self._held)
        again = _plain(so_far)
        size = min(len(again), len(self._start))
        if again[:size] != self._start[:size]:  # it goes on: shown, and no more held
            self._deciding, self._held = False, []
            return so_far
        if size == len(self._start):
            self._deciding, self._held, self.restarted = False, [], True
        return ""

    def finish(self) -> str:
        """The reply ended (or was stopped): what is still held, unless it restarted the answer."""
        if not self._deciding:
            return ""
        so_far, self._held, self._deciding = "".join(self._held), [], False
        self.restarted = len(_plain(so_far)) >= MIN_RESTART
        return "" if self.restarted else so_far


def _plain(text: str) -> str:
    return " ".join(text.split()).lower()
