"""The README's editor settings for `ayder acp`, tried as written: the command and arguments each
editor's block names start an agent the official ACP client can talk to (the settings a user copies
are the ones the tests run, with the installed `ayder` standing for the path a user fills in)."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest


from support.acp_in_process import sdk
from support.fakellm import Reply
from support.harness import ayder_command

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
SECTION = README.split("\n## In your editor (ACP)\n", 1)[1].split("\n## ", 1)[0]
SETTINGS = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", SECTION, re.S)]
LIMIT_S = 60  # generous for a busy machine; none waits this long when it works


class Editor:
    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def request_permission(self, session_id, tool_call, options, **kwargs):  # pragma: no cover
        raise AssertionError("a plain answer asks nothing")

    async def session_update(self, session_id, update, **kwargs):
        data = update.model_dump(by_alias=True, exclude_none=True)
        if data["sessionUpdate"] == "agent_message_chunk":
            self.chunks.append(data["content"]["text"])


def test_the_readme_gives_settings_for_two_editors():
    assert len(SETTINGS) == 2
    assert all(list(setting["agent_servers"]) == ["ayder"] for setting in SETTINGS)


@pytest.mark.parametrize("setting", SETTINGS, ids=["zed", "jetbrains"])
def test_an_editors_settings_start_an_agent_that_answers(setting, fake, project):
    server = setting["agent_servers"]["ayder"]
    assert Path(server["command"]).name == "ayder"  # "ayder", or the full path `command -v ayder` prints
    fake.queue(Reply(text="Hello from the settings."))
    editor = Editor()
    # The settings name no server (the default, Ollama on this machine) or Ollama by name: the fake
    # stands at OLLAMA_HOST, as a user's own server would.
    # A real process, as the editor starts it: its command line and the `env` block as the process's own.
    env = {**os.environ, **server.get("env", {}), "OLLAMA_HOST": fake.url}

    async def main():
        async with sdk().spawn_agent_process(editor, *ayder_command(), *server["args"], env=env,
                                           cwd=project) as (connection, process):
            await asyncio.wait_for(connection.initialize(protocol_version=1), LIMIT_S)
            session = await asyncio.wait_for(connection.new_session(cwd=str(project), mcp_servers=[]), LIMIT_S)
            return await asyncio.wait_for(connection.prompt(
                session_id=session.session_id, prompt=[sdk().schema.TextContentBlock(type="text", text="hi")]), LIMIT_S)

    reply = asyncio.run(main())
    assert reply.stop_reason == "end_turn"
    assert "".join(editor.chunks) == "Hello from the settings."
    assert "/api/chat" in fake.chat_requests()[0]["path"]
