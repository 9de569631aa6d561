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


class OpenerIndex:
    """Which openers a text may start with: looked up by its first two characters, since most
    '<' in prose ("a < b", "<br>") start no opener at all and must cost nothing."""

    def __init__(self, scanner_tags: tuple[str, ...]) -> None:
        # scanner_tags (think tags) have no dialect (None): the scanner reads them itself.
        pairs: list[tuple[str, Dialect | None]] = [(tag, None) for tag in scanner_tags]
        pairs += [(opener, dialect) for dialect in TABLE for opener in dialect.openers]
        pairs.sort(key=lambda pair: -len(pair[0]))  # longest first, so a prefix never wins; table order stays
        self._by_first: dict[str, list] = {}
        self._single: dict[str, list] = {}  # one-character openers ("[", "{" at the start of a reply)
        for pair in pairs:
            self._by_first.setdefault(pair[0][0], []).append(pair)
            if len(pair[0]) == 1:
                self._single.setdefault(pair[0], []).append(pair)
        self._by_two = {opener[:2]: [pair for pair in pairs if pair[0].startswith(opener[:2])]
                        + self._single.get(opener[0], []) for opener, _ in pairs if len(opener) > 1}

    def candidates(self, text: str) -> list[tuple[str, Dialect | None]]:
        """(opener, dialect) pairs `text` may start or still grow into, longest first."""
        if len(text) < 2:
            return self._by_first.get(text, [])
        return self._by_two.get(text[:2]) or self._single.get(text[0], [])


FENCES = {info: dialect for dialect in TABLE for info in dialect.fences}
PATTERNED = [dialect for dialect in TABLE if dialect.pattern is not None]
