"""/init's proposal of check commands: what the project's files suggest, shown, and written to the
project's config (`verify`) only when the user says yes at the terminal. Without a terminal it only
prints the proposal and the line to add."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from ayder_cli.config.project_trust import remember_written
from ayder_cli.config.verify_proposals import installed, propose_checks
from ayder_cli.storage.project_config import (ProjectConfigError, project_config_path, read_project_config,
                                               set_project_value)
from ayder_cli.terminal.confirm import painter, visible, yes_or_no
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.style import BOLD

QUESTION = "Write them to {path} as verify? [y/N] "


def propose_verify(console: Console, root: Path) -> None:
    found = propose_checks(root)
    path = console.environment.env.get("PATH", os.defpath)
    proposals, missing = installed(found, lambda program: shutil.which(program, path=path) is not None)
    for proposal in missing:
        console.dim_line(f"not proposed: {proposal.command} (from {proposal.why}): {proposal.program} is not "
                         "installed here (not on PATH)")
    if not found:
        console.dim_line("no check commands to propose: no pytest, ruff, package.json scripts, Cargo.toml, "
                         "go.mod or Makefile lint/test targets found")
    if not proposals:
        return
    shown = project_config_path(root).relative_to(root)
    try:
        current = _current_verify(root)
    except ProjectConfigError as exc:
        console.error(str(exc))
        return
    if current:
        console.dim_line(f"{shown} already sets verify: {', '.join(current)} (left as it is)")
        return
    commands = [proposal.command for proposal in proposals]
    width = max(len(command) for command in commands)
    console.info("checks ayder can run after each turn that changes files ({files}: the changed files):")
    for proposal in proposals:
        console.info(f"  {visible(proposal.command):<{width}}  (from {proposal.why})")
    environment = console.environment
    if not (environment.stdin_is_tty and environment.stderr_is_tty):
        console.info(f"no terminal to ask; to use them, add to {shown}: \"verify\": {json.dumps(commands)}")
        return
    if not _yes(console, QUESTION.format(path=shown)):
        console.info("nothing written")
        return
    try:
        before, after = set_project_value(root, "verify", commands)
    except ProjectConfigError as exc:
        console.error(str(exc))
        return
    console.info(f"wrote verify to {shown}; {remember_written(root, before, after, environment.env)}")


def _current_verify(root: Path) -> list[str]:
    data = read_project_config(root)
    if data is None:
        return []
    try:
        values = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []  # set_project_value says what is wrong with it, if asked to write
    verify = values.get("verify") if isinstance(values, dict) else None
    return [str(command) for command in verify] if isinstance(verify, list) else []


def _yes(console: Console, question: str) -> bool:
    return yes_or_no(console.environment.stdin, console.err, painter(console.color)(question, BOLD))
