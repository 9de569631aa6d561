"""The tags of thinking: what opens a think block, what closes it, and what may close one alone."""

from __future__ import annotations

import re

# Think blocks: opener -> closer. Harmony's analysis channel is thinking too.
BLOCKS = {"<think>": "</think>", "<thinking>": "</thinking>", "<reasoning>": "</reasoning>",
          "<|channel|>analysis<|message|>": "<|end|>",
          "<seed:think>": "</seed:think>",  # Seed-OSS
          "<|channel>thought\n": "<channel|>", "<|channel>thought": "<channel|>",  # Gemma 4
          "<|open|>think<|sep|>": "<|close|>think<|sep|>",  # Kimi K3
          }
# A closer with no opener before it at the start of a reply: the prompt template opened the block.
LONE_CLOSERS = ("</think>", "</thinking>", "</reasoning>",
                "</seed:think>",  # Seed-OSS
                "<channel|>",  # Gemma 4
                "<|close|>think<|sep|>",  # Kimi K3
                )
OPENERS = ("<think>", "<thinking>", "<reasoning>",
           "<seed:think>",  # Seed-OSS
           "<|channel>",  # Gemma 4
           "<|open|>think<|sep|>",  # Kimi K3
           )
LONE_CLOSER = re.compile("|".join(map(re.escape, LONE_CLOSERS)))
OPENER = re.compile("|".join(map(re.escape, OPENERS)))
LONGEST_CLOSER = max(map(len, BLOCKS.values()))
TAGS = (*BLOCKS, *LONE_CLOSERS)  # opening tags, and closing ones met in text
