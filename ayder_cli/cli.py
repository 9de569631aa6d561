"""The `ayder` command: flags -> Config -> services -> one mode. Thin on purpose.

Only click is imported at module level, so `--version` and `--help` stay fast;
the HTTP stack and prompt_toolkit load once a mode needs them.
"""

from __future__ import annotations

import os
import sys

import click

from ayder_cli import __version__

PIPED_STDIN_WAIT_S = 1.0


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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
@click.option("--no-stream", is_flag=True, help="Wait for the whole reply instead of streaming it.")
@click.option("--show-thinking/--hide-thinking", default=None, help="Show the model's thinking (dimmed, on stderr).")
@click.option("-v", "--verbose", is_flag=True, help="Request metadata on stderr (never the API key).")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option(__version__, "--version", prog_name="ayder", message="%(prog)s %(version)s")
def cli(**options) -> int:
    """Chat with a local Ollama or any OpenAI-compatible server.

    \b
    Modes:
      ayder "PROMPT"             one-shot; piped stdin is attached as context
      ayder                      interactive REPL (stdin is a terminal)
      cat script.txt | ayder     piped script: each line as if typed at the REPL

    \b
    Exit codes: 0 ok, 1 runtime failure, 2 usage or config error, 130 interrupted,
    129 hung up (SIGHUP), 143 terminated (SIGTERM).
    """
    return run(options)


def main(argv: list[str] | None = None) -> None:
    from ayder_cli.signals import ending_cleanly  # light: SIGTERM/SIGHUP unwind like Ctrl-C in here

    code = None
    with ending_cleanly() as ending:
        try:
            code = cli.main(args=argv, prog_name="ayder", standalone_mode=False)
        except click.ClickException as exc:
            exc.show()
            code = exc.exit_code
        except (click.exceptions.Abort, KeyboardInterrupt):
            code = 130
    sys.exit(ending.exit_status(code))


def run(options: dict) -> int:
    """Resolve config, build services once, run the mode. Every error becomes one or two lines."""
    from pathlib import Path

    from ayder_cli.console import Console, Terminal
    from ayder_cli.errors import AyderError, ExitStatus
    from ayder_cli.signals import Terminated, adopt_orphans

    env = dict(os.environ)
    terminal = Terminal.from_process(env)
    console = Console(terminal, verbose=options["verbose"])
    try:
        from ayder_cli.config import load_config

        root = _project_root(options["root"])
        flags = {
            "provider": options["provider"],
            "model": options["model"],
            "base_url": options["base_url"],
            "prompts": options["prompts"],
            "tool_groups": options["tool_groups"],
            "iterations": options["iterations"],
            "num_ctx": options["num_ctx"],
            "stream": False if options["no_stream"] else None,
            "show_thinking": options["show_thinking"],
        }
        config_file = Path(options["config_file"]).expanduser() if options["config_file"] else None
        config = load_config(env=env, root=root, config_file=config_file, flags=flags, warn=console.notice)
        console.show_thinking = config.show_thinking
        if options["list_tasks"]:
            return _list_tasks(root, console)
        one_shot = None if options["implement_id"] or options["implement_all"] or options["doctor"] else \
            _one_shot_prompt(options, terminal, console)
        console.say_replaced_stdin()

        from ayder_cli.services import build_services

        granted = {"r"} | {letter for letter, key in (("w", "allow_write"), ("x", "allow_execute")) if options[key]}
        services = build_services(config, env=env, root=root, console=console, config_file=config_file,
                                  flags=flags, granted=granted, use_instructions=not options["no_instructions"],
                                  cwd=_working_directory())
        if options["continue_session"] or options["resume_id"]:
            services.resume_session(options["resume_id"])
        repl = one_shot is None and terminal.stdin_is_tty and not (options["implement_id"] or options["implement_all"])
        if (not repl or options["restore"]) and not options["doctor"]:  # the REPL asks instead
            _offer_checkpoint(services, options["restore"])
        _log_config(console, services.config, env)  # services.config: with the server found, if any
        # The client holds the key now; commands the model runs must not inherit it.
        for name in {"OPENAI_API_KEY", config.api_key_env}:
            os.environ.pop(name, None)
        if not options["doctor"]:
            adopt_orphans()  # tools may run from here: what they detach is stopped at exit too
        try:
            if options["doctor"]:
                from ayder_cli.doctor import run_doctor

                return run_doctor(services)
            if options["implement_id"] or options["implement_all"]:
                from ayder_cli.task_runner import implement_all, implement_task

                if options["implement_all"]:
                    return implement_all(services)
                status, outcome = implement_task(services, options["implement_id"])
                console.info(outcome)
                return status
            return _dispatch(services, one_shot, terminal, env)
        finally:
            services.close()  # background processes end with ayder
            console.settle()
    except AyderError as exc:
        if options["debug"]:
            import traceback

            traceback.print_exc()
        console.error(exc.message, exc.hint)
        return exc.exit_status
    except KeyboardInterrupt:
        console.notice("interrupted")
        return ExitStatus.INTERRUPTED
    except Terminated as exc:  # services.close() above has stopped the background processes
        try:
            console.notice(f"stopped by {exc}")
        except OSError:  # SIGHUP: the terminal may be gone
            pass
        return exc.exit_status
    except BrokenPipeError:
        # The reader of stdout went away (`ayder ... | head`); stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitStatus.ERROR
    except Exception as exc:  # a bug: say so in one line unless asked for details
        if options["debug"]:
            raise
        console.error(f"internal error: {type(exc).__name__}: {exc}", "run again with --debug for the traceback")
        return ExitStatus.ERROR


def _offer_checkpoint(services, restore: bool) -> None:
    """A checkpoint left by an earlier run: --restore starts from it; otherwise say it is there."""
    from ayder_cli.checkpoint import restore_message

    memory = services.loop.memory
    if not memory.exists():
        if restore:
            services.console.notice("--restore: there is no checkpoint in .ayder/memory/; starting fresh")
        return
    if restore:
        services.conversation.add_user(restore_message(memory.summary(), 1))
        services.console.dim_line("restored the checkpoint from .ayder/memory/current_memory.md")
    else:
        services.console.notice("a checkpoint from an earlier run is in .ayder/memory/current_memory.md; "
                                "ayder --restore continues from it (/memory shows it, /memory clear removes it)")


def _list_tasks(root, console) -> int:
    """--tasks: the table on stdout (it is what was asked for), problems on stderr."""
    from ayder_cli.storage.tasks import format_table, load_tasks, task_warnings

    tasks = load_tasks(root)
    print(format_table(tasks))
    for warning in task_warnings(tasks, root):
        console.notice(warning)
    return 0


def _dispatch(services, one_shot: str | None, terminal, env) -> int:
    """The mode, decided once: one-shot, REPL, or piped script."""
    from ayder_cli.errors import ExitStatus, UsageError

    if one_shot is not None:
        result = services.loop.run(one_shot)
        if result.interrupted:
            return ExitStatus.INTERRUPTED
        return ExitStatus.ERROR if result.stopped else ExitStatus.OK  # the loop gave up: a failure
    if terminal.stdin_is_tty:
        from ayder_cli.repl import run_repl

        return run_repl(services, env)
    if terminal.stdin is None:
        raise UsageError("no prompt and no stdin", hint='give a prompt: ayder "..." (or see ayder --help)')
    from ayder_cli.repl import run_script

    return run_script(services, terminal.stdin)


def _project_root(given: str | None):
    """--root DIR, or the current directory; resolved, so symlinks cannot move it later."""
    from pathlib import Path

    from ayder_cli.errors import UsageError

    if given is None:
        return Path.cwd().resolve()
    root = Path(given).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {given}: not a directory")
    return root.resolve()


def _working_directory():
    """The current directory, resolved (None if it was removed): AGENTS.md files are read down to it."""
    from pathlib import Path

    try:
        return Path.cwd().resolve()
    except OSError:
        return None


def _one_shot_prompt(options: dict, terminal, console) -> str | None:
    """The one-shot prompt from words, -f and --stdin; None means REPL or script mode."""
    from ayder_cli.errors import UsageError
    from ayder_cli.repl import read_piped_stdin

    words = " ".join(options["prompt"]).strip()
    if options["prompt"] and not words:
        raise UsageError("the prompt is empty")
    if options["prompt_file"] and options["read_stdin"]:
        raise UsageError("use either -f FILE or --stdin, not both")
    if options["prompt_file"]:
        try:
            with open(os.path.expanduser(options["prompt_file"]), encoding="utf-8") as handle:
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


def _log_config(console, config, env) -> None:
    if not console.verbose:
        return
    from ayder_cli.config import resolve_api_key

    sources = config.sources
    has_key = config.provider == "openai" and bool(resolve_api_key(config, env))
    console.log(
        f"{config.provider} at {config.resolved_base_url} ({sources.get('base_url')}), "
        f"model {config.resolved_model} ({sources.get('model')}), "
        f"API key {'set' if has_key else 'not set'}"
    )
