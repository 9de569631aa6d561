"""The tags of thinking: what opens a think block, what closes it, and what may close one alone."""

from __future__ import annotations

import re

# Think blocks: opener -> closer, one row a family. Harmony's analysis channel is thinking too.
BLOCKS = {
    "<think>": "</think>",
    "<thinking>": "</thinking>",
    "<reasoning>": "</reasoning>",
    "<|channel|>analysis<|message|>": "<|end|>",
    "[THINK]": "[/THINK]",  # Mistral v13+ (Magistral, Ministral 3, Devstral 2): control tokens
    "<mm:think>": "</mm:think>",  # MiniMax M3
}
# Openers a prompt template may write itself: its reply then starts thinking, and a closer with no
# opener before it at the start of a reply ends that block (the lone-closer rule).
PREFILLED = ("<think>", "<thinking>", "<reasoning>", "[THINK]", "<mm:think>")
LONE_CLOSER = re.compile("|".join(re.escape(BLOCKS[opener]) for opener in PREFILLED))
OPENER = re.compile("|".join(map(re.escape, PREFILLED)))
LONGEST_CLOSER = max(map(len, BLOCKS.values()))
TAGS = (*BLOCKS, *(BLOCKS[opener] for opener in PREFILLED))  # opening tags, and closing ones met in text
