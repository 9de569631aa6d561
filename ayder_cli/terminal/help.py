"""`ayder --help`, `--help-config` and `--version`: the options in sections, then the config files and the environment.

Both are written to the run's stdout (its Environment's, which need not be the
process's), at most HELP_WIDTH columns wide however wide the terminal.
"""

from __future__ import annotations

import os

import click

from ayder_cli import __version__
from ayder_cli.llm.providers import PROVIDERS
from ayder_cli.terminal.environment import Environment

PROGRAM = "ayder"
COMPLETE_VAR = "_AYDER_COMPLETE"  # what click's completion scripts set when they ask for completions
SHELLS = ("bash", "zsh", "fish")  # the shells click writes completion scripts for
HELP_WIDTH = 100  # the most columns --help uses, however wide the terminal

# --help shows the options in these sections, in this order; an option named in none goes under "Other".
HELP_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Prompt", ("prompt_file", "read_stdin")),
    ("Model and server", ("provider", "model", "base_url", "config_file", "num_ctx", "temperature", "max_tokens",
                          "iterations", "doctor")),
    ("System prompt and tools", ("prompts", "system_text", "no_instructions", "tool_groups", "edit_format")),
    ("Permissions", ("allow_read", "allow_write", "allow_execute", "root", "trust_project", "mcp_trust")),
    ("Checks", ("verify", "auto_commit")),
    ("Sessions", ("continue_session", "resume_id", "restore")),
    ("Tasks", ("list_tasks", "implement_id", "implement_all")),
    ("Output", ("json_events", "trajectory", "no_stream", "show_thinking", "no_color", "verbose", "debug")),
)

HELP_FILES = (  # where ayder reads its config (later wins) and keeps its state
    ("~/.config/ayder/config.json", "your config ($XDG_CONFIG_HOME/ayder/ when that is set)"),
    (".ayder/config.json", "the project's config, over yours"),
    ("--config FILE", "over both; then the environment, then the flags"),
    (".ayder/", "the project's sessions, tasks and checkpoint"),
    ("~/.local/state/ayder/", "the prompt history ($XDG_STATE_HOME/ayder/ when set)"),
)

HELP_ENVIRONMENT = (
    ("AYDER_PROVIDER", f"the provider: {' or '.join(PROVIDERS)}"),
    ("AYDER_MODEL", "the model"),
    ("AYDER_BASE_URL", "the server's URL"),
    ("OLLAMA_HOST", "Ollama's address (host, host:port or a URL)"),
    ("OPENAI_BASE_URL", "an OpenAI-compatible server's URL (.../v1)"),
    ("OPENAI_API_KEY", "its API key (or the variable api_key_env names in the config)"),
    ("NO_COLOR", "no colours"),
    ("XDG_CONFIG_HOME", "where your config is (default ~/.config)"),
    ("XDG_STATE_HOME", "where the history is (default ~/.local/state)"),
)


class SectionedCommand(click.Command):
    """A click command whose help goes to the run's stdout, which need not be the process's, with
    its options in sections, and the config files and environment variables at the end."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.callback = show_help
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


def show_help(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        _write_and_exit(ctx, ctx.get_help())


def show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        _write_and_exit(ctx, f"ayder {__version__}")


def show_completion(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """--completion SHELL: click's own completion script for SHELL. The shell then runs `ayder` with
    _AYDER_COMPLETE set at each Tab, and click answers from the options of this command."""
    if value and not ctx.resilient_parsing:
        from click.shell_completion import get_completion_class  # only this flag needs it

        shell = get_completion_class(value)
        if shell is not None:  # click.Choice let through only the shells it has
            _write_and_exit(ctx, shell(ctx.command, {}, PROGRAM, COMPLETE_VAR).source())


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """Tab after an option that takes a file: the shell completes the path itself."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


def complete_directory(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """Tab after an option that takes a directory: the shell completes directories only."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="dir")]


def show_config_keys(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """--help-config: every key a config file may hold, with its default; the list the config's
    errors point at, so it is always the installed ayder's own."""
    if value and not ctx.resilient_parsing:
        import json

        from ayder_cli.config.schema import KEYS, Config  # only this flag needs them: --help stays fast

        defaults = Config()
        width = max(map(len, KEYS))
        lines = ["Config keys, with their defaults (README, \"Configuration\", says what each does):"]
        lines += [f"  {key:<{width}}  {json.dumps(_plain(getattr(defaults, key)))}" for key in KEYS]
        _write_and_exit(ctx, "\n".join(lines))


def _plain(value):
    """A default as a config file would write it (a tuple as a list, a mapping as an object)."""
    if isinstance(value, tuple):
        return list(value)
    return dict(value) if hasattr(value, "items") else value


def _write_and_exit(ctx: click.Context, text: str) -> None:
    """--help and --version: the text on the run's stdout, then the end of the run."""
    click.echo(text, file=ctx.obj.stdout if isinstance(ctx.obj, Environment) else None, color=ctx.color)
    ctx.exit()


def help_width(environment: Environment) -> int:
    """The width click gives --help for this run's stdout, worked out as it would for the process's."""
    columns = environment.env.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() else 0
    if width <= 0:
        try:
            width = os.get_terminal_size(environment.stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            width = 0
    return max(min(width or 80, HELP_WIDTH) - 2, 50)
