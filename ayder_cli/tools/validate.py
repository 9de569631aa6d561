"""Checking a call's arguments against its tool's JSON schema, in words the model can act on."""

from __future__ import annotations

import difflib
import re
from typing import Any

from ayder_cli.calls import structured_value
from ayder_cli.wording import with_article

_INTEGER_TEXT = re.compile(r"\s*[-+]?\d+\s*")

# The one alias table: the names models use for a file or a directory, whatever the tool.
# A tool whose schema has the parameter on the left accepts every name on the right for it.
COMMON_ALIASES: dict[str, tuple[str, ...]] = {
    "file_path": ("path", "file", "filename", "file_name", "filepath", "absolute_path", "target_file"),
    "directory": ("path", "dir", "directory_path", "folder"),
}


def aliases_of(parameters: dict[str, Any], own: dict[str, str]) -> dict[str, str]:
    """Every other name a tool's parameters go by: the common table, then the tool's own aliases.

    A name that is itself one of the tool's parameters is never an alias."""
    properties = parameters.get("properties", {})
    table: dict[str, str] = {}
    for canonical, names in COMMON_ALIASES.items():
        if canonical in properties:
            for name in names:
                table.setdefault(name, canonical)
    table.update(own)
    return {name: canonical for name, canonical in table.items() if name not in properties}


def check_arguments(parameters: dict[str, Any], arguments: Any) -> tuple[dict[str, Any], list[str]]:
    """Return the arguments converted where that is safe ("12" -> 12), and every problem found."""
    if not isinstance(arguments, dict):
        return {}, [f"the arguments must be a JSON object, got {json_type(arguments)}"]
    properties: dict[str, Any] = parameters.get("properties", {})
    required = parameters.get("required", [])
    closed = parameters.get("additionalProperties") is False
    checked: dict[str, Any] = {}
    problems: list[str] = []
    for name, value in arguments.items():
        if name not in properties:
            if closed:
                problems.append(_unknown_argument(name, properties))
            else:
                checked[name] = value
            continue
        if value is None:
            continue  # models send null for "not given"; a required one is reported below
        expected = properties[name].get("type")
        converted, fits = convert(value, expected)
        if fits:
            checked[name] = converted
        else:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            problems.append(f"argument {name!r} must be {_with_article(expected)}, got {json_type(value)} {shown}")
    for name in required:
        if arguments.get(name) is None:
            problems.append(f"missing required argument {name!r}")
    return checked, problems


def convert(value: Any, expected: str | None) -> tuple[Any, bool]:
    """(value as the schema type, whether it fits). Only lossless conversions are made."""
    if expected == "string":
        return value, isinstance(value, str)
    if expected == "integer":
        if isinstance(value, bool):
            return value, False
        if isinstance(value, int):
            return value, True
        if isinstance(value, float) and value.is_integer():
            return int(value), True
        if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
            return int(value), True  # models often quote numbers
        return value, False
    if expected == "number":
        if isinstance(value, bool):
            return value, False
        if isinstance(value, (int, float)):
            return value, True
        if isinstance(value, str):
            try:
                return float(value), True
            except ValueError:
                return value, False
        return value, False
    if expected == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", True  # models often quote booleans too
        return value, isinstance(value, bool)
    if expected in ("array", "object"):
        wanted = list if expected == "array" else dict
        if isinstance(value, str):
            try:  # models often send a list or an object encoded as a string: '["a"]', "{'k': 1}"
                decoded = structured_value(value)
            except ValueError:
                return value, False
            return (decoded, True) if isinstance(decoded, wanted) else (value, False)
        return value, isinstance(value, wanted)
    return value, True  # no type given: anything goes


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _with_article(type_name: str | None) -> str:
    return with_article(type_name)


def _unknown_argument(name: str, properties: dict[str, Any]) -> str:
    nearest = _nearest_parameter(str(name).lower(), list(properties))
    return f"unknown argument {name!r}" + (f" (did you mean {nearest!r}?)" if nearest else "")


def _nearest_parameter(name: str, candidates: list[str]) -> str | None:
    """`path` -> `file_path`, `dir` -> `directory`; plain similarity alone pairs `encoding` with `end_line`."""
    for candidate in candidates:
        if name and (name in candidate or candidate in name or name[:4] == candidate[:4] and len(name) >= 4):
            return candidate
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return close[0] if close else None
