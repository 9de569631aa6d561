"""search_codebase without ripgrep (the Python search), end to end through the real `ayder` against the
fake server: a big file is read in bounded pieces, never held whole, and its matches are still found,
at the end of a line of many megabytes too."""

from __future__ import annotations

import tracemalloc

from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import of_role

LINE_BYTES = 64 * 1024 * 1024


def write_one_line(path, size: int, end: bytes) -> None:
    block = b"0123456789abcdef" * 4096
    with path.open("wb") as out:
        for _ in range(size // len(block)):
            out.write(block)
        out.write(end)


def test_the_python_search_finds_a_match_at_the_end_of_a_64_mb_line_holding_little_of_it(
        fake, run_ayder, project, monkeypatch):
    monkeypatch.setenv("PATH", str(project / "no-rg-here"))  # no ripgrep: the Python search runs
    write_one_line(project / "dump.min.js", LINE_BYTES, end=b"needle\nsecond needle\n")
    (project / "small.py").write_text("x = 1\nneedle = 2\n")
    fake.queue(Reply.calling("search_codebase", {"pattern": "needle", "context_lines": 1}), Reply(text="found"))
    tracemalloc.start()
    try:
        result = run_ayder(*server_args(fake, "openai"), "find needle")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.returncode == 0, result.stderr
    [answer] = of_role(fake.chat_requests()[-1], "tool")
    lines = answer["content"].split("\n")
    assert lines[1].startswith("dump.min.js:1: 0123456789abcdef")
    assert lines[1].endswith(f"… [{LINE_BYTES + len('needle') - 300:,} more bytes]")
    assert lines[2:] == ["dump.min.js:2: second needle", "--", "small.py-1- x = 1", "small.py:2: needle = 2"]
    assert peak < 16 * 1024 * 1024, f"peak {peak:,} bytes for a {LINE_BYTES:,}-byte line"
