"""A session's transcript file: its name, its lines, and reading it back.

A transcript is `<root>/.ayder/sessions/<UTC timestamp>-<6 hex id>.jsonl`,
e.g. `20261122T015500Z-3fa9c1.jsonl`. Its first line is a header
(`{"type": "session", ...}`); every later line is one message in the OpenAI
shape of `agent/conversation.py`, or a `{"type": "usage", ...}` line after a reply
holding the session's token totals so far (so `/usage` goes on after
`--continue`) and, under "reply", that reply's model, finish reason and tokens
(kept out of the message itself: the messages are sent back to the server as
they are). `load()` skips a torn or broken line with a warning and keeps the
rest. Writing it, one line at a time: sessions.py.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ayder_cli.errors import AyderError, ExitStatus

HEADER_TYPE = "session"
USAGE_TYPE = "usage"
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens", "requests", "reread_tokens")
FORMAT_VERSION = 1
PROMPT_WIDTH = 60

_TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"
FILE_NAME = re.compile(r"^(?P<stamp>\d{8}T\d{6}Z)-(?P<id>[0-9a-f]{6})\.jsonl$")


class SessionError(AyderError):
    """A transcript could not be written or read."""


class SessionNotFound(SessionError):
    """No session, or more than one, matches what the user typed."""

    exit_status = ExitStatus.USAGE


def new_file_name(session_id: str) -> str:
    """The file name of a session started now."""
    return f"{datetime.now(timezone.utc).strftime(_TIMESTAMP_FORMAT)}-{session_id}.jsonl"


def session_id_of(path: Path) -> str:
    """The short id of a session file (its stem when the name is not ayder's)."""
    match = FILE_NAME.match(path.name)
    return match["id"] if match else path.stem


def header(path: Path, root: Path) -> dict[str, Any]:
    """The first line of a new transcript."""
    return {"type": HEADER_TYPE, "version": FORMAT_VERSION, "started": _started_from_name(path).isoformat(),
            "root": str(root)}


def usage_record(totals: dict[str, int], reply: dict[str, Any] | None = None) -> dict[str, Any]:
    """A line with the session's token totals so far (read back by usage_of), and what the reply
    before it was: {"model": ..., "finish_reason": ..., "prompt_tokens": ..., "completion_tokens": ...}."""
    record = {"type": USAGE_TYPE, **{key: int(totals.get(key) or 0) for key in USAGE_FIELDS}}
    if reply is not None:
        record["reply"] = reply
    return record


def load(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The messages of a transcript, and a warning for each line that had to be skipped."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as error:
        raise SessionNotFound(f"no session file {path}", hint="/sessions lists the sessions there are") from error
    except OSError as error:
        raise SessionError(f"cannot read {path}: {error}") from error
    lines = data.split(b"\n")
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()
    messages: list[dict[str, Any]] = []
    warnings: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        is_last = number == len(lines)
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if is_last and not ends_with_newline:
                warnings.append(f"{path}: line {number}: skipped an incomplete last line "
                                f"(the write was cut off, probably by a crash)")
            else:
                warnings.append(f"{path}: line {number}: skipped a line that is not valid JSON")
            continue
        if isinstance(value, dict) and value.get("type") in (HEADER_TYPE, USAGE_TYPE) and "role" not in value:
            continue
        if not isinstance(value, dict) or not isinstance(value.get("role"), str):
            warnings.append(f"{path}: line {number}: skipped a line that is not a message")
            continue
        messages.append(value)
    return messages, warnings


def usage_of(path: str | os.PathLike[str]) -> dict[str, int] | None:
    """The token totals last recorded in a transcript (None: none recorded)."""
    found = None
    try:
        with Path(path).open("rb") as file:
            for raw in file:
                if b'"type"' not in raw or USAGE_TYPE.encode() not in raw:
                    continue
                try:
                    value = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, ValueError):
                    continue
                if isinstance(value, dict) and value.get("type") == USAGE_TYPE and "role" not in value:
                    found = {key: value[key] for key in USAGE_FIELDS
                             if isinstance(value.get(key), int) and not isinstance(value.get(key), bool)}
    except OSError:
        return None
    return found


def ends_torn(path: Path) -> bool:
    """True when the file's last byte is not a newline (a write was cut off)."""
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            if file.tell() == 0:
                return False
            file.seek(-1, os.SEEK_END)
            return file.read(1) != b"\n"
    except FileNotFoundError:
        return False


def _started_from_name(path: Path) -> datetime:
    match = FILE_NAME.match(path.name)
    if match:
        return datetime.strptime(match["stamp"], _TIMESTAMP_FORMAT).replace(tzinfo=timezone.utc)
    return datetime.now(timezone.utc)


def started_at(path: Path) -> datetime:
    """When the session began: the header says so; the file name is the fallback."""
    try:
        with path.open("rb") as file:
            first = json.loads(file.readline().decode("utf-8"))
        if isinstance(first, dict) and first.get("type") == HEADER_TYPE:
            when = datetime.fromisoformat(first["started"])
            return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return _started_from_name(path)


def first_prompt(messages: list[dict[str, Any]]) -> str:
    """The first user message, on one line, cut to PROMPT_WIDTH characters (for /sessions)."""
    for message in messages:
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            text = " ".join(message["content"].split())
            if len(text) > PROMPT_WIDTH:
                text = text[:PROMPT_WIDTH - 1].rstrip() + "…"
            return text
    return ""
