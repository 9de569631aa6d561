"""The temporary files of atomic writes that a killed ayder left behind, removed at the next start.

A write goes to a `.ayder-tmp-*` file beside its target and is renamed over it;
a kill in between leaves the temporary file. Only files older than a few minutes
are removed, so the write of another ayder running in the same project is never
touched. The search runs in the background: a large project does not delay the prompt.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable

from ayder_cli.storage.atomic import TEMP_PREFIX
from ayder_cli.tools.walk import walk

STALE_AFTER_S = 300.0


def remove_stale_temp_files(root: Path, stale_after_s: float = STALE_AFTER_S,
                            now: Callable[[], float] = time.time) -> list[Path]:
    """Remove the stale temporary files in the project's directories (those .gitignore does not
    exclude); the paths removed."""
    removed = []
    for directory in [root, *(path for path, is_dir in walk(root) if is_dir)]:
        try:
            with os.scandir(directory) as entries:
                stale = [Path(entry.path) for entry in entries
                         if entry.name.startswith(TEMP_PREFIX) and entry.is_file(follow_symlinks=False)
                         and now() - entry.stat(follow_symlinks=False).st_mtime > stale_after_s]
        except OSError:
            continue
        for path in stale:
            try:
                path.unlink()
                removed.append(path)
            except OSError:
                pass
    return removed


def start_removing_leftovers(root: Path) -> threading.Thread:
    """remove_stale_temp_files in a background thread (join it briefly at exit)."""
    thread = threading.Thread(target=remove_stale_temp_files, args=(root,), daemon=True, name="ayder-leftovers")
    thread.start()
    return thread
