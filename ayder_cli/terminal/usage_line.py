"""The token usage line shown on stderr once a user message is handled: tokens in and out, the
context the last request used of the served window, and tokens/s where the server reports timings."""

from __future__ import annotations

from ayder_cli.llm.wire_types import Usage


def describe_message_usage(usages: list[Usage], window: int | None = None) -> str | None:
    """One line for the requests of one user message (None: no request reported its counts)."""
    reported = [u for u in usages if u.prompt_tokens is not None or u.completion_tokens is not None]
    if not reported:
        return None
    cached = [u.cached_tokens for u in reported if u.cached_tokens is not None]
    total = Usage(sum(u.prompt_tokens or 0 for u in reported), sum(u.completion_tokens or 0 for u in reported),
                  sum(cached) if cached else None)
    parts = [f"tokens: in {total.describe_prompt()}", f"out {total.completion_tokens}"]
    if len(reported) > 1:
        parts.append(f"{len(reported)} requests")
    used = reported[-1].total_tokens
    if window:
        parts.append(f"context {used} of {window} ({round(100 * used / window)}%)")
    timed = [u for u in reported if u.tokens_per_second and u.completion_tokens]
    if timed:  # the speed over all timed requests: their tokens over their generation time
        seconds = sum(u.completion_tokens / u.tokens_per_second for u in timed)
        parts.append(f"{sum(u.completion_tokens for u in timed) / seconds:.1f} tokens/s")
    return " · ".join(parts)
