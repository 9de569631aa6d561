"""Mutation run: how many small changes to a safety-critical module its tests notice (mutmut 3).

Run:  python benchmarks/mutation.py GROUP [--workers 2] [--keep DIR]
      (GROUP: edit, policy, dialects, sandbox, scanner, window; `pip install -e '.[mutation]'` first)

Each group names the modules mutated and the test files that reach them; every mutant (a flipped
comparison, a changed number or string, a call dropped, ...) runs against the tests that reach its
function. A mutant is killed when a test fails or it times out; the score is the killed share. The
run happens in a scratch copy of the repository, with the [mutmut] section of setup.cfg plus the
group's modules and tests, so the worktree is left alone. The survivors are listed at the end: open
one with `mutmut show NAME` in the scratch copy (kept with --keep DIR). Not part of CI: run it before
and after changing one of these modules. Exit status is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import configparser
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# group: (modules mutated, test files that reach them)
GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "edit": (("ayder_cli/matching/edit_match.py", "ayder_cli/matching/edit_search.py"),
             ("tests/tools/test_edit_match.py", "tests/tools/test_edit_survivors.py",
              "tests/tools/test_edit_corpus.py", "tests/tools/test_edit_tools.py",
              "tests/tools/test_e2e_forgiving_edit.py")),
    "policy": (("ayder_cli/command_policy/deny.py", "ayder_cli/command_policy/what_runs.py"),
               ("tests/tools/test_shell_deny.py", "tests/tools/test_deny_survivors.py")),
    "dialects": (("ayder_cli/intents/dialects/harmony.py", "ayder_cli/intents/dialects/mistral.py"),
                 ("tests/intents/test_intents_corpus.py", "tests/intents/test_harmony_survivors.py",
                  "tests/intents/test_mistral_survivors.py", "tests/intents/test_dialect_properties.py",
                  "tests/intents/test_dialect_round_trips.py", "tests/intents/test_dialect_prose.py",
                  "tests/intents/test_dialect_cut_replies.py")),
    "sandbox": (("ayder_cli/processes/sandbox.py", "ayder_cli/processes/landlock.py"),
                ("tests/tools/test_landlock.py", "tests/tools/test_e2e_sandbox.py")),
    "scanner": (("ayder_cli/intents/scanner.py",),
                ("tests/intents/test_intents_corpus.py", "tests/intents/test_think_filter.py",
                 "tests/intents/test_intents_properties.py")),
    "window": (("ayder_cli/agent/window.py", "ayder_cli/agent/context.py"),
               ("tests/agent/test_context.py", "tests/agent/test_fit.py", "tests/agent/test_e2e_window.py",
                "tests/agent/test_e2e_context.py")),
}
KILLED = ("killed", "timeout")  # mutmut's words for a mutant a test noticed


def scratch_copy(group: str, into: Path) -> None:
    """The tracked files of the repository, with the group's modules and tests in setup.cfg's [mutmut]."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (REPO / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, into / name)
    modules, tests = GROUPS[group]
    config = configparser.ConfigParser(interpolation=None)
    config.read(into / "setup.cfg")
    config["mutmut"]["only_mutate"] = "\n" + "\n".join(modules)
    config["mutmut"]["pytest_add_cli_args_test_selection"] = "\n" + "\n".join(tests)
    with open(into / "setup.cfg", "w") as out:
        config.write(out)


def outcomes(copy: Path) -> dict[str, str]:
    """mutant name -> mutmut's status (killed, survived, timeout, ...), from `mutmut results --all true`."""
    listed = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=copy,
                            capture_output=True, text=True).stdout
    found = {}
    for line in listed.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name:
            found[name] = status.strip()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--workers", type=int, default=2, help="mutants run side by side (default 2)")
    parser.add_argument("--keep", type=Path, help="run in this directory and keep it (for `mutmut show`)")
    args = parser.parse_args()
    copy = args.keep or Path(tempfile.mkdtemp(prefix=f"ayder-mutation-{args.group}-"))
    copy.mkdir(parents=True, exist_ok=True)
    scratch_copy(args.group, copy)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.workers)], cwd=copy)
    seconds = time.monotonic() - started
    found = outcomes(copy)
    by_module: dict[str, list[str]] = {}
    for name, status in found.items():
        by_module.setdefault(re.split(r"\.x[_ǁ]", name)[0], []).append(status)
    print(f"\n{'module':<45} {'mutants':>8} {'killed':>8} {'survived':>9} {'score':>7}")
    for module, statuses in sorted(by_module.items()):
        killed = sum(status in KILLED for status in statuses)
        print(f"{module:<45} {len(statuses):>8} {killed:>8} {statuses.count('survived'):>9} "
              f"{killed / len(statuses):>7.1%}")
    killed = sum(status in KILLED for status in found.values())
    total = len(found) or 1
    other = {status for status in found.values() if status not in KILLED + ("survived",)}
    print(f"{'all (' + args.group + ')':<45} {len(found):>8} {killed:>8} "
          f"{list(found.values()).count('survived'):>9} {killed / total:>7.1%}   in {seconds:.0f} s")
    if other:
        print("not run to a verdict:", json.dumps({s: list(found.values()).count(s) for s in sorted(other)}))
    print("\nsurvivors:")
    for name, status in sorted(found.items()):
        if status == "survived":
            print(f"  {name}")
    if not args.keep:
        shutil.rmtree(copy, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
