"""A write killed at any moment leaves the old file or the new one, never a mix.

The real ayder process (-w: writes run without asking) gets a write_file call
that replaces a 10 MB file of 'a' with 20 MB of 'b', and is SIGKILLed at
different moments: as the request reaches the server, as the temporary file
appears, while it fills, after the rename. big.txt must then hold exactly the
old bytes or exactly the new ones.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from pathlib import Path
from typing import Callable

from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.storage.atomic import TEMP_PREFIX

MB = 1024 * 1024


# The contents are made when a test here first runs, not at import: every xdist worker imports this
# module to collect it, and 50 MB made there costs each of them CPU for nothing.
@functools.cache
def contents() -> tuple[bytes, str, bytes]:
    """(the old bytes, the new text, the new bytes)."""
    new_text = "b" * (20 * MB)
    return b"a" * (10 * MB), new_text, new_text.encode()


def describe(data: bytes) -> str:
    """A short account of a file's bytes (never the 20 MB themselves in a failure message)."""
    return (f"{len(data):,} bytes: {data.count(b'a'):,} 'a', {data.count(b'b'):,} 'b', "
            f"{len(data) - data.count(b'a') - data.count(b'b'):,} other")


def temp_sizes(project: Path) -> list[int]:
    sizes = []
    for entry in os.scandir(project):
        if entry.name.startswith(TEMP_PREFIX):
            try:
                sizes.append(entry.stat().st_size)
            except FileNotFoundError:  # renamed in the meantime
                pass
    return sizes


def big_changed(project: Path, before: os.stat_result) -> bool:
    """big.txt is no longer the file it was: replaced (new inode) or written in place."""
    now = os.stat(project / "big.txt")
    return (now.st_ino, now.st_size, now.st_mtime_ns) != (before.st_ino, before.st_size, before.st_mtime_ns)


def wait_for(condition: Callable[[], bool], process, timeout_s: float = 120.0, pause_s: float = 0.001) -> str:
    """Poll every millisecond until condition holds ("hit") or the process exits ("exited"): the temporary
    file of a 20 MB write stays for tens of milliseconds even on a fast disk (its fsync alone), hundreds
    on a busy machine: polling five times as often only spent the CPU of thousands of needless looks.
    The limit only guards against a hang: on a busy machine a start and a 50 MB request took over 10 s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return "hit"
        if process.poll() is not None:
            return "exited"
        time.sleep(pause_s)
    raise AssertionError("ayder neither reached the moment to kill it at nor exited")


# Moments to kill at. Each condition also fires when big.txt changes, so a writer that
# wrote in place (no temporary file) would be killed mid-write and caught.
MOMENTS = {
    # The reply is held before its first byte: the tool cannot have run.
    "reply_held": lambda fake, project, before: lambda: len(fake.chat_requests()) >= 1,
    # The held reply is let go and ayder killed at once: somewhere in reading or parsing it.
    "reply_released": lambda fake, project, before: lambda: len(fake.chat_requests()) >= 1,
    "temp_appears": lambda fake, project, before: lambda: bool(temp_sizes(project)) or big_changed(project, before),
    "temp_half_full": lambda fake, project, before: (
        lambda: any(size >= len(contents()[2]) // 2 for size in temp_sizes(project)) or big_changed(project, before)),
    "after_rename": lambda fake, project, before: lambda: big_changed(project, before),
}


def write_call(release: threading.Event | None = None, content: str | None = None) -> Reply:
    call = {"name": "write_file", "arguments": {"file_path": "big.txt", "content": content or contents()[1]}}
    return Reply(text="", tool_calls=[call], hold_after=0 if release else None, release=release)


def test_a_killed_write_leaves_the_old_file_or_the_new_one(fake, spawn_ayder, project):
    OLD, _, NEW = contents()
    big = project / "big.txt"
    outcomes = {}
    killed_mid_write = []  # moments whose kill left a temporary file: ayder died while writing it
    for moment, make_condition in MOMENTS.items():
        big.write_bytes(OLD)
        for stale in project.glob(f"{TEMP_PREFIX}*"):
            stale.unlink()  # left by the previous kill
        before = os.stat(big)
        release = threading.Event() if moment.startswith("reply_") else None
        fake.queue(write_call(release), Reply(text="Written."))
        process = spawn_ayder(*server_args(fake, "ollama"), "-w", "rewrite big.txt")
        # Every moment comes after the request reaches the server: until then ayder's start is waited out
        # at a calm pace, not polled as fast as possible (that cost more CPU than ayder's own run).
        wait_for(lambda: len(fake.chat_requests()) >= 1, process, pause_s=0.002)
        reached = wait_for(make_condition(fake, project, before), process)
        if moment == "reply_released":
            release.set()
        process.kill()
        process.wait()
        if release:
            release.set()
        if temp_sizes(project):
            killed_mid_write.append(moment)
        data = big.read_bytes()
        assert data == OLD or data == NEW, f"killed at {moment} ({reached}): big.txt holds a mix, {describe(data)}"
        outcomes[moment] = "old" if data == OLD else "new"
        fake.script.clear()
    assert outcomes["reply_held"] == "old"
    assert outcomes["after_rename"] == "new"
    assert killed_mid_write, f"no kill happened while the temporary file existed: {outcomes}"


def test_an_uninterrupted_write_leaves_the_new_file_and_no_temporary(fake, run_ayder, project):
    # Nothing is timed here, so two megabytes do what the 20 MB of the kills do, for a tenth of the CPU.
    OLD, NEW = b"a" * MB, b"b" * (2 * MB)
    big = project / "big.txt"
    big.write_bytes(OLD)
    big.chmod(0o640)
    fake.queue(write_call(content=NEW.decode()), Reply(text="Written."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "rewrite big.txt")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == "Written.\n"
    data = big.read_bytes()
    assert data == NEW, describe(data)
    assert big.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in project.iterdir() if p.name != ".ayder") == ["big.txt"]  # .ayder: transcripts
