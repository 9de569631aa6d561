"""The `ayder` command: flags -> Config -> services -> one mode. Thin on purpose.

main() runs it once with the streams, environment and working directory it is
given (the process's own when none are) and returns the exit status. It changes
nothing of the process -- no environment variable, no directory, no signal
handler -- so the tests run it in-process. entry() is the console script: main()
with SIGTERM and SIGHUP unwinding like Ctrl-C, then the exit.

Only click (and a few small standard modules) is imported at module level, so
`--version` and `--help` stay fast; the HTTP stack and prompt_toolkit load once a
mode needs them.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Mapping

import click

from ayder_cli import __version__
from ayder_cli.setup.deferred import Deferred

PIPED_STDIN_WAIT_S = 1.0
HELP_WIDTH = 100  # the most columns --help uses, however wide the terminal
DOCTOR, IMPLEMENT, ONE_SHOT, REPL, SCRIPT = "doctor", "implement", "one-shot", "REPL", "script"


@dataclass(frozen=True)
class Invocation:
    """What one run is given: its streams, environment and working directory."""

    stdin: IO | None  # text or bytes; None: there is no stdin at all
    stdout: IO[str]
    stderr: IO[str]
    env: Mapping[str, str]
    cwd: Path | None  # resolved; None: it has been removed

    @classmethod
    def of(cls, stdin: IO | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None,
           env: Mapping[str, str] | None = None, cwd: str | os.PathLike | None = None) -> Invocation:
        """What is given, and the process's own for the rest."""
        return cls(stdin=sys.stdin if stdin is None else stdin, stdout=sys.stdout if stdout is None else stdout,
                   stderr=sys.stderr if stderr is None else stderr, env=dict(os.environ if env is None else env),
                   cwd=_directory(cwd))

    def path(self, given: str) -> Path:
        """A path from the command line: `~` is this run's HOME; a relative path starts at its directory."""
        path = Path(given)
        if (given == "~" or given.startswith("~/")) and self.env.get("HOME"):
            path = Path(self.env["HOME"], given[2:])
        elif given.startswith("~"):
            path = path.expanduser()
        return path if path.is_absolute() or self.cwd is None else self.cwd / path


def _directory(given: str | os.PathLike | None) -> Path | None:
    """The working directory, resolved (so symlinks cannot move it later); None if it is gone."""
    try:
        path = Path(os.getcwd() if given is None else given).resolve()
    except OSError:
        return None
    return path if path.is_dir() else None


def _write_and_exit(ctx: click.Context, text: str) -> None:
    """--help and --version: the text on the run's stdout, then the end of the run."""
    click.echo(text, file=ctx.obj.stdout if isinstance(ctx.obj, Invocation) else None, color=ctx.color)
    ctx.exit()


def _show_help(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        _write_and_exit(ctx, ctx.get_help())


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        _write_and_exit(ctx, f"ayder {__version__}")


# --help shows the options in these sections, in this order; an option named in none goes under "Other".
HELP_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Prompt", ("prompt_file", "read_stdin")),
    ("Model and server", ("provider", "model", "base_url", "config_file", "num_ctx", "temperature", "max_tokens",
                          "iterations", "doctor")),
    ("System prompt and tools", ("prompts", "system_text", "no_instructions", "tool_groups")),
    ("Permissions", ("allow_read", "allow_write", "allow_execute", "root")),
    ("Sessions", ("continue_session", "resume_id", "restore")),
    ("Tasks", ("list_tasks", "implement_id", "implement_all")),
    ("Output", ("json_events", "no_stream", "show_thinking", "no_color", "verbose", "debug")),
)

HELP_FILES = (  # where ayder reads its config (later wins) and keeps its state
    ("~/.config/ayder/config.json", "your config ($XDG_CONFIG_HOME/ayder/ when that is set)"),
    (".ayder/config.json", "the project's config, over yours"),
    ("--config FILE", "over both; then the environment, then the flags"),
    (".ayder/", "the project's sessions, tasks and checkpoint"),
    ("~/.local/state/ayder/", "the prompt history ($XDG_STATE_HOME/ayder/ when set)"),
)

HELP_ENVIRONMENT = (
    ("AYDER_PROVIDER", "the provider: ollama or openai"),
    ("AYDER_MODEL", "the model"),
    ("AYDER_BASE_URL", "the server's URL"),
    ("OLLAMA_HOST", "Ollama's address (host, host:port or a URL)"),
    ("OPENAI_BASE_URL", "an OpenAI-compatible server's URL (.../v1)"),
    ("OPENAI_API_KEY", "its API key (or the variable api_key_env names in the config)"),
    ("NO_COLOR", "no colours"),
    ("XDG_CONFIG_HOME", "where your config is (default ~/.config)"),
    ("XDG_STATE_HOME", "where the history is (default ~/.local/state)"),
)


class _Command(click.Command):
    """A click command whose help goes to the run's stdout, which need not be the process's, with
    its options in sections, and the config files and environment variables at the end."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.callback = _show_help
        return option

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows: dict[str, tuple[str, str]] = {}
        for param in self.get_params(ctx):
            if isinstance(param, click.Argument):  # the usage line shows it
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                rows[param.name or ""] = record
        for title, names in HELP_SECTIONS:
            section = [rows.pop(name) for name in names if name in rows]
            if section:
                with formatter.section(title):
                    formatter.write_dl(section)
        if rows:
            with formatter.section("Other"):
                formatter.write_dl(list(rows.values()))

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Config files, later wins"):
            formatter.write_dl(list(HELP_FILES))
        with formatter.section("Environment"):
            formatter.write_dl(list(HELP_ENVIRONMENT))


@click.command(cls=_Command,
               context_settings={"help_option_names": ["-h", "--help"], "max_content_width": HELP_WIDTH})
@click.argument("prompt", nargs=-1)
@click.option("-f", "--file", "prompt_file", metavar="FILE", help="Read the prompt from FILE.")
@click.option("--stdin", "read_stdin", is_flag=True, help="Read the whole of stdin as one prompt.")
@click.option("-p", "--provider", type=click.Choice(["ollama", "openai"]), help="Server type.")
@click.option("-m", "--model", metavar="NAME", help="Model name.")
@click.option("--base-url", metavar="URL", help="Server URL (Ollama: http://host:11434; OpenAI: .../v1).")
@click.option("-c", "--config", "config_file", metavar="FILE", help="Extra config file (JSON), over the others.")
@click.option("--prompts", metavar="LIST", help="Comma-separated prompt names from prompts/, joined in order.")
@click.option("--no-instructions", is_flag=True, help="Leave AGENTS.md and other instruction files out of the prompt.")
@click.option("--tools", "tool_groups", metavar="LIST",
              help="Tool groups offered besides core: files, processes, tasks, memory, or all.")
@click.option("-r", "--allow-read", is_flag=True, help="Read tools run without asking (the default).")
@click.option("-w", "--allow-write", is_flag=True, help="Write tools (write_file, ...) run without asking.")
@click.option("-x", "--allow-execute", is_flag=True, help="Commands (run_shell_command, ...) run without asking.")
@click.option("--root", metavar="DIR", help="Project root: tools stay inside it (default: the current directory).")
@click.option("--continue", "continue_session", is_flag=True, help="Resume this project's latest session.")
@click.option("--resume", "resume_id", metavar="ID", help="Resume a session by id or by its /save name.")
@click.option("--restore", is_flag=True, help="Start from the checkpoint in .ayder/memory/ (see /memory).")
@click.option("--tasks", "list_tasks", is_flag=True, help="List the tasks in .ayder/tasks/ and exit.")
@click.option("--implement", "implement_id", metavar="TASK", help="Run the agent on one task (id, number or title).")
@click.option("--implement-all", is_flag=True, help="Run the agent on every pending task, in order.")
@click.option("--doctor", is_flag=True,
              help="Check the server and model (tool calls, streaming, prompt cache) and exit.")
@click.option("-I", "--iterations", type=click.IntRange(min=1), metavar="N", help="Tool iterations per message.")
@click.option("--num-ctx", type=click.IntRange(min=256), metavar="N",
              help="Context window in tokens (default: what the server serves).")
@click.option("--temperature", type=float, metavar="T", help="Sampling temperature, 0 to 2 (default: the server's).")
@click.option("--max-tokens", type=int, metavar="N", help="Most tokens in one reply (default 4096).")
@click.option("--system", "system_text", metavar="TEXT",
              help="System prompt for this run (replaces prompts/); @FILE reads it.")
@click.option("--json", "json_events", is_flag=True,
              help="Events as JSON Lines on stdout (see README); the rest on stderr.")
@click.option("--no-stream", is_flag=True, help="Wait for the whole reply instead of streaming it.")
@click.option("--show-thinking/--hide-thinking", default=None, help="Show the model's thinking (dimmed, on stderr).")
@click.option("--no-color", is_flag=True, help="No colours or Markdown styling (as NO_COLOR=1 does).")
@click.option("-v", "--verbose", is_flag=True, help="Request metadata on stderr (never the API key).")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and exit.")
@click.pass_obj
def cli(given: Invocation | None, **options) -> int:
    """Chat with a local Ollama or any OpenAI-compatible server.

    \b
    Modes:
      ayder "PROMPT"             one-shot; piped stdin is attached as context
      ayder                      interactive REPL (stdin is a terminal)
      cat script.txt | ayder     piped script: each line as if typed at the REPL

    \b
    Exit codes: 0 ok, 1 runtime failure, 2 usage or config error,
    130 interrupted, 129 hung up (SIGHUP), 143 terminated (SIGTERM).
    """
    return run(options, given if isinstance(given, Invocation) else Invocation.of())


def main(argv: list[str] | None = None, stdin: IO | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None, env: Mapping[str, str] | None = None,
         cwd: str | os.PathLike | None = None) -> int:
    """Run ayder once; its exit status.

    What is not given is the process's own: sys.argv, sys.stdin/stdout/stderr, os.environ and
    the working directory. stdin may be text or bytes (bytes are read so that none can fail).
    """
    given = Invocation.of(stdin, stdout, stderr, env, cwd)
    try:
        code = cli.main(args=argv, prog_name="ayder", standalone_mode=False, obj=given,
                        terminal_width=_help_width(given))
    except click.UsageError as exc:  # a wrong flag or value: said as ayder says its own usage errors
        _usage_error(exc, given, no_color="--no-color" in (sys.argv[1:] if argv is None else argv))
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show(file=given.stderr)
        code = exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        code = 130
    return int(code or 0)


def _usage_error(exc: click.UsageError, given: Invocation, no_color: bool) -> None:
    """`error: …` and a hint line on stderr, as every other error is written."""
    from ayder_cli.terminal.console import Console, Terminal

    message = exc.format_message()
    message = message[:1].lower() + message[1:] if message[1:2].islower() else message
    console = Console(Terminal.for_streams(None, given.stdout, given.stderr, given.env, no_color=no_color))
    try:
        console.error(message, "ayder --help lists the options")
    except (OSError, ValueError):
        pass


def entry() -> None:
    """The console script: main() for this process, SIGTERM and SIGHUP unwinding like Ctrl-C; then exit."""
    from ayder_cli.terminal.signals import ending_cleanly  # light enough for --version

    code = None
    with ending_cleanly() as ending:
        code = main()
    sys.exit(ending.exit_status(code))


def _help_width(given: Invocation) -> int:
    """The width click gives --help for this run's stdout, worked out as it would for the process's."""
    columns = given.env.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() else 0
    if width <= 0:
        try:
            width = os.get_terminal_size(given.stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            width = 0
    return max(min(width or 80, HELP_WIDTH) - 2, 50)


def run(options: dict, given: Invocation) -> int:
    """Resolve config, build services once, run the mode. Every error becomes one or two lines."""
    if options["json_events"]:  # the loop's events as JSON Lines on stdout; stderr as always
        from ayder_cli.terminal.json_events import JsonEvents as console_class
    else:
        from ayder_cli.terminal.console import Console as console_class

    console = console_class(_terminal(given, options["no_color"]), verbose=options["verbose"])
    status = _run_reporting_errors(options, given, console)
    if options["json_events"]:
        try:
            console.finish(status)  # the last line of stdout: the answer, the status and the totals
        except (BrokenPipeError, OSError):
            pass  # nobody reads stdout any more
    return status


def _run_reporting_errors(options: dict, given: Invocation, console) -> int:
    from ayder_cli.errors import AyderError, ExitStatus
    from ayder_cli.terminal.signals import Terminated

    try:
        return _start(options, given, console)
    except AyderError as exc:
        if options["debug"]:
            _traceback(console, exc)
        console.error(exc.message, exc.hint)
        return exc.exit_status
    except KeyboardInterrupt:
        console.notice("interrupted")
        return ExitStatus.INTERRUPTED
    except Terminated as exc:  # services.close() has stopped the background processes on the way here
        try:
            console.notice(f"stopped by {exc}")
        except OSError:  # SIGHUP: the terminal may be gone
            pass
        return exc.exit_status
    except BrokenPipeError:
        _quiet_stdout(given.stdout)  # the reader of stdout went away (`ayder ... | head`): stop quietly
        return ExitStatus.ERROR
    except Exception as exc:  # a bug: say so in one line unless asked for details
        if options["debug"]:
            _traceback(console, exc)
        else:
            console.error(f"internal error: {type(exc).__name__}: {exc}", "run again with --debug for the traceback")
        return ExitStatus.ERROR


def _start(options: dict, given: Invocation, console) -> int:
    """Config; then the task list, or services built once and the mode run with them."""
    root = _project_root(options["root"], given)
    config, config_file, flags = _load_config(options, given, root, console)
    if options["list_tasks"]:
        return _list_tasks(root, console)
    mode, one_shot = _mode(options, console, given)
    if mode == REPL and options["json_events"]:
        from ayder_cli.errors import UsageError

        raise UsageError("--json is for runs without a person at the prompt",
                         hint='give a prompt (ayder --json "...") or pipe a script into it')
    console.say_replaced_stdin()
    system = _system_prompt(options["system_text"], given)
    services = Deferred(lambda: _ready_services(options, given, config, root, console, config_file, flags,
                                                system, mode))
    try:
        if mode != REPL or _repl_needs_services_first(options, config, given.env):
            services.get()  # errors in building them (a server to look for, a session) come before any prompt
        return _run_mode(mode, services, options, one_shot, console, config, root, given.env)
    finally:
        services.close()  # background processes end with ayder
        console.settle()


def _repl_needs_services_first(options: dict, config, env: Mapping[str, str]) -> bool:
    """The REPL draws its first prompt before building the services unless it must say something
    they decide first: the session resumed or restored, or the server it looked for."""
    from ayder_cli.setup.config_layers import names_a_server

    return bool(options["continue_session"] or options["resume_id"] or options["restore"]
                or not names_a_server(config, env))


def _ready_services(options: dict, given: Invocation, config, root: Path, console, config_file, flags,
                    system: str | None, mode: str):
    """The services built once, with what the mode needs done before its first message."""
    from ayder_cli.setup.services import build_services

    granted = {"r"} | {letter for letter, key in (("w", "allow_write"), ("x", "allow_execute")) if options[key]}
    services = build_services(config, env=given.env, root=root, console=console, config_file=config_file,
                              flags=flags, granted=granted, use_instructions=not options["no_instructions"],
                              cwd=given.cwd)
    try:
        if system is not None:
            services.use_system_prompt(system)
        if options["json_events"]:
            console.watch(services)
        _prepare(services, options, mode)
    except BaseException:
        services.close()
        raise
    return services


def _load_config(options: dict, given: Invocation, root: Path, console):
    """The config from every layer, the flags last -> (config, the --config file, the flags)."""
    from ayder_cli.setup.config_layers import load_config

    flags = {
        "provider": options["provider"],
        "model": options["model"],
        "base_url": options["base_url"],
        "prompts": options["prompts"],
        "tool_groups": options["tool_groups"],
        "iterations": options["iterations"],
        "num_ctx": options["num_ctx"],
        "temperature": options["temperature"],
        "max_tokens": options["max_tokens"],
        "stream": False if options["no_stream"] else None,
        "show_thinking": options["show_thinking"],
    }
    config_file = given.path(options["config_file"]) if options["config_file"] else None
    config = load_config(env=given.env, root=root, config_file=config_file, flags=flags, warn=console.notice)
    console.show_thinking = config.show_thinking
    return config, config_file, flags


def _system_prompt(given_text: str | None, given: Invocation) -> str | None:
    """--system TEXT, or --system @FILE read from FILE; None: the prompt files as configured."""
    from ayder_cli.errors import UsageError

    if given_text is None:
        return None
    text = given_text
    if given_text.startswith("@"):
        name = given_text[1:]
        if not name:
            raise UsageError("--system @: no file named", hint="give --system @FILE, or the prompt itself")
        try:
            text = given.path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--system {given_text}: cannot read it: {getattr(exc, 'strerror', None) or exc}",
                             hint="give a readable UTF-8 file, or the prompt itself") from None
    if not text.strip():
        raise UsageError(f"--system {given_text}: the system prompt is empty")
    return text.strip("\n")


def _mode(options: dict, console, given: Invocation) -> tuple[str, str | None]:
    """The mode, decided once -> (mode, the one-shot prompt or None)."""
    from ayder_cli.errors import UsageError

    if options["doctor"]:
        return DOCTOR, None
    if options["implement_id"] or options["implement_all"]:
        return IMPLEMENT, None
    prompt = _one_shot_prompt(options, console.terminal, console, given)
    if prompt is not None:
        return ONE_SHOT, prompt
    if console.terminal.stdin_is_tty:
        return REPL, None
    if console.terminal.stdin is None:
        raise UsageError("no prompt and no stdin", hint='give a prompt: ayder "..." (or see ayder --help)')
    return SCRIPT, None


def _prepare(services, options: dict, mode: str) -> None:
    """Before the mode runs: the session resumed, the checkpoint offered, the config logged."""
    from ayder_cli.modes.repl import offer_checkpoint
    from ayder_cli.terminal.signals import adopt_orphans

    if options["continue_session"] or options["resume_id"]:
        services.resume_session(options["resume_id"])
    if mode != DOCTOR and (mode != REPL or options["restore"]):  # without --restore, the REPL asks
        offer_checkpoint(services, restore=options["restore"])
    _log_config(services.console, services.config, services.runtime.endpoint)  # with the server found, if any
    if mode != DOCTOR:
        adopt_orphans()  # tools may run from here: what they detach is stopped at exit too


def _run_mode(mode: str, services, options: dict, one_shot: str | None, console, config, root: Path,
              env: Mapping[str, str]) -> int:
    """Run the mode with `services` (a Deferred: the REPL builds them at its first entry)."""
    from ayder_cli.errors import ExitStatus

    if mode == REPL:
        from ayder_cli.modes.repl import run_repl

        return run_repl(services, console, config, root, env)
    if mode == DOCTOR:
        from ayder_cli.modes.doctor import run_doctor

        return run_doctor(services.get())
    if mode == IMPLEMENT:
        from ayder_cli.modes.implement import implement_all, implement_task

        if options["implement_all"]:
            return implement_all(services.get())
        status, outcome = implement_task(services.get(), options["implement_id"])
        console.info(outcome)
        return status
    if mode == ONE_SHOT:
        result = services.get().loop.run(one_shot)
        if result.interrupted:
            return ExitStatus.INTERRUPTED
        return ExitStatus.ERROR if result.stopped else ExitStatus.OK  # the loop gave up: a failure
    from ayder_cli.modes.repl import run_script

    return run_script(services.get(), console.terminal.stdin)


def _terminal(given: Invocation, no_color: bool):
    """The run's streams as a console.Terminal."""
    from ayder_cli.terminal.console import Terminal

    return Terminal.for_streams(given.stdin, given.stdout, given.stderr, given.env, no_color=no_color)


def _traceback(console, exc: BaseException) -> None:
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


def _list_tasks(root: Path, console) -> int:
    """--tasks: the table on stdout (it is what was asked for), problems on stderr."""
    from ayder_cli.storage.tasks import format_table, load_tasks, task_warnings

    tasks = load_tasks(root)
    console.out.write(format_table(tasks) + "\n")
    console.out.flush()
    for warning in task_warnings(tasks, root):
        console.notice(warning)
    return 0


def _project_root(given_root: str | None, given: Invocation) -> Path:
    """--root DIR, or the working directory; resolved, so symlinks cannot move it later."""
    from ayder_cli.errors import UsageError

    if given_root is None:
        if given.cwd is None:
            raise UsageError("the current directory no longer exists", hint="cd into the project, or give --root DIR")
        return given.cwd
    root = given.path(given_root)
    if not root.is_dir():
        raise UsageError(f"--root {given_root}: not a directory")
    return root.resolve()


def _one_shot_prompt(options: dict, terminal, console, given: Invocation) -> str | None:
    """The one-shot prompt from words, -f and --stdin; None means REPL or script mode."""
    from ayder_cli.errors import UsageError
    from ayder_cli.modes.repl import read_piped_stdin

    words = " ".join(options["prompt"]).strip()
    if options["prompt"] and not words:
        raise UsageError("the prompt is empty")
    if options["prompt_file"] and options["read_stdin"]:
        raise UsageError("use either -f FILE or --stdin, not both")
    if options["prompt_file"]:
        try:
            with open(given.path(options["prompt_file"]), encoding="utf-8") as handle:
                body = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read prompt file {options['prompt_file']}: {getattr(exc, 'strerror', None) or exc}") from None
    elif options["read_stdin"]:
        if terminal.stdin is None:
            raise UsageError("--stdin given but there is no stdin")
        body = terminal.stdin.read()
    elif words and not terminal.stdin_is_tty:
        piped = read_piped_stdin(terminal.stdin, PIPED_STDIN_WAIT_S)
        if piped is None and terminal.stdin is not None:
            console.notice(f"stdin sent nothing within {PIPED_STDIN_WAIT_S:g} s; not attached (use --stdin to wait for it)")
        return attach_context(words, piped or "")
    elif words:
        return words
    else:
        return None
    prompt = "\n\n".join(part for part in (words, body.strip("\n")) if part.strip())
    if not prompt.strip():
        raise UsageError("the prompt is empty")
    return prompt


def attach_context(prompt: str, context: str) -> str:
    """The prompt, then the piped input in a fence longer than any fence inside it."""
    if not context.strip():
        return prompt
    ticks = 3
    while "`" * ticks in context:
        ticks += 1
    fence = "`" * ticks
    return f"{prompt}\n\n{fence}\n{context.rstrip()}\n{fence}"


def _log_config(console, config, endpoint) -> None:
    if not console.verbose:
        return
    sources = config.sources
    has_key = endpoint.provider == "openai" and bool(endpoint.api_key)  # resolved once, in the endpoint
    console.log(
        f"{config.provider} at {config.resolved_base_url} ({sources.get('base_url')}), "
        f"model {config.resolved_model} ({sources.get('model')}), "
        f"API key {'set' if has_key else 'not set'}"
    )
