"""Slash commands: one registry, filled by the @command decorator.

A handler gets the Services and the text after the command name, prints
through services.console (stderr: stdout is for the model's answer only)
and returns a CommandResult. What only one command needs (the task runner, the
doctor, the prompt files) is imported inside it: the REPL shows its prompt sooner.
"""

from __future__ import annotations

import io
import os
import textwrap
from dataclasses import dataclass
from enum import Enum
from typing import Callable

from ayder_cli.setup.config_checks import check_value
from ayder_cli.wording import counted
from ayder_cli.errors import AyderError
from ayder_cli.spelling import closest


class CommandResult(Enum):
    OK = "ok"
    FAILED = "failed"
    EXIT = "exit"


@dataclass(frozen=True)
class Command:
    name: str
    aliases: tuple[str, ...]
    usage: str
    help: str
    handler: Callable[..., CommandResult | None]


COMMANDS: dict[str, Command] = {}  # every name and alias -> its command


def command(name: str, *aliases: str, usage: str = "", help: str) -> Callable:
    def register(handler: Callable[..., CommandResult | None]) -> Callable:
        entry = Command(name, aliases, usage, help, handler)
        for key in (name, *aliases):
            COMMANDS[key] = entry
        return handler

    return register


def command_help() -> dict[str, str]:
    """Each command name (with its slash) and the short help the completion menu shows beside it."""
    return {f"/{name}": entry.help for name, entry in sorted(COMMANDS.items())}


def run_command(line: str, services) -> CommandResult:
    """Run one slash-command line."""
    name, _, args = line[1:].strip().partition(" ")
    entry = COMMANDS.get(name)
    if entry is None:
        close = closest(name, COMMANDS)
        suggestion = f"; did you mean /{close}?" if close else "; /help lists the commands"
        services.console.error(f"unknown command /{name}{suggestion}")
        return CommandResult.FAILED
    try:
        return entry.handler(services, args.strip()) or CommandResult.OK
    except AyderError as exc:
        services.console.error(exc.message, exc.hint)
        return CommandResult.FAILED


# --- the commands


@command("help", "?", help="list the commands")
def _help(services, args: str) -> None:
    seen = []
    for entry in COMMANDS.values():
        if entry not in seen:
            seen.append(entry)
    width = max(len(f"/{e.name} {e.usage}".strip()) for e in seen)
    for entry in sorted(seen, key=lambda e: e.name):
        names = f"/{entry.name} {entry.usage}".strip()
        aliases = f" (also {', '.join('/' + a for a in entry.aliases)})" if entry.aliases else ""
        services.console.info(f"  {names:<{width}}  {entry.help}{aliases}")
    services.console.info('  """  starts a multi-line message; a line with """ ends it.')


@command("exit", "quit", help="leave ayder (Ctrl-D too)")
def _exit(services, args: str) -> CommandResult:
    return CommandResult.EXIT


@command("reset", help="start a new conversation with the same system prompt")
def _reset(services, args: str) -> None:
    services.conversation.reset()
    services.new_session()
    services.console.info("new conversation")


@command("model", usage="[NAME]", help="switch model, or list the server's models")
def _model(services, args: str) -> None:
    if args:
        services.set_values(model=args)  # a new runtime: the window is asked of the server again
        services.console.info(f"model: {services.runtime.endpoint.model}")
        return
    current = services.runtime.endpoint.model
    models = services.runtime.client.list_models()
    if not models:
        services.console.info(f"the server lists no models (current: {current})")
        return
    for name in models:
        services.console.info(f"{'*' if name == current else ' '} {name}")
    if current not in models:
        services.console.notice(f"the configured model {current} is not among the server's models; "
                                "pick one with /model NAME")


@command("provider", usage="[ollama|openai]", help="show or switch the provider")
def _provider(services, args: str) -> None:
    if args:
        services.switch_provider(args)  # every layer resolved again, as with -p NAME: a new runtime
    endpoint = services.runtime.endpoint
    key = f", {endpoint.describe_key()}" if endpoint.api_key or endpoint.provider == "openai" else ""
    services.console.info(f"{endpoint.provider} at {endpoint.base_url}, model {endpoint.model}{key}")


@command("system", usage="[TEXT]", help="show the system prompt, or replace it for this session")
def _system(services, args: str) -> None:
    if args:
        services.conversation.system_prompt = args
        services.console.info("system prompt replaced for this session")
    else:
        services.console.info(services.conversation.system_prompt or "(empty system prompt)")


@command("reload", help="re-read the selected prompt files")
def _reload(services, args: str) -> None:
    prompt = services.reload_prompt()
    services.console.info(f"reloaded {','.join(services.config.prompts)} ({counted(len(prompt), 'character')})")


@command("prompts", usage="[NAME,...]", help="list the prompt files, or select some")
def _prompts(services, args: str) -> None:
    from ayder_cli.setup.prompts import available_prompts

    if args:
        services.set_values(prompts=args)
        services.reload_prompt()
    selected = services.config.prompts
    for name, path in available_prompts(services.root).items():
        mark = f"{selected.index(name) + 1}" if name in selected else " "
        services.console.info(f"{mark} {name:<12} {path}")


@command("verbose", help="toggle request details on stderr")
def _verbose(services, args: str) -> None:
    services.console.verbose = not services.console.verbose
    services.console.info(f"verbose {'on' if services.console.verbose else 'off'}")


@command("thinking", help="toggle showing the model's thinking")
def _thinking(services, args: str) -> None:
    services.console.show_thinking = not services.console.show_thinking
    services.console.info(f"thinking {'shown' if services.console.show_thinking else 'hidden'}")


@command("usage", help="tokens used in this session")
def _usage(services, args: str) -> None:
    usage = services.loop.usage
    services.console.info(
        f"{counted(usage.requests, 'request')} · prompt {usage.prompt_tokens}"
        f"{f' ({usage.cached_tokens} cached)' if usage.cached_tokens else ''} · completion {usage.completion_tokens}"
        f" · total {usage.prompt_tokens + usage.completion_tokens}"
    )
    services.console.info(
        f"conversation: {counted(len(services.conversation.messages), 'message')}, "
        f"about {services.conversation.estimated_tokens()} tokens"
    )


@command("tools", usage="[GROUP,...]", help="list the tools the model may call, or offer more groups of them")
def _tools(services, args: str) -> None:
    if args:  # an unknown group is a ConfigError naming the groups
        services.offer_tools(*check_value("/tools", "tool_groups", args.replace(" ", ",")))
    specs = services.tools.specs()
    policy = services.executor.policy
    permissions = services.executor.permissions
    width = max((len(spec.signature()) for spec in specs), default=0)
    for spec in specs:
        notes = []
        if spec.name in policy.disabled:
            notes.append("disabled")
        elif not policy.offers(spec):
            notes.append(f"not offered: /tools {spec.group}")
        if spec.name in policy.max_calls_per_message:
            notes.append(f"at most {policy.max_calls_per_message[spec.name]} per message")
        if not permissions.allows(spec.permission) and spec.name not in services.executor.always:
            notes.append("asks first")
        note = f"  [{', '.join(notes)}]" if notes else ""
        services.console.info(wrap_row(f"  {spec.permission}  {spec.signature():<{width}}  ", spec.description + note,
                                       terminal_columns(services)))


def terminal_columns(services) -> int | None:
    """The width /tools wraps to: $COLUMNS, else the terminal's where stderr is one; None: not a terminal."""
    env = getattr(services, "env", None) or {}
    if str(env.get("COLUMNS", "")).isdigit() and int(env["COLUMNS"]) > 0:
        return int(env["COLUMNS"])
    try:
        return os.get_terminal_size(services.console.terminal.stderr.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def wrap_row(lead: str, text: str, columns: int | None, min_text: int = 30) -> str:
    """lead + text, wrapped at word boundaries to `columns`, later lines under the text. When the
    lead leaves less than min_text columns, the text goes on the lines below it, indented. columns
    None (no terminal: a log, a pipe): one line, as grep expects."""
    if columns is None:
        return lead + text
    width = max(columns - 1, 20)
    if len(lead) + min_text <= width:
        return textwrap.fill(text, width=width, initial_indent=lead, subsequent_indent=" " * len(lead),
                             break_long_words=False, break_on_hyphens=False)
    indent = " " * (len(lead) - len(lead.lstrip()) + 5)
    head = textwrap.fill(lead.strip(), width=width, initial_indent=lead[:len(lead) - len(lead.lstrip())],
                         subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    body = textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)
    return f"{head}\n{body}"


@command("undo", usage="[list|force]", help="undo the newest file change a tool made (repeatable)")
def _undo(services, args: str) -> CommandResult | None:
    journal = getattr(services, "journal", None)
    if journal is None:
        services.console.error("undo is unavailable in this session (no change journal)")
        return CommandResult.FAILED
    if args == "list":
        entries = journal.entries()
        for number, entry in enumerate(reversed(entries), 1):
            origin = "earlier run" if journal.is_earlier(entry) else "this run"
            lost = f"; content not kept: {entry.not_kept}" if not entry.restorable else ""
            services.console.info(f"  {number}. {entry.describe()}  {entry.at.astimezone():%Y-%m-%d %H:%M:%S}, "
                                  f"{origin}{lost}")
        services.console.info(f"{counted(len(entries), 'change')} to undo, newest first")
        return None
    if args not in ("", "force"):
        services.console.error(f"unknown /undo argument {args!r}", "use /undo, /undo list or /undo force")
        return CommandResult.FAILED
    services.console.info(journal.undo(force=args == "force"))  # UndoError is an AyderError: printed as one
    return None


@command("permissions", usage="[r|w|x]", help="show what runs without asking, or toggle r, w or x")
def _permissions(services, args: str) -> CommandResult | None:
    from ayder_cli.tools.executor import PERMISSION_NAMES

    permissions = services.executor.permissions
    if args:
        if args not in PERMISSION_NAMES:
            services.console.error(f"unknown permission {args!r}", "use /permissions r, w or x")
            return CommandResult.FAILED
        now = permissions.toggle(args)
        services.console.info(f"{PERMISSION_NAMES[args]}: {'runs without asking' if now else 'asks first'}")
    for letter, name in PERMISSION_NAMES.items():
        state = "runs without asking" if permissions.allows(letter) else "asks first (denied when there is no terminal)"
        services.console.info(f"  {letter}  {name:<8} {state}")
    return None


@command("sessions", help="list this project's saved sessions (resume one with --resume ID)")
def _sessions(services, args: str) -> None:
    sessions = services.sessions.list_sessions()
    for info in sessions:
        services.console.info(f"  {info.describe()}")
    services.console.info(f"{counted(len(sessions), 'session')}; "
                          "ayder --continue resumes the latest, --resume ID a given one")


@command("save", usage="NAME", help="name the current session, so --resume NAME finds it")
def _save(services, args: str) -> CommandResult | None:
    if not args:
        services.console.error("/save needs a name", "e.g. /save refactor-auth")
        return CommandResult.FAILED
    if services.session is None:
        services.console.error("this session has no transcript")
        return CommandResult.FAILED
    services.session.name(args)  # a SessionError is an AyderError: printed as one
    services.console.info(f"saved as {args}; resume it with: ayder --resume {args}")
    return None


@command("tasks", help="list the tasks in .ayder/tasks/")
def _tasks(services, args: str) -> None:
    from ayder_cli.storage.tasks import format_table, load_tasks, task_warnings

    tasks = load_tasks(services.root)
    services.console.info(format_table(tasks))
    for warning in task_warnings(tasks, services.root):
        services.console.notice(warning)


@command("implement", usage="TASK", help="run the agent on one task (id, number or part of the title)")
def _implement(services, args: str) -> CommandResult | None:
    from ayder_cli.modes.implement import implement_task

    if not args:
        services.console.error("/implement needs a task", "e.g. /implement 3; /tasks lists them")
        return CommandResult.FAILED
    status, outcome = implement_task(services, args)
    services.console.info(outcome)
    return None if status == 0 else CommandResult.FAILED


@command("implement-all", help="run the agent on every pending task, each in a fresh conversation")
def _implement_all(services, args: str) -> CommandResult | None:
    from ayder_cli.modes.implement import implement_all

    return None if implement_all(services) == 0 else CommandResult.FAILED


@command("checkpoint", help="summarize the conversation now into .ayder/memory/current_memory.md")
def _checkpoint(services, args: str) -> None:
    summary = services.loop.write_checkpoint(1)
    services.console.info(f"checkpoint written to {services.loop.checkpoints.path.relative_to(services.root)}")
    services.console.dim_line(summary)


@command("memory", usage="[clear]", help="show the saved checkpoint, or remove it")
def _memory(services, args: str) -> CommandResult | None:
    memory = services.loop.checkpoints
    if args == "clear":
        services.console.info("checkpoint removed" if memory.clear() else "there is no checkpoint")
        return None
    if args:
        services.console.error(f"unknown /memory argument {args!r}", "use /memory or /memory clear")
        return CommandResult.FAILED
    services.console.info(memory.read() if memory.exists() else "there is no checkpoint")
    return None


@command("compact", help="replace older turns by a summary now, to free context")
def _compact(services, args: str) -> None:
    if not services.loop.context.compact():
        services.console.info(f"conversation left as it is (~{services.loop.context.tokens()} tokens)")


@command("plan", usage="DESCRIPTION", help="have the model break work into task files (create_task)")
def _plan(services, args: str) -> CommandResult | None:
    if not args:
        services.console.error("/plan needs a description of the work", "e.g. /plan add OAuth login")
        return CommandResult.FAILED
    services.offer_tools("tasks")  # create_task
    result = services.loop.run(
        f"Plan this work as tasks: {args}\n\nBreak it into small steps in the order they should be done and "
        "call create_task(title, description) once for each, with enough detail to implement it later. "
        "Do not implement anything yet."
    )
    return CommandResult.FAILED if result.stopped else None



@command("status", help="model, server and the project instructions in use")
def _status(services, args: str) -> None:
    config = services.config
    instructions = services.instructions
    rows = [
        ("model", config.resolved_model),
        ("provider", config.provider),
        ("server", config.resolved_base_url),
        ("context", f"{services.loop.config.num_ctx or '?'} tokens ({services.window or 'unknown'})"),
        ("last request", _last_request(services.loop.usage.last)),
    ]
    if instructions.files:
        rows += [("instructions" if i == 0 else "", f.describe()) for i, f in enumerate(instructions.files)]
        rows += [("", f"{label} (left out: over the size cap)") for label in instructions.left_out]
    else:
        rows.append(("instructions", instructions.describe()))
    for label, value in rows:
        services.console.info(f"{label + ':' if label else '':<14}{value}")


def _last_request(usage) -> str:
    """The latest request's prompt, and how much of it the server's cache saved."""
    if usage is None or usage.prompt_tokens is None:
        return "none yet" if usage is None else "the server reported no token counts"
    if usage.cached_tokens is None:
        return f"{usage.prompt_tokens} prompt tokens (the server does not report its prompt cache)"
    return f"{usage.prompt_tokens} prompt tokens: {usage.cached_tokens} from the cache, {usage.evaluated_tokens} read"


@command("doctor", help="check the server and model: tool calls, streaming, thinking, prompt cache")
def _doctor(services, args: str) -> CommandResult | None:
    from ayder_cli.modes.doctor import run_doctor  # loaded when asked for, like the other heavier commands

    return None if run_doctor(services) == 0 else CommandResult.FAILED


INIT_REQUEST = (
    "Write an AGENTS.md file at the project root: the instructions a coding agent reads before working on "
    "this project. First look around: list the files, read the README, the build or package files "
    "(pyproject.toml, package.json, Makefile, ...) and the CI configuration. Then write AGENTS.md with "
    "write_file, in short Markdown: what the project is, how the code is laid out, the exact commands to "
    "install, build, run and test it, and the conventions the code follows. Keep it under 60 lines and state "
    "only what you found in the files. If AGENTS.md already exists, read it and improve it instead."
)


@command("init", usage="[NOTES]", help="have the model write an AGENTS.md for this project")
def _init(services, args: str) -> CommandResult | None:
    result = services.loop.run(INIT_REQUEST + (f"\n\nAlso: {args}" if args else ""))
    if (services.root / "AGENTS.md").is_file():
        services.console.dim_line("AGENTS.md goes into the system prompt from the next run (or now: /reload)")
    return CommandResult.FAILED if result.stopped else None
