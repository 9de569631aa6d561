"""One run from its Options: the config resolved, the mode chosen, the session built once, the
mode run with them; every error said in one or two lines, with its exit status.

The error policy (run) is kept apart from the program (start), as httpie keeps main()
from program(). What only one mode needs is imported when that mode is chosen.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ayder_cli.errors import AyderError, ExitStatus, UsageError
from ayder_cli.modes.oneshot import one_shot_prompt, run_one_shot
from ayder_cli.modes.options import Mode, Options
from ayder_cli.modes.prepare import (project_root, ready_session, repository_root_of, system_prompt,
                                     taken_repository, widened_root)
from ayder_cli.config.schema import Config
from ayder_cli.config.config_layers import load_config, names_a_server
from ayder_cli.session.deferred import Deferred
from ayder_cli.storage.layout import Layout
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.safe_text import safe_text
from ayder_cli.terminal.signals import Terminated

if TYPE_CHECKING:
    from ayder_cli.agent.trajectory import TrajectoryRecorder


def run(options: Options, environment: Environment) -> int:
    """Run the mode the options ask for; its exit status. Every error becomes one or two lines."""
    if options.json_events:  # the loop's events as JSON Lines on stdout; stderr as always
        from ayder_cli.terminal.json_events import JsonEvents as console_class  # only --json needs it
    else:
        console_class = Console

    console = console_class(environment, verbose=options.verbose)
    trajectory = None
    if options.trajectory is not None:  # only --trajectory loads the recorder
        from ayder_cli.agent.trajectory import TrajectoryRecorder

        trajectory = TrajectoryRecorder(environment.path(options.trajectory), warn=console.notice)
    status = _run_reporting_errors(options, environment, console, trajectory)
    if trajectory is not None:
        status = _write_trajectory(trajectory, status, console)
    if options.json_events:
        try:
            console.finish(status)  # the last line of stdout: the answer, the status and the totals
        except (BrokenPipeError, OSError):
            pass  # nobody reads stdout any more
    return status


def _write_trajectory(trajectory: TrajectoryRecorder, status: int, console: Console) -> int:
    """--trajectory: the file written once more, with how the run ended; a run whose path was refused
    writes none. A file that cannot be written is an error of the run."""
    if not trajectory.path_checked:
        return status
    try:
        trajectory.finish(status)
    except OSError as exc:
        console.error(f"--trajectory: cannot write {trajectory.path}: {exc.strerror or exc}")
        return status or ExitStatus.ERROR
    return status


def _run_reporting_errors(options: Options, environment: Environment, console: Console,
                          trajectory: TrajectoryRecorder | None = None) -> int:
    try:
        return _start(options, environment, console, trajectory)
    except AyderError as exc:
        if options.debug:
            _traceback(console, exc)
        console.error(exc.message, exc.hint)
        if trajectory is not None:
            trajectory.error = exc.message
        return exc.exit_status
    except KeyboardInterrupt:
        console.notice("interrupted")
        return ExitStatus.INTERRUPTED
    except Terminated as exc:  # session.close() has stopped the background processes on the way here
        try:
            console.notice(f"stopped by {exc}")
        except OSError:  # SIGHUP: the terminal may be gone
            pass
        return exc.exit_status
    except BrokenPipeError:
        _quiet_stdout(environment.stdout)  # the reader of stdout went away (`ayder ... | head`): stop quietly
        return ExitStatus.ERROR
    except Exception as exc:  # a bug: say so in one line unless asked for details
        if options.debug:
            _traceback(console, exc)
        else:
            console.error(f"internal error: {type(exc).__name__}: {exc}", "run again with --debug for the traceback")
        return ExitStatus.ERROR


def _start(options: Options, environment: Environment, console: Console,
           trajectory: TrajectoryRecorder | None = None) -> int:
    """Config; then the task list, or the session built once and the mode run with it."""
    if trajectory is not None:
        trajectory.check_path(options.trajectory or "")
    root = project_root(options.root, environment)  # the tools' root: --root DIR or the working directory
    repo = repository_root_of(root, environment)  # .ayder/ and the project config: the git work tree's top
    repo = taken_repository(repo, root, environment, console, ask=not options.json_events)
    if repo != root and Layout(root).state.is_dir():  # made by an ayder that kept state where it started
        console.notice(f"{Layout(root).state} is not used: in the git work tree {repo}, ayder keeps its "
                       f"sessions, tasks and config in {Layout(repo).state} (move what you need there)")
    config_file = environment.path(options.config_file) if options.config_file else None
    config = load_config(env=environment.env, root=repo, config_file=config_file, flags=options.config_flags(),
                         warn=console.notice, trust=_trust_decider(options, environment, repo, console))
    if config.project_trust is not None:
        console.log(f"project config: {config.project_trust.describe()}")
    if options.root is None and config.root is not None:
        root = widened_root(config, root, repo)
    if Layout(repo).mcp_json.is_file():  # only then is anything of it loaded
        config = _with_mcp_json(options, environment, repo, console, config)
    console.show_thinking = config.show_thinking
    if options.list_tasks:
        return _list_tasks(repo, console)
    mode, prompt = _mode(options, environment, console)
    console.say_replaced_stdin()
    system = system_prompt(options.system_text, environment)
    session = Deferred(lambda: ready_session(options, environment, config, root, console, config_file,
                                               system, mode, repo_root=repo, trajectory=trajectory))
    try:
        # The REPL draws its first prompt before building the session unless it must say something
        # they decide first: the session resumed or restored, or the server it looked for.
        if mode is not Mode.REPL or options.resuming or options.restore or not names_a_server(config, environment.env):
            session.get()  # errors in building it (a server to look for, a session) come before any prompt
        return _run_mode(mode, session, options, prompt, console, config, root, environment, repo)
    finally:
        session.close()  # background processes end with ayder
        console.settle()


def _trust_decider(options: Options, environment: Environment, root: Path, console: Console):
    """Whether the project's config may set what needs trust: called (and its modules loaded) only when
    it asks for such a setting. The question is asked only with a person at the terminal."""

    def decide(path, data, asked):
        from ayder_cli.config.project_trust import decide_trust

        ask = None
        if environment.stdin_is_tty and environment.stdout_is_tty and not options.json_events:
            from ayder_cli.terminal.trust_question import trust_asker

            ask = trust_asker(environment)
        return decide_trust(path, data, asked, root=root, env=environment.env, ask=ask, flag=options.trust_project,
                            warn=console.notice)

    return decide


def _with_mcp_json(options: Options, environment: Environment, root: Path, console: Console,
                   config: Config) -> Config:
    """The servers of the project's .mcp.json joined to the config once approved (config/project_mcp.py);
    a file that cannot be used is said in one line and the run goes on without it."""
    from ayder_cli.config.project_mcp import McpJsonError, approved, read_servers, with_project_servers

    path = Layout(root).mcp_json
    try:
        data, servers = read_servers(path)
    except McpJsonError as exc:
        console.notice(f"{exc}; its MCP servers are not started")
        return config
    servers = {name: entry for name, entry in servers.items() if name not in config.mcp_servers}  # yours win
    if not servers:
        return config
    ask = None
    if environment.stdin_is_tty and environment.stdout_is_tty and not options.json_events:
        from ayder_cli.terminal.mcp_question import mcp_asker

        ask = mcp_asker(environment)
    if not approved(root, path, data, servers, env=environment.env, ask=ask, flag=options.mcp_trust,
                    warn=console.notice):
        return config
    return with_project_servers(config, servers)


def _mode(options: Options, environment: Environment, console: Console) -> tuple[Mode, str | None]:
    """The mode, decided once -> (mode, the one-shot prompt or None)."""
    if options.doctor:
        return Mode.DOCTOR, None
    if options.implement_id or options.implement_all:
        return Mode.IMPLEMENT, None
    prompt = one_shot_prompt(options, environment, console)
    if prompt is not None:
        return Mode.ONE_SHOT, prompt
    if environment.stdin_is_tty:
        if options.json_events:
            raise UsageError("--json is for runs without a person at the prompt",
                             hint='give a prompt (ayder --json "...") or pipe a script into it')
        return Mode.REPL, None
    if environment.stdin is None:
        raise UsageError("no prompt and no stdin", hint='give a prompt: ayder "..." (or see ayder --help)')
    return Mode.SCRIPT, None


def _run_mode(mode: Mode, session: Deferred, options: Options, prompt: str | None, console: Console,
              config: Config, root: Path, environment: Environment, repo: Path) -> int:
    """Run the mode with `session` (a Deferred: the REPL builds it at its first entry)."""
    # Each mode's module is loaded when it is the one chosen: the REPL's prompt comes sooner.
    if mode is Mode.REPL:
        from ayder_cli.modes.repl import run_repl

        return run_repl(session, console, config, root, environment, repo_root=repo)
    if mode is Mode.DOCTOR:
        from ayder_cli.modes.doctor import run_doctor

        return run_doctor(session.get())
    if mode is Mode.IMPLEMENT:
        from ayder_cli.modes.implement import implement_all, implement_task

        if options.implement_all:
            return implement_all(session.get())
        status, outcome = implement_task(session.get(), options.implement_id)
        console.info(outcome)
        return status
    if mode is Mode.ONE_SHOT:
        return run_one_shot(session.get(), prompt)
    from ayder_cli.modes.script import run_script

    return run_script(session.get(), environment.stdin)


def _traceback(console: Console, exc: BaseException) -> None:
    """--debug: the traceback on stderr, keys masked like everything else printed."""
    import traceback

    console.info("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip("\n"))
    console.settle()


def _quiet_stdout(stdout: IO[str]) -> None:
    """Nothing more reaches stdout, and Python's flush at exit raises nothing. Only the process's
    own stdout is pointed at /dev/null; a stream a caller gave is left to it."""
    if stdout is not sys.stdout:
        return
    try:
        fd = stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return
    os.dup2(os.open(os.devnull, os.O_WRONLY), fd)


def _list_tasks(root: Path, console: Console) -> int:
    """--tasks: the table on stdout (it is what was asked for), problems on stderr."""
    from ayder_cli.storage.tasks import format_table, load_tasks, task_warnings

    tasks = load_tasks(root)
    console.out.write(safe_text(format_table(tasks)) + "\n")  # the titles are the project's text
    console.out.flush()
    for warning in task_warnings(tasks, root):
        console.notice(warning)
    return 0
