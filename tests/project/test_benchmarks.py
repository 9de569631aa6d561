"""The benchmarks still run (start-up: its figures are not judged here, timings belong in benchmarks/); prefix
reuse counts requests, not time, so its targets are held here too."""

from __future__ import annotations

import importlib.util
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


def _mutation():
    spec = importlib.util.spec_from_file_location("mutation", BENCHMARKS / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation"] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_mutation_score_leaves_out_accepted_survivors_only_while_they_change_the_same_lines(tmp_path):
    mutation = _mutation()
    accepted = tmp_path / "accepted.txt"
    accepted.write_text("# a comment\n"
                        "m.x_f__mutmut_1\n  - at = text.find(old)\n  + at = text.find(old, 1)\n"
                        "  equivalent: old never stands at 0 here\n"
                        "m.x_f__mutmut_2\n  - a\n  + b\n  wording: a word of the refusal\n")
    entries = mutation.accepted_survivors(accepted)
    found = {"m.x_f__mutmut_1": "survived", "m.x_f__mutmut_2": "survived", "m.x_f__mutmut_3": "survived",
             **{f"m.x_g__mutmut_{n}": "killed" for n in range(6)}, "m.x_g__mutmut_9": "timeout"}
    changes = {"m.x_f__mutmut_1": ("- at = text.find(old)", "+ at = text.find(old, 1)"),
               "m.x_f__mutmut_2": ("- a", "+ c"),  # the function changed: the entry no longer counts
               "m.x_f__mutmut_3": ("- keep", "+ drop")}
    printed = mutation.report("edit", found, changes, entries, 12)
    # 7 of the 9 judged (10 less the one accepted)
    row = next(line for line in printed.splitlines() if line.startswith("all (edit)"))
    assert row.split()[2:7] == ["10", "7", "2", "1", "77.8%"]
    assert "accepted: 1 equivalent" in printed
    assert "(look again): m.x_f__mutmut_2" in printed
    survivors = printed[printed.index("survivors:"):]
    assert "m.x_f__mutmut_3\n  - keep\n  + drop" in survivors and "mutmut_1" not in survivors


def test_every_accepted_mutation_survivor_says_what_it_changes_and_why():
    entries = _mutation().accepted_survivors()
    for name, entry in entries.items():
        assert entry.changes and entry.kind in ("equivalent", "wording"), name
        assert len(entry.why.partition(":")[2].strip()) > 10, name
