"""The messages of one conversation, in the OpenAI shape both clients accept."""

from __future__ import annotations

from typing import Any

from ayder_cli.llm.base import AssistantTurn

INTERRUPTED_NOTE = "[reply interrupted by the user]"
CUT_OFF_NOTE = "[reply cut off: the connection to the server broke]"


class Conversation:
    def __init__(self, system_prompt: str) -> None:
        self.system_prompt = system_prompt
        self.messages: list[dict[str, Any]] = []

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def add_assistant(self, turn: AssistantTurn) -> None:
        """The reply as it came; one that did not finish says so, for the model's sake."""
        text = turn.text
        if turn.interrupted:
            text = f"{text}\n\n{INTERRUPTED_NOTE}" if text else INTERRUPTED_NOTE
        elif turn.cut_off:
            text = f"{text}\n\n{CUT_OFF_NOTE}" if text else CUT_OFF_NOTE
        self.messages.append({"role": "assistant", "content": text})

    def drop_last_user(self) -> None:
        """Undo add_user when the request failed before anything arrived."""
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages.pop()

    def for_request(self) -> list[dict[str, Any]]:
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return system + self.messages

    def reset(self) -> None:
        self.messages.clear()

    def estimated_tokens(self) -> int:
        """A rough size: about four characters a token."""
        return sum(len(str(m.get("content") or "")) for m in self.for_request()) // 4
