"""build_services(): the one place where the objects of a run are wired together."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import urlsplit

from ayder_cli.storage.checkpoint import CheckpointStore
from ayder_cli.setup.config import Config
from ayder_cli.setup.config_checks import check_value
from ayder_cli.setup.config_layers import load_config, names_a_server
from ayder_cli.setup.keys import api_keys, endpoint_of
from ayder_cli.terminal.console import Console
from ayder_cli.agent.conversation import Conversation
from ayder_cli.wording import counted
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.errors import ConfigError
from ayder_cli.setup.instructions import Instructions, environment_note, load_instructions
from ayder_cli.llm import make_client
from ayder_cli.agent.loop import ChatLoop
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.masking import Secrets
from ayder_cli.storage.profiles import ServerProfiles, profiles_path
from ayder_cli.setup.prompts import compose_system_prompt, load_system_prompt
from ayder_cli.setup.runtime import Runtime
from ayder_cli.storage.sessions import Session, SessionInUse, SessionStore
from ayder_cli.storage.transcript import SessionError, load as load_session, usage_of
from ayder_cli.tools import ToolRegistry, default_registry
from ayder_cli.tools.base import ToolContext
from ayder_cli.terminal.confirm import TerminalConfirmer
from ayder_cli.tools.executor import Permissions, ToolExecutor, ToolPolicy
from ayder_cli.tools.leftovers import start_removing_leftovers
from ayder_cli.tools.background import ProcessManager
from ayder_cli.tools.deny import DEFAULT_SHELL_DENY
from ayder_cli.storage.undo import UndoJournal
from ayder_cli.storage.undo_store import UndoStore

if TYPE_CHECKING:
    from ayder_cli.llm.discover import FoundServer


@dataclass
class Services:
    env: Mapping[str, str]
    root: Path
    console: Console
    conversation: Conversation
    loop: ChatLoop
    executor: ToolExecutor  # every tool call goes through it
    sessions: SessionStore | None = None  # transcripts under .ayder/sessions/
    session: Session | None = None  # the transcript this conversation is appended to
    # What the command line said, so /provider can re-resolve the layers.
    config_file: Path | None = None
    flags: dict[str, Any] = field(default_factory=dict)
    # Project instructions (AGENTS.md, ...) in the system prompt; disabled by --no-instructions.
    instructions: Instructions = field(default_factory=Instructions)
    cwd: Path | None = None  # where ayder started: instruction files are read from the root down to it
    leftovers: threading.Thread | None = None  # removes what killed writes left (tools/leftovers.py)
    secrets: Secrets = field(default_factory=Secrets)  # masked in everything printed or saved
    system_text: str | None = None  # --system: the prompt for this run instead of the prompt files

    @property
    def runtime(self) -> Runtime:
        """The server and model in use with their settings: the loop holds it; /model, /provider replace it."""
        return self.loop.runtime

    @property
    def config(self) -> Config:
        return self.loop.runtime.config

    @property
    def window(self) -> str:
        """What the server said of the context window it serves (/status)."""
        return self.loop.runtime.window

    @property
    def tools(self) -> ToolRegistry:
        return self.executor.registry

    @property
    def journal(self) -> UndoJournal | None:
        """What /undo restores."""
        return self.executor.context.journal

    @property
    def processes(self) -> ProcessManager | None:
        """Background commands, killed at exit."""
        return self.executor.context.processes

    def set_values(self, **values: Any) -> None:
        """Change config values for this session (slash commands); validated like the files. A new
        runtime from the next request on: for another model, the window is asked again."""
        checked = {key: check_value(f"/{key}", key, value) for key, value in values.items()}
        sources = {**self.config.sources, **{key: f"/{key}" for key in checked}}
        config = replace(self.config, **checked, sources=sources)
        self.loop.use(runtime_for(config, self.env, self.console, self.secrets, known=self.runtime))

    def switch_provider(self, provider: str) -> None:
        """Re-resolve every layer as if -p PROVIDER had been given (base URL, key, defaults, window)."""
        flags = {**self.flags, "provider": provider, "base_url": None}
        config = load_config(env=self.env, root=self.root, config_file=self.config_file, flags=flags)
        self.loop.use(runtime_for(config, self.env, self.console, self.secrets))
        self.flags = flags

    def record(self, message: dict[str, Any]) -> None:
        """Append one message to the transcript as it happens; a failing disk does not stop the chat."""
        if self.session is None:
            return
        try:
            self.session.append(message)
            if message.get("role") == "assistant":  # the request's tokens are counted by now
                self.session.append_usage(self.loop.usage.totals())
        except SessionError as exc:
            self.console.notice(f"the session transcript stopped: {exc.message}")
            self.session = None

    def new_session(self) -> None:
        """A new conversation gets a new transcript and undo journal, and a fresh environment note."""
        self.conversation.preamble = environment_note(self.root, self.cwd, self.env)
        if self.sessions is not None:
            self._switch_session(self.sessions.start())

    def resume_session(self, identifier: str | None) -> None:
        """--continue (identifier None: the latest) or --resume ID: the transcript's messages and
        the undo journal come back -- unless another ayder is writing to that session."""
        path = self.sessions.latest() if identifier is None else self.sessions.find(identifier)
        if path is None:
            self.console.notice("no earlier session in this project; starting a new one")
            return
        session = Session.resume(path, self.sessions.redact)
        holder = session.lock()
        if holder is not None:
            self._session_in_use(f"session {session.id} is in use by {holder.describe()}")
            return
        if session.lock_error:
            self.console.log(f"session {session.id} is not locked ({session.lock_error})")
        try:
            messages, warnings = load_session(path)
        except SessionError:
            session.close()
            raise
        for warning in warnings:
            self.console.notice(warning)
        self.conversation.messages = messages
        self.loop.usage = SessionUsage()
        self.loop.usage.restore(usage_of(path) or {})  # /usage goes on from the earlier runs
        self._switch_session(session, resumed=True)
        changes = len(self.journal)
        undo = f", {counted(changes, 'change')} to /undo" if changes else ""
        self.console.dim_line(f"resumed session {session.id}: {counted(len(messages), 'message')}{undo}")

    def _session_in_use(self, in_use: str) -> None:
        """The session asked for has another writer: start a new one (the default) or stop with exit 1."""
        if self.config.session_in_use == "fail":
            raise SessionInUse(in_use, hint="wait until it ends, or start without --continue/--resume")
        self.console.notice(f"{in_use}; starting a new session")

    def _switch_session(self, session: Session, resumed: bool = False) -> None:
        """From now on, messages go to session and /undo uses its journal; the old one is let go."""
        if self.session is not None and self.session is not session:
            self.session.close(keep_unanswered=False)
        self.session = session
        self.executor.context.journal = session_journal(session, self.root, self.console, self.secrets, resumed=resumed)

    def offer_tools(self, *groups: str) -> None:
        """A mode needs these tool groups (--implement and /plan: tasks): offered from now on."""
        self.executor.offer(*groups)

    def close(self) -> None:
        """At exit: nothing ayder started keeps running."""
        if self.processes is not None:
            self.processes.kill_all()
        if self.leftovers is not None:
            self.leftovers.join(timeout=1.0)  # a short run still cleans up; a huge project is not waited for
        if self.session is not None:
            self.session.close(keep_unanswered=False)  # another ayder may --continue it now; one
            # this run started that never got a reply is removed: a failed run leaves no transcript

    def reload_prompt(self) -> str:
        """Re-read the prompt files and the project instructions."""
        if self.instructions.enabled:
            self.instructions = read_instructions(self.config, self.env, self.root, self.cwd, self.console)
        prompt = self.system_text
        if prompt is None:
            prompt = load_system_prompt(self.config.prompts, self.root)
        self.conversation.system_prompt = compose_system_prompt(prompt, self.instructions.prompt_block())
        return self.conversation.system_prompt

    def use_system_prompt(self, text: str) -> None:
        """--system: this text instead of the prompt files, for the whole run (project instructions still follow)."""
        self.system_text = text
        self.conversation.system_prompt = compose_system_prompt(text, self.instructions.prompt_block())


def build_services(
    config: Config,
    *,
    env: Mapping[str, str],
    root: Path,
    console: Console,
    config_file: Path | None = None,
    flags: dict[str, Any] | None = None,
    granted: set[str] | None = None,
    use_instructions: bool = True,
    cwd: Path | None = None,
) -> Services:
    secrets = secrets_of(config, env)  # as loaded: a server found below gets no key, /provider may give one
    config = with_discovered_server(config, env, console)
    instructions = (read_instructions(config, env, root, cwd, console) if use_instructions
                    else _no_instructions(console))
    conversation = Conversation(compose_system_prompt(load_system_prompt(config.prompts, root),
                                                      instructions.prompt_block()))
    # After the cached prefix (system prompt, instructions, tools): it changes from run to run.
    conversation.preamble = environment_note(root, cwd, env)
    console.mask_with(secrets)  # from here on, nothing printed shows a key
    sessions = SessionStore(root, redact=secrets.mask, keep=config.max_sessions)
    runtime = runtime_for(config, env, console, secrets)
    config = runtime.config
    tools = default_registry()
    session = sessions.start()
    context = ToolContext(
        root,
        max_output_chars=config.max_tool_output_chars,
        journal=session_journal(session, root, console, secrets),
        processes=ProcessManager(root, max_output_chars=config.max_tool_output_chars),
        shell_deny=(*DEFAULT_SHELL_DENY, *config.tools.get("shell_deny", ())),
        shell_timeout_s=config.shell_timeout_s,
        tool_timeout_s=config.tool_timeout_s,
        mask=secrets.mask,
        env={name: value for name, value in env.items() if name not in ("OPENAI_API_KEY", config.api_key_env)},
    )
    executor = ToolExecutor(
        tools,
        context,
        permissions=Permissions(set(granted or {"r"})),
        confirmer=TerminalConfirmer.for_terminal(console.terminal, mask=secrets.mask),
        policy=ToolPolicy(
            disabled=frozenset(config.tools.get("disabled", ())),
            max_calls_per_message=dict(config.tools.get("max_calls_per_message", {})),
            groups=frozenset(config.tool_groups),
        ),
        warn=console.notice,
        before_confirm=console.end_activity_line,
    )
    loop = ChatLoop(runtime, conversation, console, executor=executor,
                    checkpoints=CheckpointStore(root, mask=secrets.mask), log=console.log,
                    profiles=ServerProfiles(profiles_path(env)))
    services = Services(
        env=env,
        root=root,
        console=console,
        conversation=conversation,
        loop=loop,
        executor=executor,
        sessions=sessions,
        session=session,
        config_file=config_file,
        flags=dict(flags or {}),
        instructions=instructions,
        cwd=cwd,
        leftovers=start_removing_leftovers(root),
        secrets=secrets,
    )
    conversation.on_message = services.record
    return services


def session_journal(session: Session, root: Path, console: Console, secrets: Secrets,
                    resumed: bool = False) -> UndoJournal:
    """The undo journal kept beside the session's transcript; resumed: with the entries of earlier runs."""
    journal = UndoJournal(UndoStore(session.undo_dir, root), warn=console.notice,
                          holds_secret=lambda data: secrets.contains(data.decode("utf-8", "replace")))
    if resumed:
        for warning in journal.load():
            console.notice(warning)
    return journal


def read_instructions(config: Config, env: Mapping[str, str], root: Path, cwd: Path | None,
                      console: Console) -> Instructions:
    """The project instructions; -v lists them, and what the size cap cut is always said."""
    instructions = load_instructions(root, cwd, env, config.instructions, warn=console.notice)
    console.log(f"instructions: {instructions.describe()}")
    if instructions.notice:
        console.notice(instructions.notice)
    return instructions


def _no_instructions(console: Console) -> Instructions:
    instructions = Instructions(enabled=False)
    console.log(f"instructions: {instructions.describe()}")
    return instructions


FOUND = "found on this machine"  # the source of a discovered value, for -v


def with_discovered_server(config: Config, env: Mapping[str, str], console: Console) -> Config:
    """With no server configured anywhere: the first local server that answers (Ollama first)."""
    if names_a_server(config, env):
        return config
    # Loaded here, as make_client loads the HTTP stack: only once a mode needs the network.
    from ayder_cli.llm import discover

    found = discover.find_local_server()
    if found is None:
        ports = ", ".join(str(candidate.port) for candidate in discover.CANDIDATES)
        # Said without -v: a server on another port is not found, and the user should know where ayder looked.
        console.notice(f"no local server answered on {ports}; using Ollama at {config.resolved_base_url} "
                       "(--base-url, OLLAMA_HOST or OPENAI_BASE_URL name another)")
        return config
    console.log(f"found {found.describe()}")
    sources = {**config.sources, "provider": FOUND, "base_url": FOUND}
    # No key from the environment (OPENAI_API_KEY is usually meant for a cloud API) for whatever listens here.
    config = replace(config, provider=found.provider, base_url=found.base_url, sources=sources, api_key_env="")
    return _with_served_model(config, found)


def _with_served_model(config: Config, found: FoundServer) -> Config:
    """No model named: the found server's only model; several without the default is a ConfigError."""
    if config.model is not None or config.sources.get("model", "default") != "default":
        return config
    if len(found.models) == 1:
        return replace(config, model=found.models[0], sources={**config.sources, "model": "the only one served"})
    if len(found.models) > 1 and config.resolved_model not in found.models:
        raise ConfigError(f"no model named, and the {found.kind} server found at {found.base_url} "
                          f"serves {found.model_list()}", hint="pick one with -m NAME")
    return config


def runtime_for(config: Config, env: Mapping[str, str], console: Console, secrets: Secrets,
                known: Runtime | None = None) -> Runtime:
    """`config` resolved once to an endpoint, and a client for it. The window is asked of the server
    unless `known` (the runtime in use) talks to the same model there. The key is masked first."""
    endpoint = endpoint_of(config, env)
    _mask_key(endpoint, secrets, console)
    if known is None or known.endpoint != endpoint:
        client = make_client(endpoint, log=console.log)
    else:
        client = known.client  # only settings the client does not hold changed
    if known is not None and endpoint.serves_as(known.endpoint):
        return Runtime(config, endpoint, client, known.window)
    if known is not None and config.sources.get("num_ctx", "default") == "default":
        config = replace(config, num_ctx=Config.num_ctx)  # what the old model served is not this one's
    config, window = with_served_window(config, client, console)
    return Runtime(config, endpoint, client, window)


def _mask_key(endpoint: Endpoint, secrets: Secrets, console: Console) -> None:
    """The endpoint's key joins the one masking (a server switched to may bring a new one)."""
    was_masking = bool(secrets)
    if secrets.add(endpoint.api_key) and not was_masking:
        console.mask_with(secrets)  # the console wraps its streams once there is something to mask


def with_served_window(config: Config, client, console: Console) -> tuple[Config, str]:
    """The config with num_ctx set to the window the server serves, unless a file or flag set it;
    and what the server said about its window (for /status)."""
    if urlsplit(config.resolved_base_url).hostname == "api.openai.com":
        return config, "not asked (a cloud API)"  # it reports no window, and the round trips cost
    window = client.served_window(config.resolved_model, config.num_ctx)
    if window is None:
        console.log(f"context window: {config.num_ctx} tokens (from the config; the server does not say)")
        return config, "the server does not say"
    console.log(f"context window: {window.describe()}")
    if config.sources.get("num_ctx", "default") == "default":
        return replace(config, num_ctx=window.tokens), f"the server serves {window.describe()}"
    if config.num_ctx and window.tokens < config.num_ctx and config.provider != "ollama":
        console.notice(f"num_ctx is {config.num_ctx}, but the server serves {window.tokens} tokens; "
                       "longer prompts will be cut or refused (lower num_ctx, or restart the server with more)")
    return config, f"set by you; the server serves {window.describe()}"


def secrets_of(config: Config, env: Mapping[str, str]) -> Secrets:
    """The one masking of a session: every API key the config could send (whichever the provider)
    and the values of `secret_env`. Each runtime adds its own key to it (runtime_for)."""
    return Secrets([*(env.get(name, "") for name in config.secret_env), *api_keys(config, env)])
