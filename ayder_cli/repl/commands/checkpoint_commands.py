"""Commands about keeping the context small: /checkpoint writes, shows or removes the checkpoint
(/memory is its old name), /compact replaces older turns by a summary."""

from __future__ import annotations

from ayder_cli.repl.commands.registry import CommandContext, CommandResult, command


@command("checkpoint", usage="[show|clear]", old_names={"memory": "show"},
         help="summarize the conversation now into a checkpoint; show it, or remove it")
def _checkpoint(context: CommandContext, args: str) -> CommandResult | None:
    checkpoint = context.session.loop.checkpoints
    if not args:
        summary = context.session.loop.write_checkpoint(1)
        context.console.info(f"checkpoint written to {checkpoint.path.relative_to(context.state_root)}")
        context.console.dim_line(summary)
        return None
    if args == "show":
        context.console.info(checkpoint.read() if checkpoint.exists() else "there is no checkpoint")
        return None
    if args == "clear":
        context.console.info("checkpoint removed" if checkpoint.clear() else "there is no checkpoint")
        return None
    context.console.error(f"unknown /checkpoint argument {args!r}",
                          "use /checkpoint, /checkpoint show or /checkpoint clear")
    return CommandResult.FAILED


@command("compact", help="replace older turns by a summary now, to free context")
def _compact(context: CommandContext, args: str) -> None:
    context.session.compact()  # says in one line what it did, or why it did nothing
