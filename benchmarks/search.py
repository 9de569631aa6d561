"""Search benchmark: search_codebase on a 20,000-file, 200 MB tree, against `grep -rn`.

Run:  python benchmarks/search.py [--files 20000] [--mb 200] [--repeats 3] [--strict] [--clean]

A tree is generated once into the temp dir (source-like text of mixed sizes, a few
binary files, .gitignore'd directories: node_modules/, build/, *.min.js at the root and
generated/ in nested .gitignore files) and reused by later runs with the same parameters;
--clean deletes it (and does nothing else). Each pattern is searched with the Python
path and with ripgrep (if `rg` is installed) through search_codebase's own function, and
with the floor: `grep -rn -E` on the same tree, told to skip the same directories and
files with --exclude-dir/--exclude, so all three read the same files. The page cache is
warmed first; each figure is the median of interleaved runs. The target: the Python path
within 2x of grep. The matching-line counts of all three must agree.
Exit status is 0 whatever the result, unless --strict is given.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ayder_cli.tools import search as search_tools

TARGET_RATIO = 2.0
VERSION = 1  # of the generated tree's layout; a change makes runs generate it again
RARE = "XYZZY_RARE"
PATTERNS = [  # (label, pattern in a syntax Python's re and grep -E read the same way, case_sensitive)
    ("rare literal", RARE, True),
    ("regex", r"def [a-z]+_handler\(", True),
    ("alternation", r"(alpha|beta)_[a-z]+_id", True),
    ("ignoring case", r"todo", False),
    ("many hits", r"return None", True),
    ("no literal to prefilter", r"[0-9]{3}\)$", True),
]
GREP_EXCLUDES = ["--exclude-dir=.git", "--exclude-dir=node_modules", "--exclude-dir=build",
                 "--exclude-dir=generated", "--exclude=*.min.js"]

WORDS = ("alpha beta gamma delta value index count total result item node tree path name "
         "config option parser reader writer buffer stream handler request response client "
         "server session token cache store record entry table query filter update").split()


def tree_dir(files: int, mb: int) -> Path:
    return Path(tempfile.gettempdir()) / f"ayder-bench-search-{files}-{mb}mb-v{VERSION}"


def corpus(rng: random.Random, size: int) -> str:
    """Source-like lines: definitions, calls, comments (a few TODOs), returns."""
    lines = []
    total = 0
    while total < size:
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        kind = rng.random()
        if kind < 0.08:
            line = f"def {a}_{b}(self, {c}, options=None):"
        elif kind < 0.09:
            line = f"def {a}_handler(request, {c}):"
        elif kind < 0.12:
            line = f"class {a.title()}{b.title()}({c.title()}):"
        elif kind < 0.14:
            line = f"    # TODO: {a} {b} when {c} is empty" if rng.random() < 0.3 else f"    # {a} the {b} {c}"
        elif kind < 0.16:
            line = "        return None"
        elif kind < 0.19:
            line = f"    {a}_{b}_id = lookup({c}_{a}_id)"
        elif kind < 0.45:
            line = f"        {a}_{b} = self.{c}.get({a!r}, {rng.randint(0, 999)})"
        elif kind < 0.6:
            line = f"        return {a}_{b}({c}, {rng.choice(WORDS)})"
        elif kind < 0.7:
            line = ""
        else:
            line = f"        if {a} and {b}.{c}({rng.choice(WORDS)}):"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def file_sizes(rng: random.Random, count: int, total: int) -> list[int]:
    """Mostly small files, some medium, a few large; scaled to the total."""
    sizes = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.76:
            sizes.append(rng.randint(1_000, 6_000))
        elif roll < 0.96:
            sizes.append(rng.randint(8_000, 24_000))
        else:
            sizes.append(rng.randint(40_000, 200_000))
    scale = total / sum(sizes)
    return [max(200, int(size * scale)) for size in sizes]


def generate(root: Path, files: int, mb: int) -> None:
    rng = random.Random(20240601)
    text = corpus(rng, 8 << 20)
    sizes = file_sizes(rng, files, mb << 20)
    rare_files = set(rng.sample(range(files), 40))
    root.mkdir(parents=True)
    (root / ".gitignore").write_text("node_modules/\nbuild/\n*.min.js\n")
    # 80 % of the files under src/, the rest in ignored places; a few binary files among them.
    for index, size in enumerate(sizes):
        share = index / files
        package = index % 40
        if share < 0.80:
            folder = root / "src" / f"pkg{package:02d}" / f"mod{index % 7}"
            name = f"file{index:05d}.py"
            if package % 8 == 0 and index % 5 == 0:
                folder = root / "src" / f"pkg{package:02d}" / "generated"
        elif share < 0.92:
            folder = root / "node_modules" / f"lib{package:02d}" / "dist"
            name = f"index{index:05d}.js"
        elif share < 0.96:
            folder = root / "build" / f"out{package % 5}"
            name = f"file{index:05d}.py"
        else:
            folder = root / "web" / f"part{package % 9}"
            name = f"bundle{index:05d}.min.js" if index % 2 else f"page{index:05d}.js"
        folder.mkdir(parents=True, exist_ok=True)
        if index % 200 == 0:  # binary: NUL bytes at the start, and a match after them
            data = bytes(rng.randrange(256) for _ in range(256)) + b"\0" * 64 + RARE.encode() + b"\n"
            (folder / f"blob{index:05d}.bin").write_bytes(data * max(1, size // len(data)))
            continue
        start = text.find("\n", rng.randrange(len(text) - size - 1)) + 1
        body = text[start:start + size]
        body = body[:body.rfind("\n") + 1] or body
        if index in rare_files:
            cut = body.find("\n", len(body) // 2) + 1
            body = f"{body[:cut]}    marker = '{RARE}'\n{body[cut:]}"
        (folder / name).write_text(body)
    for package in range(0, 40, 8):
        (root / "src" / f"pkg{package:02d}" / ".gitignore").write_text("generated/\n")
    (root / ".complete").write_text(json.dumps({"files": files, "mb": mb, "version": VERSION}))


def ensure_tree(files: int, mb: int) -> tuple[Path, float | None]:
    root = tree_dir(files, mb)
    marker = root / ".complete"
    if marker.exists():
        return root, None
    if root.exists():
        shutil.rmtree(root)  # a run stopped half way
    started = time.perf_counter()
    generate(root, files, mb)
    return root, time.perf_counter() - started


def tree_stats(root: Path) -> tuple[int, int]:
    count = size = 0
    for folder, _, names in os.walk(root):
        for name in names:
            count += 1
            size += os.lstat(os.path.join(folder, name)).st_size
    return count, size


def time_grep(root: Path, pattern: str, case_sensitive: bool) -> tuple[float, int]:
    argv = ["grep", "-rn", "-E", *GREP_EXCLUDES, *([] if case_sensitive else ["-i"]), "--", pattern, "."]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"grep failed ({done.returncode}): {' '.join(argv)}")
    return elapsed, done.stdout.count(b"\n")


def time_search(root: Path, pattern: str, case_sensitive: bool, backend: str) -> tuple[float, int]:
    started = time.perf_counter()
    result = search_tools.search(root, pattern, case_sensitive=case_sensitive, backend=backend)
    elapsed = time.perf_counter() - started
    total = 0 if result.summary == "no matches" else int(result.summary.split()[0])
    return elapsed, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000, help="files in the tree (default 20000)")
    parser.add_argument("--mb", type=int, default=200, help="total size in MB (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per search (default 3)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--clean", action="store_true", help="delete the generated tree and stop")
    options = parser.parse_args()

    if options.clean:
        root = tree_dir(options.files, options.mb)
        if root.exists():
            shutil.rmtree(root)
            print(f"deleted {root}")
        else:
            print(f"nothing to delete ({root} does not exist)")
        return 0

    root, took = ensure_tree(options.files, options.mb)
    count, size = tree_stats(root)
    made = f"generated in {took:.1f} s" if took is not None else "reused (--clean deletes it)"
    print(f"tree   {root}: {count:,} files, {size / (1 << 20):.0f} MB; {made}")
    rg = shutil.which("rg")
    print(f"rg     {rg or 'not installed: only the Python path is timed'}")
    print(f"grep   {subprocess.run(['grep', '--version'], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]}"
          f", LC_ALL={os.environ.get('LC_ALL', '')!r} LANG={os.environ.get('LANG', '')!r}")
    print(f"python {sys.version.split()[0]}; median of {options.repeats} interleaved runs after a warm-up\n")

    backends = ["python"] + (["rg"] if rg else [])
    for pattern in (PATTERNS[0][1], PATTERNS[-1][1]):  # warm the page cache (both sides read it)
        time_grep(root, pattern, True)
        time_search(root, pattern, True, "python")

    header = (f"{'pattern':<40} {'grep -rn':>9} {'python':>9} {'ratio':>6} {'rg':>9} {'ratio':>6}"
              f" {'matches':>8}  result")
    print(header)
    print("-" * len(header))
    failed = False
    for label, pattern, case_sensitive in PATTERNS:
        times: dict[str, list[float]] = {"grep": [], **{name: [] for name in backends}}
        counts: dict[str, int] = {}
        for _ in range(options.repeats):
            elapsed, counts["grep"] = time_grep(root, pattern, case_sensitive)
            times["grep"].append(elapsed)
            for backend in backends:
                elapsed, counts[backend] = time_search(root, pattern, case_sensitive, backend)
                times[backend].append(elapsed)
        median = {name: statistics.median(values) for name, values in times.items()}
        ratio = median["python"] / median["grep"]
        ok = ratio <= TARGET_RATIO
        agree = len(set(counts.values())) == 1
        failed |= not ok or not agree
        rg_cells = (f"{median['rg'] * 1000:7.0f}ms {median['rg'] / median['grep']:6.2f}"
                    if rg else f"{'-':>9} {'-':>6}")
        verdict = ("PASS" if ok else "FAIL") + ("" if agree else f" (COUNTS DIFFER: {counts})")
        shown = f"{label} /{pattern}/{'' if case_sensitive else 'i'}"
        print(f"{shown:<40} {median['grep'] * 1000:7.0f}ms {median['python'] * 1000:7.0f}ms {ratio:6.2f} "
              f"{rg_cells} {counts['grep']:>8}  {verdict}")
    print(f"\ntarget: python <= {TARGET_RATIO:g}x grep -rn; ratios are time / grep's time")
    if failed:
        print("at least one target missed" + ("" if options.strict else " (exit 0; use --strict to fail)"))
    return 1 if failed and options.strict else 0


if __name__ == "__main__":
    sys.exit(main())
