"""What one search_codebase call asks for (a Query), read alike by its two backends:
the Python search (search.py) and ripgrep (ripgrep.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ayder_cli.tools.gitignore import Glob


@dataclass(frozen=True)
class Query:
    regex: re.Pattern[str]
    pattern: str
    case_sensitive: bool
    context: int
    start: str  # root-relative directory or file ("" for the root)
    start_is_file: bool
    file_glob: Glob | None
    literal: str | None = None  # a string every match contains (see line_matches.required_literal)
    plain: bool = False  # the pattern is that string and nothing else (see line_matches.is_plain_literal)

    def wants(self, rel: str) -> bool:
        """Whether the file at the root-relative path is one to search (its name fits file_glob)."""
        if self.file_glob is None:
            return True
        below = rel[len(self.start) + 1:] if self.start else rel
        return self.file_glob.matches(below, below.rpartition("/")[2], False)
