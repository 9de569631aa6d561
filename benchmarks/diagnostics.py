"""Diagnostics benchmark: what asking the language server after an edit adds to the edit, warm.

Run:  python benchmarks/diagnostics.py [--runs 21] [--strict]

A temp project and the real ToolExecutor: each edit is one replace_string call through every
stage, timed with the language server's diagnostics (EditDiagnostics, as ayder wires it) and
without (no edits hook), each on its own copy of the file, interleaved, median of --runs after
two warm-up edits that started the server (a model's edits one after another: the text before
each is the one the server last saw, so it is asked once per edit). The floor is the edit
without diagnostics; the row says what the server added, in milliseconds and as a ratio.
Target: <= +150 ms with `ruff server` (pylsp is shown for comparison: it waits half a second
before it lints a change, by design). A server not on PATH is left out. Exit status is 0
whatever the figures, unless --strict is given.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ayder_cli.calls import ToolCall
from ayder_cli.lsp.after_edit import EditDiagnostics
from ayder_cli.tools import default_registry
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.executor import Permissions, ToolExecutor

TARGET_MS = 150.0
FUNCTION = "def f{n}(values):\n    total = 0\n    for value in values:\n        total += value\n    return total\n\n\n"
CASES = (  # (label, server command, lines of the file, the edit breaks and then fixes it)
    ("ruff server, 40 lines, clean edit", ("ruff", "server"), 40, False),
    ("ruff server, 40 lines, break / fix", ("ruff", "server"), 40, True),
    ("ruff server, 2,000 lines, clean edit", ("ruff", "server"), 2000, False),
    ("pylsp, 40 lines, clean edit", ("pylsp",), 40, False),
)


def source(lines: int) -> str:
    return "".join(FUNCTION.format(n=n) for n in range(max(1, lines // 7)))


def edit(executor: ToolExecutor, n: int, breaks: bool) -> float:
    """One replace_string call on f0's first line, turned one way or back -> seconds."""
    old, new = "def f0(values):", "def f0(values)" if breaks else "def f0(items_or_values):"
    if n % 2:
        old, new = new, old
    arguments = {"file_path": "app.py", "old_string": old, "new_string": new}
    call = ToolCall(id="c", name="replace_string", arguments=arguments)
    started = time.perf_counter()
    result = executor.run(call)
    elapsed = time.perf_counter() - started
    if not result.ok:
        raise SystemExit(f"the edit failed: {result.error}")
    return elapsed


def case(command: tuple[str, ...], lines: int, breaks: bool, runs: int) -> tuple[list[float], list[float]]:
    """(times without diagnostics, times with), interleaved, each on its own copy of the file."""
    with tempfile.TemporaryDirectory(prefix="ayder-bench-") as temp:
        registry, executors = default_registry(), []
        for name in ("plain", "checked"):
            root = Path(temp) / name
            root.mkdir()
            (root / "app.py").write_text(source(lines))
            executors.append(ToolExecutor(registry, ToolContext(root), permissions=Permissions({"r", "w"})))
        plain, checked = executors
        hub = EditDiagnostics(checked.context.root, {"python": {"command": list(command), "files": ["*.py"],
                                                                "timeout_s": 30}})
        checked.edits = hub
        try:
            for n in range(2):  # warm-up: the server started, the file open in it
                edit(checked, n, breaks)
                edit(plain, n, breaks)
            without, with_ = [], []
            for n in range(2, runs + 2):
                without.append(edit(plain, n, breaks))
                with_.append(edit(checked, n, breaks))
            if hub.skipped:
                raise SystemExit(f"{command[0]} went silent during the benchmark")
        finally:
            hub.close()
    return without, with_


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="timed edits each way per case (default 21)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    options = parser.parse_args()
    print(f"python {sys.version.split()[0]}; {options.runs} edits each way per case, interleaved, after a warm-up; "
          "median wall time\n")
    width = max(len(label) for label, *_ in CASES)
    print(f"{'case':<{width}}  {'without ms':>10}  {'with ms':>8}  {'added ms':>8}  {'ratio':>6}  {'target':>8}"
          "  result")
    print("-" * (width + 60))
    missed = False
    for label, command, lines, breaks in CASES:
        if shutil.which(command[0]) is None:
            print(f"{label:<{width}}  ({command[0]} is not on PATH: left out)")
            continue
        without, with_ = case(command, lines, breaks, options.runs)
        plain, checked = statistics.median(without) * 1000, statistics.median(with_) * 1000
        added = checked - plain
        target, verdict = "", ""
        if command[0] == "ruff":
            target, verdict = f"<= +{TARGET_MS:g}", "PASS" if added <= TARGET_MS else "FAIL"
            missed |= added > TARGET_MS
        print(f"{label:<{width}}  {plain:10.1f}  {checked:8.1f}  {added:+8.1f}  {checked / plain:6.1f}  "
              f"{target:>8}  {verdict}")
    return 1 if missed and options.strict else 0


if __name__ == "__main__":
    sys.exit(main())
