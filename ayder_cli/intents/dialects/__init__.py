"""The dialect table: every family of tool-call markup ayder reads, one module each.

The scanner looks openers up here. Where several dialects share an opener
(`<tool_call>` starts Hermes JSON, Qwen3 XML and GLM), the first in this
order that does not say NOT_MINE reads the block. Adding a dialect is one
module with a Block reader and one line below.
"""

from __future__ import annotations

from ayder_cli.intents.dialects import (call_line, glm, harmony, hermes_json, invoke, json_reply, markers, minimax,
                                        mistral, pythonic, special_tokens, tool_fence, xml_function)
from ayder_cli.intents.dialects.base import Dialect

TABLE: list[Dialect] = [
    *call_line.DIALECTS,
    *tool_fence.DIALECTS,
    hermes_json.DIALECT,
    *xml_function.DIALECTS,
    *invoke.DIALECTS,
    glm.DIALECT,
    minimax.DIALECT,
    *special_tokens.DIALECTS,
    harmony.DIALECT,
    mistral.DIALECT,
    *json_reply.DIALECTS,
    *pythonic.DIALECTS,
    *markers.DIALECTS,
]


def opener_index(scanner_tags: tuple[str, ...]) -> dict[str, list[tuple[str, Dialect | None]]]:
    """First character -> (opener, dialect) pairs, longest opener first, then in table order.

    `scanner_tags` (think tags) have no dialect (None): the scanner reads them itself.
    """
    pairs: list[tuple[str, Dialect | None]] = [(tag, None) for tag in scanner_tags]
    pairs += [(opener, dialect) for dialect in TABLE for opener in dialect.openers]
    index: dict[str, list[tuple[str, Dialect | None]]] = {}
    for opener, dialect in sorted(pairs, key=lambda pair: -len(pair[0])):  # sorted() is stable: table order stays
        index.setdefault(opener[0], []).append((opener, dialect))
    return index


FENCES = {info: dialect for dialect in TABLE for info in dialect.fences}
PATTERNED = [dialect for dialect in TABLE if dialect.pattern is not None]
