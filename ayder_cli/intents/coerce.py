"""Typing a value written as text (an XML parameter, a GLM arg_value) by its parameter's JSON schema.

A string parameter keeps the text exactly. Numbers, booleans and null are
read the way models write them (`true`, `True`, `null`, `None`); objects and
arrays from JSON or from Python literals, never by evaluating code. A union
(`anyOf`/`oneOf`, as an optional parameter is often declared) takes the types
of its branches. A parameter whose schema names no type stays text, unless the
dialect reads such values as JSON (GLM does, as its parsers do).
"""

from __future__ import annotations

from typing import Any

from ayder_cli.calls import json_loads, structured_value
from ayder_cli.wording import with_article

_TRUE_FALSE = {"true": True, "false": False}


class CoerceError(ValueError):
    """The text cannot be the type its parameter's schema asks for."""


def typed(value: str, schema: dict | None, key: str, untyped_json: bool = False) -> Any:
    """`value` as its schema's type; without a schema (or a type) it stays text, or with `untyped_json`
    is read as JSON when it is valid JSON."""
    kinds = schema_kinds(schema)
    if not kinds:
        return _json_or_text(value) if untyped_json else value
    text = value.strip()
    if "null" in kinds and text in ("null", "None", ""):
        return None
    if "string" in kinds:
        return value
    for kind in kinds:
        converted = _as(kind, text)
        if converted is not _NO:
            return converted
    expected = " or ".join(with_article(kind) for kind in kinds)
    shown = text if len(text) <= 40 else text[:37] + "..."
    raise CoerceError(f"argument {key!r} must be {expected}, got {shown!r}")


def schema_kinds(schema: dict | None) -> list[str]:
    """The JSON types a schema allows: its `type`, or those of its `anyOf`/`oneOf` branches ([] if none)."""
    if not isinstance(schema, dict):
        return []
    kinds = schema.get("type")
    if kinds is not None:
        return [kind for kind in (kinds if isinstance(kinds, list) else [kinds]) if isinstance(kind, str)]
    branches = schema.get("anyOf") or schema.get("oneOf") or []
    found: list[str] = []
    for branch in branches if isinstance(branches, list) else []:
        found += [kind for kind in schema_kinds(branch) if kind not in found]
    return found


def _json_or_text(value: str) -> Any:
    try:
        return json_loads(value, parse_constant=_not_json)
    except ValueError:
        return value


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # NaN, Infinity: Python's decoder allows them


class _No:
    """Marks a text that is not of the asked type (None is a value)."""


_NO = _No()


def _as(kind: str, text: str) -> Any:
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            number = _number(text)
            return int(number) if isinstance(number, float) and number.is_integer() else _NO
    if kind == "number":
        number = _number(text)
        if number is _NO:
            return _NO
        whole = number.is_integer() and "." not in text and "e" not in text.lower()
        return int(number) if whole else number
    if kind == "boolean":
        return _TRUE_FALSE.get(text.lower(), _NO)
    if kind in ("object", "array"):
        try:
            parsed = structured_value(text)
        except ValueError:
            return _NO
        return parsed if isinstance(parsed, dict if kind == "object" else list) else _NO
    return _NO


def _number(text: str) -> Any:
    try:
        number = float(text)
    except ValueError:
        return _NO
    return number if number == number and abs(number) != float("inf") else _NO
