"""Reading what the fake server received and what ayder wrote on stderr, for the end-to-end tests."""

from __future__ import annotations

import json


def messages(request: dict) -> list[dict]:
    return request["body"]["messages"]


def of_role(request: dict, role: str) -> list[dict]:
    return [m for m in messages(request) if m["role"] == role]


def tool_names(request: dict) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools") or []]


def numbered(text: str) -> list[str]:
    """The lines of `text` as read_file shows them: number, tab, line."""
    return [f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(), 1)]


def activity_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("→ ")]


def all_request_text(fake) -> str:
    return "\n".join(json.dumps(r["body"]) for r in fake.chat_requests())


def without_environment(text: str) -> str:
    """A first user message as the user wrote it: the environment note ayder sends before it taken off."""
    if text.startswith("<environment>\n") and "\n</environment>\n\n" in text:
        return text.split("\n</environment>\n\n", 1)[1]
    return text


def sent_messages(request: dict) -> list[dict]:
    """The messages of one recorded chat request, with the environment note taken off (see above)."""
    return [{**m, "content": without_environment(m["content"])} if m.get("role") == "user"
            and isinstance(m.get("content"), str) else m for m in request["body"]["messages"]]
