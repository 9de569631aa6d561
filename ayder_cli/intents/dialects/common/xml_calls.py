"""The tag reader shared by the XML dialects: <function=NAME> (Qwen3-Coder) and <invoke name="NAME">.

One call is a call tag, then parameter tags (`<parameter=KEY>` or
`<parameter name="KEY">`), then the call's closer; a wrapper may hold several
calls. Values are raw text, so a closing tag counts only where a real one can
stand: after it comes the next tag or the end of the reply. Otherwise it is
part of the value (a file being written may hold any markup); so is a whole
call written inside a value (a document about tool calls), from its opening
tag on a line of its own to its closer. A parameter tag inside a value ends
it (its closer went missing) only when it names a parameter of the tool not
given yet. Closers may be missing at the very end of a reply. A parameter
with an empty name is dropped.

A call with no parameter tags may hold one JSON object (its arguments) or a
bare value for the tool's only required parameter.
"""

from __future__ import annotations

import json
import re

from ayder_cli.calls import json_loads
from ayder_cli.intents.coerce import CoerceError, marked_json, typed
from ayder_cli.intents.dialects.common.dialect_parts import (
    MAX_TAG,
    NEED_MORE,
    NON_SPACE,
    NOT_MINE,
    Block,
    Context,
    Ends,
    Verdict,
    may_become,
    partial_closer,
)
from ayder_cli.intents.dialects.common.xml_tags import (
    AFTER_CALL_TAG,
    AFTER_CLOSER,
    CALL_TAGS,
    NEST_CLOSERS,
    NEST_OPENERS,
    PARAMETER_CLOSERS,
    PARAMETER_TAGS,
    WRAPPER_CLOSERS,
    call_name,
    could_be_tag,
    is_dsml,
    one_newline_off,
    param_key,
    right_after_tag,
    tag_name,
)
from ayder_cli.wording import short

# A '<' that may start a tag of these dialects (or the wrapper's closer); "a < b" in a value cannot.
_MAY_BE_TAG = re.compile(r"<(?=[/fipt｜|]|\Z)")


class _GoOn:
    """This tag is read: look for the next one."""


GO_ON = _GoOn()


class XmlCalls(Block):
    """`skip`: length of a wrapper's opening tag already matched; `closer`: the wrapper's closing tag
    (None: a bare call, which ends with its own closer)."""

    def __init__(self, context: Context, opener: str, skip: int = 0, closer: str | None = None) -> None:
        super().__init__(context, opener)
        self.skip = skip
        self.closer = closer
        self.position = skip
        self.calls: list[tuple[str, list[tuple[str, str, dict]], str | None]] = []  # name, params, body
        self.call_open = False
        self.body_start = 0  # where the open call's text after its tag starts
        self.param: tuple[str, int, dict] | None = None  # key, value start, attributes
        self.lazy = False  # a bare value after the call tag: real only if its closer comes
        self.truncated = False
        self.started = False  # the first call tag was seen and is real
        self.nested = 0  # levels of a call written out inside the open value
        self.nest_seen = False  # the open value holds a call written out
        self.unsure: set[int] = set()  # calls whose value held one and did not end at its own closer
        self.scanned = 0  # no tag can start before this index

    def read(self, buf: str, final: bool) -> Verdict:
        while True:
            found = _MAY_BE_TAG.search(buf, max(self.position, self.scanned))
            at = found.start() if found else -1
            if at < 0:
                self.scanned = len(buf)  # no tag up to here: the next delta is searched from its start
                if not self.started and self.context.following(buf, self.position):
                    return NOT_MINE
                return self._close_all(buf, len(buf)) if final else NEED_MORE
            if not self.started and buf[self.position : at].strip():
                return NOT_MINE  # text between a wrapper and its first call: not ours
            outcome = self._tag(buf, at, final)
            if outcome is not GO_ON:
                return outcome

    def finish(self, text: str) -> None:
        if self.truncated and self.nest_seen:
            self.found.error(f"a value holds a call written out whose tags do not close, so the call does not end; "
                             f"it was not run. Close each tag inside the value: {short(text)}")
            return
        if self.truncated:
            self.found.error(f"a tool call was cut off in the middle of a tag: {short(text)}")
            return
        if not self.calls:
            self.found.error(f"a tool-call block holds no call (it may be cut off): {short(text)}")
        for index, (name, params, body) in enumerate(self.calls):
            if index in self.unsure:
                self.found.error(f"{name}: a value holds a call written out whose tags do not close, so where the "
                                 f"value ends is unclear; it was not run. Close each tag inside the value")
                continue
            if not params and body and body.strip():
                self._add_body_call(name, body, text)
                continue
            arguments = {}
            try:
                for key, value, attributes in params:
                    if key:  # an empty name names nothing: dropped
                        arguments[key] = self._value(name, key, value, attributes)
            except CoerceError as exc:
                self.found.error(f"{name}: {exc}")
                continue
            self.found.add_call(name, arguments, text)

    def _value(self, tool: str, key: str, value: str, attributes: dict):
        schema = self.found.parameters(tool).get("properties", {}).get(key)
        if attributes.get("string") == "false":  # DSML: JSON, unless that is not valid JSON or not what the schema asks
            return marked_json(value, schema, key)
        return typed(value, schema, key)

    def _add_body_call(self, name: str, body: str, raw: str) -> None:
        """A call without parameter tags: a JSON object of arguments, or the value of its one parameter."""
        text = body.strip()
        if text.startswith("{"):
            try:
                value = json_loads(text)
            except json.JSONDecodeError:
                value = None
            if isinstance(value, dict):
                self.found.add_call(name, value, raw)
                return
        parameters = self.found.parameters(name)
        properties = parameters.get("properties") or {}
        only = parameters.get("required") or list(properties)
        if len(only) != 1:
            wanted = ", ".join(only) if only else "unknown"
            self.found.error(f"{name}: the call holds a bare value but no <parameter> tags, and the tool's "
                             f"parameters ({wanted}) do not say which one it is; name each with a parameter tag")
            return
        try:
            self.found.add_call(name, {only[0]: typed(one_newline_off(body), properties.get(only[0]), only[0])}, raw)
        except CoerceError as exc:
            self.found.error(f"{name}: {exc}")

    # --- one tag at a time

    def _tag(self, buf: str, at: int, final: bool):
        """Read the tag-like thing at `at`: an outcome for the block, or GO_ON."""
        if self.param is not None:
            nesting = self._nesting(buf, at, final)
            if nesting is not None:
                return nesting
        if self.closer is not None:
            if buf.startswith(self.closer, at):
                return self._closing_tag(buf, at, None, final)
            if not final and len(buf) - at < len(self.closer) and self.closer.startswith(buf[at:]):
                return NEED_MORE
        name = tag_name(buf, at)
        if name is None:
            rest = buf[at : at + MAX_TAG]
            partial = len(rest) < MAX_TAG and ">" not in rest and "\n" not in rest and could_be_tag(rest)
            if partial and not final:
                return NEED_MORE
            if partial and self.call_open and self.param is None and not self.lazy:
                return self._unfinished(buf)  # the reply ends in the middle of a tag
            return self._skip(at)
        close = buf.find(">", at, at + MAX_TAG)
        tag_end = close + 1 if close >= 0 else -1
        if name in ("function", "invoke"):
            return self._call_tag(buf, at, tag_end, final)
        if name == "parameter":
            return self._param_tag(buf, at, tag_end, final)
        return self._closing_tag(buf, at, name, final)

    def _nesting(self, buf: str, at: int, final: bool):
        """Inside a value: the tags of a call written out in it (GO_ON past them), or None for any other tag."""
        if buf.startswith(NEST_OPENERS, at) and not buf[buf.rfind("\n", 0, at) + 1 : at].strip():
            newline = buf.find("\n", at, at + MAX_TAG)
            if newline < 0 and not final and len(buf) - at < MAX_TAG:
                return NEED_MORE  # whether the tag is alone on its line is not known yet
            line = buf[at : newline if newline >= 0 else at + MAX_TAG].strip()
            if line.endswith(">") and line.count(">") == 1:
                self.nested, self.nest_seen = self.nested + 1, True
                return self._skip(at)
        if self.nested and buf.startswith(NEST_CLOSERS, at):
            self.nested -= 1
            return self._skip(at)
        if self.nested and not final and may_become(buf[at : at + MAX_TAG], NEST_OPENERS + NEST_CLOSERS):
            return NEED_MORE  # a tag of the written-out call, not all here yet
        return self._skip(at) if self.nested else None

    def _call_tag(self, buf: str, at: int, tag_end: int, final: bool):
        if self.lazy:
            return NOT_MINE  # a call tag inside a bare value: the first one was a mention
        if self.param is not None:
            return self._skip(at)  # quoted inside a value
        if tag_end < 0:
            if "\n" in buf[at : at + MAX_TAG] or len(buf) - at >= MAX_TAG:
                return NOT_MINE if not self.started else self._skip(at)
            return self._unfinished(buf) if final else NEED_MORE
        tag = buf[at:tag_end]
        name = call_name(tag) if "\n" not in tag else None
        if name is None:
            return NOT_MINE if not self.started else self._skip(at)
        if tag.endswith("/>") and (self.skip or is_dsml(tag)):  # a DSML leak: an invoke closed in its own tag
            return self._self_closed(buf, at, tag_end, name, final)
        if not self.started:
            following = self.context.following(buf, tag_end)
            if not following and not final:
                return NEED_MORE
            if following and not following.startswith(AFTER_CALL_TAG):
                if not final and may_become(following, AFTER_CALL_TAG):
                    return NEED_MORE
                if not (self.skip or self.context.line_start) or not name:
                    return NOT_MINE  # "<function=x>" mentioned in a sentence
                self.lazy = True  # a bare value: the call counts only if its closer comes
            self.started = True
        self.calls.append((name, [], None))  # an open call without its closer ends here
        self.call_open = True
        self.body_start = self.position = tag_end
        return GO_ON

    def _self_closed(self, buf: str, at: int, tag_end: int, name: str, final: bool):
        """<invoke name="x"/>: a call with no parameters, its closer the tag's own "/>"."""
        started, self.started = self.started, True
        self.calls.append((name, [], None))
        self.call_open = True
        self.body_start = self.position = tag_end - 2
        outcome = self._closing_tag(buf, tag_end - 2, "/invoke", final)
        if outcome is NEED_MORE:  # read the tag again once what follows it is known
            self.calls.pop()
            self.call_open, self.started, self.position = False, started, at
        return outcome

    def _param_tag(self, buf: str, at: int, tag_end: int, final: bool):
        if not self.call_open or self.lazy:
            return self._skip(at)
        if tag_end < 0:
            if "\n" in buf[at : at + MAX_TAG] or len(buf) - at >= MAX_TAG:
                return self._skip(at)
            return self._unfinished(buf) if final else NEED_MORE
        tag = buf[at:tag_end]
        key, attributes = param_key(tag) if "\n" not in tag else (None, {})
        if key is None:
            return self._skip(at)
        qwen_form = tag.startswith("<parameter=")
        if qwen_form and buf[buf.rfind("\n", 0, at) + 1 : at].strip() and not right_after_tag(buf, at):
            return self._skip(at)  # a parameter tag counts only at the start of a line
        if self.param is not None:
            properties = self.found.parameters(self.calls[-1][0]).get("properties")
            if properties is not None and key not in properties or self._given(key):
                return self._skip(at)  # not one of this tool's parameters, or given already: part of the value
            self._end_param(buf, at)
        self.param = (key, tag_end, attributes)
        self.position = tag_end
        return GO_ON

    def _closing_tag(self, buf: str, at: int, name: str | None, final: bool):
        """</parameter>, </function>, </invoke> (name "/parameter", ...), or the wrapper's closer (None)."""
        size = len(self.closer) if name is None else buf.find(">", at) + 1 - at
        after = at + size
        if self.lazy and name not in ("/function", "/invoke"):
            return self._skip(at)  # inside a bare value only the call's closer counts
        real = self._followed_by_structure(buf, after, final)
        if real is NEED_MORE:
            return NEED_MORE
        if not real:
            return self._skip(at)  # quoted inside a value
        if name == "/parameter":
            if self.param is not None:
                self.nest_seen = False  # the value ended at its own closer
                self._end_param(buf, at)
            self.position = after
            return GO_ON
        end = after
        more = False  # the wrapper goes on: another call or its closer follows
        if name in ("/function", "/invoke"):
            following = self.context.following(buf, after)
            if self.closer is not None:
                nexts = (self.closer,) + CALL_TAGS
                if not final and (not following or may_become(following, nexts)):
                    return NEED_MORE
                more = not following or following.startswith(nexts)  # else: the wrapper's closer is missing
            else:
                # A bare call: a wrapper closer right after it (its opener went missing) is ours too.
                if not final and (not following or may_become(following, WRAPPER_CLOSERS)):
                    return NEED_MORE
                start = NON_SPACE.search(buf, after)
                end = next((start.start() + len(c) for c in WRAPPER_CLOSERS if following.startswith(c)), after)
        if self.call_open:
            self._end_call(buf, at)
        self.position = end
        return GO_ON if more else Ends(end)  # a bare call's closer, or the wrapper's, ends the block

    def _followed_by_structure(self, buf: str, after: int, final: bool):
        """Inside a value, a closing tag is real only if a tag that can follow it, or the end, comes next."""
        if self.param is None:
            return True
        following = self.context.following(buf, after)
        if not following:
            return True if final else NEED_MORE
        if following.startswith(PARAMETER_TAGS):
            return self._known_param_follows(following, final)
        candidates = AFTER_CLOSER + ((self.closer,) if self.closer else ())
        if following.startswith(candidates):
            return True
        if may_become(following, candidates):
            return True if final else NEED_MORE  # at the end: the reply was cut inside that tag
        return False

    def _known_param_follows(self, following: str, final: bool):
        """A parameter tag after a closer makes it real, unless it names no parameter of the tool (by the
        schema) or one the call has already."""
        properties = self.found.parameters(self.calls[-1][0]).get("properties")
        close = following.find(">", 0, MAX_TAG)
        if close < 0:
            return NEED_MORE if not final and "\n" not in following[:MAX_TAG] else properties is None
        key, _ = param_key(following[: close + 1])
        return key is not None and (properties is None or key in properties or not key) and not self._given(key)

    def _given(self, key: str) -> bool:
        """The open call has this parameter already (or is reading it): a tag naming it is in a value."""
        return bool(key) and (key in (given for given, _, _ in self.calls[-1][1])
                              or self.param is not None and self.param[0] == key)

    def _unfinished(self, buf: str) -> Ends:
        """The reply ended inside a tag: the call is reported, not run."""
        self.truncated = True
        self.position = len(buf)
        return Ends(len(buf))

    def _skip(self, at: int) -> _GoOn:
        self.position = at + 1
        return GO_ON

    def _end_param(self, buf: str, at: int) -> None:
        if self.nest_seen:  # a value holding a call written out ended without its own closer
            self.unsure.add(len(self.calls) - 1)
            self.nest_seen = False
        key, start, attributes = self.param
        value = one_newline_off(buf[start:at], inline=bool(attributes))  # attributes: the invoke form
        self.calls[-1][1].append((key, value, attributes))
        self.param = None

    def _end_call(self, buf: str, at: int) -> None:
        if self.param is not None:
            self._end_param(buf, at)
        name, params, _ = self.calls[-1]
        self.calls[-1] = (name, params, buf[self.body_start : at] if not params else None)
        self.call_open = self.lazy = False

    def _close_all(self, buf: str, end: int) -> Verdict:
        """The reply ended inside the call: closing tags may be missing there."""
        if self.lazy:
            return NOT_MINE  # a bare value without its closer was a mention after all
        if self.call_open and (self.context.hit_max_tokens or self.param is None and not self.calls[-1][1]):
            return self._unfinished(buf)  # the call's closer never came in a cut reply, or it has nothing at all
        if self.param is not None:  # the value runs to the end, maybe with the start of its closer
            end -= partial_closer(buf[:end], PARAMETER_CLOSERS)
            key, start, attributes = self.param
            if attributes or not buf[start:end].endswith("\n"):
                return self._unfinished(buf)  # a value cut off mid-line is not the value the model meant
        if self.call_open:
            self._end_call(buf, end)
        self.position = end
        return Ends(end)


def in_wrapper(context: Context, opener: str) -> XmlCalls:
    """<tool_call>, <ns:tool_call>, <function_calls>, ...: the closer is the opener with a slash."""
    return XmlCalls(context, opener, skip=len(opener), closer=opener.replace("<", "</", 1))
