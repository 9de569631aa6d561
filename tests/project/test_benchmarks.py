"""The start-up benchmark still runs (its figures are not judged here: timings belong in benchmarks/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_startup_benchmark_prints_its_tables():
    done = subprocess.run([sys.executable, str(BENCHMARKS / "startup.py"), "--runs", "1", "--prompt-runs", "1"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    for row in ("ayder --version", "ayder --help", "python -c 'import click, prompt_toolkit'  (floor)",
                "ayder  (REPL ready to type)", "server contacted before the first prompt: no"):
        assert row in done.stdout, row
    row = next(line for line in done.stdout.splitlines() if line.startswith("ayder  (REPL ready to type)"))
    median_ms, ratio = row[len("ayder  (REPL ready to type)"):].split()[:2]
    assert float(median_ms) > 0 and float(ratio) > 0  # measured, whatever the figures
