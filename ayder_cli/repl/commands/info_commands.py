"""Commands about ayder itself and this run: /help, /exit, /verbose, /thinking, /usage, /status, /doctor, /init."""

from __future__ import annotations

from ayder_cli.repl.commands.registry import COMMANDS, CommandContext, CommandResult, command
from ayder_cli.terminal.safe_text import wrap_row
from ayder_cli.wording import counted

HELP_COLUMNS = 80  # /help and the banner fit a standard terminal, whatever its real width


@command("help", "?", help="list the commands")
def _help(context: CommandContext, args: str) -> None:
    seen = []
    for entry in COMMANDS.values():
        if entry not in seen:
            seen.append(entry)
    width = max(len(f"/{e.name} {e.usage}".strip()) for e in seen)
    for entry in sorted(seen, key=lambda e: e.name):
        names = f"/{entry.name} {entry.usage}".strip()
        other_names = (*entry.aliases, *entry.old_names)
        aliases = f" (also {', '.join('/' + a for a in other_names)})" if other_names else ""
        context.console.info(_help_row(f"  {names:<{width}}  ", f"{entry.help}{aliases}"))
    context.console.info(_help_row("  ", '"""  starts a multi-line message; a line with """ ends it.'))
    context.console.info(_help_row("  ", "!CMD  runs CMD yourself in the project; !!CMD also shows it to the model."))
    context.console.info(_help_row("  ", "@PATH in a message attaches the file (Tab completes it); @@word sends @word."))
    context.console.info(_help_row("  ", "/NAME runs a custom command or a skill of yours; /skills lists them."))


def _help_row(lead: str, text: str) -> str:
    """lead + text wrapped within HELP_COLUMNS (wrap_row keeps a terminal's last column free: + 1)."""
    return wrap_row(lead, text, HELP_COLUMNS + 1)


@command("exit", "quit", help="leave ayder (Ctrl-D too)")
def _exit(context: CommandContext, args: str) -> CommandResult:
    return CommandResult.EXIT


@command("verbose", help="toggle request details and every line of commands on stderr")
def _verbose(context: CommandContext, args: str) -> None:
    context.console.verbose = not context.console.verbose
    context.console.info(f"verbose {'on' if context.console.verbose else 'off'}")


@command("thinking", help="toggle showing the model's thinking")
def _thinking(context: CommandContext, args: str) -> None:
    context.console.show_thinking = not context.console.show_thinking
    context.console.info(f"thinking {'shown' if context.console.show_thinking else 'hidden'}")


@command("usage", help="tokens used in this session")
def _usage(context: CommandContext, args: str) -> None:
    usage = context.session.loop.usage
    context.console.info(
        f"{counted(usage.requests, 'request')} · prompt {usage.prompt_tokens}"
        f"{f' ({usage.cached_tokens} cached)' if usage.cached_tokens else ''} · completion {usage.completion_tokens}"
        f" · total {usage.prompt_tokens + usage.completion_tokens}"
        f" · read again ~{usage.reread_tokens}"  # what trims and compactions cost the server (prompt_cache.py)
    )
    context.console.info(
        f"conversation: {counted(len(context.session.conversation.messages), 'message')}, "
        f"about {context.session.conversation.estimated_tokens()} tokens"
    )


@command("status", help="model, server, root and the project instructions in use")
def _status(context: CommandContext, args: str) -> None:
    session = context.session
    config, instructions = session.config, session.settings.instructions
    rows = [
        ("model", config.resolved_model),
        ("provider", config.provider),
        ("server", config.resolved_base_url),
        # The note may hold its own parentheses ("the server serves 2048 tokens (llama.cpp /props)"): never nested.
        ("context", f"{config.num_ctx or '?'} tokens: {session.window_note or 'the window served is unknown'}"),
        ("last request", _last_request(context.session.loop.usage.last)),
    ]
    rows.append(("root", str(context.root)))
    if context.state_root != context.root:  # started below the top of a git work tree
        rows.append(("repository", f"{context.state_root}: .ayder/, the project config, the first AGENTS.md"))
    if context.session.executor.context.sandbox is not None:
        rows.append(("sandbox", context.session.executor.context.sandbox.describe()))
    if context.session.executor.edits is not None:  # the language servers asked after edits
        rows.append(("diagnostics", context.session.executor.edits.describe()))
    if config.side_model:
        where = f" at {config.side_model['base_url']}" if config.side_model.get("base_url") else ""
        rows.append(("side model", f"{config.side_model['model']}{where} (commit messages, compaction summaries)"))
    if config.auto_commit:
        rows.append(("auto_commit", "on: each turn that changes files ends with a commit of them"))
    if config.project_trust is not None:  # the project's config asked for what needs trust
        rows.append(("project", config.project_trust.describe()))
    if instructions.files:
        rows += [("instructions" if i == 0 else "", f.describe()) for i, f in enumerate(instructions.files)]
        rows += [("", f"{label} (left out: over the size cap)") for label in instructions.left_out]
    else:
        rows.append(("instructions", instructions.describe()))
    for label, value in rows:
        context.console.info(f"{label + ':' if label else '':<14}{value}")


def _last_request(usage) -> str:
    """The latest request's prompt, and how much of it the server's cache saved."""
    if usage is None or usage.prompt_tokens is None:
        return "none yet" if usage is None else "the server reported no token counts"
    if usage.cached_tokens is None:
        return f"{usage.prompt_tokens} prompt tokens (the server does not report its prompt cache)"
    return f"{usage.prompt_tokens} prompt tokens: {usage.cached_tokens} from the cache, {usage.evaluated_tokens} read"


@command("doctor", help="check the server and model: tool calls, streaming, thinking, prompt cache")
def _doctor(context: CommandContext, args: str) -> CommandResult | None:
    return None if context.modes.doctor() == 0 else CommandResult.FAILED


INIT_REQUEST = (
    "Write an AGENTS.md file at the project root: the instructions a coding agent reads before working on "
    "this project. First look around: list the files, read the README, the build or package files "
    "(pyproject.toml, package.json, Makefile, ...) and the CI configuration. Then write AGENTS.md with "
    "write_file, in short Markdown: what the project is, how the code is laid out, the exact commands to "
    "install, build, run and test it, and the conventions the code follows. Keep it under 60 lines and state "
    "only what you found in the files. If AGENTS.md already exists, read it and improve it instead."
)


@command("init", usage="[NOTES]", help="have the model write an AGENTS.md; propose the project's check commands")
def _init(context: CommandContext, args: str) -> CommandResult | None:
    from ayder_cli.terminal.verify_question import propose_verify  # loaded when asked for: the REPL prompts sooner

    result = context.session.run(INIT_REQUEST + (f"\n\nAlso: {args}" if args else ""))
    if (context.root / "AGENTS.md").is_file():
        context.console.dim_line("AGENTS.md goes into the system prompt from the next run (or now: /reload)")
    propose_verify(context.console, context.state_root)
    return CommandResult.FAILED if result.stopped else None
