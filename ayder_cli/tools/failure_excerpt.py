"""failure_excerpt(): the part of a failed command's output that says what failed.

A stand-in (the last `limit` characters); the version that finds the first error block replaces it.
"""

from __future__ import annotations


def failure_excerpt(output: str, limit: int = 1200) -> str:
    """At most `limit` characters of `output`: here, its end."""
    return output if len(output) <= limit else output[-limit:]
