"""What ayder learned about a server and model, remembered for the next run.

One JSON file in ayder's state directory ($XDG_STATE_HOME/ayder/servers.json)
maps "URL model" to what was learned, e.g. that the server refuses the `tools`
parameter or that its tool-call parser fails, so the next run starts with the
tools taught as text instead of failing first; and "URL" alone to what a URL
given without a provider turned out to speak, so it is asked only once. A file that cannot be read or
written is ignored: remembering is a convenience, never a reason to stop.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any, Mapping

from ayder_cli.storage.atomic import replace_with
from ayder_cli.storage.xdg import xdg_state_dir


def profiles_path(env: Mapping[str, str]) -> Path:
    return xdg_state_dir(env) / "servers.json"


class ServerProfiles:
    def __init__(self, path: Path) -> None:
        self.path = path

    def get(self, url: str, model: str) -> dict[str, Any]:
        entry = self._read().get(f"{url} {model}")
        return entry if isinstance(entry, dict) else {}

    def server(self, url: str) -> dict[str, Any]:
        """What was learned of the server itself, whatever the model (the API a bare URL speaks)."""
        entry = self._read().get(url)
        return entry if isinstance(entry, dict) else {}

    def remember_server(self, url: str, **facts: Any) -> None:
        self._update(url, facts)

    def remember(self, url: str, model: str, **facts: Any) -> None:
        self._update(f"{url} {model}", facts)

    def _update(self, key: str, facts: dict[str, Any]) -> None:
        profiles = self._read()
        entry = profiles.get(key) if isinstance(profiles.get(key), dict) else {}
        profiles[key] = {**entry, **facts, "learned": date.today().isoformat()}
        try:  # whole or not at all: two runs never leave half a file
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_with(self.path, json.dumps(profiles, indent=1, sort_keys=True).encode("utf-8"), 0o600)
        except OSError:
            pass

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}
