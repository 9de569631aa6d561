"""The projects you trusted: which project config files may set what sends keys or runs code.

One JSON file in ayder's state directory ($XDG_STATE_HOME/ayder/trusted_projects.json)
maps each project's real path to the sha256 of the .ayder/config.json you approved
there. A changed file no longer matches, so ayder asks again. A file that cannot be
read counts as no approval: the safe side.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

from ayder_cli.storage.atomic import replace_with
from ayder_cli.storage.xdg import xdg_state_dir

MAX_FILE_BYTES = 1024 * 1024  # thousands of projects; a bigger file is not ours


def trusted_projects_path(env: Mapping[str, str]) -> Path:
    return xdg_state_dir(env) / "trusted_projects.json"


def trusted_mcp_servers_path(env: Mapping[str, str]) -> Path:
    """The same map for a project's .mcp.json: its servers you approved, apart from its config's."""
    return xdg_state_dir(env) / "trusted_mcp_servers.json"


class TrustedProjects:
    def __init__(self, path: Path) -> None:
        self.path = path

    def approved(self, root: Path, digest: str) -> bool:
        """You approved this project's config with exactly this content."""
        return self._read().get(str(root)) == digest

    def approve(self, root: Path, digest: str) -> str | None:
        """Remember the approval (replacing one of an older content); None, or why it could not be kept."""
        projects = {**self._read(), str(root): digest}
        try:  # whole or not at all: two runs never leave half a file
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_with(self.path, json.dumps(projects, indent=1, sort_keys=True).encode("utf-8"), 0o600)
        except OSError as exc:
            return f"cannot write {self.path}: {exc.strerror or exc}"
        return None

    def _read(self) -> dict[str, str]:
        try:
            with open(self.path, "rb") as stream:
                raw = stream.read(MAX_FILE_BYTES + 1)
            data = json.loads(raw) if len(raw) <= MAX_FILE_BYTES else None
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {key: value for key, value in data.items() if isinstance(value, str)}
