"""Before a mode runs: the project root and the --system prompt read from the options, the session
built once, the session resumed, a checkpoint offered, the config logged."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ayder_cli.errors import UsageError
from ayder_cli.llm.providers import provider_named
from ayder_cli.modes.options import Mode, Options
from ayder_cli.storage.layout import doubt_about, repository_root
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment

if TYPE_CHECKING:
    from ayder_cli.agent.trajectory import TrajectoryRecorder
    from ayder_cli.config.schema import Config
    from ayder_cli.session.session import Session

CHECKPOINT_THERE = "a checkpoint from an earlier run is in .ayder/memory/current_memory.md"


def project_root(given_root: str | None, environment: Environment) -> Path:
    """--root DIR, or the working directory; resolved, so symlinks cannot move it later."""
    if given_root is None:
        if environment.cwd is None:
            raise UsageError("the current directory no longer exists", hint="cd into the project, or give --root DIR")
        return environment.cwd
    root = environment.path(given_root)
    if not root.is_dir():
        raise UsageError(f"--root {given_root}: not a directory")
    return root.resolve()


def repository_root_of(root: Path, environment: Environment) -> Path:
    """The repository root for a run whose tools start at root (storage/layout.py decides)."""
    home = environment.env.get("HOME")
    return repository_root(root, Path(home).resolve() if home else None)


def taken_repository(repo: Path, root: Path, environment: Environment, console: Console, ask: bool) -> Path:
    """The work tree's top as the project, unless something about it is doubtful (another user's, a
    .git file pointing elsewhere): then only if the user says so at the terminal; else `root`, said once."""
    doubt = doubt_about(repo) if repo != root else None
    if doubt is None:
        return repo
    if ask and environment.stdin_is_tty and environment.stdout_is_tty:
        from ayder_cli.terminal.confirm import ask_on_terminal, visible  # only when there is a question

        if ask_on_terminal(environment, lambda paint: f"{visible(str(repo))} holds the git work tree ayder "
                                                      f"started in, but {visible(doubt)}.\n",
                           "Take it as the project (its AGENTS.md, config and sessions)? [y/N] "):
            return repo
    console.notice(f"{repo} holds a git work tree, but {doubt}: not taken as the project; ayder keeps its "
                   f"state in {root} (--root {repo} takes it)")
    return root


def widened_root(config: Config, start: Path, repository: Path) -> Path:
    """The config's `root` (no --root given): a directory holding `start`, the working directory.
    Relative to the repository root, so "." widens the tools to the whole work tree."""
    value = config.root or ""
    where = f'"root" {value} ({config.sources.get("root", "config")})'
    given = Path(value).expanduser()
    root = given if given.is_absolute() else repository / given
    if not root.is_dir():
        raise UsageError(f"{where}: not a directory")
    root = root.resolve()
    if not start.is_relative_to(root):
        raise UsageError(f"{where}: {root} does not hold the current directory {start}",
                         hint="the config's root can only widen the tools' reach; --root DIR moves it")
    return root


def system_prompt(given_text: str | None, environment: Environment) -> str | None:
    """--system TEXT, or --system @FILE read from FILE; None: the prompt files as configured."""
    if given_text is None:
        return None
    text = given_text
    if given_text.startswith("@"):
        name = given_text[1:]
        if not name:
            raise UsageError("--system @: no file named", hint="give --system @FILE, or the prompt itself")
        try:
            text = environment.path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--system {given_text}: cannot read it: {getattr(exc, 'strerror', None) or exc}",
                             hint="give a readable UTF-8 file, or the prompt itself") from None
    if not text.strip():
        raise UsageError(f"--system {given_text}: the system prompt is empty")
    return text.strip("\n")


def ready_session(options: Options, environment: Environment, config: Config, root: Path, console: Console,
                   config_file: Path | None, system: str | None, mode: Mode, repo_root: Path | None = None,
                  trajectory: TrajectoryRecorder | None = None) -> Session:
    """The session built once, with what the mode needs done before its first message.
    root: the tools' root; repo_root: where .ayder/ is (None: root); trajectory: --trajectory's recorder."""
    # Loaded here, not above: the REPL draws its first prompt before the session is built.
    from ayder_cli.session.services import build_session
    from ayder_cli.terminal.signals import adopt_orphans

    if any(not command.strip() for command in options.verify):
        raise UsageError("--verify: the command is empty", hint='give a command, e.g. --verify "pytest -q"')
    session = build_session(config, environment, root=root, repo_root=repo_root, console=console,
                              config_file=config_file,
                              flags=options.config_flags(), granted=options.granted,
                              use_instructions=not options.no_instructions,
                              verify=tuple(command.strip() for command in options.verify), listener=trajectory)
    try:
        if system is not None:
            session.use_system_prompt(system)
        if options.json_events:
            console.watch(session)
        if trajectory is not None:
            watch_for_trajectory(session, trajectory)
        if options.resuming:
            session.resume(options.resume_id)
        if mode is not Mode.DOCTOR and (mode is not Mode.REPL or options.restore):  # without --restore, the REPL asks
            offer_checkpoint(session, restore=options.restore)
        _log_config(console, session.config, session.runtime.endpoint,  # with the server found
                    session.executor.context.sandbox)
        if session.state_root != root:
            console.log(f"root: {root}, in the git work tree {session.state_root} (which holds .ayder/)")
        if mode is not Mode.DOCTOR:
            adopt_orphans()  # tools may run from here: what they detach is stopped at exit too
    except BaseException:
        session.close()
        raise
    return session


def watch_for_trajectory(session: Session, trajectory: TrajectoryRecorder) -> None:
    """--trajectory: the recorder (which hears the loop's callbacks, given to build_session) reads the
    run's system prompt, model, session and tools from the session."""
    keeper = session.keeper
    trajectory.watch(system=lambda: session.conversation.system_prompt, model=lambda: session.config.resolved_model,
                     session_id=lambda: keeper.current.id if keeper.current is not None else None,
                     tools=session.executor.schemas, mask=session.secrets.mask)


def offer_checkpoint(session: Session, restore: bool = False, ask: Callable[[str], str] | None = None) -> None:
    """A checkpoint left by an earlier run: --restore starts from it; the REPL asks (`ask` puts a
    question and reads the answer); other modes say it is there and how to use it."""
    from ayder_cli.agent.checkpoint import restore_message

    checkpoints, console = session.loop.checkpoints, session.console
    if checkpoints is None or not checkpoints.exists():
        if restore:
            console.notice("--restore: there is no checkpoint in .ayder/memory/; starting fresh")
        return
    if restore or (ask is not None and _wants_the_checkpoint(session, ask)):
        session.conversation.add_user(restore_message(checkpoints.summary(), 1))
        console.dim_line("restored the checkpoint from .ayder/memory/current_memory.md")
    elif ask is None:
        console.notice(f"{CHECKPOINT_THERE}; ayder --restore continues from it "
                       "(/checkpoint show shows it, /checkpoint clear removes it)")


def _wants_the_checkpoint(session: Session, ask: Callable[[str], str]) -> bool:
    """The REPL's question; a resumed session goes on where it was, unasked."""
    if session.conversation.messages:
        return False
    session.console.notice(CHECKPOINT_THERE)
    try:
        answer = ask("Restore it? [y/N] ")
    except (KeyboardInterrupt, EOFError):
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def _log_config(console: Console, config: Config, endpoint, sandbox) -> None:
    if not console.verbose:
        return
    sources = config.sources
    has_key = provider_named(endpoint.provider).wants_key and bool(endpoint.api_key)  # resolved once, in the endpoint
    console.log(
        f"{config.provider} at {config.resolved_base_url} ({sources.get('base_url')}), "
        f"model {config.resolved_model} ({sources.get('model')}), "
        f"API key {'set' if has_key else 'not set'}"
    )
    if sandbox is not None:
        console.log(f"sandbox: {sandbox.describe()}")
