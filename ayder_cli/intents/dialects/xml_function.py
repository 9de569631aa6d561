"""Qwen3-Coder: <function=NAME><parameter=KEY>VALUE</parameter></function>, bare or in a wrapper.

Wrappers: <tool_call>…</tool_call>, or a namespaced one like MiniMax-M2's
<minimax:tool_call>…</minimax:tool_call> (which may hold <invoke> calls too).
"""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.base import Dialect
from ayder_cli.intents.dialects.xml_calls import XmlCalls

_NAMESPACED = re.compile(r"<([A-Za-z][\w.\-]{0,31}):tool_call>")
# Text that may still grow into a namespaced wrapper tag.
_NAMESPACED_PREFIX = re.compile(r"<[A-Za-z][\w.\-]{0,31}(?::(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l(?:l)?)?)?)?)?)?)?)?)?)?$")


def bare(context, opener: str) -> XmlCalls:
    return XmlCalls(context, opener)


def in_wrapper(context, opener: str) -> XmlCalls:
    """<tool_call>, <ns:tool_call>, <function_calls>, ...: the closer is the opener with a slash."""
    return XmlCalls(context, opener, skip=len(opener), closer=opener.replace("<", "</", 1))


DIALECTS = [
    Dialect("qwen3-xml", bare, openers=("<function=",)),
    Dialect("qwen3-xml-wrapped", in_wrapper, openers=("<tool_call>",)),
    Dialect("namespaced-wrapper", in_wrapper, pattern=_NAMESPACED, pattern_prefix=_NAMESPACED_PREFIX),
]
