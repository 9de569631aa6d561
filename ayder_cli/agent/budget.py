"""MessageBudget: the tool round trips one user message may take (-I), and the checkpoints that start them again.

When the round trips are spent, a checkpoint (the model's summary of the work,
saved in the project) lets the work go on in a fresh context, at most
max_checkpoints times; after that the turn goes back to the user.
"""

from __future__ import annotations

from dataclasses import dataclass

from ayder_cli.wording import counted


@dataclass(frozen=True)
class Checkpoint:
    """Write checkpoint `cycle`, then go on from it with the round trips counted from zero."""

    cycle: int  # 1 for the first checkpoint of this message


@dataclass(frozen=True)
class Stop:
    """Give the turn back to the user; the reason says why and how to go on."""

    reason: str


class MessageBudget:
    """One user message's budget: -I tool round trips, renewed by up to `max_checkpoints` checkpoints."""

    def __init__(self, limit: int, max_checkpoints: int, summary_path: str = "") -> None:
        self.limit = limit
        self.max_checkpoints = max_checkpoints  # 0 where there is nowhere to write a checkpoint
        self.summary_path = summary_path  # where checkpoints are written, as the stop reason names it
        self.used = 0  # round trips taken since the message began or the last checkpoint
        self.checkpoints = 0  # written for this message so far

    def spend(self) -> bool:
        """Take one tool round trip; False when none is left."""
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    def when_spent(self) -> Checkpoint | Stop:
        """What to do once no round trip is left: one more checkpoint while one may be written, else stop."""
        if self.checkpoints < self.max_checkpoints:
            self.checkpoints += 1
            self.used = 0
            return Checkpoint(self.checkpoints)
        if self.checkpoints:
            return Stop(f"stopped after {counted(self.checkpoints, 'checkpoint')} "
                        f"(max_checkpoints); the latest summary is in {self.summary_path}; "
                        "send another message to go on")
        return Stop(f"stopped after {counted(self.limit, 'tool round trip')} (-I {self.limit}); "
                    "send another message to let it go on, or raise -I")
