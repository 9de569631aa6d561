"""A file that is one enormous line: read_file and the ripgrep search cut it with a note, never holding it whole."""

from __future__ import annotations

import shutil
import tracemalloc

import pytest
from support.tool_calls import call_tool

from ayder_cli.tools import search

LINE_BYTES = 50 * 1024 * 1024


def write_one_line(path, size: int, end: bytes = b"\n") -> None:
    block = b"0123456789abcdef" * 4096
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(block)
        out.write(end)


def test_read_file_of_one_50_mb_line_cuts_it_and_holds_a_small_part_only(root):
    write_one_line(root / "dump.min.js", LINE_BYTES, end=b"\nafter\n")
    tracemalloc.start()
    try:
        result = call_tool(root, "read_file", file_path="dump.min.js")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    first, second = result.output.split("\n")[:2]
    assert first.startswith("     1\t0123456789abcdef")
    assert first.endswith(f"… [{LINE_BYTES - 2000:,} more bytes on this line]")
    assert second == "     2\tafter"
    assert peak < 2 * 1024 * 1024, f"peak {peak:,} bytes for a {LINE_BYTES:,}-byte line"


def test_a_huge_line_before_the_range_asked_for_is_skipped_without_holding_it(root):
    path = root / "log.txt"
    write_one_line(path, 8 * 1024 * 1024)
    with path.open("ab") as out:
        out.write(b"second\nthird")
    tracemalloc.start()
    try:
        result = call_tool(root, "read_file", file_path="log.txt", start_line=2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.output.split("\n")[:2] == ["     2\tsecond", "     3\tthird"]
    assert peak < 1024 * 1024


def test_a_multibyte_line_cut_unread_counts_what_is_left_in_bytes(root):
    (root / "wide.txt").write_text("é" * 9000 + "\n")
    first = call_tool(root, "read_file", file_path="wide.txt").output.split("\n")[0]
    assert first == "     1\t" + "é" * 2000 + f"… [{7000 * 2:,} more bytes on this line]"


# --- search_codebase


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_search_with_ripgrep_holds_a_small_part_of_a_50_mb_matching_line(root):
    write_one_line(root / "bundle.js", LINE_BYTES, end=b"needle\nafter needle\n")
    tracemalloc.start()
    try:
        result = search.search(root, "needle", backend="rg")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    first, second = result.output.split("\n")[:2]
    assert first.startswith("bundle.js:1: 0123456789abcdef")
    assert first.endswith(f"… [{LINE_BYTES + len('needle') - 300:,} more bytes]")
    assert second == "bundle.js:2: after needle"
    assert peak < 2 * 1024 * 1024, f"peak {peak:,} bytes for a {LINE_BYTES:,}-byte line"


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
@pytest.mark.parametrize("size", [5000, 9000, 40000])
def test_both_searches_say_the_same_of_a_long_line(root, size):
    (root / "wide.txt").write_text("é" * size + " needle\n")
    by_python = search.search(root, "needle", backend="python").output
    assert by_python == search.search(root, "needle", backend="rg").output
    unit = "bytes" if 2 * size > 8192 else "characters"
    assert by_python.endswith(f" more {unit}]")
