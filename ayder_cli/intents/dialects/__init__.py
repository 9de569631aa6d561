"""The dialect table: every family of tool-call markup ayder reads, one module each.

The scanner looks openers up here. Where several dialects share an opener
(`<tool_call>` starts Hermes JSON, Qwen3 XML and GLM), the first in this
order that does not say NOT_MINE reads the block. Adding a dialect is one
module with a Block reader and one line below (and, for a new model family,
one line in ../families.py and a row in the README's models table).

May import: the leaves, intents/coerce, intents/found.
(The layers, bottom to top: tests/project/test_house.py.)

    call_line.py         ayder's own format, taught to models without native tools: `[CALL] name {"json":
                         "arguments"}` on a line
    dsml.py              DeepSeek V4 / V4.1 DSML: the V4.1 wrapper, and what is left of DSML markup outside a call.
    edit_blocks.py       Edits written as text: SEARCH/REPLACE blocks, and a whole file in a fence under its path
    gemma4.py            Gemma 4: <|tool_call>call:NAME{key:VALUE,…}<tool_call|>, one block per call, blocks back to
                         back
    glm.py               GLM-4.5 / 4.6 / 4.7:
                         <tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>…</tool_call>.
    glm_json.py          GLM-5.3-Flash's JSON form: <tool_call>NAME>{"key": "value"}</tool_call>.
    harmony.py           gpt-oss "harmony" messages, when a server passes them through raw
    hermes_json.py       Hermes / Qwen2.5 / xLAM: <tool_call>{"name": ..., "arguments": {...}}</tool_call>.
    invoke.py            <invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke> calls, bare or wrapped
    json_reply.py        JSON calls that are the whole reply (Llama 3.x, xLAM, OpenAI-shaped), and Llama's
                         <|python_tag|>.
    kimi_k3.py           Kimi K3 ("XTML"): channels opened by <|open|>NAME<|sep|> and closed by <|close|>NAME<|sep|>
    lfm2.py              LFM2 / LFM2.5 (Liquid): <|tool_call_start|>[name(key='value', n=1), ...]<|tool_call_end|>.
    markers.py           Not calls, but markup the user must not see: leaked special tokens, and closing tags left
                         alone
    minimax.py           MiniMax-M1: <tool_calls> with one JSON call object per line, then </tool_calls>
    minimax_m3.py        MiniMax-M3: every tag carries the namespace marker, and each argument is an element named
                         by its key
    mistral.py           Mistral: `[TOOL_CALLS]` then a JSON array of calls, or the newer
                         `[TOOL_CALLS]NAME[ARGS]{json}` (some templates put `[CALL_ID]id` before `[ARGS]`); several
                         may follow one another, and prose may come first
    nemotron.py          Nemotron Nano v2: <TOOLCALL>[{"name": ..., "arguments": {...}}, ...]</TOOLCALL>.
    pythonic.py          Python-style calls: `[get_weather(city="Paris"), ...]` as the whole reply (Llama 3.2/4
                         "pythonic"), the same inside <|python_start|>…<|python_end|>, and `name(key=value)` lines
                         in a ```tool_code fence.
    special_tokens.py    Calls written between special tokens: DeepSeek V3 / R1 / V3.1 and Kimi K2.
    tool_fence.py        Calls in a fenced block: ```tool holding JSON call objects, ```tool_code holding Python-
                         style calls
    xml_function.py      Qwen3-Coder: <function=NAME><parameter=KEY>VALUE</parameter></function>, bare or in a
                         wrapper
    common/              see its __init__.py
"""

from __future__ import annotations

import re

from ayder_cli.intents.dialects import (
    call_line,
    dsml,
    edit_blocks,
    gemma4,
    glm,
    glm_json,
    harmony,
    hermes_json,
    invoke,
    json_reply,
    kimi_k3,
    lfm2,
    markers,
    minimax,
    minimax_m3,
    mistral,
    nemotron,
    pythonic,
    special_tokens,
    tool_fence,
    xml_function,
)
from ayder_cli.intents.dialects.common.dialect_parts import Dialect, Where

TABLE: list[Dialect] = [
    *call_line.DIALECTS,
    *tool_fence.DIALECTS,
    hermes_json.DIALECT,
    *xml_function.DIALECTS,
    *invoke.DIALECTS,
    *dsml.DIALECTS,
    glm.DIALECT,
    glm_json.DIALECT,
    minimax.DIALECT,
    *minimax_m3.DIALECTS,
    *special_tokens.DIALECTS,
    *harmony.DIALECTS,
    *gemma4.DIALECTS,
    *kimi_k3.DIALECTS,
    lfm2.DIALECT,
    nemotron.DIALECT,
    mistral.DIALECT,
    *json_reply.DIALECTS,
    *pythonic.DIALECTS,
    *markers.DIALECTS,
    *edit_blocks.DIALECTS,
]
FENCES = {info: dialect for dialect in TABLE for info in dialect.fences}
PATTERNED = [dialect for dialect in TABLE if dialect.pattern is not None]


def longest_of(words: list[str]) -> str:
    """A regular expression for any of `words`, the longest where several match, written as a trie: a text
    is compared once per character, not once per word (the DSML prefixes alone make dozens of openers)."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def branch(node: dict) -> str:
        arms = [re.escape(char) + branch(child) for char, child in node.items() if char]
        if not arms:
            return ""
        if len(arms) == 1 and "" not in node:
            return arms[0]
        return "(?:" + "|".join(arms) + ("|" if "" in node else "") + ")"  # a word ending here: tried last

    return branch(trie)


class OpenerIndex:
    """The openers a text starts with, found by one regular expression per first two characters rather
    than by trying each: most '<' and '[' in prose ("a < b", "items[0]") start none and cost next to nothing."""

    def __init__(self, scanner_tags: tuple[str, ...]) -> None:
        # scanner_tags (think tags) have no dialect (None): the scanner reads them itself.
        pairs: list[tuple[str, Dialect | None]] = [(tag, None) for tag in scanner_tags]
        pairs += [(opener, dialect) for dialect in TABLE for opener in dialect.openers]
        by_opener: dict[str, list[Dialect | None]] = {}  # in table order
        for opener, dialect in pairs:
            by_opener.setdefault(opener, []).append(dialect)
        openers = sorted(by_opener, key=len, reverse=True)  # longest first: the alternation takes the longest
        # Text that starts with an opener starts with every opener that is a prefix of it, too.
        self._found = {opener: [(shorter, dialect) for shorter in openers if opener.startswith(shorter)
                                for dialect in by_opener[shorter]] for opener in openers}
        keys = {opener[:2] for opener in openers} | {opener[:1] for opener in openers}
        self._words = {key: tuple(opener for opener in openers if opener.startswith(key) or opener == key[0])
                       for key in keys}
        self._prefixes = {opener[:size] for opener in openers for size in range(1, len(opener))}
        self._dialects = {key: [dialect for opener, dialect in pairs if opener.startswith(key) or opener == key[0]]
                          for key in keys if len(key) == 2}
        self._single = {opener: by_opener[opener] for opener in openers if len(opener) == 1}  # "[" opens a reply
        # The openers longer than one character, by their first two, and the longest: whether one of them
        # starts at a place.
        longer = {key: tuple(o for o in openers if o.startswith(key)) for key in keys if len(key) == 2}
        self._longer = {key: (words, max(len(word) for word in words)) for key, words in longer.items()}
        self._compiled: dict[tuple[str, ...], re.Pattern[str]] = {}

    def _expression(self, words: tuple[str, ...]) -> re.Pattern[str]:
        """One expression for any of `words`, compiled when first asked for: a reply meets a few of the
        openers' first characters, and compiling all of them cost every start of ayder tens of milliseconds."""
        pattern = self._compiled.get(words)
        if pattern is None:
            pattern = self._compiled[words] = re.compile(longest_of(list(words)))
        return pattern

    def matches(self, text: str) -> list[tuple[str, Dialect | None]]:
        """Every (opener, dialect) that `text` starts with: longest opener first, then in table order,
        then the openers that are patterns (<NAMESPACE:tool_call>)."""
        words = self._words.get(text[:2]) or self._words.get(text[:1])
        match = self._expression(words).match(text) if words else None
        found = list(self._found[match.group(0)]) if match else []
        return found + [(match.group(0), dialect) for dialect in PATTERNED if (match := dialect.pattern.match(text))]

    def may_grow(self, text: str) -> bool:
        """`text` is the beginning of an opener, not yet all of it: more text could make it one."""
        return text in self._prefixes or any(dialect.pattern_prefix.match(text) for dialect in PATTERNED)

    def opens_nothing(self, text: str, at: int, reply_start: bool) -> bool:
        """The character at `at` starts no opener that could count there (a reply's first "[" may)."""
        if len(text) - at < 2:
            return False
        key = text[at : at + 2]
        dialects = self._dialects.get(key) or self._single.get(text[at], [])
        if reply_start:
            return False
        if any(dialect is None or dialect.where is not Where.REPLY_START for dialect in dialects):
            # Openers begin with these two characters ("[\n{", "<tool_call>"): does one begin here?
            single = self._single.get(text[at], [])
            if key not in self._longer or any(d is None or d.where is not Where.REPLY_START for d in single):
                return False
            words, longest = self._longer[key]
            if len(text) - at < longest or self._expression(words).match(text, at):
                return False  # one does, or the text is too short yet to tell
        return not any(d.pattern.match(text, at) or d.pattern_prefix.match(text, at) for d in PATTERNED)
