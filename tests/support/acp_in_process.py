"""`ayder acp` run in this process (cli.main() in a thread, a PipedRun) and talked to over real pipes by
the official ACP client: what acp.spawn_agent_process gives for the process, without starting one
(each `ayder acp` process costs about a third of a CPU-second before it answers).

At the end, as when the process would have exited: stdin closed, the run waited for, and nothing it
started still running (no thread, no child process).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator

import pytest
from support.harness import PipedRun, alive

if TYPE_CHECKING:
    import acp

END_S = 30  # how long the run may take to end once stdin is closed; it ends at once when it works


def sdk():
    """The official ACP client, imported when a test first uses it: with pydantic it costs over half a
    CPU-second, which every test process that only collects the ACP tests would pay otherwise."""
    return pytest.importorskip("acp")


@asynccontextmanager
async def ayder_agent(client, *args: str, env: dict, cwd: Path,
                      seams: dict | None = None) -> AsyncIterator[tuple[acp.ClientSideConnection, PipedRun]]:
    """`ayder acp *args` in this process -> (the client's connection to it, the run)."""
    threads, children = set(threading.enumerate()), _children()
    loop = asyncio.get_running_loop()
    run = PipedRun(["acp", *args], env=env, cwd=cwd, stdin=subprocess.PIPE, seams=seams)
    transports = []
    try:
        from_agent, errors = asyncio.StreamReader(), asyncio.StreamReader()
        for pipe, reader in ((run.stdout, from_agent), (run.stderr, errors)):
            transport, _ = await loop.connect_read_pipe(lambda r=reader: asyncio.StreamReaderProtocol(r), pipe)
            transports.append(transport)
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), run.stdin)
        transports.append(transport)
        to_agent = asyncio.StreamWriter(transport, protocol, None, loop)
        connection = sdk().connect_to_agent(client, to_agent, from_agent)
        try:
            yield connection, run
        finally:
            await connection.close()
            to_agent.close()  # the editor closes stdin: ayder ends (its stderr's end says so)
            await asyncio.wait_for(errors.read(), END_S)
            run.wait(END_S)
    finally:
        for transport in transports:
            transport.close()
        run.close()
    assert run.poll() is not None, "ayder acp did not end when stdin closed"
    for thread in set(threading.enumerate()) - threads:  # one still ending (the fake's, its client gone)
        thread.join(END_S)
    left = [thread.name for thread in set(threading.enumerate()) - threads]
    assert not left, f"threads of the run still running: {left}"
    assert _children() <= children, f"processes of the run still running: {_children() - children}"


def _children() -> set[int]:
    """The pids of this process's children still running (Linux's /proc; elsewhere none are seen)."""
    pids: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            pids.update(int(pid) for pid in Path(f"/proc/self/task/{task}/children").read_text().split())
        except OSError:
            continue
    return {pid for pid in pids if alive(pid)}
