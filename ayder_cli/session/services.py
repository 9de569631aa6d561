"""build_session(): the one place where the objects of a run are built, each whole, into a Session."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ayder_cli.agent.callbacks import Also
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.loop import ChatLoop
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.agent.verify import Consent, Verifier, excerpt_limit
from ayder_cli.masking import Secrets
from ayder_cli.config.schema import Config
from ayder_cli.config.instructions import environment_note
from ayder_cli.config.prompts import compose_system_prompt, load_system_prompt
from ayder_cli.session.resume import SessionKeeper
from ayder_cli.session.server import runtime_for, secrets_of, with_discovered_server
from ayder_cli.session.session import RuntimeHold, Session
from ayder_cli.session.side_summary import SideSummaries
from ayder_cli.session.settings import Settings, no_instructions, read_instructions
from ayder_cli.session.url_server import with_server_of_url
from ayder_cli.skills.catalog import Skills
from ayder_cli.skills.tool import WithSkills
from ayder_cli.storage.checkpoint_store import CheckpointStore
from ayder_cli.storage.profiles import ServerProfiles, profiles_path
from ayder_cli.storage.sessions import SessionStore
from ayder_cli.terminal.checks_question import checks_asker
from ayder_cli.terminal.confirm import TerminalConfirmer
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.tool_groups import CORE, MCP_SEPARATOR, tools_of
from ayder_cli.tools import default_registry
from ayder_cli.tools.background import ProcessManager
from ayder_cli.tools.spec import EditorFiles, ToolContext
from ayder_cli.command_policy.deny import DEFAULT_SHELL_DENY
from ayder_cli.tools.executor import Confirmer, Permissions, ToolExecutor, ToolPolicy
from ayder_cli.tools.leftovers import start_removing_leftovers
from ayder_cli.processes.own_process import keep_from_children
from ayder_cli.processes.sandbox import Sandbox

if TYPE_CHECKING:
    from ayder_cli.mcp_servers.server_config import ServerConfig
    from ayder_cli.mcp_servers.tools import McpTools


def build_session(
    config: Config,
    environment: Environment,
    *,
    root: Path,
    console: Console,
    repo_root: Path | None = None,
    config_file: Path | None = None,
    flags: dict | None = None,
    granted: set[str] | None = None,
    use_instructions: bool = True,
    verify: tuple[str, ...] = (),
    confirmer: Confirmer | None = None,
    editor: EditorFiles | None = None,
    listener: object | None = None,
) -> Session:
    """root: the tools' root; repo_root: where .ayder/ is, the project config and the first AGENTS.md
    (None: root); verify: the --verify commands, the user's own (they replace the config's for this run);
    confirmer: who is asked before a call outside the granted set (None: the terminal; ACP: the editor);
    editor: the files as an editor holds them, which the file tools read and write through (ACP);
    listener: hears the loop's callbacks and the checks' reports beside the console (--trajectory's recorder).
    Each object is built whole, in order, from what was built before it: nothing is set on it afterwards."""
    env, cwd = environment.env, environment.cwd
    repo = repo_root or root
    # Undo covers both: the files tools write under root, the task files under repo/.ayder/. Each
    # holds the working directory, so one of them holds the other.
    outer = repo if root.is_relative_to(repo) else root
    secrets = secrets_of(config, env)  # as loaded: a server found below gets no key, /provider may give one
    keep_from_children(secrets)  # wiped from ayder's first environment before a command starts
    policy = _tool_policy(config)
    servers = _mcp_servers(config, env, secrets)
    config = with_discovered_server(config, env, console, environment.local_servers)
    profiles = ServerProfiles(profiles_path(env))
    config = with_server_of_url(config, env, console, profiles)  # a URL given without -p: what it speaks
    instructions = (read_instructions(config, environment, repo, console) if use_instructions
                    else no_instructions(console))
    system_prompt = compose_system_prompt(load_system_prompt(config.prompts, repo, console.notice),
                                          instructions.prompt_block())
    console.mask_with(secrets)  # from here on, nothing printed shows a key
    store = SessionStore(repo, redact=secrets.mask, keep=config.max_sessions)
    hold = RuntimeHold(runtime_for(config, env, console, secrets, pause=environment.pause))
    config = hold.runtime.config
    # The schemas are measured against the window served at the first request.
    mcp = None if servers is None else _mcp_tools(servers, config, env, console, policy, window=hold.window)
    context = ToolContext(
        root,
        repo_root=repo,
        max_output_chars=config.max_tool_output_chars,
        journal=None,  # the transcript's, from keeper.start() below
        processes=ProcessManager(root, max_output_chars=config.max_tool_output_chars),
        shell_deny=(*DEFAULT_SHELL_DENY, *config.tools.get("shell_deny", ())),
        shell_timeout_s=config.shell_timeout_s,
        tool_timeout_s=config.tool_timeout_s,
        mask=secrets.mask,
        env={name: value for name, value in env.items() if name not in ("OPENAI_API_KEY", config.api_key_env)},
        clock=environment.clock,
        sandbox=Sandbox(config.sandbox, root, env, extra=config.sandbox_writable, network=config.sandbox_network,
                        abi_seam=environment.landlock_abi, warn=console.notice),
        watch=_command_view(console, secrets),  # what a command prints, shown as it runs
        editor=editor,
    )
    # The language servers' new diagnostics after each edit: nothing of them loaded before the first edit.
    edits = LazyDiagnostics(lambda: _edit_diagnostics(config, context, console, hold.window))
    # The skills and custom commands, found at the first request or slash line; their catalog measured
    # against the window served then.
    skills = Skills(repo, env, say=console.notice, log=console.log, window=hold.window)
    executor = ToolExecutor(
        WithSkills(default_registry() if mcp is None else mcp.registry(default_registry()), skills, policy.allowed),
        context,
        permissions=Permissions(set(granted or {"r"})),
        confirmer=confirmer or TerminalConfirmer.for_environment(console.environment, mask=secrets.mask),
        policy=policy,
        warn=console.notice,
        before_confirm=console.end_activity_line,
        edits=edits,
    )
    # --verify is the user's consent; the config's commands need -x or a yes at the terminal.
    consent = Consent(bool(verify), lambda: executor.permissions.allows("x"), checks_asker(environment),
                      console.notice)
    callbacks = console if listener is None else Also(console, listener)
    verifier = Verifier(verify or config.verify, executor, consent, report=callbacks.on_check, show=console.info,
                        window=hold.window, warn=console.notice)
    usage = SessionUsage()
    keeper = SessionKeeper(store, usage=usage, tools=context, console=console, secrets=secrets, undo_root=outer)
    # The environment note goes after the cached prefix (system prompt, instructions, tools): it changes
    # from run to run.
    conversation = Conversation(system_prompt, on_message=keeper.record,
                                preamble=environment_note(root, cwd, env, repo=repo))
    loop = ChatLoop(hold, conversation, callbacks, executor=executor,
                    checkpoints=CheckpointStore(repo, mask=secrets.mask), log=console.log,
                    profiles=profiles, verify=verifier, usage=usage,
                    side_summary=SideSummaries(hold, env, usage, console.log))
    keeper.start()  # the first transcript and undo journal; a conversation resumed later replaces them
    settings = Settings(console=console, secrets=secrets, environment=environment, root=repo,
                        instructions=instructions, config_file=config_file, flags=flags)
    return Session(environment=environment, root=root, repo_root=repo, console=console, secrets=secrets,
                   hold=hold, conversation=conversation, loop=loop, executor=executor, keeper=keeper,
                   settings=settings, leftovers=start_removing_leftovers(root), mcp=mcp, skills=skills)


def _tool_policy(config: Config) -> ToolPolicy:
    """The config's tools policy; with an allowlist (tools.enabled), the groups asked for beyond core join it."""
    enabled = config.tools.get("enabled")
    if enabled is not None:
        enabled = frozenset(enabled) | frozenset(tools_of(set(config.tool_groups) - {CORE}))
    return ToolPolicy(
        disabled=frozenset(config.tools.get("disabled", ())),
        max_calls_per_message=dict(config.tools.get("max_calls_per_message", {})),
        groups=frozenset(config.tool_groups),
        enabled=enabled,
    )


def _mcp_servers(config: Config, env, secrets: Secrets) -> dict[str, ServerConfig] | None:
    """The config's MCP servers, checked (the SDK is there), their ${VAR} values added to the secrets before
    anything is printed; None without any (nothing of MCP is loaded)."""
    if not config.mcp_servers:
        return None
    from ayder_cli.mcp_servers.adapter import require_sdk  # not the SDK itself: that waits for a start
    from ayder_cli.mcp_servers.server_config import secrets_of as mcp_secrets
    from ayder_cli.mcp_servers.server_config import servers_of

    require_sdk()
    servers = servers_of(config.mcp_servers)
    secrets.add(*mcp_secrets(servers, env))  # the ${VAR} values of their env and headers
    return servers


def _mcp_tools(servers: dict[str, ServerConfig], config: Config, env, console: Console, policy: ToolPolicy,
               window: Callable[[], int | None]) -> McpTools:
    """The MCP servers' tools, started at the first request."""
    from ayder_cli.mcp_servers.adapter import McpHub
    from ayder_cli.mcp_servers.tools import McpTools

    def hub():
        return McpHub(env)

    return McpTools(servers, hub, say=console.notice, log=console.log, window=window, share=config.mcp_schema_share,
                    allowed=policy.allowed, named=tuple(name for name in policy.enabled or () if MCP_SEPARATOR in name))


class LazyDiagnostics:
    """ToolExecutor.edits: the language servers' new diagnostics after each edit, their package
    (ayder_cli.lsp) imported at the first edit, or when /status or --doctor names the servers."""

    def __init__(self, build) -> None:
        self.build = build
        self.built = None

    def hub(self):
        if self.built is None:
            self.built = self.build()
        return self.built

    def before(self, paths):
        return self.hub().before(paths)

    def after(self, held, result) -> None:
        self.hub().after(held, result)

    def describe(self) -> str:
        return self.hub().describe()

    def close(self) -> None:
        if self.built is not None:
            self.built.close()


def _edit_diagnostics(config: Config, context: ToolContext, console: Console, window):
    from ayder_cli.lsp.after_edit import EditDiagnostics  # at the first edit: start-up is unchanged

    return EditDiagnostics(context.root, config.lsp, env=context.env, sandbox=context.sandbox,
                           limit=lambda: excerpt_limit(window()), log=console.log,
                           report=getattr(console, "on_diagnostics", lambda found: None))


def _command_view(console: Console, secrets: Secrets):
    """ToolContext.watch: each command's output on the console (terminal/command_view.py)."""

    def watch(command: str):
        from ayder_cli.terminal.command_view import CommandView  # at the first command: start-up is unchanged

        return CommandView(console, secrets, command)

    return watch
