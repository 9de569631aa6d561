"""One key written into a project's .ayder/config.json, the rest of the file kept (/init's checks).

The file is read, the key set in its JSON object, and the whole written back atomically: a crash
leaves the old file or the new one. A file that is not a JSON object is never replaced: the user's
own text would be lost.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ayder_cli.storage.atomic import replace_with
from ayder_cli.storage.layout import Layout, make_directory
from ayder_cli.storage.no_follow import NotAFileToRead, read_state_file

MAX_CONFIG_BYTES = 1024 * 1024  # a config bigger than this is not one to rewrite


class ProjectConfigError(Exception):
    """Why the project's config could not be updated, in one line."""


def project_config_path(root: Path) -> Path:
    return Layout(root).config


def read_project_config(root: Path) -> bytes | None:
    """The project config's bytes; None when there is none."""
    path = project_config_path(root)
    try:
        return read_state_file(path, MAX_CONFIG_BYTES)
    except NotAFileToRead as exc:
        raise ProjectConfigError(f"{exc.message}; not rewritten") from None
    except OSError as exc:
        raise ProjectConfigError(f"cannot read {path}: {exc.strerror or exc}") from None


def set_project_value(root: Path, key: str, value: Any) -> tuple[bytes | None, bytes]:
    """Set `key` in the project's config -> (the bytes before, None if there was no file; the bytes now)."""
    path = project_config_path(root)
    before = read_project_config(root)
    values: dict[str, Any] = {}
    if before is not None:
        try:
            values = json.loads(before.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProjectConfigError(f"{path} is not valid JSON ({exc}); fix it first, it is not rewritten") from None
        if not isinstance(values, dict):
            raise ProjectConfigError(f"{path} does not hold a JSON object; it is not rewritten")
    values[key] = value
    after = (json.dumps(values, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        make_directory(path.parent)
        replace_with(path, after, _mode(path) if before is not None else None)
    except OSError as exc:
        raise ProjectConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    return before, after


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None
