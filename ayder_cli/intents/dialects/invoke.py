"""<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke> calls, bare or wrapped.

Anthropic-style <function_calls>, and DeepSeek V3.2's DSML tags
(<｜DSML｜function_calls> or <｜DSML｜tool_calls>, also written with ASCII
bars), where `string="false"` marks a JSON value. An invoke may also hold
its arguments as one JSON object instead of parameter tags.
"""

from __future__ import annotations

from ayder_cli.intents.dialects.base import Dialect
from ayder_cli.intents.dialects.xml_calls import XmlCalls
from ayder_cli.intents.dialects.xml_tags import variants
from ayder_cli.intents.dialects.xml_function import in_wrapper


def bare(context, opener: str) -> XmlCalls:
    return XmlCalls(context, opener)


WRAPPERS = variants("<function_calls>", "<tool_calls>")

DIALECTS = [
    Dialect("invoke-wrapped", in_wrapper, openers=WRAPPERS),
    Dialect("invoke", bare, openers=variants("<invoke")),
]
