"""The line a terminal shows while the server reads a long prompt:
`reading prompt 3,072/7,310 (1,024 cached) · 18 tok/s · ~4 min left`."""

from __future__ import annotations

from ayder_cli.llm.wire_types import PromptProgress


def describe_progress(progress: PromptProgress) -> str:
    parts = [f"reading prompt {progress.processed:,}/{progress.total:,}"
             + (f" ({progress.cached:,} cached)" if progress.cached else "")]
    speed = progress.speed
    if speed:
        parts.append(f"{speed:,.0f} tok/s")
        left = progress.seconds_left()
        if left:
            parts.append(f"~{describe_seconds(left)} left")
    return " · ".join(parts)


def describe_seconds(seconds: float) -> str:
    """'40 s', '4 min', '1 h 5 min': as precise as a wait that long needs."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"
