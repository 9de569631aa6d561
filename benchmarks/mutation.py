"""Mutation run: how many small changes to a safety-critical module its tests notice (mutmut 3).

Run:  python benchmarks/mutation.py GROUP [--workers 2] [--keep DIR] [--report DIR]
      (GROUP: edit, policy, dialects, sandbox, scanner, window; `pip install -e '.[mutation]'` first)

Each group names the modules mutated and the test files that reach them; every mutant (a flipped
comparison, a changed number or string, a call dropped, ...) runs against the tests that reach its
function. A mutant is killed when a test fails or it times out; the score is the killed share. The
run happens in a scratch copy of the repository, with the [mutmut] section of setup.cfg plus the
group's modules and tests, so the worktree is left alone. The survivors are listed at the end: open
one with `mutmut show NAME` in the scratch copy (kept with --keep DIR). Not part of CI: run it before
and after changing one of these modules. Exit status is 0 whatever the figures.

Survivors that change nothing a user could notice (an equivalent mutant) or only a message's wording
are listed in benchmarks/mutation_accepted.txt, each with the line it changes and why it is accepted:
the score leaves them out and counts them apart. An entry whose mutant no longer changes that line
(the function was edited) no longer counts, and is named so it can be looked at again.
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
from collections import Counter
from dataclasses import dataclass
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
                ("tests/tools/test_landlock.py", "tests/tools/test_e2e_sandbox.py",
                 "tests/tools/test_e2e_sandbox_later.py", "tests/tools/test_sandbox_survivors.py")),
    "scanner": (("ayder_cli/intents/scanner.py",),
                ("tests/intents/test_intents_corpus.py", "tests/intents/test_think_filter.py",
                 "tests/intents/test_intents_properties.py", "tests/intents/test_scanner_survivors.py")),
    "window": (("ayder_cli/agent/window.py", "ayder_cli/agent/context.py"),
               ("tests/agent/test_context.py", "tests/agent/test_fit.py", "tests/agent/test_e2e_window.py",
                "tests/agent/test_e2e_context.py", "tests/agent/test_e2e_prefix_reuse.py",
                "tests/agent/test_e2e_call_flood.py", "tests/agent/test_request.py", "tests/agent/test_prompt_cache.py",
                "tests/mcp_servers/test_e2e_mcp_budget.py")),
}
KILLED = ("killed", "timeout")  # mutmut's words for a mutant a test noticed
ACCEPTED = Path(__file__).resolve().parent / "mutation_accepted.txt"
# run in the scratch copy: each named mutant's diff, ended by a NUL line
SHOW = ("import json, sys\nfrom mutmut.__main__ import show\n"
        "for name in json.load(sys.stdin):\n    show.callback(name)\n    print('\\0', flush=True)\n")


@dataclass(frozen=True)
class Accepted:
    """A survivor left on purpose: the lines its mutant changes (so an edit to the function, which
    renumbers mutants, is noticed) and why no user can tell it apart ('equivalent: ...') or what
    wording it changes ('wording: ...')."""

    changes: tuple[str, ...]
    why: str

    @property
    def kind(self) -> str:
        return self.why.partition(":")[0]


def accepted_survivors(path: Path = ACCEPTED) -> dict[str, Accepted]:
    """The file's entries: a mutant's name, its changed lines indented ('- old', '+ new'), then one
    indented line 'equivalent: why' or 'wording: why'. Lines starting with # are comments."""
    entries: dict[str, Accepted] = {}
    name, changes = "", []
    for line in path.read_text().splitlines() if path.exists() else []:
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            name, changes = line.strip(), []
        elif line.strip()[:2] in ("- ", "+ ") or line.strip() in ("-", "+"):
            changes.append(line.strip())
        else:
            entries[name] = Accepted(tuple(changes), line.strip())
    return entries


def changed_lines(copy: Path, names: list[str]) -> dict[str, tuple[str, ...]]:
    """mutant name -> the lines its mutant takes out and puts in ('- ...', '+ ...'), from mutmut show."""
    shown = subprocess.run([sys.executable, "-c", SHOW], cwd=copy, input=json.dumps(names),
                           capture_output=True, text=True).stdout.split("\0\n")
    lines = {}
    for name, diff in zip(names, shown):
        lines[name] = tuple(" ".join((line[0] + " " + line[1:].strip()).split()) for line in diff.splitlines()
                            if line[:1] in "-+" and not line.startswith(("---", "+++")))
    return lines


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


def report(group: str, found: dict[str, str], changes: dict[str, tuple[str, ...]],
           accepted: dict[str, Accepted], seconds: float) -> str:
    """Each module's score and the group's, accepted survivors left out and counted apart, then the
    survivors still to go through, each with the lines its mutant changes."""
    left = {name for name, status in found.items() if status == "survived"
            and name in accepted and accepted[name].changes == changes.get(name)}
    stale = sorted(name for name, status in found.items() if status == "survived" and name in accepted
                   and name not in left)
    by_module: dict[str, list[str]] = {}
    for name, status in found.items():
        by_module.setdefault(re.split(r"\.x[_ǁ]", name)[0], []).append("accepted" if name in left else status)
    out = [f"{'module':<45} {'mutants':>8} {'killed':>8} {'survived':>9} {'accepted':>9} {'score':>7}"]

    def row(label: str, statuses: list[str]) -> str:
        killed = sum(status in KILLED for status in statuses)
        judged = len(statuses) - statuses.count("accepted")
        return (f"{label:<45} {len(statuses):>8} {killed:>8} {statuses.count('survived'):>9} "
                f"{statuses.count('accepted'):>9} {killed / (judged or 1):>7.1%}")

    out += [row(module, statuses) for module, statuses in sorted(by_module.items())]
    everything = [status for statuses in by_module.values() for status in statuses]
    out.append(row(f"all ({group})", everything) + f"   in {seconds:.0f} s")
    out.append("score: killed or timed out, of all mutants but the accepted survivors; accepted: "
               + (", ".join(f"{n} {kind}" for kind, n in sorted(
                   Counter(accepted[name].kind for name in left).items())) or "none"))
    other = Counter(status for status in everything if status not in KILLED + ("survived", "accepted"))
    if other:
        out.append("not run to a verdict: " + json.dumps(dict(other)))
    if stale:
        out.append("\naccepted once, but the mutant now changes other lines (look again): " + ", ".join(stale))
    out.append("\nsurvivors:")
    for name in sorted(n for n, s in found.items() if s == "survived" and n not in left):
        out.append(f"{name}\n" + "".join(f"  {line}\n" for line in changes.get(name, ())).rstrip("\n"))
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--workers", type=int, default=2, help="mutants run side by side (default 2)")
    parser.add_argument("--keep", type=Path, help="run in this directory and keep it (for `mutmut show`)")
    parser.add_argument("--report", type=Path, metavar="DIR",
                        help="no run: the figures of the run kept in DIR, with the accepted survivors as they are now")
    args = parser.parse_args()
    if args.report:
        found = outcomes(args.report)
        print(report(args.group, found, changed_lines(args.report, sorted(n for n, s in found.items()
                                                                         if s == "survived")),
                     accepted_survivors(), 0))
        return 0
    copy = args.keep or Path(tempfile.mkdtemp(prefix=f"ayder-mutation-{args.group}-"))
    copy.mkdir(parents=True, exist_ok=True)
    scratch_copy(args.group, copy)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.workers)], cwd=copy)
    seconds = time.monotonic() - started
    found = outcomes(copy)
    print(report(args.group, found, changed_lines(copy, sorted(n for n, s in found.items() if s == "survived")),
                 accepted_survivors(), seconds))
    if not args.keep:
        shutil.rmtree(copy, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
