"""`ayder acp` driven end to end by the official ACP client (agent-client-protocol's client side), over real
pipes to the agent run in this process, with the fake LLM server behind: what an editor sees and what it
changes. The real process where only it shows the point: what reaches its file descriptor 1."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from support.acp_in_process import ayder_agent, sdk
from support.fakellm import FakeLLM, Reply
from support.files import write_json, write_user_config
from support.harness import alive, ayder_command, server_args

NAMED = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "named_server.py")
LIMIT_S = 60  # each exchange: generous for a busy machine; none waits this long when it works


class Editor:
    """The client: records every update, answers each permission question with `choice`."""

    def __init__(self, choice: str = "allow_once") -> None:
        self.choice = choice
        self.updates: list[tuple[str, dict]] = []
        self.permissions: list[dict] = []
        self.running: asyncio.Event | None = None  # set when a command's tool call starts

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append({"tool_call": tool_call.model_dump(by_alias=True, exclude_none=True),
                                 "options": [option.option_id for option in options]})
        schema = sdk().schema
        chosen = schema.AllowedOutcome(outcome="selected", option_id=self.choice)
        return schema.RequestPermissionResponse(outcome=chosen)

    async def session_update(self, session_id, update, **kwargs):
        data = update.model_dump(by_alias=True, exclude_none=True)
        self.updates.append((session_id, data))
        if self.running is not None and data.get("kind") == "execute" and data["sessionUpdate"] == "tool_call":
            self.running.set()

    def of(self, kind: str, session_id: str | None = None) -> list[dict]:
        return [data for sid, data in self.updates
                if data["sessionUpdate"] == kind and session_id in (None, sid)]

    def text(self, kind: str, session_id: str | None = None) -> str:
        return "".join(data["content"]["text"] for data in self.of(kind, session_id))


class EditorWithBuffers(Editor):
    """A client that offers its files: `buffers` are the texts it holds (unsaved), by absolute path."""

    def __init__(self, buffers: dict[str, str]) -> None:
        super().__init__()
        self.buffers = buffers
        self.written: list[tuple[str, str]] = []

    async def read_text_file(self, session_id, path, line=None, limit=None, **kwargs):
        if path not in self.buffers:
            raise sdk().RequestError.resource_not_found(path)
        return sdk().schema.ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id, path, content, **kwargs):
        self.written.append((path, content))
        self.buffers[path] = content
        return sdk().schema.WriteTextFileResponse()


def run(fake, project, editor: Editor, scenario, *flags: str, process: bool = False):
    """Start `ayder acp` in this process, or as the real process (pointed at the fake; None: at the config's
    server), initialize, and run `scenario(connection)` against it."""

    async def main():
        args = [*(server_args(fake, "openai") if fake is not None else []), *flags]
        if process:
            agent = sdk().spawn_agent_process(editor, *ayder_command(), "acp", *args, env=dict(os.environ), cwd=project)
        else:
            agent = ayder_agent(editor, *args, env=dict(os.environ), cwd=project, seams={"local_servers": ()})
        async with agent as (connection, _):
            offers = isinstance(editor, EditorWithBuffers)
            files = sdk().schema.FileSystemCapabilities(read_text_file=offers, write_text_file=offers)
            reply = await asyncio.wait_for(connection.initialize(
                protocol_version=1, client_capabilities=sdk().schema.ClientCapabilities(fs=files)), LIMIT_S)
            assert reply.protocol_version == 1 and reply.agent_capabilities.load_session
            return await asyncio.wait_for(scenario(connection), LIMIT_S)

    return asyncio.run(main())


def said(request: dict) -> str:
    return json.dumps(request["body"]["messages"])


async def prompt(connection, session_id: str, text: str):
    block = sdk().schema.TextContentBlock(type="text", text=text)
    return await connection.prompt(session_id=session_id, prompt=[block])


def test_a_prompt_streams_its_answer_as_chunks(fake, project):
    fake.queue(Reply(text="The answer comes in pieces."))
    editor = Editor()

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        reply = await prompt(connection, session.session_id, "say something")
        return session.session_id, reply

    session_id, reply = run(fake, project, editor, scenario)
    assert reply.stop_reason == "end_turn"
    chunks = editor.of("agent_message_chunk", session_id)
    assert len(chunks) > 1  # streamed, not sent whole at the end
    assert editor.text("agent_message_chunk", session_id) == "The answer comes in pieces."
    assert "say something" in said(fake.chat_requests()[0])


@pytest.mark.parametrize("choice", ["allow_once", "reject"])
def test_a_write_asks_the_editor_and_lands_only_when_allowed(fake, project, choice):
    fake.queue(Reply.calling("write_file", {"file_path": "notes.txt", "content": "from the model\n"}),
               Reply(text="done"))
    editor = Editor(choice)

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        return await prompt(connection, session.session_id, "write the notes")

    reply = run(fake, project, editor, scenario)
    assert reply.stop_reason == "end_turn"
    [asked] = editor.permissions
    assert asked["options"] == ["allow_once", "allow_always", "reject"]
    [diff] = asked["tool_call"]["content"]
    assert diff["type"] == "diff" and diff["newText"] == "from the model\n" and diff["path"].endswith("notes.txt")
    [start] = editor.of("tool_call")
    assert start["kind"] == "edit" and start["locations"] == [{"path": str(project / "notes.txt")}]
    [end] = editor.of("tool_call_update")
    target = project / "notes.txt"
    if choice == "allow_once":
        assert target.read_text() == "from the model\n"
        assert end["status"] == "completed"
        assert any(item["type"] == "diff" and item["newText"] == "from the model\n" for item in end["content"])
    else:
        assert not target.exists()
        assert end["status"] == "failed"
        assert "denied by the user" in said(fake.chat_requests()[1])


# Also the real process: there session/cancel is SIGINT to its main thread, as Ctrl-C at the terminal
# (in this process, a KeyboardInterrupt raised in the thread that runs ayder).
@pytest.mark.parametrize("process", [False, True], ids=["in-process", "process"])
def test_cancel_stops_a_running_command_and_keeps_the_conversation(fake, project, process):
    command = "echo $$ > shell.pid; sleep 60; echo finished > finished.txt"
    fake.queue(Reply.calling("run_shell_command", {"command": command}), Reply(text="still here"))
    editor = Editor()

    async def scenario(connection):
        editor.running = asyncio.Event()
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.create_task(prompt(connection, session.session_id, "run the slow thing"))
        await editor.running.wait()
        while not (project / "shell.pid").is_file() or not (project / "shell.pid").read_text().strip():
            await asyncio.sleep(0.05)  # the shell has written its pid: the command runs
        await connection.cancel(session_id=session.session_id)
        cancelled = await turn
        after = await prompt(connection, session.session_id, "are you there?")
        return cancelled, after

    cancelled, after = run(fake, project, editor, scenario, "-x", process=process)
    assert cancelled.stop_reason == "cancelled"
    assert not alive(int((project / "shell.pid").read_text()))
    assert not (project / "finished.txt").exists()
    assert after.stop_reason == "end_turn"
    assert "run the slow thing" in said(fake.chat_requests()[-1])  # nothing of the turn was lost


def test_a_second_session_keeps_its_own_history(fake, project):
    fake.queue(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    editor = Editor()

    async def scenario(connection):
        first = await connection.new_session(cwd=str(project), mcp_servers=[])
        await prompt(connection, first.session_id, "alpha words")
        second = await connection.new_session(cwd=str(project), mcp_servers=[])
        await prompt(connection, second.session_id, "beta words")
        await prompt(connection, first.session_id, "gamma words")
        return first.session_id, second.session_id

    first, second = run(fake, project, editor, scenario)
    assert first != second
    _, beta, gamma = (said(request) for request in fake.chat_requests())
    assert "beta words" in beta and "alpha words" not in beta
    assert "alpha words" in gamma and "one" in gamma and "beta words" not in gamma
    assert editor.text("agent_message_chunk", second) == "two"


def test_an_mcp_server_the_editor_passes_is_callable(fake, project):
    fake.queue(Reply.calling("named__echo", {"text": "hello"}), Reply(text="done"))
    editor = Editor()
    server = sdk().schema.McpServerStdio(name="named", command=sys.executable, args=[NAMED, "echo"], env=[])

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[server])
        return await prompt(connection, session.session_id, "use the server")

    reply = run(fake, project, editor, scenario)
    assert reply.stop_reason == "end_turn"
    assert [asked["tool_call"]["title"].split("(")[0] for asked in editor.permissions] == ["named__echo"]
    assert "echo ran: hello" in said(fake.chat_requests()[1])
    [end] = editor.of("tool_call_update")
    assert "echo ran: hello" in end["content"][0]["content"]["text"]


def test_session_load_replays_a_saved_session(fake, project):
    fake.queue(Reply.calling("read_file", {"file_path": "facts.txt"}), Reply(text="noted, it is 42"),
               Reply(text="you said 42"))
    (project / "facts.txt").write_text("the number is 42\n")

    async def first_run(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        await prompt(connection, session.session_id, "remember the number in facts.txt")
        return session.session_id

    session_id = run(fake, project, Editor(), first_run)
    editor = Editor()

    async def second_run(connection):
        await connection.load_session(cwd=str(project), session_id=session_id, mcp_servers=[])
        replayed = list(editor.updates)
        return replayed, await prompt(connection, session_id, "what was it?")

    replayed, reply = run(fake, project, editor, second_run)
    kinds = [data["sessionUpdate"] for sid, data in replayed
             if sid == session_id and data["sessionUpdate"] != "available_commands_update"]
    assert kinds[0] == "user_message_chunk" and {"tool_call", "tool_call_update", "agent_message_chunk"} <= set(kinds)
    texts = " ".join(data["content"].get("text", "") for _, data in replayed if isinstance(data.get("content"), dict))
    assert "remember the number in facts.txt" in texts and "noted, it is 42" in texts
    assert reply.stop_reason == "end_turn"
    last = said(fake.chat_requests()[-1])
    assert "remember the number in facts.txt" in last and "the number is 42" in last


def test_stdout_carries_only_protocol_messages(fake, project):
    """Whatever ayder says besides (a notice, the tool activity) goes to stderr: every stdout line is JSON-RPC."""
    import subprocess

    # The real process: what is at stake is its file descriptor 1, which ayder keeps for the protocol
    # and points at stderr for anything else (a print, a command it starts); in-process it has none.

    fake.queue(Reply.calling("run_shell_command", {"command": "echo to-the-terminal"}), Reply(text="done"))
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
             {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}}]
    process = subprocess.Popen([*ayder_command(), "acp", "-x", *server_args(fake, "openai")], cwd=project,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in lines:
            process.stdin.write((json.dumps(line) + "\n").encode())
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in lines]
        session_id = answers[1]["result"]["sessionId"]
        process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
            "sessionId": session_id, "prompt": [{"type": "text", "text": "run it"}]}}) + "\n").encode())
        out, err = process.communicate(timeout=LIMIT_S)
    finally:
        if process.poll() is None:
            process.kill()
    messages = [json.loads(line) for line in out.decode().splitlines()]
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    assert messages[-1] == {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}
    assert "to-the-terminal" in json.dumps(messages)  # in the tool call's update, not loose on stdout


def test_with_the_editors_files_reads_see_its_buffer_and_writes_reach_it(fake, project):
    draft = project / "draft.txt"
    draft.write_text("draft on disk\n")
    fake.queue(Reply.calling("read_file", {"file_path": "draft.txt"}),
               Reply.calling("replace_string", {"file_path": "draft.txt", "old_string": "in the editor",
                                                "new_string": "edited by ayder"}),
               Reply.calling("read_file", {"file_path": "other.txt"}),
               Reply(text="done"))
    (project / "other.txt").write_text("only on disk\n")
    editor = EditorWithBuffers({str(draft): "draft in the editor\n"})

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        return await prompt(connection, session.session_id, "edit the draft")

    reply = run(fake, project, editor, scenario)
    assert reply.stop_reason == "end_turn"
    requests = fake.chat_requests()
    assert "draft in the editor" in said(requests[1]) and "draft on disk" not in said(requests[1])
    assert editor.written == [(str(draft), "draft edited by ayder\n")]  # matched in the buffer, sent to the editor
    assert draft.read_text() == "draft edited by ayder\n"  # and on disk, journaled for /undo
    assert "only on disk" in said(requests[3])  # a file the editor does not hold is read from disk
    [diff] = [item for update in editor.of("tool_call_update") for item in update["content"] if item["type"] == "diff"]
    assert (diff["oldText"], diff["newText"]) == ("draft in the editor\n", "draft edited by ayder\n")


def test_a_slash_command_runs_as_at_the_terminal_and_its_lines_are_the_answer(fake, project):
    fake.queue(Reply(text="first answer"))
    editor = Editor()

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        await prompt(connection, session.session_id, "hello")
        before = len(editor.of("agent_message_chunk"))
        reply = await prompt(connection, session.session_id, "/model other-model")
        shown = "".join(data["content"]["text"] for data in editor.of("agent_message_chunk")[before:])
        return reply, shown

    reply, shown = run(fake, project, editor, scenario)
    assert reply.stop_reason == "end_turn"
    assert "other-model" in shown
    assert len(fake.chat_requests()) == 1  # the command went to no model
    [offered] = [data for _, data in editor.updates if data["sessionUpdate"] == "available_commands_update"]
    assert {"undo", "model", "status"} <= {command["name"] for command in offered["availableCommands"]}


@pytest.mark.parametrize("flags", [(), ("--trust-project",)])
def test_a_projects_server_is_used_only_with_trust_project(fake, project, isolated_env, flags):
    """The project's own config names another server: an editor opening a cloned project sends it nothing,
    unless `ayder acp --trust-project` says so for this run."""
    write_user_config(isolated_env, {"provider": "openai", "base_url": fake.openai_url})
    with FakeLLM(models=("m",)) as other:
        write_json(project / ".ayder" / "config.json", {"base_url": other.openai_url})

        async def scenario(connection):
            session = await connection.new_session(cwd=str(project), mcp_servers=[])
            return await prompt(connection, session.session_id, "hello")

        assert run(None, project, Editor(), scenario, *flags).stop_reason == "end_turn"
        heard = len(other.chat_requests()), len(fake.chat_requests())
    assert heard == ((1, 0) if flags else (0, 1))


def test_a_command_the_deny_list_refuses_is_refused_without_asking_the_editor(fake, project):
    fake.queue(Reply.calling("run_shell_command", {"command": "rm -rf /"}), Reply(text="ok, I will not"))
    editor = Editor()  # it would allow anything it were asked

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        return await prompt(connection, session.session_id, "clean up everything")

    assert run(fake, project, editor, scenario).stop_reason == "end_turn"
    assert editor.permissions == []
    [end] = editor.of("tool_call_update")
    assert end["status"] == "failed"
    assert "is on the shell deny list" in end["content"][0]["content"]["text"]
    assert "is on the shell deny list" in said(fake.chat_requests()[1])  # the model is told why


def test_allow_always_asks_once_for_the_rest_of_the_session(fake, project):
    fake.queue(Reply.calling("write_file", {"file_path": "a.txt", "content": "a\n"}),
               Reply.calling("write_file", {"file_path": "b.txt", "content": "b\n"}),
               Reply(text="both written"))
    editor = Editor("allow_always")

    async def scenario(connection):
        session = await connection.new_session(cwd=str(project), mcp_servers=[])
        return await prompt(connection, session.session_id, "write two files")

    assert run(fake, project, editor, scenario).stop_reason == "end_turn"
    assert len(editor.permissions) == 1
    assert (project / "a.txt").read_text() == "a\n" and (project / "b.txt").read_text() == "b\n"


def test_bad_requests_get_an_error_and_the_agent_goes_on(fake, project, start_ayder):
    """A line that is not JSON, an unknown method, a folder that is not one, a session that does not exist:
    each answered with a JSON-RPC error of one line; the next request is served as if nothing happened."""
    import subprocess

    fake.queue(Reply(text="still fine"))
    process = start_ayder("acp", *server_args(fake, "openai"), stdin=subprocess.PIPE)

    def ask(line: str) -> dict:
        process.stdin.write((line + "\n").encode())
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    assert ask("this is not json")["error"]["code"] == -32700
    unknown = ask(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/fly", "params": {}}))
    assert unknown["error"]["code"] == -32601
    relative = ask(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                               "params": {"cwd": "project", "mcpServers": []}}))
    assert relative["error"]["code"] == -32602 and "absolute path" in relative["error"]["message"]
    missing = ask(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
        "sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}}))
    assert missing["error"]["code"] == -32602 and "session/new" in missing["error"]["message"]
    made = ask(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "session/new",
                           "params": {"cwd": str(project), "mcpServers": []}}))
    session_id = made["result"]["sessionId"]
    process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": {
        "sessionId": session_id, "prompt": [{"type": "text", "text": "hi"}]}}) + "\n").encode())
    out, _ = process.communicate(timeout=LIMIT_S)
    assert json.loads(out.decode().splitlines()[-1])["result"] == {"stopReason": "end_turn"}
