"""What a server's prompt cache would make of the requests ayder sent (the fake server's record).

A server keeps the prompt it read last. A plain transformer with a prefix cache
(llama.cpp on most models) reads again only what follows the first difference
from that prompt; a hybrid or sliding-window model (Qwen3.5+, Gemma 3/4,
gpt-oss) keeps no partial state, so a request that is not an extension of the
one before is read whole. A prompt is laid out as chat templates lay it out:
the system prompt, the tool schemas, then the other messages; a token is four
characters, as the fake server counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def _parts(body: dict[str, Any]) -> list[str]:
    """The prompt's pieces in template order: system prompt, tool schemas, each other message."""
    messages = list(body.get("messages") or [])
    head = [json.dumps(messages.pop(0))] if messages and messages[0].get("role") == "system" else []
    tools = [json.dumps(body["tools"])] if body.get("tools") else []
    return head + tools + [json.dumps(message) for message in messages]


def _common_chars(a: str, b: str) -> int:
    size = min(len(a), len(b))
    low, high = 0, size  # the longest common prefix, by halving (prompts run to tens of KB)
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


@dataclass
class CacheReport:
    requests: int = 0
    changed: int = 0  # requests that were not an extension of the one before (an earlier message changed)
    new_tokens: int = 0  # what no earlier request had sent: the least any server must read
    prefix_read: int = 0  # what a server with a prefix cache reads
    hybrid_read: int = 0  # what a server that keeps no partial state reads
    largest: int = 0  # the largest prompt, in the fake server's count

    @property
    def prefix_ratio(self) -> float:
        return self.prefix_read / self.new_tokens if self.new_tokens else 0.0

    @property
    def hybrid_ratio(self) -> float:
        return self.hybrid_read / self.new_tokens if self.new_tokens else 0.0


def cache_report(bodies: list[dict[str, Any]]) -> CacheReport:
    """The report for these chat request bodies, in the order they were sent."""
    report = CacheReport()
    seen: set[str] = set()
    previous: list[str] = []
    for body in bodies:
        parts = _parts(body)
        text, before = "".join(parts), "".join(previous)
        extends = parts[:len(previous)] == previous
        report.requests += 1
        report.changed += bool(previous) and not extends
        report.new_tokens += sum(len(part) for part in parts if part not in seen) // 4
        report.prefix_read += (len(text) - _common_chars(text, before)) // 4
        report.hybrid_read += (len(text) - (len(before) if extends else 0)) // 4
        report.largest = max(report.largest, len(json.dumps(body.get("messages") or []) +
                                                 (json.dumps(body["tools"]) if body.get("tools") else "")) // 4)
        seen.update(parts)
        previous = parts
    return report
