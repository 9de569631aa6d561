"""The small files tests put in place: a JSON config anywhere, the notes tools read, the secret beside
the project that no tool may reach (the notes and outside fixtures write the last two)."""

from __future__ import annotations

import json
from pathlib import Path

NOTES = "first line\nsecond line\nthird line\n"
OUTSIDE_SECRET = "TOP SECRET: outside the project"


def write_json(path: Path, data) -> Path:
    """Write a config (or any JSON) file, making its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_user_config(home: Path, data) -> Path:
    """The user's own config.json in a private HOME, readable only by its owner (as a key file should be)."""
    path = write_json(home / ".config" / "ayder" / "config.json", data)
    path.chmod(0o600)
    return path
