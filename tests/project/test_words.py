"""Small facts named once, checked in the source (AST): a count's noun comes from `wording.counted`,
and a control that erases or moves over the screen from `terminal/style.py`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from support.source_trees import parsed

PACKAGE = Path(__file__).resolve().parents[2] / "ayder_cli"
SOURCES = sorted(PACKAGE.rglob("*.py"))
SUFFIXES = {"s", "es"}
# ESC [ ... A-H, J, K: the cursor moved or the line/screen erased; colours (…m) are named in style.py too.
CONTROL = re.compile("\x1b\\[[0-9;]*[A-HJK]")


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def _text(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's with each {value} as 0."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "0" for part in node.values)
    return None


def hand_written_plurals(tree: ast.AST) -> list[int]:
    """The lines choosing a plural's ending themselves: `'s' if n != 1 else ''`, `'s' * (n != 1)`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.IfExp):
            ends = {_text(node.body), _text(node.orelse)}
            if "" in ends and ends - {""} and ends - {""} <= SUFFIXES:
                found.append(node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            if {_text(node.left), _text(node.right)} & SUFFIXES:
                found.append(node.lineno)
    return sorted(set(found))


def written_controls(tree: ast.AST) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            if CONTROL.search(_text(node) or ""):
                found.append(node.lineno)
    return sorted(set(found))


def test_no_module_writes_its_own_plural():
    found = [f"{_name(path)}:{line}" for path in SOURCES
             for line in hand_written_plurals(parsed(path))]
    assert not found, "use wording.counted: " + ", ".join(found)


def test_erase_and_cursor_controls_are_written_only_in_style():
    found = [f"{_name(path)}:{line}" for path in SOURCES if path != PACKAGE / "terminal" / "style.py"
             for line in written_controls(parsed(path))]
    assert not found, "use terminal/style.py's ERASE_LINE, CLEAR_TO_END, CLEAR_BELOW, rows_up: " + ", ".join(found)


@pytest.mark.parametrize("source, flagged", [
    ("f\"{n} file{'s' if n != 1 else ''}\"", True),
    ("f\"{n} match{'' if n == 1 else 'es'}\"", True),
    ("f\"{n} line\" + 's' * (n != 1)", True),
    ("counted(n, 'file')", False),
    ("'a' if n else ''", False),
])
def test_the_plural_check_sees_the_usual_spellings(source, flagged):
    assert bool(hand_written_plurals(ast.parse(source))) is flagged


@pytest.mark.parametrize("source, flagged", [
    ('"\\r\\033[K"', True),
    ('f"\\r{line}\\033[K"', True),
    ('f"\\033[{rows}A\\033[J"', True),
    ('f"{BOLD}\\033[1m"', False),  # a colour: the rule is for erasing and moving
    ('r"\\x1b\\[[0-9;]*K"', False),  # a pattern that reads controls, not one written
])
def test_the_control_check_sees_raw_and_formatted_controls(source, flagged):
    assert bool(written_controls(ast.parse(source))) is flagged
