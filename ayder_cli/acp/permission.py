"""A confirmation as the editor asks it: `session/request_permission` with allow once, allow always (for
this session) and reject. Only calls outside what was granted get here: the deny list, the sandbox and the
tools policy have said no before anything is asked, as at the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ayder_cli.acp.updates import tool_kind
from ayder_cli.acp.wire import RpcError
from ayder_cli.tools.executor import Answer, ConfirmRequest, Decision

OPTIONS = [
    {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow_always", "name": "Allow always (this session)", "kind": "allow_always"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
DECISIONS = {"allow_once": Decision.YES, "allow_always": Decision.ALWAYS}


class AcpConfirmer:
    def __init__(self, ask: Callable[[str, dict], Any], session_id: Callable[[], str | None],
                 current_call: Callable[[], str | None], root: Path, mask: Callable[[str], str]) -> None:
        self._ask, self._session_id, self._current_call = ask, session_id, current_call
        self._root, self._mask = root, mask

    def confirm(self, request: ConfirmRequest) -> Answer | None:
        tool_call: dict[str, Any] = {"toolCallId": self._current_call() or request.tool,
                                     "kind": tool_kind(request.tool), "title": self._mask(request.summary),
                                     "status": "pending"}
        if request.preview is not None:
            path = self._root / request.preview.path
            tool_call["content"] = [{"type": "diff", "path": str(path), "oldText": request.preview.old,
                                     "newText": request.preview.new}]
            tool_call["locations"] = [{"path": str(path)}]
        try:
            answer = self._ask("session/request_permission",
                               {"sessionId": self._session_id(), "toolCall": tool_call, "options": OPTIONS})
        except RpcError:
            return Answer(Decision.NO)  # the editor could not ask: nothing runs unasked
        outcome = (answer or {}).get("outcome") or {}
        if outcome.get("outcome") == "cancelled":  # the turn is being cancelled: session/cancel stops it
            return Answer(Decision.NO)
        return Answer(DECISIONS.get(str(outcome.get("optionId")), Decision.NO))
