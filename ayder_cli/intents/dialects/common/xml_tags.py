"""The tags of the XML dialects: names, attributes, DSML prefixes, and which tag may follow which."""

from __future__ import annotations

import re
from functools import lru_cache

from ayder_cli.intents.found import NAME

# DeepSeek V3.2 writes its tags with one of these inside (the letters fullwidth too, as some outputs have them);
# V4.1 with a space after it (<｜DSML｜ invoke>); leaked replies double the bars. Longest first.
PREFIXES = ("｜DSML｜ ", "｜DSML｜", "|DSML| ", "|DSML|", "｜ＤＳＭＬ｜", "|ＤＳＭＬ|", "｜｜DSML｜｜ ", "｜｜DSML｜｜")


def variants(*tags: str) -> tuple[str, ...]:
    """Each tag as written plain and with every DSML prefix ("<invoke" -> "<｜DSML｜invoke", ...)."""
    out = []
    for tag in tags:
        cut = 2 if tag.startswith("</") else 1
        out += [tag] + [tag[:cut] + prefix + tag[cut:] for prefix in PREFIXES]
    return tuple(out)


def dsml_only(*tags: str) -> tuple[str, ...]:
    """Each tag with every DSML prefix only (DeepSeek V4.1's `calls` wrapper is no tag of its own plain)."""
    return tuple(variant for variant in variants(*tags) if variant not in tags)


CALL_TAGS = ("<function=",) + variants("<invoke")
# DeepSeek V4 cuts its invoke closer short (</｜DSML｜inv>); V4.1 wraps its calls in <｜DSML｜ calls>.
AFTER_CALL_TAG = variants("<parameter", "</function>", "</invoke>") + dsml_only("</inv>")
WRAPPER_CLOSERS = ("</tool_call>",) + variants("</function_calls>", "</tool_calls>") + dsml_only("</calls>")
AFTER_CLOSER = AFTER_CALL_TAG + CALL_TAGS + WRAPPER_CLOSERS + ("<tool_call>",)
PARAMETER_TAGS = variants("<parameter")
PARAMETER_CLOSERS = variants("</parameter>")
_ATTRIBUTE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')


def one_newline_off(value: str, inline: bool = False) -> str:
    """A value with the one line break after its opening tag and before its closing tag taken off.

    `inline`: the template writes the value right inside its tags (<parameter name="k">v</parameter>),
    so an edge newline belongs to the value (a file's last line break), unless both edges have one.
    """
    head = 2 if value.startswith("\r\n") else 1 if value.startswith("\n") else 0
    tail = 2 if value.endswith("\r\n") else 1 if value.endswith("\n") else 0
    if inline and not (head and tail):
        return value
    return value[head : len(value) - tail] if head + tail <= len(value) else ""  # "\n" alone: empty


def right_after_tag(buf: str, at: int) -> bool:
    before = at - 1
    while before >= 0 and buf[before] in " \t\r\n":
        before -= 1
    return before >= 0 and buf[before] == ">"


def is_dsml(tag: str) -> bool:
    """The tag carries a DSML prefix."""
    return tag.startswith(("<", "</")) and _unprefixed(tag[1:].lstrip("/")) != tag[1:].lstrip("/")


def _unprefixed(body: str) -> str:
    for prefix in PREFIXES:
        if body.startswith(prefix):
            return body[len(prefix) :]
    return body


_PREFIX = "(?:" + "|".join(map(re.escape, PREFIXES)) + ")?"
_DSML = "(?:" + "|".join(map(re.escape, PREFIXES)) + ")"
_TAG_NAME = re.compile(rf"<(?:/{_PREFIX}(function|invoke|parameter)>|/{_DSML}(inv)>"
                       rf"|{_PREFIX}(function(?==)|invoke(?= )|parameter(?=[= ])))")


def tag_name(buf: str, at: int) -> str | None:
    """The tag at `at`: 'function', 'invoke', 'parameter', '/parameter', '/function', '/invoke', or None."""
    match = _TAG_NAME.match(buf, at)
    if match is None:
        return None
    if match.group(2):
        return "/invoke"  # DeepSeek V4's </｜DSML｜inv>
    return "/" + match.group(1) if match.group(1) else match.group(3)


def could_be_tag(rest: str) -> bool:
    body = rest[1:].lstrip("/")
    if any(prefix.startswith(body) for prefix in PREFIXES):
        return True
    body = _unprefixed(body)
    return any(name.startswith(body) or body.startswith(name) for name in ("function", "invoke", "parameter", "tool_call"))


@lru_cache(maxsize=512)
def call_name(tag: str) -> str | None:
    """The name in a call tag; "" when it is empty (an error for the model), None when it is no name."""
    body = _unprefixed(tag[1:-1])
    if body.startswith("function="):
        name = body[len("function=") :].strip().strip('"').strip()
    else:
        name = dict(_ATTRIBUTE.findall(body)).get("name", "").strip()
    return name if not name or NAME.fullmatch(name) else None


@lru_cache(maxsize=512)  # the same few tags come again and again; callers only read the attributes
def param_key(tag: str) -> tuple[str | None, dict]:
    """The key a parameter tag names: "" when it is empty (the value is dropped), None when it names none."""
    body = _unprefixed(tag[1:-1])
    if body.startswith("parameter="):
        return body[len("parameter=") :].strip().strip('"'), {}
    attributes = dict(_ATTRIBUTE.findall(body))
    return attributes.get("name"), attributes


# Inside a value, a call written out whole (a document about tool calls) is part of the value: these open
# and close its levels. An opener counts only on a line of its own, as calls are written.
NEST_OPENERS = ("<tool_call>", "<function=", *variants("<invoke ", "<function_calls>", "<tool_calls>"),
                *dsml_only("<calls>"))
NEST_CLOSERS = ("</tool_call>", "</function>", *variants("</invoke>", "</function_calls>", "</tool_calls>"),
                *dsml_only("</calls>"))
