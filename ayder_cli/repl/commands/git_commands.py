"""/commit: the files this session changed, committed to git (session/commit.py)."""

from __future__ import annotations

from collections.abc import Callable

from ayder_cli.repl.commands.registry import CommandContext, CommandResult, command


@command("commit", usage="[MESSAGE]",
         help="commit the files this session changed (only those) with MESSAGE, or one the model writes")
def _commit(context: CommandContext, args: str) -> CommandResult | None:
    from ayder_cli.session.commit import WorkTree, commit_files  # git loads when a commit is asked for

    journal = context.session.journal
    if journal is None:
        context.console.error("/commit is unavailable in this session (no change journal)")
        return CommandResult.FAILED
    tools = context.session.executor.context
    tree = WorkTree(context.root, tools.env, context.session.config.shell_timeout_s)
    paths = [entry.path for entry in journal.first_changes()] + journal.undone  # an undo is a change too
    committed = commit_files(tree, paths, args or _asked(context))
    if committed is not None:  # CommitRefused is an AyderError: printed as one
        context.console.info(committed.describe())
    return None


def _asked(context: CommandContext) -> Callable[[str], str]:
    """message(diff): the side model's message (the main model's when none is set), the diff masked."""
    from ayder_cli.session.commit_message import written_by  # the side model's client: only when asked for
    from ayder_cli.session.side_model import side_model

    model = side_model(context.session.runtime, context.session.environment.env, context.console.log)
    write = written_by(model)

    def message(diff: str) -> str:
        context.console.dim_line(f"asking {model.name} for a commit message")
        return write(context.session.executor.context.mask(diff))

    return message


def undo_note(context: CommandContext, entries: list) -> str:
    """Asked before /undo restores the newest of `entries`: when git holds that change committed (an
    auto_commit, /commit, or the user's own), what undo does to git -- nothing: the file is restored in
    the work tree, uncommitted; history is never rewritten (a commit may have been pushed or built on).
    "": the change is not committed (or not in a work tree)."""
    if not entries:
        return ""
    from ayder_cli.session.commit import WorkTree  # git only when there is a change to undo

    commit = WorkTree(context.root, context.session.executor.context.env).last_commit_of(entries[-1].path)
    if commit is None:
        return ""
    return (f"git: commit {commit} still holds the change; the file is restored in the work tree only "
            "(ayder never rewrites git history): /commit records the undo")
