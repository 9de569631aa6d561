"""A forgiving edit never breaks a Python file: one that compiled before and would not after is refused."""

from __future__ import annotations

from ast import PyCF_ONLY_AST
from pathlib import Path

from ayder_cli.errors import ToolError


def still_compiles(path: Path, shown: str, before: str, after: str, how: str) -> None:
    """A forgiving match must not be what breaks a Python file: one that compiled and would not
    after the edit is refused (an exact match is the model's own doing, and goes through)."""
    if path.suffix not in (".py", ".pyi") or _syntax_error(before) is not None:
        return
    error = _syntax_error(after)
    if error is not None:
        raise ToolError(f"old_string was found only forgiving ({how}), and {shown} would then no longer "
                        f"compile ({error}); nothing was changed: copy old_string exactly from read_file "
                        "(without its line numbers) and indent new_string as the file does")


def _syntax_error(text: str) -> str | None:
    try:
        compile(text, "<edit>", "exec", flags=PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        return f"{exc.msg} at line {exc.lineno}"
    except (ValueError, RecursionError, MemoryError):  # NUL bytes, nesting the parser refuses: no verdict
        return None
    return None
