"""ayder's modules parsed once per test process: the house and wording checks each walk every module,
and parsing all of them again for each check cost seconds. The trees are shared: read, never change one."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))
