"""PromptPace: how fast the server reads a prompt, measured, and the time it needs for the next one.

A local server on a CPU reads 10-50 prompt tokens a second: a long session's
prompt can take longer than `timeout_s` before the first token. The speed each
reply reports (llama.cpp's timings, Ollama's prompt_eval_*) is kept here and in
the server profile, so the next request gets twice the time that speed needs
for the tokens the server must read (the part it has cached left out), and the
next run starts from it.
"""

from __future__ import annotations

from ayder_cli.llm.wire_types import ReadingTime, Usage
from ayder_cli.storage.profiles import ServerProfiles

PROFILE_KEY = "prompt_per_second"
# The profile is written again only when the speed moved by more than this share: not a file write a reply.
REMEMBER_CHANGE = 0.25
# A read of fewer tokens says little of the pace: its fixed costs weigh most (a continuation that read 28
# tokens in 1.9 s on llama.cpp looked like 15 tok/s where long reads went at 70).
MIN_MEASURED_READ = 256


class PromptPace:
    def __init__(self, profiles: ServerProfiles | None, url: str, model: str) -> None:
        self.profiles, self.url, self.model = profiles, url, model
        learned = profiles.get(url, model).get(PROFILE_KEY) if profiles else None
        self.remembered = learned if isinstance(learned, (int, float)) and learned > 0 else None
        self.speed: float | None = self.remembered  # prompt tokens a second, the latest measured
        self.cached = 0  # of the last prompt, the tokens the server had in its cache

    def learn(self, usage: Usage | None) -> None:
        """What one reply's counts say of the server's reading speed and its cache."""
        if usage is None:
            return
        self.cached = usage.cached_tokens or 0
        speed = usage.prompt_per_second
        read = usage.evaluated_tokens if usage.evaluated_tokens is not None else usage.prompt_tokens
        if not speed or (read or 0) < MIN_MEASURED_READ:
            return
        self.speed = speed
        if self.profiles is not None and (self.remembered is None
                                          or abs(speed - self.remembered) > REMEMBER_CHANGE * self.remembered):
            self.remembered = round(speed, 1)
            self.profiles.remember(self.url, self.model, **{PROFILE_KEY: self.remembered})

    def reading(self, prompt_tokens: int) -> ReadingTime | None:
        """The reading time of a prompt of `prompt_tokens` at the measured speed (None: not measured yet).
        The server holds at least what it held last time; what it must read is the rest."""
        if not self.speed:
            return None
        return ReadingTime(max(prompt_tokens - self.cached, 1), self.speed)
