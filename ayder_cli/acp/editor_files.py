"""The editor's files (fs/read_text_file, fs/write_text_file), where the client offers them: the file
tools read the text the editor holds, unsaved changes and all, and what ayder writes (on disk, journaled
for /undo, after its own matching and diff) is sent to the editor too, so its buffer shows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ayder_cli.acp.wire import RpcError


class EditorFiles:
    def __init__(self, ask: Callable[[str, dict], Any], session_id: Callable[[], str | None], *,
                 reads: bool, writes: bool, log: Callable[[str], None]) -> None:
        self._ask, self._session_id, self._log = ask, session_id, log
        self.reads, self.writes = reads, writes

    def read(self, path: Path) -> str | None:
        """The editor's text of the file; None (read from disk) when it has none or cannot say."""
        if not self.reads:
            return None
        try:
            answer = self._ask("fs/read_text_file", {"sessionId": self._session_id(), "path": str(path)})
        except RpcError as exc:
            self._log(f"acp: fs/read_text_file {path}: {exc.message}; read from disk")
            return None
        content = (answer or {}).get("content")
        return content if isinstance(content, str) else None

    def wrote(self, path: Path, text: str) -> None:
        if not self.writes:
            return
        try:
            self._ask("fs/write_text_file", {"sessionId": self._session_id(), "path": str(path), "content": text})
        except RpcError as exc:  # on disk it is written: the editor reloads it from there
            self._log(f"acp: fs/write_text_file {path}: {exc.message}")


def offered(capabilities: Any) -> tuple[bool, bool]:
    """(reads, writes): what the client's clientCapabilities.fs offers."""
    fs = capabilities.get("fs") if isinstance(capabilities, dict) else None
    fs = fs if isinstance(fs, dict) else {}
    return fs.get("readTextFile") is True, fs.get("writeTextFile") is True
