"""The tags of thinking: what opens a think block, what closes it, and what may close one alone."""

from __future__ import annotations

import re

# Think blocks: opener -> closer. Harmony's analysis channel is thinking too.
BLOCKS = {"<think>": "</think>", "<thinking>": "</thinking>", "<reasoning>": "</reasoning>",
          "<|channel|>analysis<|message|>": "<|end|>",
          "<seed:think>": "</seed:think>",  # Seed-OSS
          }
# A closer with no opener before it at the start of a reply: the prompt template opened the block.
LONE_CLOSER = re.compile("</think>|</thinking>|</reasoning>"
                         "|</seed:think>")
OPENER = re.compile("<think>|<thinking>|<reasoning>"
                    "|<seed:think>")
LONGEST_CLOSER = max(map(len, BLOCKS.values()))
TAGS = (*BLOCKS, *LONE_CLOSER.pattern.split("|"))  # opening tags, and closing ones met in text
