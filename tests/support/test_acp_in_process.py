"""The in-process `ayder acp` the ACP tests talk to (support/acp_in_process.py): it answers the official
client as the process does, ends when stdin closes, and fails a test whose run leaves something running."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from support import acp_in_process
from support.acp_in_process import ayder_agent


class Client:
    async def session_update(self, session_id, update, **kwargs):  # pragma: no cover - no session here
        pass


def test_it_answers_the_client_and_ends_with_stdin(project):
    async def main():
        async with ayder_agent(Client(), env=dict(os.environ), cwd=project) as (connection, run):
            reply = await asyncio.wait_for(connection.initialize(protocol_version=1), 60)
            assert run.poll() is None  # serving until the client closes stdin
        return reply, run

    reply, run = asyncio.run(main())
    assert reply.protocol_version == 1 and reply.agent_info.name == "ayder"
    assert run.poll() == 0


def test_a_thread_still_running_after_the_run_fails_the_test(project, monkeypatch):
    monkeypatch.setattr(acp_in_process, "END_S", 0.1)  # how long it waits for one to end
    release = threading.Event()
    leftover = threading.Thread(target=release.wait, name="left-running")

    async def main():
        async with ayder_agent(Client(), env=dict(os.environ), cwd=project) as (connection, _):
            await asyncio.wait_for(connection.initialize(protocol_version=1), 60)
            leftover.start()

    try:
        with pytest.raises(AssertionError, match="threads of the run still running: \\['left-running'\\]"):
            asyncio.run(main())
    finally:
        release.set()
        leftover.join()
