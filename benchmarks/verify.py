"""Verify benchmark: what a check after an edit costs beyond the check's own run time.

Run:  python benchmarks/verify.py [--runs 7] [--strict]

A temp project and the fake LLM server of tests/support. Each case is one turn of the real
`ayder` (in-process, ayder_cli.cli.main): the model writes a file, ayder answers it, the model
answers. The same turn is timed without --verify and with --verify CMD, interleaved, median of
--runs after a warm-up; the floor is CMD run directly by subprocess (shell=True, in the project)
in the same run. The overhead is (turn with the check) - (turn without) - (the check alone);
target <= +0.2 s. The last case is a shell command in a git work tree, where ayder also compares
`git status --porcelain` before and after the command (two git runs, counted in the overhead).
Exit status is 0 whatever the figures, unless --strict is given.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.fakellm import FakeLLM, Reply  # noqa: E402

from ayder_cli.cli import main  # noqa: E402

TARGET_S = 0.2
CASES = (  # (label, command, the edit is a shell command in a git work tree)
    ("true", "true", False),
    ("python3 -c pass", "python3 -c pass", False),
    ("sleep 0.3", "sleep 0.3", False),
    ("true, shell edit in git", "true", True),
)


def turn(server: FakeLLM, project: Path, home: Path, verify: str | None, shell: bool, n: int) -> float:
    """One one-shot turn: an edit, its result, an answer -> seconds."""
    if shell:
        call = {"name": "run_shell_command", "arguments": {"command": f"echo {n} > out.txt"}, "id": "c"}
    else:
        call = {"name": "write_file", "arguments": {"file_path": "out.txt", "content": f"{n}\n"}, "id": "c"}
    server.queue(Reply(text="", tool_calls=[call]), Reply(text="done"))
    args = ["-p", "openai", "--base-url", server.openai_url, "-m", "m", "-w", "-x", "--no-stream"]
    args += ["--verify", verify] if verify else []
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / ".state")}
    started = time.perf_counter()
    code = main([*args, "go"], stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO(), env=env,
                cwd=project)
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"the turn failed (exit {code})")
    return elapsed


def direct(command: str, project: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, shell=True, cwd=project, check=True)
    return time.perf_counter() - started


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--strict", action="store_true")
    options = parser.parse_args()
    print(f"{'case':<26} {'turn':>8} {'turn+check':>11} {'check alone':>12} {'overhead':>9}  target <= +{TARGET_S} s")
    failed = False
    # The fake server reports each keep-alive connection the client closes; that is not news here.
    with tempfile.TemporaryDirectory() as temp, contextlib.redirect_stderr(io.StringIO()), \
            FakeLLM(models=("m",)) as server:
        home = Path(temp) / "home"
        home.mkdir()
        for label, command, shell in CASES:
            project = Path(temp) / label.replace(" ", "_").replace(",", "")
            project.mkdir()
            if shell:
                subprocess.run(["git", "init", "-q"], cwd=project, check=True)
            plain, checked, alone = [], [], []
            for n in range(options.runs + 1):  # the first is a warm-up
                times = (turn(server, project, home, None, shell, n), turn(server, project, home, command, shell, n),
                         direct(command, project))
                if n:
                    for kept, value in zip((plain, checked, alone), times):
                        kept.append(value)
            p, c, a = (statistics.median(values) for values in (plain, checked, alone))
            overhead = c - p - a
            flag = "" if overhead <= TARGET_S else "  OVER"
            failed = failed or bool(flag)
            print(f"{label:<26} {p:>7.3f}s {c:>10.3f}s {a:>11.3f}s {overhead:>+8.3f}s{flag}")
    return 1 if failed and options.strict else 0


if __name__ == "__main__":
    sys.exit(main_())
