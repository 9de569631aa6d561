"""A reply cut at max_tokens in the middle of its calls: the complete calls before the cut one still run.

Most dialects read each call on its own, so a cut one is reported and the
others run. A few hold every call of a reply in one container: a JSON or
pythonic list (`[TOOL_CALLS][{…}, {…`, `<tool_call>[…`, a reply that is one
list) or a wrapper of `<invoke>` elements (`<function_calls>`, DSML,
`<minimax:tool_call>`, MiniMax M3). Cut inside it, the whole container is
broken and every call in it was lost. Here the container is closed again
right after its last complete call, the text read again, and the cut call
reported, never run.
"""

from __future__ import annotations

import re

from ayder_cli.intents import parse
from ayder_cli.intents.dialects.common.xml_tags import variants
from ayder_cli.intents.found import ParsedReply
from ayder_cli.wording import short

MM = "]<]minimax[>["  # MiniMax M3's namespace marker, before each of its tags
# Containers of <invoke> elements: (opener, one call's opener, closer).
WRAPPERS = [
    *zip(variants("<function_calls>"), variants("<invoke"), variants("</function_calls>")),
    ("<minimax:tool_call>", "<invoke", "</minimax:tool_call>"),
    (MM + "<tool_call>", MM + "<invoke", MM + "</tool_call>"),
]
_LIST_START = re.compile(r"\[\s*(?=\{|[A-Za-z_][\w.\-]*\()")  # a list of JSON objects or of name(...) calls
_OPEN, _CLOSE = "[{(", "]})"


def calls_before_the_cut(text: str, parsed: ParsedReply, tools: list[dict] | None,
                         whole_files: bool = False) -> ParsedReply:
    """`parsed` (the cut reply read whole), or the same reply read with its broken container closed after
    its last complete call, when that finds more calls; the cut call is then reported as an error."""
    closed = _closed_after_last_call(text)
    if closed is None:
        return parsed
    kept, cut = closed
    again = parse(kept, tools, hit_max_tokens=True, whole_files=whole_files)
    if len(again.calls) <= len(parsed.calls):
        return parsed
    again.errors.append(f"the reply was cut off at max_tokens inside this call; it was not run: {short(cut)}")
    return again


def _closed_after_last_call(text: str) -> tuple[str, str] | None:
    """(the text up to the end of its last complete call, its container closed; the cut call's text)."""
    for opener, item, closer in WRAPPERS:
        start = text.rfind(opener)
        if start < 0 or text.find(closer, start) >= 0:
            continue
        last = text.rfind(item, start + len(opener))
        if last > start + len(opener) and text.find(item, start + len(opener)) < last:  # a call before the cut one
            return text[:last].rstrip() + "\n" + closer, text[last:]
    return _list_closed(text)


def _list_closed(text: str) -> tuple[str, str] | None:
    """The outermost list of calls still open at the end, closed after its last complete element."""
    at = 0
    while (found := _LIST_START.search(text, at)) is not None:
        end, last_element = _scan(text, found.start())
        if end is not None:  # a list closed before the end: not the cut one
            at = end
            continue
        if last_element is None:
            return None
        return text[:last_element] + "]", text[last_element:].lstrip(" \t\n,")
    return None


def _scan(text: str, start: int) -> tuple[int | None, int | None]:
    """From the '[' at `start`: (where the list ends, None if it never does; the end of its last complete
    element). Strings in double or single quotes are skipped, escapes in them too."""
    depth, quote, at, last_element = 0, "", start, None
    while at < len(text):
        char = text[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                return at + 1, last_element
            if depth == 1:
                last_element = at + 1
        at += 1
    return None, last_element
