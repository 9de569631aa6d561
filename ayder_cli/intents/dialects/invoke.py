"""<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke> calls, bare or wrapped.

Anthropic-style <function_calls>, and DeepSeek V3.2's DSML tags
(<｜DSML｜function_calls> or <｜DSML｜tool_calls>, also written with ASCII
bars), where `string="false"` marks a JSON value. An invoke may also hold
its arguments as one JSON object instead of parameter tags.
"""

from __future__ import annotations

from ayder_cli.intents.dialects.common.dialect_parts import Dialect
from ayder_cli.intents.dialects.common.xml_calls import XmlCalls, in_wrapper
from ayder_cli.intents.dialects.common.xml_tags import variants

WRAPPERS = variants("<function_calls>", "<tool_calls>")

DIALECTS = [
    Dialect("invoke-wrapped", in_wrapper, openers=WRAPPERS),
    Dialect("invoke", XmlCalls, openers=variants("<invoke")),
]
