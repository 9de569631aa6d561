"""SessionUsage: the tokens a session's requests used, for /usage, /status and the saved session."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ayder_cli.llm.wire_types import Usage
from ayder_cli.storage.transcript import USAGE_FIELDS


@dataclass
class SessionUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of prompt_tokens, reused from the server's prompt cache (where it says)
    # Estimated tokens the server read again because an earlier message changed (trims, compactions).
    reread_tokens: int = 0
    requests: int = 0
    last: Usage | None = None  # the latest request's counts (/status)
    # The latest reply's model, finish reason and tokens, for the transcript (storage/transcript.py).
    last_reply: dict[str, Any] | None = None

    def totals(self) -> dict[str, int]:
        """What a session saves (so /usage goes on after --continue)."""
        return {key: getattr(self, key) for key in USAGE_FIELDS}

    def restore(self, totals: dict[str, int]) -> None:
        """Go on from the totals an earlier run saved (a resumed session): what this run counted is let go."""
        for each in fields(self):
            setattr(self, each.name, each.default)
        for key, value in totals.items():
            if key in USAGE_FIELDS:
                setattr(self, key, value)

    def add(self, usage: Usage | None, model: str | None = None, finish_reason: str | None = None) -> None:
        self.requests += 1
        self.last = usage
        self.last_reply = {"model": model, "finish_reason": finish_reason,
                           "prompt_tokens": usage.prompt_tokens if usage else None,
                           "completion_tokens": usage.completion_tokens if usage else None}
        if usage:
            self.prompt_tokens += usage.prompt_tokens or 0
            self.completion_tokens += usage.completion_tokens or 0
            self.cached_tokens += usage.cached_tokens or 0
