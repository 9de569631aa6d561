"""Side-by-side benchmark: four slow read-only calls in one reply take little more than one.

Run:  python benchmarks/side_by_side.py [--seconds 1] [--repeats 3] [--strict]

A read-only tool registered here only (permission r, so it runs unasked) waits --seconds and
returns, as a read over a slow disk or an MCP server's answer does: it holds no lock and no GIL
while it waits. One reply's calls go through ayder's scheduler (agent/side_by_side.run_calls,
what Batch.run uses) with an executor holding that tool: one call, four calls, eight calls (two
rounds of four, the most at once), and for reference four calls one by one on this thread (how
ayder ran them before). Each figure is the median of --repeats runs. The target, from issue 22:
four calls take less than 1.5 s more than one (with --seconds 1), and never more than four run at
once (the most seen inside the tool at the same moment is printed).
Exit status is 0 whatever the result, unless --strict is given.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from ayder_cli.agent.side_by_side import MAX_AT_ONCE, _one_by_one, run_calls
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec
from ayder_cli.tools.executor import ToolExecutor

MORE_THAN_ONE_TARGET_S = 1.5  # four calls minus one call, with 1-second calls


class Quiet:
    """Callbacks that show nothing: the activity lines are not what is timed."""

    def __getattr__(self, name):
        return lambda *args: None


class SlowRead:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.lock = threading.Lock()
        self.inside = self.most = 0

    def __call__(self, context, arguments) -> ToolResult:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(self.seconds)
        with self.lock:
            self.inside -= 1
        return ToolResult(True, f"read {arguments.get('n')}")


def timed(executor: ToolExecutor, count: int, side_by_side: bool, repeats: int) -> float:
    calls = [ToolCall(f"id{n}", "slow_read", {"n": n}) for n in range(count)]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        if side_by_side:
            results, _ = run_calls(calls, executor, Quiet())
        else:
            results, _ = _one_by_one(calls, executor, Quiet())
        times.append(time.perf_counter() - started)
        assert [result.output for result in results] == [f"read {n}" for n in range(count)]  # in call order
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="how long one slow read takes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    options = parser.parse_args()

    tool = SlowRead(options.seconds)
    spec = ToolSpec("slow_read", "a read that takes a while", {"type": "object", "properties": {
        "n": {"type": "integer"}}}, "r", tool)
    with tempfile.TemporaryDirectory() as root:
        executor = ToolExecutor(ToolRegistry([spec]), ToolContext(Path(root)))
        timed(executor, 2, True, 1)  # warm-up: the pool is made at the first group of two
        one = timed(executor, 1, True, options.repeats)
        rows = [("1 call", one)]
        for label, count, together in (("4 calls side by side", 4, True), ("8 calls side by side", 8, True),
                                       ("4 calls one by one (before)", 4, False)):
            rows.append((label, timed(executor, count, together, options.repeats)))

    print(f"{options.seconds:g}-second read-only calls, median of {options.repeats}; at most {MAX_AT_ONCE} at once")
    print(f"{'':30} {'time (s)':>9} {'ratio to 1':>11} {'more than 1 (s)':>16}")
    for label, seconds in rows:
        print(f"{label:30} {seconds:9.2f} {seconds / one:10.2f}x {seconds - one:16.2f}")
    four_more = rows[1][1] - one
    target = MORE_THAN_ONE_TARGET_S * options.seconds
    met = four_more < target and tool.most <= MAX_AT_ONCE
    print(f"most inside the tool at once: {tool.most} (limit {MAX_AT_ONCE})")
    print(f"target: 4 calls take < {target:.2f} s more than 1: {four_more:.2f} s -> {'met' if met else 'MISSED'}")
    return 1 if options.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
