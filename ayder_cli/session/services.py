"""build_services(): the one place where the objects of a run are wired together."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.loop import ChatLoop
from ayder_cli.agent.verify import Consent, Verifier
from ayder_cli.masking import Secrets
from ayder_cli.config.schema import Config
from ayder_cli.config.instructions import environment_note
from ayder_cli.config.prompts import compose_system_prompt, load_system_prompt
from ayder_cli.session.resume import SessionKeeper
from ayder_cli.session.server import runtime_for, secrets_of, with_discovered_server
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
from ayder_cli.tools.spec import ToolContext
from ayder_cli.command_policy.deny import DEFAULT_SHELL_DENY
from ayder_cli.tools.executor import Permissions, ToolExecutor, ToolPolicy
from ayder_cli.tools.leftovers import start_removing_leftovers
from ayder_cli.processes.own_process import keep_from_children
from ayder_cli.processes.sandbox import Sandbox

if TYPE_CHECKING:
    from ayder_cli.mcp_servers.tools import McpTools


@dataclass
class Services:
    """The objects of one run, built once; close() ends what they started."""

    environment: Environment
    root: Path  # the tools' root: no tool reads, writes or runs outside it
    console: Console
    conversation: Conversation
    loop: ChatLoop
    executor: ToolExecutor  # every tool call goes through it
    sessions: SessionKeeper  # the transcript and undo journal this conversation is saved to
    settings: Settings  # model, server, config values and system prompt, as commands change them
    secrets: Secrets  # masked in everything printed or saved
    leftovers: threading.Thread | None = None  # removes what killed writes left (tools/leftovers.py)
    mcp: McpTools | None = None  # the MCP servers of the config, started at the first request
    repo_root: Path | None = None  # where .ayder/ is: the git work tree's top (storage/layout.py); None: root
    skills: Skills | None = None  # the skills and custom commands, found at the first request or slash line

    @property
    def state_root(self) -> Path:
        """The folder whose .ayder/ holds this project's sessions, tasks, checkpoint and config."""
        return self.repo_root or self.root

    @property
    def processes(self) -> ProcessManager | None:
        """Background commands, killed at exit."""
        return self.executor.context.processes

    def close(self) -> None:
        """At exit: nothing ayder started keeps running."""
        if self.processes is not None:
            self.processes.kill_all()
        if self.mcp is not None:
            self.mcp.close()
        if self.leftovers is not None:
            self.leftovers.join(timeout=1.0)  # a short run still cleans up; a huge project is not waited for
        self.sessions.close()


def build_services(
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
) -> Services:
    """root: the tools' root; repo_root: where .ayder/ is, the project config and the first AGENTS.md
    (None: root); verify: the --verify commands, the user's own (they replace the config's for this run)."""
    env, cwd = environment.env, environment.cwd
    repo = repo_root or root
    # Undo covers both: the files tools write under root, the task files under repo/.ayder/. Each
    # holds the working directory, so one of them holds the other.
    outer = repo if root.is_relative_to(repo) else root
    secrets = secrets_of(config, env)  # as loaded: a server found below gets no key, /provider may give one
    keep_from_children(secrets)  # wiped from ayder's first environment before a command starts
    policy = _tool_policy(config)
    mcp = _mcp_tools(config, env, console, secrets, policy)
    config = with_discovered_server(config, env, console, environment.local_servers)
    profiles = ServerProfiles(profiles_path(env))
    config = with_server_of_url(config, env, console, profiles)  # a URL given without -p: what it speaks
    instructions = (read_instructions(config, environment, repo, console) if use_instructions
                    else no_instructions(console))
    conversation = Conversation(compose_system_prompt(load_system_prompt(config.prompts, repo, console.notice),
                                                      instructions.prompt_block()))
    # After the cached prefix (system prompt, instructions, tools): it changes from run to run.
    conversation.preamble = environment_note(root, cwd, env, repo=repo)
    console.mask_with(secrets)  # from here on, nothing printed shows a key
    store = SessionStore(repo, redact=secrets.mask, keep=config.max_sessions)
    runtime = runtime_for(config, env, console, secrets, pause=environment.pause)
    config = runtime.config
    context = ToolContext(
        root,
        repo_root=repo,
        max_output_chars=config.max_tool_output_chars,
        journal=None,  # the session's, from keeper.start() below
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
    )
    skills = Skills(repo, env, say=console.notice, log=console.log)
    executor = ToolExecutor(
        WithSkills(default_registry() if mcp is None else mcp.registry(default_registry()), skills, policy.allowed),
        context,
        permissions=Permissions(set(granted or {"r"})),
        confirmer=TerminalConfirmer.for_environment(console.environment, mask=secrets.mask),
        policy=policy,
        warn=console.notice,
        before_confirm=console.end_activity_line,
    )
    # --verify is the user's consent; the config's commands need -x or a yes at the terminal.
    consent = Consent(bool(verify), lambda: executor.permissions.allows("x"), checks_asker(environment),
                      console.notice)
    verifier = Verifier(verify or config.verify, executor, consent, report=console.on_check, show=console.info,
                        window=lambda: loop.config.num_ctx, warn=console.notice)
    loop = ChatLoop(runtime, conversation, console, executor=executor,
                    checkpoints=CheckpointStore(repo, mask=secrets.mask), log=console.log,
                    profiles=profiles, verify=verifier)
    if mcp is not None:  # the schemas are measured against the window served at the first request
        mcp.window = lambda: loop.config.num_ctx
    skills.window = lambda: loop.config.num_ctx  # so is the skills' catalog
    keeper = SessionKeeper(store, conversation=conversation, loop=loop, tools=context, console=console,
                           secrets=secrets, environment=environment, root=root, repo_root=repo, undo_root=outer)
    keeper.start()
    settings = Settings(loop, conversation, console=console, secrets=secrets, environment=environment, root=repo,
                        instructions=instructions, config_file=config_file, flags=flags)
    services = Services(environment=environment, root=root, console=console, conversation=conversation, loop=loop,
                        executor=executor, sessions=keeper, settings=settings, secrets=secrets,
                        leftovers=start_removing_leftovers(root), mcp=mcp, repo_root=repo,
                        skills=skills)
    conversation.on_message = keeper.record
    return services


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


def _mcp_tools(config: Config, env, console: Console, secrets: Secrets, policy: ToolPolicy) -> McpTools | None:
    """The config's MCP servers, started at the first request; None without any (nothing of MCP is loaded)."""
    if not config.mcp_servers:
        return None
    from ayder_cli.mcp_servers.adapter import McpHub, require_sdk  # not the SDK itself: that waits for a start
    from ayder_cli.mcp_servers.server_config import secrets_of as mcp_secrets
    from ayder_cli.mcp_servers.server_config import servers_of
    from ayder_cli.mcp_servers.tools import McpTools

    require_sdk()
    servers = servers_of(config.mcp_servers)
    secrets.add(*mcp_secrets(servers, env))  # the ${VAR} values of their env and headers

    def hub():
        return McpHub(env)

    return McpTools(servers, hub, say=console.notice, log=console.log, share=config.mcp_schema_share,
                    allowed=policy.allowed, named=tuple(name for name in policy.enabled or () if MCP_SEPARATOR in name))


def _command_view(console: Console, secrets: Secrets):
    """ToolContext.watch: each command's output on the console (terminal/command_view.py)."""

    def watch(command: str):
        from ayder_cli.terminal.command_view import CommandView  # at the first command: start-up is unchanged

        return CommandView(console, secrets, command)

    return watch
