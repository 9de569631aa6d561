"""The command that adds the `mcp` extra to the ayder running now.

No package index has ayder (`ayder-cli` on PyPI is another project's), so the extra comes from the
checkout ayder was installed from: pip and uv record it in the install's direct_url.json. The command
is for the installer that made ayder's environment -- pipx and uv tools leave their mark in it, a venv
without pip is uv's -- and it names this Python, so it installs where ayder runs whatever `pip` is
first on PATH.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from urllib.parse import unquote, urlparse

DISTRIBUTION = "ayder-cli"
UV_RECEIPT = "uv-receipt.toml"  # in the environment of a tool `uv tool install` made
PIPX_METADATA = "pipx_metadata.json"  # in the environment of an app `pipx install` made


def extra_command(extra: str, prefix: Path | None = None, python: str | None = None) -> str:
    """The shell command that adds `extra`, from the checkout when it is known ('.' run in it when not)."""
    prefix = Path(sys.prefix) if prefix is None else prefix
    checkout, editable = installed_from()
    source = shlex.quote(f"{checkout if checkout else '.'}[{extra}]")
    where = "" if checkout else " in ayder's checkout"
    if (prefix / UV_RECEIPT).is_file():
        return f"uv tool install --force {source}{where}"
    if (prefix / PIPX_METADATA).is_file():
        return f"pipx install --force {source}{where}"
    python = shlex.quote(python or sys.executable)
    editable_flag = "-e " if editable else ""
    if find_spec("pip") is None:  # a venv without pip is uv's (uv venv, uv pip install)
        return f"uv pip install --python {python} {editable_flag}{source}{where}"
    return f"{python} -m pip install {editable_flag}{source}{where}"


def installed_from() -> tuple[str | None, bool]:
    """The directory ayder was installed from, and whether it was installed editable (None: not known,
    e.g. from a wheel or when the install recorded nothing)."""
    # The first install that recorded one: run in the checkout, its ayder_cli.egg-info (no record) comes first.
    try:
        recorded = next((text for found in metadata.distributions(name=DISTRIBUTION)
                         if (text := found.read_text("direct_url.json"))), None)
        data = json.loads(recorded or "null")
    except (OSError, ValueError):
        return None, False
    if not isinstance(data, dict) or not isinstance(data.get("dir_info"), dict):
        return None, False  # an archive or a VCS URL: no directory to point at
    url = urlparse(str(data.get("url", "")))
    if url.scheme != "file" or not url.path:
        return None, False
    return unquote(url.path), bool(data["dir_info"].get("editable"))
