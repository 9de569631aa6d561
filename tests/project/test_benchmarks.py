"""The benchmarks still run (start-up: its figures are not judged here, timings belong in benchmarks/); prefix
reuse counts requests, not time, so its targets are held here too."""

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


def test_the_prefix_reuse_benchmark_meets_its_targets_against_the_fake_server():
    done = subprocess.run([sys.executable, str(BENCHMARKS / "prefix_reuse.py"), "--strict"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line[:34].strip(): line[34:].split() for line in done.stdout.splitlines()[1:3]}
    requests, changed = (int(n) for n in rows["30-round read_file loop, 8k"][:2])
    assert requests > 30 and changed <= 10
    assert float(rows["30-round read_file loop, 8k"][6].rstrip("x")) <= 1.8  # what a hybrid model reads
    assert rows["3-message session that fits"][:2] == ["9", "0"]
    assert "ended with the answer: yes" in done.stdout
