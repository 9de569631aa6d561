"""Completion of `@path` at the REPL prompt: the project's files and folders after an `@` that starts
a word (what modes/attachments.py attaches). Only os and prompt_toolkit: it is loaded before the
first prompt."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

AT_PATH = re.compile(r"(?:^|\s)@([^\s@]*)$")  # an @ at a word's start, and what follows it so far
MAX_SCANNED = 2000  # entries of one folder looked at per keystroke
MAX_SHOWN = 100


class AtPathCompleter(Completer):
    def __init__(self, root: Path) -> None:
        self.root = root

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        match = AT_PATH.search(document.text_before_cursor)
        if match is None:
            return
        typed = match.group(1)
        folder, _, start = typed.rpartition("/")
        directory = self.root / folder
        try:
            if not directory.resolve().is_relative_to(self.root.resolve()):
                return  # attaching is inside the project only, so is completing
            with os.scandir(directory) as scan:
                found = []
                for count, entry in enumerate(scan):
                    if count >= MAX_SCANNED:
                        break
                    # Hidden entries only when asked for with a dot: .git and the like stay out of the way.
                    if entry.name.startswith(start) and (start.startswith(".") or not entry.name.startswith(".")):
                        found.append((entry.name, entry.is_dir()))
        except OSError:
            return
        prefix = f"{folder}/" if folder else ""
        for name, is_dir in sorted(found)[:MAX_SHOWN]:
            shown = name + ("/" if is_dir else "")
            yield Completion(prefix + shown, start_position=-len(typed), display=shown)
