"""The `ayder` command: flags -> Options -> one mode (modes/start.py). Thin on purpose.

main() runs it once with the streams, environment and working directory it is
given (the process's own when none are) and returns the exit status; run_in()
does the same with an Environment a caller built. Neither changes anything of
the process -- no environment variable, no directory, no signal handler -- so
the tests run them in-process. entry() is the console script: main() with
SIGTERM and SIGHUP unwinding like Ctrl-C, then the exit.

Only click (and a few small standard modules) is imported at module level, so
`--version` and `--help` stay fast; the HTTP stack and prompt_toolkit load once a
mode needs them.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Mapping

import click

from ayder_cli.llm.providers import PROVIDERS
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.help import (COMPLETE_VAR, HELP_WIDTH, PROGRAM, SHELLS, SectionedCommand, complete_directory,
                                     complete_path, help_width, show_completion, show_config_keys, show_version)


@click.command(cls=SectionedCommand,
               context_settings={"help_option_names": ["-h", "--help"], "max_content_width": HELP_WIDTH})
@click.argument("prompt", nargs=-1)
@click.option("-f", "--file", "prompt_file", metavar="FILE", shell_complete=complete_path,
              help="Read the prompt from FILE.")
@click.option("--stdin", "read_stdin", is_flag=True, help="Read the whole of stdin as one prompt.")
@click.option("-p", "--provider", type=click.Choice(tuple(PROVIDERS)), help="Server type.")
@click.option("-m", "--model", metavar="NAME", help="Model name.")
@click.option("--base-url", metavar="URL", help="Server URL (Ollama: http://host:11434; OpenAI: .../v1).")
@click.option("-c", "--config", "config_file", metavar="FILE", shell_complete=complete_path,
              help="Extra config file (JSON), over the others.")
@click.option("--prompts", metavar="LIST", help="Comma-separated prompt names from prompts/, joined in order.")
@click.option("--no-instructions", is_flag=True, help="Leave AGENTS.md and other instruction files out of the prompt.")
@click.option("--tools", "tool_groups", metavar="LIST",
              help="Tool groups offered besides core: files, processes, tasks, memory, or all; "
                   "naming a tool (read_file,...) offers exactly those.")
@click.option("--edit-format", metavar="FMT",
              help="How the model edits files (see README): replace, lines, whole, search-replace, auto.")
@click.option("-r", "--allow-read", is_flag=True, help="Read tools run without asking (the default).")
@click.option("-w", "--allow-write", is_flag=True, help="Write tools (write_file, ...) run without asking.")
@click.option("-x", "--allow-execute", is_flag=True, help="Commands (run_shell_command, ...) run without asking.")
@click.option("--verify", "verify", metavar="CMD", multiple=True,
              help="Run CMD after each reply that changed files (repeatable; {files}: those files). For this run.")
@click.option("--auto-commit", is_flag=True,
              help="In a git work tree, commit the files each turn changed, with a message naming the request.")
@click.option("--root", metavar="DIR", shell_complete=complete_directory,
              help="Project root: tools stay inside it (default: the current directory, or the config's root).")
@click.option("--trust-project", is_flag=True,
              help="Apply what the project's .ayder/config.json sets of server, keys and shell, for this run.")
@click.option("--mcp-trust", is_flag=True, help="Start the MCP servers the project's .mcp.json names, for this run.")
@click.option("--continue", "continue_session", is_flag=True, help="Resume this project's latest session.")
@click.option("--resume", "resume_id", metavar="ID", help="Resume a session by id or by its /save name.")
@click.option("--restore", is_flag=True, help="Start from the checkpoint in .ayder/memory/ (see /checkpoint).")
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
@click.option("--trajectory", metavar="FILE", shell_complete=complete_path,
              help="Write the run to FILE as an ATIF trajectory (JSON; see README), also when cut short.")
@click.option("--no-stream", is_flag=True, help="Wait for the whole reply instead of streaming it.")
@click.option("--show-thinking/--hide-thinking", default=None, help="Show the model's thinking (dimmed, on stderr).")
@click.option("--no-color", is_flag=True, help="No colours or Markdown styling (as NO_COLOR=1 does).")
@click.option("-v", "--verbose", is_flag=True,
              help="Request metadata, and every line a command prints, on stderr (never the API key).")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show_version,
              help="Show the version and exit.")
@click.option("--completion", type=click.Choice(SHELLS), expose_value=False, is_eager=True, callback=show_completion,
              help="Print the shell completion script for bash, zsh or fish, and exit (see README).")
@click.option("--help-config", is_flag=True, expose_value=False, is_eager=True, callback=show_config_keys,
              help="List every config key with its default, and exit.")
@click.pass_obj
def cli(environment: Environment | None, **flags) -> int:
    """Chat with a local Ollama or any OpenAI-compatible server.

    \b
    Modes:
      ayder "PROMPT"             one-shot; piped stdin is attached as context
      ayder                      interactive REPL (stdin is a terminal)
      cat script.txt | ayder     piped script: each line as if typed at the REPL
      ayder acp                  an ACP agent for editors, on stdin and stdout

    \b
    Exit codes: 0 ok, 1 runtime failure, 2 usage or config error,
    130 interrupted, 129 hung up (SIGHUP), 143 terminated (SIGTERM).
    """
    # The modes (and Options, 32 fields that cost a dataclass a few ms to make) load once the flags are
    # read: --version and --help end before this and stay fast.
    from ayder_cli.modes.options import Options
    from ayder_cli.modes.start import run

    options = Options(**flags)
    environment = environment if isinstance(environment, Environment) else Environment.of()
    if options.prompt == ("acp",):
        return _acp(options, environment)
    return run(options, environment.without_color() if options.no_color else environment)


# The flags of a terminal run that mean nothing to `ayder acp` (the editor chooses the folder and the session).
NOT_FOR_ACP = {"prompt_file": "-f", "read_stdin": "--stdin", "system_text": "--system", "json_events": "--json",
               "continue_session": "--continue", "resume_id": "--resume", "restore": "--restore",
               "list_tasks": "--tasks", "implement_id": "--implement", "implement_all": "--implement-all",
               "doctor": "--doctor", "root": "--root", "mcp_trust": "--mcp-trust"}


def _acp(options, environment: Environment) -> int:
    """`ayder acp`: loaded only then (acp/main.py)."""
    given = [flag for field, flag in NOT_FOR_ACP.items() if getattr(options, field)]
    if given:
        raise click.UsageError(f"{given[0]} is not for ayder acp: the editor names the folder and the session")
    from ayder_cli.acp.agent import AcpStart
    from ayder_cli.acp.main import run_acp

    start = AcpStart(flags=options.config_flags(), granted=frozenset(options.granted),
                     config_file=environment.path(options.config_file) if options.config_file else None,
                     use_instructions=not options.no_instructions,
                     verify=tuple(command.strip() for command in options.verify if command.strip()),
                     verbose=options.verbose, trust_project=options.trust_project)
    return run_acp(environment, start)


def main(argv: list[str] | None = None, stdin: IO | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None, env: Mapping[str, str] | None = None,
         cwd: str | os.PathLike | None = None) -> int:
    """Run ayder once; its exit status.

    What is not given is the process's own: sys.argv, sys.stdin/stdout/stderr, os.environ and
    the working directory. stdin may be text or bytes (bytes are read so that none can fail).
    """
    return run_in(Environment.of(stdin, stdout, stderr, env, cwd), argv)


def run_in(environment: Environment, argv: list[str] | None = None) -> int:
    """Run ayder once in `environment` with the arguments `argv` (None: sys.argv's); its exit status."""
    try:
        # With COMPLETE_VAR set (a completion script asking at Tab), click answers and exits here.
        code = cli.main(args=argv, prog_name=PROGRAM, complete_var=COMPLETE_VAR, standalone_mode=False,
                        obj=environment, terminal_width=help_width(environment))
    except click.UsageError as exc:  # a wrong flag or value: said as ayder says its own usage errors
        _usage_error(exc, environment, no_color="--no-color" in (sys.argv[1:] if argv is None else argv))
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show(file=environment.stderr)
        code = exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        code = 130
    return int(code or 0)


def _usage_error(exc: click.UsageError, environment: Environment, no_color: bool) -> None:
    """`error: …` and a hint line on stderr, as every other error is written."""
    from ayder_cli.terminal.console import Console  # only a usage error needs it: --version stays fast

    message = exc.format_message()
    message = message[:1].lower() + message[1:] if message[1:2].islower() else message
    console = Console(environment.without_color() if no_color else environment)
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
