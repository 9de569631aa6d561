"""Commands about task files: /tasks lists them, /plan has the model write them, /implement and
/implement-all run the agent on them."""

from __future__ import annotations

from ayder_cli.repl.commands.registry import CommandContext, CommandResult, command


@command("tasks", help="list the tasks in .ayder/tasks/")
def _tasks(context: CommandContext, args: str) -> None:
    from ayder_cli.storage.tasks import format_table, load_tasks, task_warnings  # loaded when asked for

    tasks = load_tasks(context.state_root)
    context.console.info(format_table(tasks))
    for warning in task_warnings(tasks, context.state_root):
        context.console.notice(warning)


@command("implement", usage="TASK", help="run the agent on one task (id, number or part of the title)")
def _implement(context: CommandContext, args: str) -> CommandResult | None:
    if not args:
        context.console.error("/implement needs a task", "e.g. /implement 3; /tasks lists them")
        return CommandResult.FAILED
    status, outcome = context.modes.implement(args)
    context.console.info(outcome)
    return None if status == 0 else CommandResult.FAILED


@command("implement-all", help="run the agent on every pending task, each in a fresh conversation")
def _implement_all(context: CommandContext, args: str) -> CommandResult | None:
    return None if context.modes.implement_all() == 0 else CommandResult.FAILED


@command("plan", usage="DESCRIPTION", help="have the model break work into task files (create_task)")
def _plan(context: CommandContext, args: str) -> CommandResult | None:
    if not args:
        context.console.error("/plan needs a description of the work", "e.g. /plan add OAuth login")
        return CommandResult.FAILED
    context.session.executor.offer("tasks")  # create_task
    denials = context.session.executor.denials
    result = context.session.run(
        f"Plan this work as tasks: {args}\n\nBreak it into small steps in the order they should be done and "
        "call create_task(title, description) once for each, with enough detail to implement it later. "
        "Do not implement anything yet."
    )
    if result.stopped:
        return CommandResult.FAILED
    if context.session.executor.denials > denials:  # a plan whose task files were refused was not made
        context.console.error("/plan: a call it needed was denied; the plan is not complete",
                              "allow writing (-w, or /permissions w) and ask again")
        return CommandResult.FAILED
    return None
