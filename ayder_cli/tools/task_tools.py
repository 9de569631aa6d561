"""The task tools: create_task, list_tasks, show_task, update_task_status (files under .ayder/tasks/)."""

from __future__ import annotations

from typing import Any, Callable

from ayder_cli.calls import ToolResult
from ayder_cli.errors import AyderError, ToolError
from ayder_cli.storage import tasks
from ayder_cli.storage.paths import display_path
from ayder_cli.tools.spec import Preview, ToolContext, ToolSpec
from ayder_cli.wording import counted

STATUS = {"type": "string", "enum": list(tasks.STATUSES)}
IDENTIFIER = {"type": "string", "description": "TASK-001, 1, or part of the title"}


def _task_errors(function: Callable[..., Any]) -> Callable[..., Any]:
    """A task error (unknown, ambiguous, invalid, unwritable) becomes a ToolError with its hint."""

    def wrapper(context: ToolContext, args: dict[str, Any]) -> Any:
        try:
            return function(context, args)
        except AyderError as exc:
            raise ToolError(f"{exc.message} ({exc.hint})" if exc.hint else exc.message) from None

    return wrapper


def _shown(context: ToolContext, task: tasks.Task) -> str:
    return display_path(context.repo_root, task.path)


@_task_errors
def create_task(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    task = tasks.create_task(context.repo_root, context.mask(args["title"]), context.mask(args.get("description", "")),
                             context.journal)
    return ToolResult(ok=True, output=f"created {task.id} {task.title!r} ({_shown(context, task)}), status pending",
                      summary=f"created {task.id}")


@_task_errors
def preview_create_task(context: ToolContext, args: dict[str, Any]) -> Preview:
    path, text = tasks.plan_new_task(context.repo_root, context.mask(args["title"]),
                                     context.mask(args.get("description", "")))
    return Preview(display_path(context.repo_root, path), None, text)


@_task_errors
def list_tasks(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    found = tasks.load_tasks(context.repo_root)
    wanted = args.get("status")
    if wanted:
        wanted = tasks.normalize_status(wanted)
        shown = [task for task in found if task.status == wanted]
        if not shown:
            total = f"{counted(len(found), 'task')} in all" if found else "no tasks at all"
            return ToolResult(ok=True, output=f"no {wanted} tasks ({total})", summary=f"0 {wanted}")
    else:
        shown = found
        if not shown:
            return ToolResult(ok=True, output=f"no tasks in {tasks.TASKS_DIR.as_posix()}/", summary="no tasks")
    lines = [tasks.format_table(shown)]
    lines += [f"warning: {warning}" for warning in tasks.task_warnings(shown, context.repo_root)]
    return ToolResult(ok=True, output="\n".join(lines), summary=counted(len(shown), 'task'))


@_task_errors
def show_task(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    task = tasks.find_task(context.repo_root, args["identifier"])
    header = f"{task.id} [{task.status}] {task.title} ({_shown(context, task)})"
    if task.problem:
        header += f"\nwarning: {task.problem}"
    return ToolResult(ok=True, output=f"{header}\n\n{task.body}".rstrip() + "\n", summary=task.id)


@_task_errors
def update_task_status(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    before = tasks.find_task(context.repo_root, args["identifier"])
    task = tasks.set_status(context.repo_root, args["identifier"], args["status"], context.journal)
    if before.status == task.status:
        return ToolResult(ok=True, output=f"{task.id} {task.title!r} is already {task.status}; nothing changed",
                          summary="no change")
    return ToolResult(ok=True, output=f"{task.id} {task.title!r}: {before.status} -> {task.status}",
                      summary=f"{task.id} {task.status}")


@_task_errors
def preview_update_task_status(context: ToolContext, args: dict[str, Any]) -> Preview:
    task, old, new = tasks.plan_status_change(context.repo_root, args["identifier"], args["status"])
    return Preview(_shown(context, task), old, new)


CREATE_TASK = ToolSpec(
    name="create_task",
    description="Create a task file (.ayder/tasks/), status pending.",
    parameters={
        "type": "object",
        "properties": {"title": {"type": "string"}, "description": {"type": "string"}},
        "required": ["title", "description"],
        "additionalProperties": False,
    },
    permission="w",
    run=create_task,
    group="tasks",
    aliases={"name": "title", "body": "description", "details": "description", "content": "description"},
    preview=preview_create_task,
)

LIST_TASKS = ToolSpec(
    name="list_tasks",
    description="List tasks: id, status, title.",
    parameters={
        "type": "object",
        "properties": {"status": STATUS},
        "additionalProperties": False,
    },
    permission="r",
    run=list_tasks,
    group="tasks",
)

SHOW_TASK = ToolSpec(
    name="show_task",
    description="Show one task's title, status and description.",
    parameters={
        "type": "object",
        "properties": {"identifier": IDENTIFIER},
        "required": ["identifier"],
        "additionalProperties": False,
    },
    permission="r",
    run=show_task,
    group="tasks",
    aliases={"id": "identifier", "task": "identifier", "task_id": "identifier"},
)

UPDATE_TASK_STATUS = ToolSpec(
    name="update_task_status",
    description="Set a task's status.",
    parameters={
        "type": "object",
        "properties": {"identifier": IDENTIFIER, "status": STATUS},
        "required": ["identifier", "status"],
        "additionalProperties": False,
    },
    permission="w",
    run=update_task_status,
    group="tasks",
    aliases={"id": "identifier", "task": "identifier", "task_id": "identifier", "new_status": "status"},
    preview=preview_update_task_status,
)

TASK_TOOLS = [CREATE_TASK, LIST_TASKS, SHOW_TASK, UPDATE_TASK_STATUS]
