"""Range-read benchmark: read_file of a few lines of a 100 MB file costs what reading up to them costs.

Run:  python benchmarks/read_range.py [--mb 100] [--lines 200] [--repeats 5] [--strict]

A 100 MB text file of source-like lines is generated in a temp dir (deleted at the end).
read_file (the tool's own function) reads the same number of lines (--lines) at three
offsets: near the start, in the middle and near the end. Each is timed twice: on the
100 MB file, and on a copy cut just after the range, which has nothing after it. The
ratio of the two must stay near 1 at every offset: what follows the range costs nothing
(target <= 1.3). The floor is plain Python reading the same file line by line up to the
end of the range (`for line in open(path, "rb")`, a counter, the range's lines decoded),
since a text file has no index and every line before the range must be read; read_file's
target is <= 1.5x it where the floor takes a millisecond or more (below that, fixed costs
such as the path checks are all there is to see, and the ratio is printed for reference).
Each figure is the median of --repeats runs after a warm-up (page cache warm).
Exit status is 0 whatever the result, unless --strict is given.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.files import read_file

AFTER_TARGET = 1.3  # read_file on the whole file / on the copy that ends after the range
FLOOR_TARGET = 1.5  # read_file / plain Python reading up to the end of the range
FLOOR_FROM_S = 0.001  # the floor target applies where the floor takes at least this long


def generate(path: Path, size: int) -> int:
    """Source-like lines of mixed length up to `size` bytes; returns the number of lines."""
    rng = random.Random(7)
    words = "value index count result item node path name config parser buffer stream".split()
    pool = []
    for _ in range(5000):
        depth = " " * (4 * rng.randint(0, 3))
        body = " ".join(rng.choice(words) for _ in range(rng.randint(1, 14)))
        pool.append(f"{depth}{body} = {rng.randint(0, 10 ** 6)}\n".encode())
    written = lines = 0
    with path.open("wb") as stream:
        while written < size:
            block = b"".join(rng.choice(pool) for _ in range(4096))
            stream.write(block)
            written += len(block)
            lines += 4096
    return lines


def cut_after(source: Path, target: Path, last_line: int) -> None:
    """A copy of source holding its lines 1..last_line only."""
    with source.open("rb") as reading, target.open("wb") as writing:
        for number, line in enumerate(reading, 1):
            writing.write(line)
            if number == last_line:
                break


def floor_read(path: Path, first_line: int, last_line: int) -> float:
    """Plain Python: skip to first_line, decode the lines of the range, stop at last_line."""
    started = time.perf_counter()
    kept = []
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, 1):
            if number >= first_line:
                kept.append(raw.decode())
                if number == last_line:
                    break
    return time.perf_counter() - started


def tool_read(root: Path, name: str, start: int, end: int) -> float:
    context = ToolContext(root, max_output_chars=10 ** 7)
    started = time.perf_counter()
    result = read_file(context, {"file_path": name, "start_line": start, "end_line": end})
    elapsed = time.perf_counter() - started
    if not result.ok or f"{end:>6}\t" not in result.output:
        raise SystemExit(f"read_file of lines {start}-{end} of {name} gave: {result.output[-300:]}")
    return elapsed


def median_of(repeats: int, timed) -> float:
    timed()  # warm-up
    return statistics.median(timed() for _ in range(repeats))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="size of the file in MB (default 100)")
    parser.add_argument("--lines", type=int, default=200, help="lines per range (default 200)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (default 5)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    options = parser.parse_args()

    failed = False
    with tempfile.TemporaryDirectory(prefix="ayder-bench-read-") as tmp:
        root = Path(tmp)
        big = root / "big.txt"
        started = time.perf_counter()
        total = generate(big, options.mb << 20)
        print(f"file   {big.stat().st_size / (1 << 20):.0f} MB, {total:,} lines, "
              f"generated in {time.perf_counter() - started:.1f} s (temp dir, deleted at the end)")
        print(f"python {sys.version.split()[0]}; {options.lines} lines per range; "
              f"median of {options.repeats} runs after a warm-up\n")

        count = options.lines
        ranges = [("start", 1001), ("middle", total // 2), ("end", total - count - 999)]
        header = (f"{'range':<26} {'whole file':>10} {'cut after':>10} {'ratio':>6} "
                  f"{'floor':>9} {'ratio':>6}  result")
        print(header)
        print("-" * len(header))
        for label, start in ranges:
            end = start + count - 1
            cut = root / f"cut-{label}.txt"
            cut_after(big, cut, end)
            whole = median_of(options.repeats, lambda: tool_read(root, big.name, start, end))
            after = median_of(options.repeats, lambda: tool_read(root, cut.name, start, end))
            floor = median_of(options.repeats, lambda: floor_read(big, start, end))
            cut.unlink()
            after_ratio, floor_ratio = whole / after, whole / floor
            # Under a millisecond, fixed costs (path checks, formatting) are all there is to see.
            ok = after_ratio <= AFTER_TARGET and (floor < FLOOR_FROM_S or floor_ratio <= FLOOR_TARGET)
            failed |= not ok
            shown = f"{label} {start:,}-{end:,}"
            print(f"{shown:<26} {whole * 1000:8.2f}ms {after * 1000:8.2f}ms {after_ratio:6.2f} "
                  f"{floor * 1000:7.2f}ms {floor_ratio:6.2f}  {'PASS' if ok else 'FAIL'}")
    print(f"\ntargets: whole / cut after <= {AFTER_TARGET:g} (the lines after a range cost nothing); "
          f"read_file / floor <= {FLOOR_TARGET:g} where the floor takes >= {FLOOR_FROM_S * 1000:g} ms")
    if failed:
        print("at least one target missed" + ("" if options.strict else " (exit 0; use --strict to fail)"))
    return 1 if failed and options.strict else 0


if __name__ == "__main__":
    sys.exit(main())
