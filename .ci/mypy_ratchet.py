#!/usr/bin/env python3
"""mypy on ayder_cli, held to a ratchet: no package may have more errors than
.ci/mypy_baseline.json records (a package not listed is held at 0).

    python .ci/mypy_ratchet.py           # check; exit 1 when a count went up
    python .ci/mypy_ratchet.py --update  # record today's counts (after fixing errors, or a package move)

Run from .ci/run and pre-commit rather than from pytest: a cold run (as from a clean clone)
costs about 8 CPU-seconds, 11 to 24 s on two shared cores; the cache in .mypy_cache/ brings a
warm one under a second."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / ".ci" / "mypy_baseline.json"
ERROR_LINE = re.compile(r"^(?P<path>[^:\n]+\.pyi?):\d+(?::\d+)?: error:", re.MULTILINE)


def package_of(path: str) -> str:
    """`ayder_cli/tools/x.py` -> `tools`; a module at the top of ayder_cli -> `ayder_cli`."""
    parts = Path(path).resolve().relative_to(REPO).parts if Path(path).is_absolute() else Path(path).parts
    return parts[1] if len(parts) > 2 else parts[0]


def count_errors(mypy_output: str) -> Counter[str]:
    return Counter(package_of(match["path"]) for match in ERROR_LINE.finditer(mypy_output))


def compare(counts: Counter[str], baseline: dict[str, int]) -> tuple[list[str], list[str]]:
    """What went up (fails the check) and what went down (the baseline can be lowered)."""
    worse, better = [], []
    for package in sorted(set(counts) | set(baseline)):
        now, before = counts.get(package, 0), baseline.get(package, 0)
        if now > before:
            worse.append(f"{package}: mypy errors up from {before} to {now}")
        elif now < before:
            better.append(f"{package}: mypy errors down from {before} to {now}")
    return worse, better


def run_mypy() -> str:
    result = subprocess.run([sys.executable, "-m", "mypy", "ayder_cli"], cwd=REPO,
                            capture_output=True, text=True)
    if result.returncode not in (0, 1):  # 2: mypy itself failed (bad config, crash)
        sys.exit(f"mypy failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def main(argv: list[str]) -> int:
    output = run_mypy()
    counts = count_errors(output)
    packages = sorted({path.parent.name for path in (REPO / "ayder_cli").glob("*/__init__.py")} | {"ayder_cli"})
    if "--update" in argv:
        BASELINE.write_text(json.dumps({p: counts.get(p, 0) for p in packages}, indent=2) + "\n")
        print(f"recorded {sum(counts.values())} mypy errors in {BASELINE.relative_to(REPO)}")
        return 0
    worse, better = compare(counts, json.loads(BASELINE.read_text()))
    for line in better:
        print(f"{line}: lower the baseline with `python .ci/mypy_ratchet.py --update`")
    if worse:
        print(output, end="")
        print("\n".join(worse), file=sys.stderr)
        return 1
    print(f"mypy: {sum(counts.values())} errors, none more than the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
