"""Commands about the tools: /tools lists and offers them, /permissions says and toggles what runs
without asking. A listing is wrapped to the terminal's width at word boundaries."""

from __future__ import annotations

import io
import os

from ayder_cli.config.config_checks import check_value
from ayder_cli.repl.commands.registry import CommandContext, CommandResult, command
from ayder_cli.terminal.safe_text import wrap_row
from ayder_cli.terminal.environment import Environment


@command("tools", usage="[GROUP,...]", help="list the tools the model may call, or offer more groups of them")
def _tools(context: CommandContext, args: str) -> None:
    executor = context.session.executor
    if args:  # an unknown group is a ConfigError naming the groups
        executor.offer(*check_value("/tools", "tool_groups", args.replace(" ", ",")))
    specs = executor.registry.specs()
    policy, permissions = executor.policy, executor.permissions
    width = max((len(spec.signature()) for spec in specs), default=0)
    columns = terminal_columns(context.console.environment)
    for spec in specs:
        notes = []
        if spec.name in policy.disabled:
            notes.append("disabled")
        elif policy.not_enabled(spec):
            notes.append("not enabled" + (f": /tools {spec.group} enables its group" if spec.group != "core" else ""))
        elif policy.hidden_by_format(spec):
            notes.append(f"not offered with edit_format {policy.edit_format}")
        elif not policy.offers(spec):
            notes.append(f"not offered: /tools {spec.group}")
        if spec.name in policy.max_calls_per_message:
            notes.append(f"at most {policy.max_calls_per_message[spec.name]} per message")
        if not permissions.allows(spec.permission) and spec.name not in executor.always:
            notes.append("asks first")
        note = f"  [{', '.join(notes)}]" if notes else ""
        context.console.info(wrap_row(f"  {spec.permission}  {spec.signature():<{width}}  ", spec.description + note,
                                      columns))


@command("permissions", usage="[r|w|x]", help="show what runs without asking, or toggle r, w or x")
def _permissions(context: CommandContext, args: str) -> CommandResult | None:
    from ayder_cli.tools.executor import PERMISSION_NAMES  # the tools load with the services, after the prompt

    permissions = context.session.executor.permissions
    if args:
        if args not in PERMISSION_NAMES:
            context.console.error(f"unknown permission {args!r}", "use /permissions r, w or x")
            return CommandResult.FAILED
        now = permissions.toggle(args)
        context.console.info(f"{PERMISSION_NAMES[args]}: {'runs without asking' if now else 'asks first'}")
    for letter, name in PERMISSION_NAMES.items():
        state = "runs without asking" if permissions.allows(letter) else "asks first (denied when there is no terminal)"
        context.console.info(f"  {letter}  {name:<8} {state}")
    return None


def terminal_columns(environment: Environment) -> int | None:
    """The width /tools wraps to: $COLUMNS, else the terminal's where stderr is one; None: not a terminal."""
    columns = str(environment.env.get("COLUMNS", ""))
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(environment.stderr.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
