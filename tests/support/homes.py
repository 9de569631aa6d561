"""The HOME each test gets (the isolated_env fixture): an empty directory, the same one again when
the test before left it as it was, emptied. A new directory for each of the thousands of tests, and
deleting it in a later run, would cost milliseconds each on a slow disk, where most tests never
write to HOME."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


class Homes:
    """Empty HOME directories for one worker's tests, made by pytest's tmp_path_factory."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.current: Path | None = None

    def empty_one(self) -> Path:
        """The last one, emptied; a new one where that cannot be done."""
        if self.current is None or not self._emptied(self.current):
            self.current = self.factory.mktemp("home")
        return self.current

    @staticmethod
    def _emptied(home: Path) -> bool:
        try:
            if os.stat(home).st_mode & 0o777 != 0o700:  # a test changed HOME itself
                return False
            for entry in os.scandir(home):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
        except OSError:  # something a test made cannot be removed: leave it, take a new one
            return False
        return True
