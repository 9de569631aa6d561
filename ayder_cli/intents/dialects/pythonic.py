"""Python-style calls: `[get_weather(city="Paris"), ...]` as the whole reply (Llama 3.2/4 "pythonic"),
the same inside <|python_start|>…<|python_end|>, and `name(key=value)` lines in a ```tool_code fence.

Read with ast.parse and literal values only: nothing is ever evaluated.
"""

from __future__ import annotations

import ast
import re

from ayder_cli.intents.dialects.common.dialect_parts import (MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends,
                                                            Verdict, Where)
from ayder_cli.intents.found import Found
from ayder_cli.wording import short

_CALL_START = re.compile(r"[A-Za-z_][\w.]*\s*\(")
_MAY_BE_NAME = re.compile(r"[A-Za-z_][\w.]*\s*")
PYTHON_END = "<|python_end|>"


class NotCalls(ValueError):
    """The text is not Python calls with literal arguments."""


def call_nodes(text: str) -> list[ast.Call]:
    """The calls in `text`: a list of calls, or call statements (print(...) around one is fine).

    Raises NotCalls when the text is not written as calls at all.
    """
    try:
        tree = ast.parse(text.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise NotCalls(f"not Python calls ({type(exc).__name__})") from exc
    calls = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            raise NotCalls("only calls may be written, no other statements")
        value = statement.value
        for node in value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]:
            node = node.args[0] if _is_print(node) else node
            if not isinstance(node, ast.Call) or _name(node) is None:
                raise NotCalls("each item must be a call like name(key=value)")
            calls.append(node)
    if not calls:
        raise NotCalls("no call")
    return calls


def _name(node: ast.Call) -> str | None:
    """`name(...)`, or `module.name(...)` (default_api.read_file): the tool is the last part."""
    function = node.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)


def _arguments(node: ast.Call) -> dict:
    name = _name(node)
    if node.args or any(keyword.arg is None for keyword in node.keywords):
        raise NotCalls(f"{name}: write every argument as key=value")
    try:
        return {keyword.arg: ast.literal_eval(keyword.value) for keyword in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise NotCalls(f"{name}: arguments must be literal values (strings, numbers, lists, ...), "
                       "never expressions") from exc


def _is_print(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Call))


def add_python_calls(found: Found, text: str, where: str) -> None:
    """Every call in `text`; one whose arguments cannot be read is reported, the others still count."""
    try:
        nodes = call_nodes(text)
    except NotCalls as exc:
        found.error(f"{where} could not be read: {exc}: {short(text)}")
        return
    add_calls(found, nodes, text, where)


def add_calls(found: Found, nodes: list[ast.Call], text: str, where: str) -> None:
    for node in nodes:
        try:
            found.add_call(_name(node), _arguments(node), text)
        except NotCalls as exc:
            found.error(f"{where}: {exc}")


class WholeReplyList(Block):
    """`[name(...), ...]` is a call list only if it is the whole reply, so it is held to the end."""

    nodes: list[ast.Call] = []  # the calls, parsed once when the end of the reply came

    def read(self, buf: str, final: bool) -> Verdict:
        following = self.context.following(buf, 1)
        if not _CALL_START.match(following):
            grows = not final and len(following) < MAX_TAG and _MAY_BE_NAME.fullmatch(following or "a")
            return NEED_MORE if grows else NOT_MINE
        if not final:
            return NEED_MORE
        try:
            self.nodes = call_nodes(buf)
        except NotCalls:
            return NOT_MINE
        if self.found.schemas and not any(_name(node) in self.found.schemas for node in self.nodes):
            return NOT_MINE  # a list of calls to nothing on offer: Python in prose, not a call
        return Ends(len(buf))

    def finish(self, text: str) -> None:
        add_calls(self.found, self.nodes, text, "a list of calls")


class PythonStart(Block):
    """Llama 4: <|python_start|>[name(...)]<|python_end|>."""

    search = 0

    def read(self, buf: str, final: bool) -> Verdict:
        end = buf.find(PYTHON_END, max(self.search, len(self.opener)))
        if end >= 0:
            return Ends(end + len(PYTHON_END))
        self.search = max(len(self.opener), len(buf) - len(PYTHON_END))
        return Ends(len(buf)) if final else NEED_MORE

    def finish(self, text: str) -> None:
        body = text[len(self.opener) :]
        add_python_calls(self.found, body[: -len(PYTHON_END)] if body.endswith(PYTHON_END) else body,
                         "a <|python_start|> block")


DIALECTS = [
    Dialect("pythonic-list", WholeReplyList, openers=("[",), where=Where.REPLY_START),
    Dialect("python-start", PythonStart, openers=("<|python_start|>",)),
]
