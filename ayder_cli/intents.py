"""The intent parser: tool calls written as text, in every format models use, and think blocks.

One scanner serves both entry points. `parse(text)` feeds the whole reply to a
StreamFilter and finishes it; the chat loop feeds the same filter delta by
delta. The filter decides only on text it has seen in full (it holds back
what could still turn out to be markup), so what it shows while streaming
equals `parse(full_text).display` however the text was split.

Work is linear in the input: every search starts where the previous one for
the same thing stopped, and no regular expression can backtrack.

Formats read (see README "Tool calls"):
  [CALL] name {"json": "args"}                       one line, at the start of a line
  ```tool {"name": ..., "arguments": {...}} ```      a fenced block with info string `tool`
  <function=NAME><parameter=KEY>VALUE</parameter></function>   Qwen3-Coder, optionally in
      <tool_call> or a namespaced wrapper like <minimax:tool_call>; closers may be missing at the end
  <function_calls><invoke name="NAME"><parameter name="KEY" string="true|false">..  also ｜DSML｜ tags
  <tool_call>{"name": ..., "arguments": ...}</tool_call>   Hermes / Qwen2.5
  [{"name": ..., "arguments": ...}] as the whole reply, after [TOOL_CALLS], or in a ```json fence
  <think>...</think>, a lone </think> closing a block the prompt opened, an unclosed <think>
"""

from __future__ import annotations

import difflib
import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ayder_cli.llm.accumulate import decode_arguments
from ayder_cli.llm.base import ToolCall

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
DSML = "｜DSML｜"
CALL_LINE = "[CALL]"
MISTRAL_PREFIX = "[TOOL_CALLS]"
MAX_TAG = 200  # a "tag" longer than this is text, so a stray '<' never holds output for long
SLICE = 4096  # input enters the scanner's buffer this much at a time (more while it holds), so it stays short

# The next character that may start something other than plain text.
_INTERESTING = re.compile(r"[\n`<\[]")
_NON_SPACE = re.compile(r"\S")
_NOT_BACKTICK = re.compile(r"[^`]")
_NEWLINE = re.compile(r"\n")
_NOT_FENCE_LINE = re.compile(r"[^ \t`]")
_NAME = re.compile(r"[A-Za-z_][\w.\-]*")
_NAMESPACED_WRAPPER = re.compile(r"<([A-Za-z][\w.\-]{0,31}):tool_call>")
_NAMESPACED_PREFIX = re.compile(r"<[A-Za-z][\w.\-]{0,31}(?::(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l(?:l)?)?)?)?)?)?)?)?)?)?$")
_JSON_TOKENS = re.compile(r'\\|"|\{|\}|</tool_call>|<(?:/(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l(?:l)?)?)?)?)?)?)?)?)?)?$')
_ATTRIBUTE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')

# Openers that switch the scanner out of plain text. Longest first, so a prefix never wins.
_OPENERS = (
    f"<{DSML}function_calls>",
    f"<{DSML}invoke",
    "<function_calls>",
    "<tool_call>",
    "<function=",
    "<invoke",
    THINK_CLOSE,
    THINK_OPEN,
)


@dataclass
class ParsedReply:
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    display: str = ""
    thinking: list[str] = field(default_factory=list)


def parse(text: str, tools: list[dict] | None = None, *, think_open: bool | None = None) -> ParsedReply:
    """Every tool call, malformed call, think block and the display text of one reply.

    think_open: None (default) treats a lone </think> as closing a block that
    started with the reply; True/False say whether the reply starts thinking.
    """
    scanner = StreamFilter(tools, think_open=think_open)
    scanner.feed(text)
    scanner.finish()
    return scanner.result()


class _Wait(Exception):
    """More text is needed before the scanner can decide (never escapes the class)."""


class StreamFilter:
    """Feed a reply delta by delta; get back (kind, text) pieces: kind is "text" or "thinking"."""

    def __init__(self, tools: list[dict] | None = None, *, think_open: bool | None = None) -> None:
        self.schemas = _schemas_by_name(tools)
        self._buf = ""  # text being scanned; short, except markup held until its end is known
        self._pending: deque[tuple[str, int]] = deque()  # input not yet in _buf: (text, offset)
        self._final = False
        self._mode = "leading" if think_open is None else ("think" if think_open else "text")
        self._hint = 0  # where the search for the current mode's marker resumes in _buf
        self._skipped: dict[tuple[int, str], int] = {}  # (from, pattern) -> how far that run was read
        self._fence = ""  # the backticks that opened the ordinary code fence we are in
        self._block: _Block | None = None
        self._reply_start = True  # nothing but whitespace shown so far
        self._line_blank = True  # nothing but spaces/tabs since the last newline
        self._inline_code = False
        self._pieces: list[tuple[str, str]] = []
        self._display: list[str] = []
        self._thinking: list[str] = []
        self._think_block: list[str] = []
        self.calls: list[ToolCall] = []
        self.errors: list[str] = []

    # --- public

    def feed(self, text: str) -> list[tuple[str, str]]:
        if text:
            self._pending.append((text, 0))
            self._run()
        return self._take()

    def finish(self) -> list[tuple[str, str]]:
        self._final = True
        self._run()
        if self._buf:  # only an unclosed think block can be left
            self._think(self._buf)
            self._buf = ""
        self._close_think_block()
        return self._take()

    def result(self) -> ParsedReply:
        return ParsedReply(list(self.calls), list(self.errors), "".join(self._display), list(self._thinking))

    # --- output

    def _take(self) -> list[tuple[str, str]]:
        pieces, self._pieces = self._pieces, []
        return pieces

    def _text(self, text: str) -> None:
        if not text:
            return
        self._pieces.append(("text", text))
        self._display.append(text)
        if self._reply_start and not text.isspace():
            self._reply_start = False
        newline = text.rfind("\n")
        tail = text[newline + 1 :]
        if newline >= 0:
            self._line_blank = True
            self._inline_code = False
        if tail and tail.strip(" \t"):
            self._line_blank = False

    def _think(self, text: str) -> None:
        if text:
            self._pieces.append(("thinking", text))
            self._think_block.append(text)

    def _close_think_block(self) -> None:
        if self._think_block:
            self._thinking.append("".join(self._think_block))
            self._think_block = []

    def _consume(self, size: int) -> str:
        taken, self._buf = self._buf[:size], self._buf[size:]
        self._hint = 0
        self._skipped.clear()
        return taken

    def skip_run(self, buf: str, start: int, stop: re.Pattern) -> int:
        """Where the first character matching `stop` at or after `start` is (len(buf) if none yet).

        While the scanner waits, the same run is asked about again with every
        delta; what was already read is remembered, so each delta reads only
        what is new.
        """
        key = (start, stop.pattern)
        found = stop.search(buf, self._skipped.get(key, start))
        if found is None:
            self._skipped[key] = len(buf)
            return len(buf)
        return found.start()

    def following(self, buf: str, position: int) -> str:
        """The start of what comes after `position`, past whitespace ("" if nothing yet)."""
        found = self.skip_run(buf, position, _NON_SPACE)
        return buf[found : found + MAX_TAG]

    @property
    def _at_end(self) -> bool:
        """The reply is complete and all of it is in the buffer."""
        return self._final and not self._pending

    def _pull(self) -> bool:
        """Move the next slice of pending input into the buffer; False if there is none."""
        if not self._pending:
            return False
        text, start = self._pending.popleft()
        size = max(SLICE, len(self._buf))  # a held buffer at least doubles: re-reading it stays linear
        if start + size < len(text):
            self._pending.appendleft((text, start + size))
        buf, self._buf = self._buf, ""
        buf += text[start : start + size]  # a local, so CPython can grow it in place
        self._buf = buf
        return True

    def _replay(self) -> None:
        """Scan the buffer again from the start, a slice at a time (after a hold turned out to be text)."""
        if self._buf:
            self._pending.appendleft((self._buf, 0))
            self._buf = ""
        self._skipped.clear()
        self._hint = 0

    # --- the scanner

    def _run(self) -> None:
        step = {"leading": self._leading, "think": self._in_think, "text": self._in_text,
                "fence": self._in_fence, "block": self._in_block}
        while True:
            try:
                while self._buf and step[self._mode]():
                    if len(self._buf) > 2 * SLICE:  # a long hold just ended: read the rest a slice at a time
                        self._replay()
            except _Wait:
                pass
            if not self._pull():
                return

    def _leading(self) -> bool:
        """At the start of a reply: a lone </think> means everything so far was thinking."""
        buf = self._buf
        closing = buf.find(THINK_CLOSE, self._hint)
        opening = buf.find(THINK_OPEN, self._hint)
        if closing >= 0 and (opening < 0 or closing < opening):
            self._think(self._consume(closing))
            self._consume(len(THINK_CLOSE))
            self._close_think_block()
            self._mode = "text"
            return True
        if opening >= 0 or self._at_end:
            self._mode = "text"
            self._replay()
            return True
        self._hint = max(0, len(buf) - len(THINK_CLOSE))
        raise _Wait

    def _in_think(self) -> bool:
        buf = self._buf
        end = buf.find(THINK_CLOSE, self._hint)
        if end >= 0:
            self._think(self._consume(end))
            self._consume(len(THINK_CLOSE))
            self._close_think_block()
            self._mode = "text"
            return True
        held = _held_suffix(buf, (THINK_CLOSE,))
        self._think(self._consume(len(buf) - held))
        raise _Wait

    def _in_fence(self) -> bool:
        """Inside an ordinary code fence: shown verbatim, nothing in it is a call."""
        buf = self._buf
        newline = self.skip_run(buf, 0, _NEWLINE) if self._line_blank else buf.find("\n")
        newline = newline if newline < len(buf) else -1
        if not self._line_blank:  # mid-line: cannot be the closing fence
            self._text(self._consume(newline + 1 if newline >= 0 else len(buf)))
            return True
        if newline < 0 and not self._at_end and self.skip_run(buf, 0, _NOT_FENCE_LINE) == len(buf):
            raise _Wait  # only spaces and backticks so far: this line may yet close the fence
        line = buf if newline < 0 else buf[:newline]
        stripped = line.lstrip(" \t")
        closes = stripped.startswith(self._fence) and not stripped.strip("`").strip()
        if closes:
            self._mode = "text"
        self._text(self._consume(len(line) + (newline >= 0)))
        return True

    def _in_text(self) -> bool:
        buf = self._buf
        found = _INTERESTING.search(buf)
        if not found:
            self._text(self._consume(len(buf)))
            return False
        if found.start():
            self._text(self._consume(found.start()))
            return True
        char = buf[0]
        if char == "\n":
            self._text(self._consume(1))
            return True
        if char == "`":
            return self._backticks()
        if char == "<":
            return self._angle()
        return self._bracket()

    def _need(self, needed: bool) -> None:
        """Wait for more text, unless the reply is complete."""
        if needed and not self._at_end:
            raise _Wait

    def _backticks(self) -> bool:
        buf = self._buf
        run = self.skip_run(buf, 0, _NOT_BACKTICK)
        self._need(run == len(buf))
        if run >= 3 and self._line_blank:
            newline = self.skip_run(buf, run, _NEWLINE)
            self._need(newline == len(buf))
            newline = newline if newline < len(buf) else -1
            line = buf if newline < 0 else buf[:newline]
            info = line[run:].strip()
            if info == "tool":
                return self._start(_ToolFence(self, run))
            if info.lower() == "json" and self._reply_start:
                return self._start(_WholeReply(self))
            self._fence = "`" * run
            self._mode = "fence"
            self._text(self._consume(len(line) + (newline >= 0)))
            return True
        self._inline_code = not self._inline_code
        self._text(self._consume(run))
        return True

    def _angle(self) -> bool:
        buf = self._buf
        if self._inline_code:
            self._text(self._consume(1))
            return True
        for opener in _OPENERS:
            if buf.startswith(opener):
                return self._open(opener)
            self._need(len(buf) < len(opener) and opener.startswith(buf))
        wrapper = _NAMESPACED_WRAPPER.match(buf)
        if wrapper:
            return self._start(_XmlBlock(self, len(wrapper.group(0)), f"</{wrapper.group(1)}:tool_call>"))
        self._need(bool(_NAMESPACED_PREFIX.match(buf)))
        self._text(self._consume(1))
        return True

    def _open(self, opener: str) -> bool:
        if opener == THINK_OPEN:
            self._consume(len(THINK_OPEN))
            self._mode = "think"
            return True
        if opener == THINK_CLOSE:  # a stray closing tag: not text the user needs
            self._consume(len(THINK_CLOSE))
            return True
        if opener == "<tool_call>":
            return self._start(_ToolCallWrapper(self))
        if opener.endswith("function_calls>"):
            return self._start(_XmlBlock(self, len(opener), opener.replace("<", "</", 1)))
        return self._start(_XmlBlock(self, 0, None))  # <function=, <invoke without a wrapper

    def _bracket(self) -> bool:
        buf = self._buf
        if self._line_blank:
            for prefix, block in ((CALL_LINE, _CallLine), (MISTRAL_PREFIX, _MistralArray)):
                if buf.startswith(prefix):
                    return self._start(block(self))
                self._need(len(buf) < len(prefix) and prefix.startswith(buf))
        if self._reply_start:
            rest = self.following(buf, 1)
            self._need(not rest)
            if rest.startswith("{"):
                return self._start(_WholeReply(self))
        self._text(self._consume(1))
        return True

    # --- blocks: markup held until its end is known

    def _start(self, block: "_Block") -> bool:
        self._block = block
        self._mode = "block"
        return True

    def _in_block(self) -> bool:
        block = self._block
        end = block.end(self._buf, self._at_end)
        if end is None:
            raise _Wait
        self._block = None
        self._mode = "text"
        if end < 0:  # not markup after all: its first character is text, scanning goes on
            self._text(self._consume(1))
            return True
        block.finish(self._consume(end))
        self._line_blank = True
        self._inline_code = False
        return True

    def _rescan_as_text(self, text: str) -> None:
        """Held text that turned out not to be a whole-reply call: read it again as ordinary text."""
        self._reply_start = False
        self._replay()
        self._pending.appendleft((text, 0))
        self._mode = "text"

    # --- building calls

    def add_call(self, name: str, arguments: Any, raw: str) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name or ""):
            self.errors.append(f"a tool call has no valid tool name: {_short(raw)}")
            return
        if self.schemas and name not in self.schemas:
            close = difflib.get_close_matches(name, list(self.schemas), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; tools: {', '.join(self.schemas)}"
            self.errors.append(f"unknown tool {name!r}{hint}")
            return
        if not isinstance(arguments, dict):
            arguments, error = decode_arguments(arguments if isinstance(arguments, str) else None)
            if error:
                self.errors.append(f"{name}: {error}")
                return
        self.calls.append(ToolCall(f"call_{len(self.calls)}", name, arguments))

    def add_json_call(self, item: Any, raw: str) -> bool:
        """One call object in any of the JSON shapes; False if it is not one."""
        if not isinstance(item, dict):
            return False
        if isinstance(item.get("function"), dict):
            item = item["function"]
        if "name" not in item:
            return False
        arguments = next((item[key] for key in ("arguments", "args", "parameters") if key in item), {})
        self.add_call(item["name"], arguments, raw)
        return True

    def add_json_calls(self, value: Any, raw: str, where: str) -> None:
        """One call object or a list of them; anything else is reported."""
        for item in value if isinstance(value, list) else [value]:
            if not self.add_json_call(item, raw):
                self.errors.append(f'{where} needs {{"name": ..., "arguments": {{...}}}}, got: {_short(item)}')

    def typed(self, tool: str, key: str, value: str) -> Any:
        """A text value typed by the tool's schema; without one it stays a string."""
        schema = (self.schemas.get(tool) or {}).get("properties", {}).get(key)
        return _typed(value, schema) if schema else value


class _Block:
    """Markup the scanner holds. end() says where it stops: None = need more, -1 = not markup."""

    def __init__(self, scanner: StreamFilter) -> None:
        self.scanner = scanner

    def end(self, buf: str, final: bool) -> int | None:
        raise NotImplementedError

    def finish(self, text: str) -> None:
        raise NotImplementedError


class _CallLine(_Block):
    """[CALL] name {"json": "arguments"} -- the line, with its newline."""

    search = 0

    def end(self, buf: str, final: bool) -> int | None:
        newline = buf.find("\n", self.search)
        if newline < 0 and not final:
            self.search = len(buf)
            return None
        line = buf if newline < 0 else buf[:newline]
        rest = line[len(CALL_LINE) :].lstrip()
        name = _NAME.match(rest)
        after = rest[name.end() :].strip() if name else ""
        if not name or (after and not after.startswith(("{", "[", '"'))):
            return -1  # a mention in prose, not a call
        return len(line) + (newline >= 0)

    def finish(self, text: str) -> None:
        rest = text.strip()[len(CALL_LINE) :].lstrip()
        name = _NAME.match(rest)
        payload = rest[name.end() :].strip()
        if not payload:
            self.scanner.add_call(name.group(0), {}, text)
            return
        try:
            arguments, _ = json.JSONDecoder().raw_decode(payload)
        except json.JSONDecodeError as exc:
            self.scanner.errors.append(
                f"{name.group(0)}: the arguments are not valid JSON ({exc.msg} at column {exc.colno}); "
                f"the call may be cut off: {_short(text)}"
            )
            return
        if not isinstance(arguments, dict):
            self.scanner.errors.append(f"{name.group(0)}: the arguments must be one JSON object: {_short(text)}")
            return
        self.scanner.add_call(name.group(0), arguments, text)


class _ToolFence(_Block):
    """```tool ... ``` holding one call object (or a list of them)."""

    def __init__(self, scanner: StreamFilter, ticks: int) -> None:
        super().__init__(scanner)
        self.fence = "`" * ticks
        self.search = 0

    def end(self, buf: str, final: bool) -> int | None:
        start = buf.find("\n") + 1
        position = max(start, self.search)
        while True:
            found = buf.find(self.fence, position)
            if found < 0:
                self.search = max(start, len(buf) - len(self.fence))
                return len(buf) if final else None
            line_start = buf.rfind("\n", 0, found) + 1
            newline = buf.find("\n", found)
            if newline < 0 and not final:
                self.search = found
                return None
            line = buf[line_start : newline if newline >= 0 else len(buf)]
            if line_start >= start and not line.strip().strip("`"):
                return (newline + 1) if newline >= 0 else len(buf)
            position = found + len(self.fence)

    def finish(self, text: str) -> None:
        body = text[text.find("\n") + 1 :].rstrip()
        if body.endswith(self.fence):
            body = body[: -len(self.fence)]
        try:
            value = json.loads(body)
        except json.JSONDecodeError as exc:
            self.scanner.errors.append(f"a ```tool block is not valid JSON ({exc.msg}): {_short(body)}")
            return
        self.scanner.add_json_calls(value, body, "a ```tool block")


class _ToolCallWrapper(_Block):
    """<tool_call> followed by JSON (Hermes) or by the XML forms (Qwen3-Coder)."""

    def __init__(self, scanner: StreamFilter) -> None:
        super().__init__(scanner)
        self.inner: _Block | None = None
        self.search = 0
        self.in_string = False  # inside a JSON string of the Hermes form
        self.depth = 0  # braces open outside strings
        self.complete_at: int | None = None  # where the last complete JSON object ended

    def end(self, buf: str, final: bool) -> int | None:
        if self.inner is None:
            rest = self.scanner.following(buf, len("<tool_call>"))
            if not rest:
                return len(buf) if final else None
            if rest.startswith("{"):
                self.inner = self
            elif any(rest.startswith(t) for t in ("<function=", "<invoke", f"<{DSML}invoke")):
                self.inner = _XmlBlock(self.scanner, len("<tool_call>"), "</tool_call>")
            elif final or not any(t.startswith(rest) for t in ("<function=", "<invoke", f"<{DSML}invoke")):
                return -1  # "<tool_call>" mentioned in prose
            else:
                return None
        if self.inner is not self:
            return self.inner.end(buf, final)
        # Braces and the closer count only outside JSON strings, which may quote either.
        if self.complete_at is not None:
            return self._after_object(buf, final)
        position = max(self.search, len("<tool_call>"))
        for token in _JSON_TOKENS.finditer(buf, position):
            text = token.group(0)
            if token.start() < position:
                continue  # the character an escape just covered
            if text == "\\" and self.in_string:
                if token.end() == len(buf):
                    break  # the escaped character has not arrived
                position = self.search = token.end() + 1
                continue
            if text == '"':
                self.in_string = not self.in_string
            elif self.in_string:
                pass
            elif text == "{":
                self.depth += 1
            elif text == "}" and self.depth > 0:
                self.depth -= 1
                if self.depth == 0:
                    self.complete_at = self.search = token.end()
                    return self._after_object(buf, final)
            elif text == "</tool_call>":
                return token.end()
            elif text.startswith("<"):
                break  # a partial closer at the end: wait for the rest
            position = self.search = token.end()
        else:
            self.search = len(buf)  # every quote, brace and escape so far is counted
        return len(buf) if final else None

    def _after_object(self, buf: str, final: bool) -> int | None:
        """After a complete JSON object: the closer, another object, or (closer missing) text."""
        following = self.scanner.following(buf, self.complete_at)
        if following.startswith("</tool_call>"):
            return _NON_SPACE.search(buf, self.complete_at).start() + len("</tool_call>")
        if following.startswith("{"):
            self.complete_at = None  # several objects in one block
            return self.end(buf, final)
        if not final and (not following or "</tool_call>".startswith(following)):
            return None
        return self.complete_at if following else len(buf)

    def finish(self, text: str) -> None:
        if self.inner is not None and self.inner is not self:
            self.inner.finish(text)
            return
        body = text[len("<tool_call>") :]
        if body.endswith("</tool_call>"):
            body = body[: -len("</tool_call>")]
        body = body.strip()
        if not body:
            self.scanner.errors.append("an empty <tool_call> block (the call may be cut off)")
            return
        decoder, position = json.JSONDecoder(), 0
        while position < len(body):
            try:
                value, position = decoder.raw_decode(body, position)
            except json.JSONDecodeError as exc:
                self.scanner.errors.append(
                    f"a <tool_call> block is not valid JSON ({exc.msg}); the call may be cut off: {_short(body)}"
                )
                return
            self.scanner.add_json_calls(value, body, "a <tool_call> block")
            position = len(body) - len(body[position:].lstrip())


class _MistralArray(_Block):
    """[TOOL_CALLS] followed by a JSON array; it runs to the end of the reply."""

    def end(self, buf: str, final: bool) -> int | None:
        return len(buf) if final else None

    def finish(self, text: str) -> None:
        body = text[len(MISTRAL_PREFIX) :].strip()
        try:
            value, _ = json.JSONDecoder().raw_decode(body)
        except json.JSONDecodeError as exc:
            self.scanner.errors.append(f"[TOOL_CALLS] is not followed by valid JSON ({exc.msg}): {_short(body)}")
            return
        self.scanner.add_json_calls(value, body, "[TOOL_CALLS]")


class _WholeReply(_Block):
    """A reply that may be nothing but a JSON array of calls (bare or in a ```json fence).

    It is a call only if it is the whole reply, so it is held to the end.
    """

    def end(self, buf: str, final: bool) -> int | None:
        return len(buf) if final else None

    def finish(self, text: str) -> None:
        body = text.strip()
        if body.startswith("```"):
            _, _, rest = body.partition("\n")
            body = rest[: rest.rfind("```")] if rest.rstrip().endswith("```") else ""
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, list) and value and all(_is_call_object(item) for item in value):
            for item in value:
                self.scanner.add_json_call(item, body)
            return
        self.scanner._rescan_as_text(text)


class _XmlBlock(_Block):
    """<function=NAME><parameter=KEY>..., or <invoke name="NAME"><parameter name="KEY">...

    `skip` is the length of a wrapper opening tag already matched; `closer` is
    the wrapper's closing tag (None: a bare function/invoke, which ends with it).
    A closing tag counts only where a real one can stand: after it comes the
    next tag or the end of the reply. Otherwise it is part of a value.
    """

    def __init__(self, scanner: StreamFilter, skip: int, closer: str | None) -> None:
        super().__init__(scanner)
        self.skip = skip
        self.closer = closer
        self.position = skip
        self.calls: list[tuple[str, list[tuple[str, str, dict]]]] = []
        self.call_open = False
        self.param: tuple[str, int, dict] | None = None  # key, value start, attributes
        self.truncated = False
        self.started = False  # the first call tag was seen and is real

    def end(self, buf: str, final: bool) -> int | None:
        while True:
            at = buf.find("<", self.position)
            if at < 0:
                if not self.started and self.scanner.following(buf, self.position):
                    return -1
                return self._close_all(buf, len(buf)) if final else None
            if not self.started and buf[self.position : at].strip():
                return -1  # text between a wrapper and its first call: not ours
            outcome = self._tag(buf, at, final)
            if outcome is None:
                return None
            if outcome == "reject":
                return -1
            if isinstance(outcome, int):
                return outcome

    def finish(self, text: str) -> None:
        if self.truncated:
            self.scanner.errors.append(f"a tool call was cut off in the middle of a tag: {_short(text)}")
            return
        if not self.calls:
            self.scanner.errors.append(f"a tool-call block holds no call (it may be cut off): {_short(text)}")
        for name, params in self.calls:
            arguments = {}
            for key, value, attributes in params:
                if attributes.get("string") == "false":
                    try:
                        arguments[key] = json.loads(value)
                        continue
                    except json.JSONDecodeError:
                        pass
                arguments[key] = self.scanner.typed(name, key, value)
            self.scanner.add_call(name, arguments, text)

    # --- one tag at a time

    def _tag(self, buf: str, at: int, final: bool):
        """Handle the tag-like thing at `at`: None = wait, "reject", an end index, or "next"."""
        rest = buf[at : at + MAX_TAG]
        if self.closer is not None:
            if rest.startswith(self.closer):
                return self._closing_tag(buf, at, "wrapper", final)
            if not final and self.closer.startswith(rest):
                return None
        name = _tag_name(rest)
        if name is None:
            partial = len(rest) < MAX_TAG and ">" not in rest and "\n" not in rest and _could_be_tag(rest)
            if partial and not final:
                return None
            if partial and self.call_open and self.param is None:
                return self._cut_off(buf)  # the reply ends in the middle of a tag
            self.position = at + 1
            return "next"
        tag_end = at + rest.find(">") + 1 if ">" in rest else -1
        if name in ("function", "invoke"):
            return self._call_tag(buf, at, tag_end, final)
        if name == "parameter":
            return self._param_tag(buf, at, tag_end, final)
        return self._closing_tag(buf, at, name, final)

    def _call_tag(self, buf: str, at: int, tag_end: int, final: bool):
        if self.param is not None:
            return self._skip(at)  # quoted inside a value
        if tag_end < 0:
            if "\n" in buf[at:at + MAX_TAG] or len(buf) - at >= MAX_TAG:
                return "reject" if not self.started else self._skip(at)
            return self._cut_off(buf) if final else None
        tag = buf[at:tag_end]
        call_name = _call_name(tag) if "\n" not in tag else None
        if call_name is None:
            return "reject" if not self.started else self._skip(at)
        if not self.started:
            following = self.scanner.following(buf, tag_end)
            if not following and not final:
                return None
            if following and not _starts_any(following, _AFTER_CALL_TAG):
                if not final and any(t.startswith(following) for t in _AFTER_CALL_TAG):
                    return None
                return "reject"  # "<function=x>" mentioned in a sentence
            self.started = True
        self.calls.append((call_name, []))  # an open call without its closer ends here
        self.call_open = True
        self.position = tag_end
        return "next"

    def _param_tag(self, buf: str, at: int, tag_end: int, final: bool):
        if not self.call_open:
            return self._skip(at)
        if tag_end < 0:
            if "\n" in buf[at:at + MAX_TAG] or len(buf) - at >= MAX_TAG:
                return self._skip(at)
            return self._cut_off(buf) if final else None
        tag = buf[at:tag_end]
        key, attributes = _param_key(tag) if "\n" not in tag else (None, {})
        if key is None:
            return self._skip(at)
        qwen_form = tag.startswith("<parameter=")
        if qwen_form and buf[buf.rfind("\n", 0, at) + 1 : at].strip() and not self._right_after_tag(buf, at):
            return self._skip(at)  # a parameter tag counts only at the start of a line
        if self.param is not None:
            tool = self.calls[-1][0]
            properties = (self.scanner.schemas.get(tool) or {}).get("properties")
            if properties is not None and key not in properties:
                return self._skip(at)  # not one of this tool's parameters: part of the value
            self._end_param(buf, at)
        self.param = (key, tag_end, attributes)
        self.position = tag_end
        return "next"

    def _closing_tag(self, buf: str, at: int, name: str, final: bool):
        """</parameter>, </function>, </invoke>, or the wrapper's closer ("wrapper")."""
        size = buf.find(">", at) + 1 - at if name.startswith("/") else len(self.closer)
        after = at + size
        real = self._followed_by_structure(buf, after, final, name)
        if real is None:
            return None
        if not real:
            return self._skip(at)  # quoted inside a value
        if name == "/parameter":
            if self.param is not None:
                self._end_param(buf, at)
            self.position = after
            return "next"
        end = after
        more = False  # the wrapper goes on: another call or its closer follows
        if name in ("/function", "/invoke") and self.closer is not None:
            following = self.scanner.following(buf, after)
            nexts = (self.closer, "<function=", "<invoke", f"<{DSML}invoke")
            if not final and (not following or any(n.startswith(following) and n != following for n in nexts)):
                return None
            more = not following or _starts_any(following, nexts)  # else: the wrapper's closer is missing
        if name in ("/function", "/invoke") and self.closer is None:
            # A bare call: a wrapper closer right after it (its opener went missing) is ours too.
            stray = self.scanner.following(buf, after)
            closers = ("</tool_call>", "</function_calls>", f"</{DSML}function_calls>")
            if not final and (not stray or any(c.startswith(stray) and c != stray for c in closers)):
                return None
            start = _NON_SPACE.search(buf, after)
            end = next((start.start() + len(c) for c in closers if stray.startswith(c)), after)
        if self.param is not None:
            self._end_param(buf, at)
        self.call_open = False
        self.position = end
        if more:
            return "next"
        return end  # a bare call's closer, or the wrapper's, ends the block

    def _followed_by_structure(self, buf: str, after: int, final: bool, name: str) -> bool | None:
        """Inside a value, a closing tag is real only if a tag that can follow it, or the end, comes next."""
        if self.param is None:
            return True
        following = self.scanner.following(buf, after)
        if not following:
            return True if final else None
        if _starts_any(following, ("<parameter", f"<{DSML}parameter")):
            return self._known_param_follows(following, final)
        if _starts_any(following, _AFTER_CLOSER) or (self.closer and following.startswith(self.closer)):
            return True
        candidates = _AFTER_CLOSER + ((self.closer,) if self.closer else ())
        if not final and any(c.startswith(following) for c in candidates):
            return None
        return False

    def _known_param_follows(self, following: str, final: bool) -> bool | None:
        """A parameter tag after a closer makes it real, unless the schema says it is no parameter."""
        properties = (self.scanner.schemas.get(self.calls[-1][0]) or {}).get("properties")
        if properties is None:
            return True
        close = following.find(">", 0, MAX_TAG)
        if close < 0:
            return None if not final and "\n" not in following[:MAX_TAG] else False
        key, _ = _param_key(following[: close + 1])
        return key in properties

    def _right_after_tag(self, buf: str, at: int) -> bool:
        before = at - 1
        while before >= 0 and buf[before] in " \t\r\n":
            before -= 1
        return before >= 0 and buf[before] == ">"

    def _cut_off(self, buf: str) -> int:
        """The reply ended inside a tag: the call is reported, not run."""
        self.truncated = True
        self.position = len(buf)
        return len(buf)

    def _skip(self, at: int) -> str:
        self.position = at + 1
        return "next"

    def _end_param(self, buf: str, at: int) -> None:
        key, start, attributes = self.param
        value = buf[start:at]
        value = value[2:] if value.startswith("\r\n") else value[1:] if value.startswith("\n") else value
        value = value[:-2] if value.endswith("\r\n") else value[:-1] if value.endswith("\n") else value
        self.calls[-1][1].append((key, value, attributes))
        self.param = None

    def _close_all(self, buf: str, end: int) -> int:
        """The reply ended inside the call: closing tags may be missing there."""
        if self.param is not None:
            self._end_param(buf, end)
        self.call_open = False
        self.position = end
        return end


_AFTER_CALL_TAG = ("<parameter", f"<{DSML}parameter", "</function>", "</invoke>", f"</{DSML}invoke>")
_AFTER_CLOSER = (
    "<parameter", f"<{DSML}parameter", "</function>", "</invoke>", f"</{DSML}invoke>", "</tool_call>",
    "<function=", "<invoke", f"<{DSML}invoke", "</function_calls>", f"</{DSML}function_calls>", "<tool_call>",
)


def _tag_name(rest: str) -> str | None:
    """'function', 'invoke', 'parameter', '/parameter', '/function', '/invoke', or None."""
    body = rest[1:]
    closing = body.startswith("/")
    if closing:
        body = body[1:]
    if body.startswith(DSML):
        body = body[len(DSML) :]
    for name, follow in (("function", "="), ("invoke", " "), ("parameter", "= "), ):
        if body.startswith(name) and len(body) > len(name) and body[len(name)] in (follow if not closing else ">"):
            return ("/" if closing else "") + name
    return None


def _could_be_tag(rest: str) -> bool:
    body = rest[1:].lstrip("/")
    if body.startswith(DSML):
        body = body[len(DSML) :]
    elif DSML.startswith(body):
        return True
    return any(name.startswith(body) or body.startswith(name) for name in ("function", "invoke", "parameter", "tool_call"))


def _call_name(tag: str) -> str | None:
    body = tag[1:-1]
    if body.startswith(DSML):
        body = body[len(DSML) :]
    if body.startswith("function="):
        name = body[len("function=") :].strip().strip('"')
    else:
        attributes = dict(_ATTRIBUTE.findall(body))
        name = attributes.get("name", "")
    return name if _NAME.fullmatch(name) else None


def _param_key(tag: str) -> tuple[str | None, dict]:
    body = tag[1:-1]
    if body.startswith(DSML):
        body = body[len(DSML) :]
    if body.startswith("parameter="):
        return body[len("parameter=") :].strip().strip('"') or None, {}
    attributes = dict(_ATTRIBUTE.findall(body))
    return attributes.get("name") or None, attributes


def _starts_any(text: str, prefixes: tuple[str, ...]) -> bool:
    return any(text.startswith(prefix) for prefix in prefixes)


def _is_call_object(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("function"), dict):
        item = item["function"]
    return isinstance(item.get("name"), str)


def _held_suffix(text: str, tags: tuple[str, ...]) -> int:
    """Length of the longest end of `text` that is a proper prefix of one of `tags`."""
    longest = 0
    for tag in tags:
        for size in range(min(len(tag) - 1, len(text)), longest, -1):
            if text.endswith(tag[:size]):
                longest = size
                break
    return longest


def _schemas_by_name(tools: list[dict] | None) -> dict[str, dict]:
    schemas = {}
    for tool in tools or []:
        function = tool.get("function", tool)
        if function.get("name"):
            schemas[function["name"]] = function.get("parameters") or {}
    return schemas


def _typed(value: str, schema: dict) -> Any:
    """Type one XML parameter value by its JSON schema; leave it as text when it does not fit."""
    kinds = schema.get("type", "string")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    text = value.strip()
    if "null" in kinds and text in ("null", "None", ""):
        return None
    for kind in kinds:
        try:
            if kind == "integer":
                return int(text)
            if kind == "number":
                number = float(text)
                return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
            if kind == "boolean" and text.lower() in ("true", "false"):
                return text.lower() == "true"
            if kind in ("object", "array"):
                parsed = json.loads(text)
                if isinstance(parsed, dict if kind == "object" else list):
                    return parsed
        except ValueError:
            continue
    return value


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_format_instructions(signatures: list[str]) -> str:
    """The system-prompt part that teaches the [CALL] format to a model without native tools."""
    lines = [
        "You can use tools. To call one, write a line on its own, exactly like this:",
        '[CALL] tool_name {"argument": "value"}',
        "The arguments are one JSON object on that same line. Write the calls, then stop and wait:",
        "the results come back in the next message. Tools:",
    ]
    lines += [f"- {signature}" for signature in signatures]
    return "\n".join(lines)
