"""Compaction summaries by the side model (`side_model`), when one is set.

A summary request reads the whole of what it replaces, which a small model's window may not hold:
one that would not fit it (its window as side_model.py finds it) is left to the main model, said
once with -v. No side model set: the main model writes every summary, as it always did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from ayder_cli.agent.calibration import prompt_estimate
from ayder_cli.agent.fit import WindowShare
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.config.runtime import Runtime
from ayder_cli.intents import parse

if TYPE_CHECKING:
    from ayder_cli.session.side_model import SideModel


class Runtimes(Protocol):
    @property
    def runtime(self) -> Runtime: ...


class SideSummaries:
    """ContextKeeper's side summary: (messages, instruction) -> the side model's summary, or None for
    the main model's (no side model set, or the request would not fit its window)."""

    def __init__(self, hold: Runtimes, env: Mapping[str, str], usage: SessionUsage,
                 log: Callable[[str], None]) -> None:
        self.hold = hold  # the runtime in use, read at each summary: /model and /provider change it
        self.env = env
        self.usage = usage
        self.log = log
        self._model: tuple[tuple, SideModel, int | None] | None = None  # (what it was made from, it, its window)
        self._said_too_big = False

    def __call__(self, messages: list[dict], instruction: str) -> str | None:
        config = self.hold.runtime.config
        if not config.side_model:
            return None
        model, window = self._side()
        request = model.request([*messages, {"role": "user", "content": instruction}], config.max_tokens)
        estimate = prompt_estimate(request)
        if window and estimate > WindowShare.for_window(window, request.max_tokens).prompt:
            if not self._said_too_big:
                self._said_too_big = True
                self.log(f"compaction summary by the main model: its request (~{estimate} tokens) does not "
                         f"fit the side model {model.name}'s {window}-token window")
            return None
        self.log(f"asking {model.name} (side_model) for the compaction summary (~{estimate} tokens)")
        reply = model.reply(request)
        self.usage.add(reply.usage, request.model, reply.finish_reason)
        return parse(reply.text).display.strip()

    def _side(self) -> tuple[SideModel, int | None]:
        """The side model for the runtime in use, and its window, asked of its server once."""
        config = self.hold.runtime.config
        made_from = (repr(config.side_model), config.provider, config.base_url)
        if self._model is None or self._model[0] != made_from:
            from ayder_cli.session.side_model import side_model  # its client: only when a summary is asked

            model = side_model(self.hold.runtime, self.env, self.log)
            self._model = (made_from, model, model.window())
        return self._model[1], self._model[2]
