"""The ACP agent: each ACP session is one Session (session/session.py), built for the folder the editor
names, driven by the same loop, tools and pipeline as the REPL.

Requests are served in the order they come, on the main thread, a prompt at a time (ayder is
synchronous: a second session's prompt waits for the first's answer). session/cancel is taken at once
on the reader's thread: it is Ctrl-C for the session's running prompt (`interrupt`, given by main.py:
SIGINT to the main thread, so a command or a streaming reply stops as at the terminal and nothing of the
conversation is lost); a prompt still waiting is answered "cancelled" without running.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from ayder_cli import __version__
from ayder_cli.acp.editor_files import EditorFiles, offered
from ayder_cli.acp.permission import AcpConfirmer
from ayder_cli.acp.updates import AcpConsole, Updates, replay
from ayder_cli.acp.wire import INVALID_PARAMS, METHOD_NOT_FOUND, Connection, RpcError
from ayder_cli.config.config_layers import load_config
from ayder_cli.errors import AyderError
from ayder_cli.session.services import build_session
from ayder_cli.session.session import Session
from ayder_cli.storage.layout import repository_root
from ayder_cli.terminal.environment import Environment

PROTOCOL_VERSION = 1
BUDGET_SPENT = "stopped after "  # how agent/budget.py's Stop begins: the round trips (-I) or checkpoints spent


@dataclass(frozen=True)
class AcpStart:
    """What `ayder acp` was given on its command line, for every session it builds."""

    flags: dict[str, Any] = field(default_factory=dict)  # the config values given as flags
    granted: frozenset[str] = frozenset({"r"})  # what runs without asking the editor (-w, -x)
    config_file: Path | None = None
    use_instructions: bool = True
    verify: tuple[str, ...] = ()
    verbose: bool = False
    trust_project: bool = False  # --trust-project: what the project config sets that needs trust, for this run


@dataclass
class Entry:
    """One ACP session: the Session and what the agent knows of it."""

    session: Session
    updates: Updates
    console: AcpConsole
    cancels: int = 0  # session/cancel received so far: a prompt that came before the last one does not run


class Agent:
    def __init__(self, connection: Connection, environment: Environment, start: AcpStart,
                 log: Callable[[str], None], interrupt: Callable[[], None]) -> None:
        self.connection, self.environment, self.start, self.log = connection, environment, start, log
        self.interrupt = interrupt  # Ctrl-C for the thread that runs the prompts
        self.sessions: dict[str, Entry] = {}
        self._lock = threading.Lock()
        self._running: Entry | None = None
        self.files = (False, False)  # the client's fs/ methods: (reads, writes)
        self._then: list[Callable[[], None]] = []  # sent once the request is answered (the session is known)
        self.handlers = {"initialize": self.initialize, "authenticate": lambda params: {},
                         "session/new": self.new_session, "session/load": self.load_session,
                         "session/prompt": self.prompt}

    # --- the reader's thread

    def arrived(self, message: dict) -> bool:
        """Called on the reader's thread as each request comes; True: handled here (session/cancel)."""
        params = message.get("params") or {}
        entry = self.sessions.get(str(params.get("sessionId"))) if isinstance(params, dict) else None
        if message.get("method") == "session/cancel":
            if entry is not None:
                with self._lock:
                    entry.cancels += 1
                    if self._running is entry:
                        self.interrupt()  # as Ctrl-C at the terminal
            return True
        if message.get("method") == "session/prompt":
            message["cancels"] = entry.cancels if entry is not None else 0
        return False

    # --- the main thread

    def handle(self, message: dict) -> None:
        method, request_id = message.get("method"), message.get("id")
        handler = self.handlers.get(str(method))
        if handler is None:
            if request_id is not None:
                self.connection.fail(request_id, METHOD_NOT_FOUND, f"unknown method {method}")
            return
        try:
            params = message.get("params") or {}
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            result = self.prompt(params, message.get("cancels", 0)) if handler == self.prompt else handler(params)
        except RpcError as exc:
            self._then.clear()
            self.connection.fail(request_id, exc.code, exc.message)
            return
        except AyderError as exc:
            self._then.clear()
            self.connection.fail(request_id, -32603, exc.message + (f" ({exc.hint})" if exc.hint else ""))
            return
        if request_id is not None:
            self.connection.answer(request_id, result)
        then, self._then = self._then, []
        for send in then:
            send()

    def initialize(self, params: dict) -> dict:
        self.files = offered(params.get("clientCapabilities"))
        return {"protocolVersion": PROTOCOL_VERSION,
                "agentCapabilities": {"loadSession": True,
                                      "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
                                      "mcpCapabilities": {"http": True, "sse": False}},
                "authMethods": [], "agentInfo": {"name": "ayder", "title": "ayder", "version": __version__}}

    def new_session(self, params: dict) -> dict:
        entry = self._build(params)
        return {"sessionId": entry.updates.session_id}

    def load_session(self, params: dict) -> dict:
        identifier = params.get("sessionId")
        if not isinstance(identifier, str) or not identifier:
            raise RpcError(INVALID_PARAMS, "sessionId is missing")
        if identifier in self.sessions:  # open here already: its transcript is freed to be resumed again
            self.sessions.pop(identifier).session.close()
        entry = self._build(params, resume=identifier)
        replay(entry.updates, entry.session.conversation.messages)
        return {}

    def prompt(self, params: dict, cancels: int = 0) -> dict:
        entry = self._entry(params)
        text = prompt_text(params.get("prompt"))
        if text.startswith("/"):  # a slash command, as typed at the REPL
            from ayder_cli.acp.commands import run_slash_command

            run_slash_command(entry.session, entry.console, text)
            return {"stopReason": "end_turn"}
        with self._lock:
            if entry.cancels != cancels:  # cancelled while it waited
                return {"stopReason": "cancelled"}
            self._running = entry
        try:
            try:
                result = entry.session.run(text)
            finally:
                with self._lock:
                    self._running = None
        except KeyboardInterrupt:  # the cancel came between two steps the loop guards
            return {"stopReason": "cancelled"}
        return {"stopReason": stop_reason(result)}

    def close(self) -> None:
        for entry in self.sessions.values():
            entry.session.close()
        self.sessions.clear()

    def _entry(self, params: dict) -> Entry:
        entry = self.sessions.get(str(params.get("sessionId")))
        if entry is None:
            raise RpcError(INVALID_PARAMS, f"no session {params.get('sessionId')!r} (session/new makes one)")
        return entry

    def _build(self, params: dict, resume: str | None = None) -> Entry:
        """A Session for the editor's folder, its MCP servers joining the config's."""
        cwd = params.get("cwd")
        if not isinstance(cwd, str) or not Path(cwd).is_absolute() or not Path(cwd).is_dir():
            raise RpcError(INVALID_PARAMS, f"cwd must be an absolute path to a folder, not {cwd!r}")
        root = Path(cwd).resolve()
        home = self.environment.env.get("HOME")
        repo = repository_root(root, Path(home).resolve() if home else None)
        environment = replace(self.environment, stdout=self.environment.stderr, stdin=None, lenient_stdin=None,
                              cwd=root, stdin_is_tty=False, stdout_is_tty=False, stderr_is_tty=False, no_color=True)
        updates = Updates(self.connection.notify)
        files = EditorFiles(self.connection.request, lambda: updates.session_id, reads=self.files[0],
                            writes=self.files[1], log=self.log) if any(self.files) else None
        console = AcpConsole(environment, updates, root, files=files, verbose=self.start.verbose)
        config = load_config(env=environment.env, root=repo, config_file=self.start.config_file,
                             flags=self.start.flags, warn=console.notice, trust=self._trust(repo, console))
        servers = client_servers(params.get("mcpServers") or [])
        if servers:
            config = replace(config, mcp_servers={**servers, **config.mcp_servers})  # the config's own win
        confirmer = AcpConfirmer(self.connection.request, lambda: updates.session_id, lambda: console.current_call,
                                 root, lambda text: updates.mask(text))
        session = build_session(config, environment, root=root, repo_root=repo, console=console,
                                config_file=self.start.config_file, flags=self.start.flags,
                                granted=set(self.start.granted), use_instructions=self.start.use_instructions,
                                verify=self.start.verify, confirmer=confirmer, editor=files)
        try:
            if resume is not None:
                session.resume(resume)
                if session.keeper.current is None or session.keeper.current.id != resume:
                    raise RpcError(INVALID_PARAMS, f"session {resume} could not be resumed (in use, or not found)")
        except BaseException:
            session.close()
            raise
        session_id = session.keeper.current.id if session.keeper.current is not None else f"acp-{id(session)}"
        updates.bind(session_id, session.secrets.mask)
        entry = Entry(session, updates, console)
        self.sessions[session_id] = entry
        from ayder_cli.acp.commands import available_commands  # the commands' modules: once a session is there

        commands = available_commands()
        self._then.append(lambda: updates.send({"sessionUpdate": "available_commands_update",
                                                "availableCommands": commands}))
        return entry


    def _trust(self, repo: Path, console: AcpConsole):
        """Whether the project config may set what needs trust: as remembered from a yes at the terminal, or
        --trust-project for this run; nobody is asked (the editor has no such question)."""

        def decide(path, data, asked):
            from ayder_cli.config.project_trust import decide_trust

            return decide_trust(path, data, asked, root=repo, env=self.environment.env, ask=None,
                                flag=self.start.trust_project, warn=console.notice)

        return decide


def prompt_text(blocks: Any) -> str:
    """The user's message from ACP content blocks: text as it is, a file attached by the editor with its text."""
    if not isinstance(blocks, list) or not blocks:
        raise RpcError(INVALID_PARAMS, "prompt must be a list of content blocks")
    parts = []
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "resource_link":
            parts.append(f"(file: {block.get('uri', '')})")
        elif kind == "resource":
            resource = block.get("resource") or {}
            if "text" in resource:
                parts.append(f"{resource.get('uri', '')}:\n```\n{resource['text']}\n```")
        else:
            raise RpcError(INVALID_PARAMS, f"content of type {kind!r} is not taken (text and files only)")
    text = "\n\n".join(part for part in parts if part.strip())
    if not text.strip():
        raise RpcError(INVALID_PARAMS, "the prompt is empty")
    return text


def stop_reason(result) -> str:
    """ACP's stopReason for how the loop ended a message."""
    if result.interrupted:
        return "cancelled"
    if result.stopped and result.stopped.startswith(BUDGET_SPENT):
        return "max_turn_requests"
    if result.reply is not None and result.reply.finish_reason == "length":
        return "max_tokens"
    return "end_turn"


def client_servers(given: list) -> dict[str, dict[str, Any]]:
    """The MCP servers the editor passes, as the config names them (stdio or HTTP); each asks before it runs."""
    servers = {}
    for server in given:
        if not isinstance(server, dict) or not isinstance(server.get("name"), str):
            raise RpcError(INVALID_PARAMS, "each of mcpServers needs a name")
        pairs = {pair.get("name"): pair.get("value") for pair in server.get("env") or server.get("headers") or ()
                 if isinstance(pair, dict)}
        if server.get("type") in (None, "stdio"):
            servers[server["name"]] = {"command": server.get("command"), "args": list(server.get("args") or ()),
                                       "env": pairs}
        elif server.get("type") == "http":
            servers[server["name"]] = {"url": server.get("url"), "headers": pairs}
        else:
            raise RpcError(INVALID_PARAMS, f"MCP server {server['name']}: type {server.get('type')!r} is not "
                                           "supported (stdio or http)")
    return servers
