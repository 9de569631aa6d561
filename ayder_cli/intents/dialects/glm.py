"""GLM-4.5 / 4.6 / 4.7: <tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>…</tool_call>.

Newlines between the parts are optional (4.7 writes none). Values are text,
typed by the tool's schema; a value whose parameter the schema gives no type
is read as JSON when it is JSON (`{"a": 1}`, `42`), as GLM's own parsers do.
Inside a value, `</arg_value>` counts only where the next key, the closer or
the end of the reply follows it, and no call written out inside the value
(`<tool_call>NAME<arg_key>…`) is still open there. A call may be indented
(inside a list item).
"""

from __future__ import annotations

import re

from ayder_cli.intents.coerce import CoerceError, typed
from ayder_cli.intents.dialects.common.dialect_parts import (
    MAX_TAG,
    NEED_MORE,
    NON_SPACE,
    NOT_MINE,
    Block,
    Dialect,
    Ends,
    Verdict,
    may_become,
)
from ayder_cli.intents.found import NAME
from ayder_cli.wording import short

OPENER, CLOSER = "<tool_call>", "</tool_call>"
KEY, KEY_END, VALUE, VALUE_END = "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"
_AFTER_NAME = (KEY, CLOSER)
_AFTER_VALUE = (KEY, CLOSER)
# A GLM call written out inside a value (a document about tool calls), and the closer of one.
_NESTED = re.compile(r"<tool_call>[ \t\n]*[A-Za-z_][\w.\-]*[ \t\n]*<arg_key>|</tool_call>")


class Glm(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.name: str | None = None
        self.position = len(opener)  # where reading goes on
        self.pairs: list[tuple[str, str]] = []
        self.key: str | None = None  # read, waiting for its value
        self.value_start: int | None = None  # inside a value from here
        self.truncated = False
        self.depth = 0  # calls written out inside the open value, still open
        self.counted = 0  # how far the open value was searched for them

    def read(self, buf: str, final: bool) -> Verdict:
        if self.name is None:
            outcome = self._name(buf, final)
            if outcome is not None:
                return outcome
        while True:
            if self.value_start is not None:
                outcome = self._value(buf, final)
            else:
                outcome = self._tag(buf, final)
            if outcome is not None:
                return outcome

    def _name(self, buf: str, final: bool) -> Verdict | None:
        start = NON_SPACE.search(buf, len(self.opener))
        if start is None:
            return NEED_MORE if not final else NOT_MINE
        if buf.startswith(KEY, start.start()):  # a key with no name before it: an error for the model
            self.name, self.position = "", start.start()
            return None
        if not final and may_become(buf[start.start() :], (KEY,)):
            return NEED_MORE
        name = NAME.match(buf, start.start(), start.start() + MAX_TAG)
        if name is None:
            return NOT_MINE
        following = self.context.following(buf, name.end())
        if not following or may_become(following, _AFTER_NAME):
            if not final:
                return NEED_MORE
        if not following.startswith(_AFTER_NAME):
            return NOT_MINE
        if following.startswith(CLOSER) and not self.context.line_start:
            return NOT_MINE  # "<tool_call>name</tool_call>" inside a sentence is a mention
        self.name = name.group(0)
        self.position = name.end()
        return None

    def _tag(self, buf: str, final: bool) -> Verdict | None:
        """Between the parts: a key, a value, or the closer comes next."""
        start = NON_SPACE.search(buf, self.position)
        if start is None:
            return self._cut(buf) if final else NEED_MORE
        at = start.start()
        if self.key is None and buf.startswith(CLOSER, at):
            return Ends(at + len(CLOSER))
        if final and self.key is None and may_become(buf[at:], (CLOSER,)) and not self.context.hit_max_tokens:
            return Ends(len(buf))  # the reply ends inside the closer: the call is whole
        expected = VALUE if self.key is not None else KEY
        if not buf.startswith(expected, at):
            if not final and may_become(buf[at : at + len(expected)], (expected, CLOSER)):
                return NEED_MORE
            self.truncated = True  # a part is missing: reported, not run; what follows is text
            return Ends(at)
        if expected == VALUE:
            self.value_start = self.position = at + len(VALUE)
            return None
        key_end = buf.find(KEY_END, at, at + MAX_TAG)
        if key_end < 0:
            if len(buf) - at < MAX_TAG and not final:
                return NEED_MORE
            self.truncated = True
            return Ends(len(buf)) if final else Ends(at)
        self.key = buf[at + len(KEY) : key_end].strip()
        self.position = key_end + len(KEY_END)
        return None

    def _value(self, buf: str, final: bool) -> Verdict | None:
        while True:
            end = buf.find(VALUE_END, self.position)
            if end < 0:
                self.position = max(self.value_start, len(buf) - len(VALUE_END))
                if not final:
                    return NEED_MORE
                self.truncated = True  # the reply ends inside the value: it is cut off
                return Ends(len(buf))
            following = self.context.following(buf, end + len(VALUE_END))
            if not final and (not following or may_become(following, _AFTER_VALUE)):
                self.position = end
                return NEED_MORE
            structure = not following or following.startswith(_AFTER_VALUE) or may_become(following, _AFTER_VALUE)
            if structure and not self._nested(buf, end):
                self._end_value(buf, end)
                self.position = end + len(VALUE_END)
                return None
            self.position = end + 1  # quoted inside the value

    def _nested(self, buf: str, end: int) -> bool:
        """A GLM call written out inside the value is open at `end`: its </arg_value> is not this value's."""
        for tag in _NESTED.finditer(buf, max(self.counted, self.value_start), end):
            self.depth = self.depth - 1 if tag.group(0) == CLOSER else self.depth + 1
            self.depth = max(self.depth, 0)
        self.counted = end
        return self.depth > 0

    def _end_value(self, buf: str, end: int) -> None:
        self.pairs.append((self.key, buf[self.value_start : end]))
        self.key = self.value_start = None
        self.depth = 0

    def _cut(self, buf: str) -> Verdict:
        self.truncated = self.key is not None or self.context.hit_max_tokens
        return Ends(len(buf))

    def finish(self, text: str) -> None:
        if not self.name:
            self.found.add_call(self.name, {}, text)  # reported: a call needs a name
            return
        if self.truncated:
            self.found.error(f"{self.name}: the call is cut off or misses a part (<arg_key>K</arg_key>"
                             f"<arg_value>V</arg_value>): {short(text)}")
            return
        properties = self.found.parameters(self.name).get("properties", {})
        known = self.name in self.found.schemas  # then a value its schema gives no type is read as JSON
        try:
            arguments = {key: typed(value, properties.get(key), key, untyped_json=known)
                         for key, value in self.pairs if key}  # an empty key names nothing: ignored
        except CoerceError as exc:
            self.found.error(f"{self.name}: {exc}")
            return
        self.found.add_call(self.name, arguments, text)


DIALECT = Dialect("glm", Glm, openers=(OPENER,))
