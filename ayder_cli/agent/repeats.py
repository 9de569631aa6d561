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
