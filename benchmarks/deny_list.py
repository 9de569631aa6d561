"""Deny-list benchmark: judging a long command costs about what splitting it as the shell does costs.

Run:  python benchmarks/deny_list.py [--repeats 3] [--strict]

Commands of growing length (quotes, variables and substitutions repeated, a harmless
`rm -rf build` at the end) are judged by the deny list (`denied_by` with the default
patterns). The floor is the standard library's `shlex.split` of the same text, measured
in the same run: the judge splits, unwraps and reads every command, so it costs more,
but the ratio must not grow with the length (target <= 8x at every length; a judge
that re-reads the text per word would grow quadratically and blow past it).
Each figure is the median of --repeats runs. Exit status is 0 whatever the result, unless --strict.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

from ayder_cli.command_policy.deny import DEFAULT_SHELL_DENY, denied_by

RATIO_TARGET = 8.0
PIECE = "'a b' \"c $d\" $(e) "


def timed(action, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()
    print(f"{'pieces':>8} {'chars':>9} {'judge ms':>10} {'shlex ms':>10} {'ratio':>7}  target <= {RATIO_TARGET:g}")
    worst = 0.0
    for pieces in (1_000, 4_000, 16_000):
        command = "echo " + PIECE * pieces + "; rm -rf build"
        judged = timed(lambda: denied_by(command, DEFAULT_SHELL_DENY), args.repeats)
        floor = timed(lambda: shlex.split(command.replace("$(", "(")), args.repeats)
        ratio = judged / floor
        worst = max(worst, ratio)
        print(f"{pieces:>8} {len(command):>9} {judged * 1000:>10.1f} {floor * 1000:>10.1f} {ratio:>7.1f}")
    verdict = "PASS" if worst <= RATIO_TARGET else "FAIL"
    print(f"worst ratio {worst:.1f}: {verdict}")
    return 1 if args.strict and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
