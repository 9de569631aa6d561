"""Running the agent on task files: --implement TASK and --implement-all (and their slash commands)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ayder_cli.errors import AyderError, ExitStatus
from ayder_cli.storage.tasks import Task, find_task, load_tasks, set_status

if TYPE_CHECKING:
    from ayder_cli.session.session import Session


def task_prompt(task: Task, shown_path: str) -> str:
    return (
        f"Implement this task (from {shown_path}).\n\n# {task.title}\n\n{task.body.strip()}\n\n"
        f'When it is complete, call update_task_status with identifier "{task.id}" and status "done".'
    )


def implement_task(session: Session, identifier: str) -> tuple[int, str]:
    """Run the agent on one task in the current conversation -> (exit status, one-line outcome)."""
    task = find_task(session.state_root, identifier)
    session.executor.offer("tasks")  # the model marks the task done with update_task_status
    set_status(session.state_root, task.id, "in_progress", session.journal)
    shown = task.path.relative_to(session.state_root).as_posix()
    session.console.dim_line(f"implementing {task.id}: {task.title}")
    try:
        result = session.run(task_prompt(task, shown), f"{task.id}: {task.title}")
    except AyderError as exc:
        session.console.error(exc.message, exc.hint)
        return ExitStatus.ERROR, f"{task.id} failed: {exc.message}"
    if result.interrupted:
        return ExitStatus.INTERRUPTED, f"{task.id} interrupted"
    if result.stopped:
        return ExitStatus.ERROR, f"{task.id} stopped: {result.stopped}"
    status = find_task(session.state_root, task.id).status
    if session.loop.verify.passed is False:  # done only when its checks pass
        if status == "done":
            set_status(session.state_root, task.id, "in_progress", session.journal)
        return ExitStatus.ERROR, f"{task.id} not done: its last check failed"
    if status != "done":
        return ExitStatus.ERROR, f"{task.id} was not marked done (status: {status})"
    return ExitStatus.OK, f"{task.id} done"


def implement_all(session: Session) -> int:
    """Every pending task in order, each in a fresh conversation; stop at the first that fails."""
    pending = [task for task in load_tasks(session.state_root) if task.status == "pending"]
    if not pending:
        session.console.info("no pending tasks")
        return ExitStatus.OK
    outcomes: list[str] = []
    status = ExitStatus.OK
    for index, task in enumerate(pending):
        session.reset()
        status, outcome = implement_task(session, task.id)
        outcomes.append(outcome)
        if status != ExitStatus.OK:
            outcomes += [f"{later.id} not run" for later in pending[index + 1 :]]
            break
    session.console.info("tasks: " + "; ".join(outcomes))
    return status
