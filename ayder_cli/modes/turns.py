"""One message to the model, as every mode sends it: with auto_commit, a git commit of the files
the turn changed follows it (session/auto_commit.py), whether the turn answered, stopped, was
interrupted or failed on the server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ayder_cli.errors import AyderError

if TYPE_CHECKING:
    from ayder_cli.agent.callbacks import RunResult
    from ayder_cli.session.services import Services


def run_turn(services: Services, text: str, request: str | None = None) -> RunResult:
    """services.loop.run(text); `request`: what the commit message names (None: text's first line)."""
    if not services.loop.config.auto_commit:
        return services.loop.run(text)
    from ayder_cli.session.auto_commit import TurnFiles  # git only for a session that commits

    files = TurnFiles(services.sessions.journal)
    try:
        result = services.loop.run(text)
    except AyderError:
        _commit(services, files, request or text)
        raise
    _commit(services, files, request or text)
    return result


def _commit(services: Services, files, request: str) -> None:
    from ayder_cli.session.auto_commit import commit_turn
    from ayder_cli.session.commit import CommitRefused, WorkTree

    tree = WorkTree(services.root, services.executor.context.env, services.loop.config.shell_timeout_s)
    try:
        committed = commit_turn(tree, files, request)
    except CommitRefused as exc:
        services.console.notice(f"auto_commit: {exc.message}")
        return
    if committed is not None:
        services.console.info(f"auto_commit: {committed.describe()}")
