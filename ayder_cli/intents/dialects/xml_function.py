"""Qwen3-Coder: <function=NAME><parameter=KEY>VALUE</parameter></function>, bare or in a wrapper.

Wrappers: <tool_call>…</tool_call>, or a namespaced one like MiniMax-M2's
<minimax:tool_call>…</minimax:tool_call> (which may hold <invoke> calls too).
"""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.common.dialect_parts import Dialect
from ayder_cli.intents.dialects.common.xml_calls import XmlCalls, in_wrapper

_NAMESPACED = re.compile(r"<([A-Za-z][\w.\-]{0,31}):tool_call>")
# Text that may still grow into a namespaced wrapper tag.
_NAMESPACED_PREFIX = re.compile(r"<[A-Za-z][\w.\-]{0,31}(?::(?:t(?:o(?:o(?:l(?:_(?:c(?:a(?:l(?:l)?)?)?)?)?)?)?)?)?)?$")


DIALECTS = [
    Dialect("qwen3-xml", XmlCalls, openers=("<function=",)),
    Dialect("qwen3-xml-wrapped", in_wrapper, openers=("<tool_call>",)),
    Dialect("namespaced-wrapper", in_wrapper, pattern=_NAMESPACED, pattern_prefix=_NAMESPACED_PREFIX),
]
