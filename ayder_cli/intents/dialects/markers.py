"""Not calls, but markup the user must not see: leaked special tokens, and closing tags left alone."""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.common.base import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict

# Special tokens a server sometimes leaves in the text: end-of-turn markers, role headers.
LEAKED_TOKENS = (
    "<|im_end|>", "<|im_start|>assistant", "<|im_start|>", "<|endoftext|>", "<|end_of_text|>",
    "<|eot_id|>", "<|eom_id|>", "<|start_header_id|>assistant<|end_header_id|>",
    "<|end|>", "<|return|>", "<|call|>", "<|start|>assistant", "<|start|>",
    "<|python_end|>", "<|tool_calls_section_end|>",
    "<｜end▁of▁sentence｜>", "<｜Assistant｜>", "<｜tool▁calls▁end｜>",
    "]~b]ai", "]~b]tool", "]~!b[", "[e~[", "<end_of_turn>",
)

# Closing tags of call markup whose opening went missing; hidden when nothing else is on the line after them.
ORPHAN_CLOSERS = (
    "</tool_call>", "</tool_calls>", "</function_calls>", "</function>", "</invoke>", "</parameter>",
    "</｜DSML｜function_calls>", "</｜DSML｜tool_calls>", "</｜DSML｜invoke>",
    "</|DSML|function_calls>", "</|DSML|tool_calls>", "</|DSML|invoke>",
    "</arg_value>", "</minimax:tool_call>",
)

_LINE_REST = re.compile(r"[^ \t\r]")


class Token(Block):
    """An end-of-turn or role token: removed wherever it stands."""

    def read(self, buf: str, final: bool) -> Verdict:
        return Ends(len(self.opener))

    def finish(self, text: str) -> None:
        pass


class OrphanCloser(Token):
    """A closing tag whose opening is gone: removed when nothing follows it on its line.

    In the middle of a sentence it is a mention ("the </tool_call> tag ends a call") and is shown.
    """

    def read(self, buf: str, final: bool) -> Verdict:
        after = self.context.skip_run(buf, len(self.opener), _LINE_REST)
        if after == len(buf):
            return Ends(len(buf)) if final else NEED_MORE
        return Ends(len(self.opener)) if buf[after] == "\n" else NOT_MINE


DIALECTS = [
    Dialect("leaked-tokens", Token, openers=LEAKED_TOKENS),
    Dialect("orphan-closers", OrphanCloser, openers=ORPHAN_CLOSERS),
]
