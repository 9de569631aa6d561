"""How a model writes tool calls as text, one function per dialect the intent parser reads.

Each `render_X(calls)` takes the calls as (name, arguments) pairs and returns
the text a model of that family writes for them, exactly as its chat
template or parser documentation shows it. The property tests render calls,
parse the text back and compare; the parser benchmark builds long replies
from the same renderers.

`RENDERERS` maps each dialect to (render function, value kind): which
argument values the dialect can carry without a tool schema.
"""

from __future__ import annotations

import json
from typing import Any, Callable

Calls = list[tuple[str, dict[str, Any]]]

# --------------------------------------------------------------------------- value kinds

JSON = "json"  # any JSON value: the arguments are JSON text
PYTHON = "python"  # any JSON value, written as Python literals (names and keys must not be Python keywords)
TEXT = "text"  # values are raw text: strings come back as written; other types only with the tool's schema
INLINE_TEXT = "inline text"  # raw text between tags on one line: as TEXT, without leading/trailing whitespace
TAGGED = "tagged"  # DSML: strings inline (string="true"), other values as JSON text (string="false")
MARKED = "marked"  # any JSON value, strings marked apart (Gemma 4's <|"|>, Kimi K3's type=): raw, no special tokens

VALUE_KINDS = {
    JSON: "any JSON value, no schema needed",
    PYTHON: "any JSON value as a Python literal, no schema needed",
    TEXT: "strings without a schema; numbers, booleans, null, lists, objects typed back by the schema",
    INLINE_TEXT: "as text, but a value's leading and trailing whitespace is not kept",
    TAGGED: "strings without edge whitespace, and any JSON value marked string=\"false\"",
    MARKED: "any JSON value, no schema needed; strings raw, holding none of the family's special tokens",
}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> str:
    """A value written as raw text: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _python_call(name: str, arguments: dict) -> str:
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in arguments.items()) + ")"


# --------------------------------------------------------------------------- JSON in ayder's own formats


def render_call_line(calls: Calls) -> str:
    """ayder's format: `[CALL] name {json}`, one line per call."""
    return "\n".join(f"[CALL] {name} {_json(arguments)}" for name, arguments in calls)


def render_tool_fence(calls: Calls) -> str:
    """A ```tool fence per call, holding one JSON call object."""
    return "\n".join("```tool\n" + _json({"name": name, "arguments": arguments}) + "\n```"
                     for name, arguments in calls)


# --------------------------------------------------------------------------- <tool_call> families


def render_hermes(calls: Calls) -> str:
    """Hermes / Qwen2.5: one <tool_call> block per call, a JSON object on its own line."""
    return "\n".join("<tool_call>\n" + _json({"name": name, "arguments": arguments}) + "\n</tool_call>"
                     for name, arguments in calls)


def render_hermes_array(calls: Calls) -> str:
    """xLAM: all calls as one JSON array inside a single <tool_call> block."""
    return "<tool_call>" + _json([{"name": name, "arguments": arguments} for name, arguments in calls]) + "</tool_call>"


def render_qwen3_xml(calls: Calls) -> str:
    """Qwen3-Coder: <function=NAME> with a <parameter=KEY> block per argument, values on lines of their own."""
    blocks = []
    for name, arguments in calls:
        params = "".join(f"<parameter={key}>\n{_text(value)}\n</parameter>\n" for key, value in arguments.items())
        blocks.append(f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
    return "\n".join(blocks)


def render_glm(calls: Calls) -> str:
    """GLM-4.5/4.6: the name after <tool_call>, then <arg_key>/<arg_value> pairs."""
    blocks = []
    for name, arguments in calls:
        pairs = "".join(f"<arg_key>{key}</arg_key>\n<arg_value>{_text(value)}</arg_value>\n"
                        for key, value in arguments.items())
        blocks.append(f"<tool_call>{name}\n{pairs}</tool_call>")
    return "\n".join(blocks)


def render_glm_indented(calls: Calls) -> str:
    """GLM-4.5/4.6 writing its call indented (inside a list item), every part on a line of its own."""
    blocks = []
    for name, arguments in calls:
        pairs = "".join(f"    <arg_key>{key}</arg_key>\n    <arg_value>{_text(value)}</arg_value>\n"
                        for key, value in arguments.items())
        blocks.append(f"    <tool_call>{name}\n{pairs}    </tool_call>")
    return "\n".join(blocks)


def render_hermes_objects(calls: Calls) -> str:
    """Several JSON call objects, one per line, in a single <tool_call> block."""
    return "<tool_call>\n" + "\n".join(_json({"name": name, "arguments": arguments}) for name, arguments in calls) \
        + "\n</tool_call>"


def render_minimax_m1(calls: Calls) -> str:
    """MiniMax-M1: one <tool_calls> block, a JSON call object per line."""
    lines = "".join(_json({"name": name, "arguments": arguments}) + "\n" for name, arguments in calls)
    return f"<tool_calls>\n{lines}</tool_calls>"


# --------------------------------------------------------------------------- <invoke> families


def render_minimax_m2(calls: Calls) -> str:
    """MiniMax-M2: <minimax:tool_call> holding an <invoke> per call, values inline."""
    invokes = ""
    for name, arguments in calls:
        params = "".join(f'<parameter name="{key}">{_text(value)}</parameter>\n' for key, value in arguments.items())
        invokes += f'<invoke name="{name}">\n{params}</invoke>\n'
    return f"<minimax:tool_call>\n{invokes}</minimax:tool_call>"


def render_minimax_m3(calls: Calls) -> str:
    """MiniMax-M3: the namespace marker before every tag, an element per argument named by its key."""
    mark = "]<]minimax[>["
    invokes = ""
    for name, arguments in calls:
        elements = "".join(f"{mark}<{key}>{_text(value)}{mark}</{key}>\n" for key, value in arguments.items())
        invokes += f'{mark}<invoke name="{name}">\n{elements}{mark}</invoke>\n'
    return f"{mark}<tool_call>\n{invokes}{mark}</tool_call>"


def _dsml(calls: Calls, bar: str, dsml: str = "DSML", container: str = "function_calls", space: str = "") -> str:
    """DeepSeek V3.2's DSML, with `bar` the fullwidth or the ASCII vertical bar (V4.1: a space after it)."""
    tag = f"{bar}{dsml}{bar}{space}"
    invokes = ""
    for name, arguments in calls:
        params = ""
        for key, value in arguments.items():
            is_string = isinstance(value, str)
            params += (f'<{tag}parameter name="{key}" string="{"true" if is_string else "false"}">'
                       f"{_text(value)}</{tag}parameter>\n")
        invokes += f'<{tag}invoke name="{name}">\n{params}</{tag}invoke>\n'
    return f"<{tag}{container}>\n{invokes}</{tag}{container}>"


def render_dsml(calls: Calls) -> str:
    return _dsml(calls, "｜")


def render_dsml_ascii(calls: Calls) -> str:
    return _dsml(calls, "|")


def render_dsml_fullwidth(calls: Calls) -> str:
    """DSML written with fullwidth letters too, in the plural `tool_calls` container."""
    return _dsml(calls, "｜", "ＤＳＭＬ", "tool_calls")


def render_dsml_v41(calls: Calls) -> str:
    """DeepSeek V4.1: a space after the prefix in every tag, the calls in a `calls` wrapper."""
    return _dsml(calls, "｜", container="calls", space=" ")


def render_dsml_doubled_bars(calls: Calls) -> str:
    """DSML as leaked replies write it: the bars doubled, in a `tool_calls` wrapper."""
    return _dsml(calls, "｜｜", container="tool_calls")


# --------------------------------------------------------------------------- Gemma 4 and Kimi K3


def _gemma_value(value: Any) -> str:
    """A value as Gemma 4's chat template writes it (format_argument): strings between <|"|>, keys bare, sorted."""
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}:{_gemma_value(item)}" for key, item in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(item) for item in value) + "]"
    return str(value)  # a number, as Jinja prints it


def render_gemma4(calls: Calls) -> str:
    """Gemma 4: one <|tool_call>call:NAME{…}<tool_call|> block per call, back to back."""
    return "".join(f"<|tool_call>call:{name}{_gemma_value(arguments)}<tool_call|>" for name, arguments in calls)


def _k3_attribute(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;")


_K3_TYPES = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null", list: "array",
             dict: "object"}


def render_kimi_k3(calls: Calls) -> str:
    """Kimi K3 (XTML): a tools channel, a call per tool with its index from 1, an argument per key marked by type."""
    body = ""
    for index, (name, arguments) in enumerate(calls, start=1):
        body += f'<|open|>call tool="{_k3_attribute(name)}" index="{index}"<|sep|>'
        for key, value in arguments.items():
            body += (f'<|open|>argument key="{_k3_attribute(key)}" type="{_K3_TYPES[type(value)]}"<|sep|>'
                     f"{_text(value)}<|close|>argument<|sep|>")
        body += "<|close|>call<|sep|>"
    return f"<|open|>tools<|sep|>{body}<|close|>tools<|sep|>"


# --------------------------------------------------------------------------- special-token families


def render_deepseek_v3(calls: Calls) -> str:
    """DeepSeek V3 / R1: the call type, the name, then the arguments in a ```json fence."""
    body = "\n".join(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{_json(arguments)}\n```"
                     "<｜tool▁call▁end｜>" for name, arguments in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def render_deepseek_v31(calls: Calls) -> str:
    """DeepSeek V3.1: the name, the separator, the bare JSON arguments."""
    body = "".join(f"<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{_json(arguments)}<｜tool▁call▁end｜>"
                   for name, arguments in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def render_kimi_k2(calls: Calls) -> str:
    """Kimi K2: `functions.NAME:INDEX` ids, JSON arguments, in one section."""
    body = "".join(f"<|tool_call_begin|>functions.{name}:{index}<|tool_call_argument_begin|>{_json(arguments)}"
                   "<|tool_call_end|>" for index, (name, arguments) in enumerate(calls))
    return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"


def render_harmony(calls: Calls) -> str:
    """gpt-oss (harmony): a commentary-channel message to functions.NAME per call."""
    return "".join(f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>"
                   f"{_json(arguments)}<|call|>" for name, arguments in calls)


def render_llama_python_tag(calls: Calls) -> str:
    """Llama 3.1: <|python_tag|> then the calls as JSON objects with "parameters", joined by '; '."""
    return "<|python_tag|>" + "; ".join(_json({"name": name, "parameters": arguments}) for name, arguments in calls)


# --------------------------------------------------------------------------- Mistral and whole-reply JSON


def render_mistral_array(calls: Calls) -> str:
    """Mistral (v3 tokenizer): [TOOL_CALLS] then a JSON array of calls."""
    return "[TOOL_CALLS]" + json.dumps([{"name": name, "arguments": arguments} for name, arguments in calls])


def render_mistral_named(calls: Calls) -> str:
    """Mistral (v11 tokenizer): [TOOL_CALLS]NAME[ARGS]{json}, once per call."""
    return "".join(f"[TOOL_CALLS]{name}[ARGS]{_json(arguments)}" for name, arguments in calls)


def render_json_array(calls: Calls) -> str:
    """Llama 3.x / xLAM style: the whole reply is a JSON array of call objects."""
    return _json([{"name": name, "arguments": arguments} for name, arguments in calls])


def render_json_fence(calls: Calls) -> str:
    """xLAM: the array of calls in a ```json fence, as the whole reply."""
    return "```json\n" + render_json_array(calls) + "\n```"


def render_openai_array(calls: Calls) -> str:
    """The OpenAI `tool_calls` shape written out as text: ids, "type": "function", arguments as a JSON string."""
    return _json([{"id": f"call_{index}", "type": "function",
                   "function": {"name": name, "arguments": _json(arguments)}}
                  for index, (name, arguments) in enumerate(calls)])


# --------------------------------------------------------------------------- Python-style calls


def render_pythonic(calls: Calls) -> str:
    """Llama 3.2 / 4 "pythonic": the whole reply is a Python list of calls with literal arguments."""
    return "[" + ", ".join(_python_call(name, arguments) for name, arguments in calls) + "]"


def render_tool_code(calls: Calls) -> str:
    """Gemma-style prompts: a ```tool_code fence, one Python call per line."""
    return "```tool_code\n" + "\n".join(_python_call(name, arguments) for name, arguments in calls) + "\n```"


# --------------------------------------------------------------------------- families of late 2026 (issue 28)


def render_harmony_header(calls: Calls) -> str:
    """gpt-oss (harmony): the recipient in the role header, <|constrain|> right after the channel."""
    return "".join(f"<|start|>assistant to=functions.{name}<|channel|>commentary<|constrain|>json<|message|>"
                   f"{_json(arguments)}<|call|>" for name, arguments in calls)


def render_harmony_reply_head(calls: Calls) -> str:
    """gpt-oss (harmony) as a server passes it on: the prompt ended with `<|start|>assistant`, so the reply
    starts at the first call's recipient; later calls open their own message."""
    return "".join(f"{'<|start|>assistant' if index else ''} to=functions.{name}<|channel|>commentary json"
                   f"<|message|>{_json(arguments)}<|call|>" for index, (name, arguments) in enumerate(calls))


def render_lfm2(calls: Calls) -> str:
    """LFM2 / LFM2.5: a Python list of calls between <|tool_call_start|> and <|tool_call_end|>."""
    return "<|tool_call_start|>[" + ", ".join(_python_call(name, arguments) for name, arguments in calls) \
        + "]<|tool_call_end|>"


def render_nemotron_nano(calls: Calls) -> str:
    """Nemotron Nano v2: a JSON array of call objects in <TOOLCALL> tags."""
    return "<TOOLCALL>" + _json([{"name": name, "arguments": arguments} for name, arguments in calls]) \
        + "</TOOLCALL>"


def render_seed_oss(calls: Calls) -> str:
    """Seed-OSS: Qwen3-Coder's function tags in <seed:tool_call>, each value right inside its tags."""
    blocks = []
    for name, arguments in calls:
        params = "".join(f"<parameter={key}>{_text(value)}</parameter>\n" for key, value in arguments.items())
        blocks.append(f"<seed:tool_call>\n<function={name}>\n{params}</function>\n</seed:tool_call>")
    return "\n".join(blocks)


def render_glm_json(calls: Calls) -> str:
    """GLM-5.3-Flash: the name, '>' and the arguments as one JSON object, in <tool_call>."""
    return "".join(f"<tool_call>{name}>{_json(arguments)}</tool_call>" for name, arguments in calls)


# --------------------------------------------------------------------------- the registry

RENDERERS: dict[str, tuple[Callable[[Calls], str], str]] = {
    "call_line": (render_call_line, JSON),
    "tool_fence": (render_tool_fence, JSON),
    "hermes": (render_hermes, JSON),
    "hermes_array": (render_hermes_array, JSON),
    "qwen3_xml": (render_qwen3_xml, TEXT),
    "minimax_m2": (render_minimax_m2, INLINE_TEXT),
    "minimax_m3": (render_minimax_m3, TEXT),
    "dsml": (render_dsml, TAGGED),
    "dsml_ascii": (render_dsml_ascii, TAGGED),
    "dsml_fullwidth": (render_dsml_fullwidth, TAGGED),
    "dsml_v41": (render_dsml_v41, TAGGED),
    "dsml_doubled_bars": (render_dsml_doubled_bars, TAGGED),
    "gemma4": (render_gemma4, MARKED),
    "kimi_k3": (render_kimi_k3, MARKED),
    "glm": (render_glm, TEXT),
    "glm_indented": (render_glm_indented, TEXT),
    "hermes_objects": (render_hermes_objects, JSON),
    "deepseek_v3": (render_deepseek_v3, JSON),
    "deepseek_v31": (render_deepseek_v31, JSON),
    "kimi_k2": (render_kimi_k2, JSON),
    "minimax_m1": (render_minimax_m1, JSON),
    "mistral_array": (render_mistral_array, JSON),
    "mistral_named": (render_mistral_named, JSON),
    "json_array": (render_json_array, JSON),
    "json_fence": (render_json_fence, JSON),
    "openai_array": (render_openai_array, JSON),
    "llama_python_tag": (render_llama_python_tag, JSON),
    "harmony": (render_harmony, JSON),
    "pythonic": (render_pythonic, PYTHON),
    "tool_code": (render_tool_code, PYTHON),
    "harmony_header": (render_harmony_header, JSON),
    "harmony_reply_head": (render_harmony_reply_head, JSON),
    "lfm2": (render_lfm2, PYTHON),
    "nemotron_nano": (render_nemotron_nano, JSON),
    "seed_oss": (render_seed_oss, INLINE_TEXT),
    "glm_json": (render_glm_json, JSON),
}

# Calls that count only when they are the whole reply (with prose around them they are an example).
WHOLE_REPLY = frozenset({"json_array", "json_fence", "pythonic", "harmony_reply_head"})

# Calls that count only as the last thing in the reply (prose may stand before them, never after).
LAST_IN_REPLY = frozenset({"openai_array"})

# Calls that run to the end of the reply unless this token ends them first (Llama ends the turn with it).
END_TOKEN = {"llama_python_tag": "<|eom_id|>"}

# The markup of each dialect: none of it may ever reach the user's display.
MARKUP: dict[str, tuple[str, ...]] = {
    "call_line": ("[CALL]",),
    "tool_fence": ("```",),
    "hermes": ("<tool_call>", "</tool_call>", '"arguments"'),
    "hermes_array": ("<tool_call>", "</tool_call>", '"arguments"'),
    "qwen3_xml": ("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>"),
    "minimax_m2": ("<minimax:tool_call>", "</minimax:tool_call>", "<invoke", "</invoke>", "<parameter",
                   "</parameter>"),
    "minimax_m3": ("]<]minimax[>[", "<tool_call>", "<invoke"),
    "dsml": ("｜DSML｜",),
    "dsml_ascii": ("|DSML|",),
    "dsml_fullwidth": ("ＤＳＭＬ",),
    "dsml_v41": ("｜DSML｜", "DSML"),
    "dsml_doubled_bars": ("｜DSML｜", "DSML"),
    "gemma4": ("<|tool_call>", "<tool_call|>", '<|"|>'),
    "kimi_k3": ("<|open|>", "<|close|>", "<|sep|>"),
    "glm": ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"),
    "glm_indented": ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"),
    "hermes_objects": ("<tool_call>", "</tool_call>", '"arguments"'),
    "deepseek_v3": ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>",
                    "<｜tool▁calls▁end｜>", "```"),
    "deepseek_v31": ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>",
                     "<｜tool▁calls▁end｜>"),
    "kimi_k2": ("<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>",
                "<|tool_call_end|>", "<|tool_calls_section_end|>", "functions."),
    "minimax_m1": ("<tool_calls>", "</tool_calls>", '"arguments"'),
    "mistral_array": ("[TOOL_CALLS]", '"arguments"'),
    "mistral_named": ("[TOOL_CALLS]", "[ARGS]"),
    "json_array": ('"arguments"',),
    "json_fence": ("```", '"arguments"'),
    "openai_array": ('"function"', '"arguments"'),
    "llama_python_tag": ("<|python_tag|>", "<|eom_id|>", '"parameters"'),
    "harmony": ("<|start|>", "<|channel|>", "commentary", "<|constrain|>", "<|message|>", "<|call|>"),
    "pythonic": ("=",),
    "tool_code": ("```",),
    "harmony_header": ("<|start|>", "<|channel|>", "commentary", "<|constrain|>", "<|message|>", "<|call|>",
                       "to=functions"),
    "harmony_reply_head": ("<|start|>", "<|channel|>", "commentary", "<|message|>", "<|call|>", "to=functions"),
    "lfm2": ("<|tool_call_start|>", "<|tool_call_end|>", "="),
    "nemotron_nano": ("<TOOLCALL>", "</TOOLCALL>", '"arguments"'),
    "seed_oss": ("<seed:tool_call>", "</seed:tool_call>", "<function=", "</function>", "<parameter=", "</parameter>"),
    "glm_json": ("<tool_call>", "</tool_call>"),
}

assert set(MARKUP) == set(RENDERERS)
