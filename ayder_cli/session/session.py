"""Session: one conversation and all it runs on, and the operations that change it.

A Session owns the conversation, the runtime (the server and model in use,
with their settings), the loop that answers messages, the tools, the
transcript and undo journal (resume.py) and how new settings are made
(settings.py). It is the only writer of the runtime: /model, /provider and a
changed setting replace it here, and the loop's context keeper asks it to
narrow the window it assumes. The loop reads the runtime through RuntimeHold,
never assigning it. The REPL, a one-shot run, a piped script and --implement
each drive one Session, built by build_session (services.py); nothing in it is
shared between Sessions, so one process may hold several.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ayder_cli.agent.callbacks import RunResult
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.loop import ChatLoop
from ayder_cli.config.instructions import environment_note
from ayder_cli.config.runtime import Runtime
from ayder_cli.config.schema import Config
from ayder_cli.errors import AyderError
from ayder_cli.masking import Secrets
from ayder_cli.session.resume import SessionKeeper
from ayder_cli.session.settings import Settings
from ayder_cli.storage.undo import UndoJournal
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.tools.background import ProcessManager
from ayder_cli.tools.executor import ToolExecutor

if TYPE_CHECKING:
    from ayder_cli.mcp_servers.tools import McpTools
    from ayder_cli.skills.catalog import Skills


class RuntimeHold:
    """The runtime in use, as the loop, the checks and MCP read it (agent/loop.py RuntimeView); only the
    Session that owns it replaces it, and the window is narrowed here when the loop asks."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @property
    def runtime(self) -> Runtime:
        return self._runtime

    def window(self) -> int | None:
        """num_ctx now: the window the server serves, as far as ayder knows."""
        return self._runtime.config.num_ctx

    def narrow_window(self, num_ctx: int) -> None:
        """The server showed it serves num_ctx tokens (it cut a prompt, or refused one as too long)."""
        self._runtime = replace(self._runtime, config=replace(self._runtime.config, num_ctx=num_ctx))

    def _replace(self, runtime: Runtime) -> None:  # the Session's: see Session._use
        self._runtime = runtime


class Session:
    """One conversation: what it owns, and what the modes and slash commands do to it."""

    def __init__(self, *, environment: Environment, root: Path, repo_root: Path, console: Console,
                 secrets: Secrets, hold: RuntimeHold, conversation: Conversation, loop: ChatLoop,
                 executor: ToolExecutor, keeper: SessionKeeper, settings: Settings,
                 leftovers: threading.Thread | None = None, mcp: McpTools | None = None,
                 skills: Skills | None = None) -> None:
        self.environment = environment
        self.root = root  # the tools' root: no tool reads, writes or runs outside it
        self.repo_root = repo_root  # where .ayder/ is: the git work tree's top (storage/layout.py), or root
        self.console = console
        self.secrets = secrets  # masked in everything printed or saved
        self._hold = hold  # the runtime: written through this Session only
        self.conversation = conversation
        self.loop = loop  # runs one message; reads the runtime through the hold
        self.executor = executor  # every tool call goes through it
        self.keeper = keeper  # the transcript and undo journal this conversation is saved to
        self.skills = skills  # the skills and custom commands (skills/), found at first use
        self.settings = settings  # how a new runtime or system prompt is made
        self.leftovers = leftovers  # removes what killed writes left (tools/leftovers.py)
        self.mcp = mcp  # the MCP servers of the config, started at the first request

    # --- what it holds

    @property
    def runtime(self) -> Runtime:
        """The server and model in use with their settings; /model, /provider and /prompts replace it."""
        return self._hold.runtime

    @property
    def config(self) -> Config:
        return self._hold.runtime.config

    @property
    def window_note(self) -> str:
        """What the server said of the context window it serves, in words (/status)."""
        return self._hold.runtime.window_note

    @property
    def journal(self) -> UndoJournal | None:
        """What /undo restores: the current session's journal, which the tools write to."""
        return self.keeper.journal

    @property
    def state_root(self) -> Path:
        """The folder whose .ayder/ holds this project's sessions, tasks, checkpoint and config."""
        return self.repo_root

    @property
    def processes(self) -> ProcessManager | None:
        """Background commands, killed at exit."""
        return self.executor.context.processes

    # --- what commands and modes do to it

    def run(self, text: str, request: str | None = None) -> RunResult:
        """One user message, answered (agent/loop.py); LLMError when the server fails. With auto_commit, a
        git commit of the files the turn changed follows, whether it answered, stopped, was interrupted or
        failed on the server; `request` is what its message names (None: the text's first line)."""
        if not self.config.auto_commit:
            return self.loop.run(text)
        from ayder_cli.session.auto_commit import TurnFiles, commit_after  # git only for a session that commits
        from ayder_cli.session.commit import WorkTree

        files = TurnFiles(self.journal)
        tree = WorkTree(self.root, self.executor.context.env, self.config.shell_timeout_s)
        try:
            result = self.loop.run(text)
        except AyderError:
            commit_after(tree, files, request or text, info=self.console.info, notice=self.console.notice)
            raise
        commit_after(tree, files, request or text, info=self.console.info, notice=self.console.notice)
        return result

    def use_model(self, model: str) -> None:
        """/model NAME: another model from the next request on; its window is asked again."""
        self.set_values(model=model)

    def set_values(self, **values: Any) -> None:
        """Config values changed for this session (slash commands), validated like the files."""
        self._use(self.settings.with_values(self.runtime, **values))

    def switch_provider(self, provider: str) -> None:
        """/provider NAME: every layer resolved again as with -p NAME."""
        self._use(self.settings.for_provider(self.config, provider))

    def reload_prompt(self) -> str:
        """/reload: the prompt files and project instructions read again; the new system prompt."""
        self.conversation.system_prompt = self.settings.reread_prompt(self.config)
        return self.conversation.system_prompt

    def use_system_prompt(self, text: str) -> None:
        """--system: this text instead of the prompt files, for the whole run."""
        self.conversation.system_prompt = self.settings.given_prompt(text)

    def reset(self) -> None:
        """/reset and each --implement-all task: an empty conversation with a new transcript and undo journal,
        and a fresh environment note."""
        self.conversation.reset()
        self.conversation.preamble = environment_note(self.root, self.environment.cwd, self.environment.env,
                                                      repo=self.repo_root)
        self.keeper.new()

    def resume(self, identifier: str | None) -> None:
        """--continue (None: the latest) or --resume ID: an earlier session's messages, usage and undo journal."""
        messages = self.keeper.resume(identifier, fail_in_use=self.config.session_in_use == "fail")
        if messages is not None:
            self.conversation.messages = messages

    def compact(self) -> bool:
        """/compact: older turns replaced by the model's summary of them; True if applied."""
        return self.loop.context.compact()

    def close(self) -> None:
        """At exit: nothing ayder started keeps running."""
        if self.processes is not None:
            self.processes.kill_all()
        if self.mcp is not None:
            self.mcp.close()
        if self.executor.edits is not None:
            self.executor.edits.close()  # the language servers
        if self.leftovers is not None:
            self.leftovers.join(timeout=1.0)  # a short run still cleans up; a huge project is not waited for
        self.keeper.close()

    def _use(self, runtime: Runtime) -> None:
        """Talk through `runtime` from the next request on; the loop starts learning again if it is another
        server or model."""
        previous = self._hold.runtime
        self._hold._replace(runtime)
        self.loop.runtime_replaced(previous)
