"""Typing a value written as text (an XML parameter, a GLM arg_value) by its parameter's JSON schema.

A string parameter keeps the text exactly. Numbers, booleans and null are
read the way models write them (`true`, `True`, `null`, `None`); objects and
arrays from JSON or from Python literals, never by evaluating code.
"""

from __future__ import annotations

from typing import Any

from ayder_cli.calls import structured_value
from ayder_cli.wording import with_article

_TRUE_FALSE = {"true": True, "false": False}


class CoerceError(ValueError):
    """The text cannot be the type its parameter's schema asks for."""


def typed(value: str, schema: dict | None, key: str) -> Any:
    """`value` as its schema's type; without a schema (or a type) it stays text."""
    kinds = (schema or {}).get("type")
    if kinds is None:
        return value
    kinds = kinds if isinstance(kinds, list) else [kinds]
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
