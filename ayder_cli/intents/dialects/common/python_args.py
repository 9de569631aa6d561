"""Python-style calls, `[name(key=value, ...), ...]`, read the way small models really write them.

ast reads well-formed text. What it refuses, models still mean plainly: a
shell command in single quotes holding single quotes of its own
(`command='sed -n '3,5p' f.py'`), a raw line break inside a string, an
integer with leading zeros (`month=07`). The lenient reader ends a string
only at a quote that the next argument or the call's end follows, and reads
every value as a literal (a set becomes a list). Nothing is ever evaluated.
"""

from __future__ import annotations

import ast
import re
from typing import Any

Calls = list[tuple[str, "dict[str, Any] | NotPython"]]  # a call's arguments, or why they cannot be read

_CALL = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(\s*")
_KEY = re.compile(r"([A-Za-z_]\w*)\s*=\s*")
# The next argument, or the call's end followed by the end of the list or the next call.
_AFTER_VALUE = re.compile(r"\s*(?=,\s*[A-Za-z_]\w*\s*=|\)\s*(?:\Z|,\s*[A-Za-z_][\w.]*\s*\())")
_LEADING_ZEROS = re.compile(r"(?<![\w.])0+(?=\d)")
_ESCAPE_IN_SOURCE = {"\n": "\\n", "\r": "\\r", "\x00": "\\x00"}


class NotPython(ValueError):
    """The text is not Python-style calls with literal arguments."""


class _Lists(ast.NodeTransformer):
    def visit_Set(self, node: ast.Set) -> ast.List:  # JSON has no set: a list, in the order written
        return ast.List(elts=[self.visit(e) for e in node.elts], ctx=ast.Load())


def literal(node_or_text: ast.AST | str) -> Any:
    """A literal value (a set read as a list); raises NotPython for anything else."""
    try:
        node = ast.parse(node_or_text.strip(), mode="eval") if isinstance(node_or_text, str) else node_or_text
        return _json_value(ast.literal_eval(_Lists().visit(node)))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise NotPython(f"not a literal value ({type(exc).__name__})") from exc


def _json_value(value: Any) -> Any:
    """The value as JSON can hold it (a tuple as a list); bytes, complex numbers and the like are refused."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: _json_value(item) for key, item in value.items()}
    raise ValueError(f"{type(value).__name__} is not a JSON value")


def python_calls(text: str) -> Calls:
    """The calls in `text`, a list of calls or one call; ast first, then the lenient reader.

    Raises NotPython when the text is not calls at all; a call whose arguments cannot be read comes back
    with the NotPython that says why, in place of its arguments."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return _lenient(text)
    body = tree.body
    nodes = body.elts if isinstance(body, (ast.List, ast.Tuple)) else [body]
    calls: Calls = []
    for node in nodes:
        function = node.func if isinstance(node, ast.Call) else None
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
        if name is None:
            raise NotPython("each item must be a call like name(key=value)")
        try:
            if node.args or any(k.arg is None for k in node.keywords):
                raise NotPython("write every argument as key=value")
            calls.append((name, {k.arg: literal(k.value) for k in node.keywords}))
        except NotPython as exc:  # one bad call is reported; the others still run
            calls.append((name, NotPython(f"{name}: {exc}")))
    return calls


def _lenient(text: str) -> Calls:
    body = text.strip()
    if body.startswith("["):
        if not body.endswith("]"):
            raise NotPython("the list of calls does not close")
        body = body[1:-1]
    calls, at = [], 0
    while True:
        call = _CALL.match(body, at)
        if call is None:
            raise NotPython("each item must be a call like name(key=value)")
        name, at, arguments = call.group(1).rsplit(".", 1)[-1], call.end(), {}
        while not body.startswith(")", at):
            key = _KEY.match(body, at)
            if key is None:
                raise NotPython(f"{name}: write every argument as key=value")
            value, at = _value(body, key.end())
            arguments[key.group(1)] = value
            at = at + 1 if body.startswith(",", at) else at
            at = len(body) - len(body[at:].lstrip())
        calls.append((name, arguments))
        rest = body[at + 1 :].lstrip()
        if not rest:
            return calls
        if not rest.startswith(","):
            raise NotPython(f"{name}: text after the call")
        at = len(body) - len(rest) + 1


def _value(body: str, at: int) -> tuple[Any, int]:
    """The value starting at `at`, and where the ',' or ')' after it stands."""
    quote = body[at : at + 1]
    if quote in ("'", '"'):
        end = body.find(quote, at + 1)
        while end >= 0:
            after = _AFTER_VALUE.match(body, end + 1)
            if after is not None and not _escaped(body, end):
                return _string(body[at + 1 : end], quote), after.end()
            end = body.find(quote, end + 1)
        raise NotPython("a string does not end")
    depth, position, quote = 0, at, ""
    while position < len(body):
        char = body[position]
        if quote:  # inside a string of a list or dict: only its closing quote counts
            quote = "" if char == quote and not _escaped(body, position) else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char in ")," and not depth:
            break
        position += 1
    source = body[at:position]
    try:
        return literal(source), position
    except NotPython:
        return literal(_LEADING_ZEROS.sub("", source)), position


def _escaped(body: str, at: int) -> bool:
    slashes = len(body[:at]) - len(body[:at].rstrip("\\"))
    return slashes % 2 == 1


def _string(raw: str, quote: str) -> str:
    """The text between a string's quotes, its escapes read; quotes of its kind inside it are its own."""
    source = "".join(_ESCAPE_IN_SOURCE.get(char, char) for char in raw)
    source = re.sub(r"(?<!\\)((?:\\\\)*)" + quote, lambda m: m.group(1) + "\\" + quote, source)
    try:
        value = ast.literal_eval(quote + source + quote)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return raw
    return value if isinstance(value, str) else raw
