"""Dialect variants: how many of the held-out replies' calls are read, and how many views are right.

Run:  python benchmarks/dialect_variants.py

The replies are tests/support/intents_corpus_variants.py (issue 20, item 5):
variants real models write beyond their templates, and the display cases. A
case's calls count as read when parse() yields exactly the calls it should
(none, for an example that must never run); its view is right when the display
matches and every string that must be shown or hidden is. Prints the figures,
then each case that misses.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.intents_corpus_variants import CASES  # noqa: E402

from ayder_cli.intents import parse  # noqa: E402


def view_right(case, display: str) -> bool:
    return ((case.display is None or display == case.display) and all(s in display for s in case.shown)
            and not any(s in display for s in case.hidden))


def main() -> None:
    calls_total = calls_read = wrong_runs = views_right = 0
    misses = []
    for case in CASES:
        reply = parse(case.text, case.tools)
        got = [(call.name, call.arguments) for call in reply.calls]
        calls_total += len(case.calls)
        if got == case.calls:
            calls_read += len(case.calls)
        else:
            calls_read += sum(1 for call in got if call in case.calls)
            wrong_runs += sum(1 for call in got if call not in case.calls)
            misses.append((case.id, "calls", got))
        if view_right(case, reply.display):
            views_right += 1
        else:
            misses.append((case.id, "view", reply.display))
    print(f"cases: {len(CASES)}")
    print(f"calls read: {calls_read}/{calls_total} ({100 * calls_read / calls_total:.0f}%)")
    print(f"calls run that should not be: {wrong_runs}")
    print(f"views right: {views_right}/{len(CASES)} ({100 * views_right / len(CASES):.0f}%)")
    for case_id, what, got in misses:
        print(f"  miss ({what}) {case_id}: {got!r:.160}")


if __name__ == "__main__":
    main()
