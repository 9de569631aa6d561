"""Which dialect module reads which model family: where "how is Kimi K2 read?" is answered.

One entry per row of the README's models table that ayder reads as text, in
the same order (a test keeps the two in step). The modules are under
`dialects/`; `dialects/common/` holds what several of them share. The
scanner does not use this index: it offers every reply to the whole dialect
table (`dialects/__init__.py`), so a model is read whatever its name.
`markers` is no family's: it hides the special tokens of all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from ayder_cli.intents.dialects import (
    call_line,
    dsml,
    gemma4,
    glm,
    glm_json,
    harmony,
    hermes_json,
    invoke,
    json_reply,
    lfm2,
    kimi_k3,
    minimax,
    minimax_m3,
    mistral,
    nemotron,
    pythonic,
    special_tokens,
    tool_fence,
    xml_function,
)


@dataclass(frozen=True)
class Family:
    name: str  # as the README's models table names it
    dialects: tuple[ModuleType, ...]  # the modules under dialects/ that read what it writes


FAMILIES: tuple[Family, ...] = (
    Family("any model taught by ayder", (call_line,)),
    Family("Qwen3-Coder, Qwen3", (xml_function,)),
    Family("Nemotron 3", (xml_function,)),
    Family("Qwen2.5, Hermes, NousResearch", (hermes_json,)),
    Family("Nemotron Nano v2", (nemotron,)),
    Family("xLAM, Llama-style fine-tunes", (hermes_json, json_reply)),  # in <tool_call>, or the whole reply
    Family("servers writing OpenAI `tool_calls` out as text", (json_reply,)),  # its trailing-calls dialect
    Family("Llama 3.1 / 3.3", (json_reply,)),
    Family('Llama 3.2 / 4 "pythonic"', (pythonic,)),
    Family("LFM2 / LFM2.5", (lfm2,)),
    Family("Gemma-style prompts", (tool_fence,)),
    Family("Gemma 4", (gemma4,)),
    Family("GLM-4.5 / 4.6 / 4.7", (glm,)),
    Family("GLM-5.3-Flash", (glm_json,)),
    Family("DeepSeek V3 / R1", (special_tokens,)),
    Family("DeepSeek V3.1", (special_tokens,)),
    Family("DeepSeek V3.2", (invoke,)),
    Family("DeepSeek V4 / V4.1", (invoke, dsml)),  # the invoke reader; dsml.py, V4.1's `calls` wrapper
    Family("Kimi K2", (special_tokens,)),
    Family("Kimi K3", (kimi_k3,)),
    Family("MiniMax-M2", (xml_function,)),  # its <minimax:tool_call> wrapper, holding <invoke> calls
    Family("Seed-OSS", (xml_function,)),  # its <seed:tool_call> wrapper is namespaced like MiniMax-M2's
    Family("MiniMax-M1", (minimax,)),
    Family("MiniMax-M3", (minimax_m3,)),
    Family("Claude-style prompts", (invoke,)),
    Family("Mistral, Devstral", (mistral,)),
    Family("Magistral, Ministral 3, Devstral 2 (Mistral v13+)", (mistral,)),  # after its [THINK] block
    Family("gpt-oss (harmony, passed through raw)", (harmony,)),
)
