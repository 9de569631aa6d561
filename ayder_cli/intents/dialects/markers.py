"""Not calls, but markup the user must not see: leaked special tokens, and closing tags left alone."""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.xml_tags import PREFIXES, variants

# Special tokens a server sometimes leaves in the text: end-of-turn markers, role headers.
LEAKED_TOKENS = (
    "<|im_end|>", "<|im_start|>assistant", "<|im_start|>", "<|endoftext|>", "<|end_of_text|>",
    "<|eot_id|>", "<|eom_id|>", "<|start_header_id|>assistant<|end_header_id|>",
    "<|end|>", "<|return|>", "<|call|>", "<|start|>assistant", "<|start|>",
    "<|python_end|>", "<|tool_calls_section_end|>",
    "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>",  # K2
    "<｜end▁of▁sentence｜>", "<｜Assistant｜>", "<｜tool▁calls▁end｜>",
    "]~b]ai", "]~b]tool", "]~b]user", "]~b]system", "]~!b[", "[e~[", "<end_of_turn>",
    "]<]minimax[>[",  # MiniMax's namespace marker, left before its tags or alone
)

# Closing tags of call markup whose opening went missing; hidden when nothing else is on the line after them,
# or after a sentence ends.
ORPHAN_CLOSERS = (
    "</tool_call>", *variants("</tool_calls>", "</function_calls>", "</invoke>"), "</function>", "</parameter>",
    "</arg_value>", "</minimax:tool_call>",
)
# DeepSeek V3.2's closers are never prose: hidden wherever they stand.
_NEVER_PROSE = tuple(closer for closer in ORPHAN_CLOSERS if any(prefix in closer for prefix in PREFIXES))
_SENTENCE_END = ".!?:;"

_LINE_REST = re.compile(r"[^ \t\r]")


class Token(Block):
    """An end-of-turn or role token: removed wherever it stands."""

    def read(self, buf: str, final: bool) -> Verdict:
        return Ends(len(self.opener))

    def finish(self, text: str) -> None:
        pass


class OrphanCloser(Token):
    """A closing tag whose opening is gone: removed when nothing follows it on its line, or when it stands
    where a sentence ended ("Done. </function_calls> Next").

    In the middle of a sentence it is a mention ("the </tool_call> tag ends a call") and is shown;
    so is one that starts a line of prose.
    """

    def read(self, buf: str, final: bool) -> Verdict:
        if self.opener in _NEVER_PROSE:
            return Ends(len(self.opener))
        after = self.context.skip_run(buf, len(self.opener), _LINE_REST)
        if after == len(buf):
            return Ends(len(buf)) if final else NEED_MORE
        return Ends(len(self.opener)) if buf[after] == "\n" or self._after_sentence() else NOT_MINE

    def _after_sentence(self) -> bool:
        visible = self.context.before.rstrip(" \t")
        return bool(visible) and visible[-1] in _SENTENCE_END


DIALECTS = [
    Dialect("leaked-tokens", Token, openers=LEAKED_TOKENS),
    Dialect("orphan-closers", OrphanCloser, openers=ORPHAN_CLOSERS),
]
