"""LFM2 / LFM2.5 (Liquid): <|tool_call_start|>[name(key='value', n=1), ...]<|tool_call_end|>.

Python-style calls between two special tokens, as the model card and its
chat template show; some builds write the JSON array of call objects there
instead. Strings are single-quoted and hold whatever a shell command does
(commas, brackets, line breaks, quotes of their own kind): common/python_args
reads them. Text may follow the block. A block the reply ends inside runs
when its calls are whole, unless the reply was cut at max_tokens.
"""

from __future__ import annotations

import json
import re

from ayder_cli.intents.dialects.common.dialect_parts import MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.json_extent import json_values
from ayder_cli.intents.dialects.common.python_args import NotPython, python_calls
from ayder_cli.wording import short

START, END = "<|tool_call_start|>", "<|tool_call_end|>"
_CALL_START = re.compile(r"[A-Za-z_][\w.]*\s*\(")  # one call written without the list's brackets
_MAY_BE_NAME = re.compile(r"[A-Za-z_][\w.]*\s*")


class Lfm2(Block):
    search = 0  # where the look for the end token resumes
    first_end: int | None = None  # the first end token, where the calls before it could not be read
    calls: list | None = None  # the calls read where the block ends at its end token, kept for finish()

    def read(self, buf: str, final: bool) -> Verdict:
        following = self.context.following(buf, len(self.opener))
        if not following:
            return Ends(len(buf)) if final else NEED_MORE
        if following[0] not in "[{" and not _CALL_START.match(following):
            grows = not final and _MAY_BE_NAME.fullmatch(following) and len(following) < MAX_TAG
            return NEED_MORE if grows else NOT_MINE  # else the token mentioned in prose
        # A string may quote the end token: it ends the block where the calls before it can be read.
        while (end := buf.find(END, max(self.search, len(self.opener)))) >= 0:
            self.calls = _calls(buf[len(self.opener) : end])
            if self.calls is not None:
                return Ends(end + len(END))
            self.first_end = end if self.first_end is None else self.first_end
            self.search = end + 1
        self.search = max(self.search, len(self.opener), len(buf) - len(END) + 1)
        if not final:
            return NEED_MORE
        return Ends(len(buf) if self.first_end is None else self.first_end + len(END))

    def finish(self, text: str) -> None:
        body = text[len(self.opener) :]
        closed = body.endswith(END)
        body = (body[: -len(END)] if closed else body).strip()
        if not closed and (self.context.hit_max_tokens or not body):
            self.found.error(f"a <|tool_call_start|> block was cut off; it was not run: {short(text)}")
            return
        if body.startswith(("{", "[{")) or body in ("[]", ""):
            self._json(body)
            return
        try:
            calls = self.calls if closed and self.calls is not None else python_calls(body)
        except NotPython as exc:
            self.found.error(f"a <|tool_call_start|> block could not be read: {exc}: {short(body)}")
            return
        for name, arguments in calls:
            if isinstance(arguments, NotPython):
                self.found.error(f"a <|tool_call_start|> call could not be read: {arguments}")
            else:
                self.found.add_call(name, arguments, body)

    def _json(self, body: str) -> None:
        try:
            for value, _ in json_values(body):
                for item in value if isinstance(value, list) else [value]:
                    if not self.found.add_json_call(item, body):
                        self.found.error(f'a <|tool_call_start|> block needs name(key=value) calls: {short(item)}')
        except json.JSONDecodeError as exc:
            self.found.error(f"a <|tool_call_start|> block is not valid JSON ({exc.msg}): {short(body)}")


def _calls(body: str) -> list | None:
    """The Python calls of a block's body ([] for JSON or an empty list, read in finish()); None when the body
    cannot be read, so an end token after it may be quoted in a string."""
    body = body.strip()
    try:
        if body.startswith(("{", "[{")):
            list(json_values(body))
            return []
        return python_calls(body) if body not in ("", "[]") else []
    except (NotPython, json.JSONDecodeError):
        return None


DIALECT = Dialect("lfm2", Lfm2, openers=(START,))
