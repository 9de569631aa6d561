"""Replies of the families added in issue 28 (gpt-oss with the recipient in its role header, LFM2, Nemotron Nano
v2 and 3, Seed-OSS, GLM-5.3-Flash, GLM-4.7's slips) and of the variants the last round still missed.

Same shape as `intents_corpus.py`. Written for ayder from the shapes the families' chat templates and the
engines' parsers and tests show (vLLM's lfm2, nemotron_nano_v2, seed_oss and xLAM tests, llama.cpp's gpt-oss
grammar, SGLang's glm53 detector); the texts are our own.
"""

from __future__ import annotations

from typing import Any

from support.intents_corpus import TOOLS, Case
from support.intents_corpus_variants import CONFIG_TOOLS

CASES: list[Case] = []


def case(id: str, text: str, tools: list[dict] | None = TOOLS, calls=(), *, tags: str, **kw: Any) -> None:
    CASES.append(Case(id=id, text=text, tools=tools, calls=list(calls), tags=frozenset({tags}), **kw))


# --------------------------------------------------------------------------------------------- gpt-oss harmony

case(
    "harmony_recipient_in_role_header_constrain_adjacent",
    "<|channel|>analysis<|message|>Need the config first.<|end|>"
    "<|start|>assistant to=functions.read_file<|channel|>commentary<|constrain|>json<|message|>"
    '{"file_path": "conf/app.toml", "limit": 40}<|call|>',
    calls=[("read_file", {"file_path": "conf/app.toml", "limit": 40})],
    display="",
    thought=("Need the config first.",),
    tags="harmony",
)

case(
    "harmony_recipient_in_role_header_constrain_spaced",
    '<|start|>assistant to=functions.list_files<|channel|>commentary <|constrain|>json<|message|>{"directory": "src"}'
    "<|call|>",
    calls=[("list_files", {"directory": "src"})],
    display="",
    tags="harmony",
)

case(
    "harmony_reply_starts_at_the_recipient",
    ' to=functions.run_shell_command<|channel|>commentary json<|message|>{"command": "make test"}<|call|>',
    calls=[("run_shell_command", {"command": "make test"})],
    display="",
    notes="the prompt ended with <|start|>assistant, so the reply begins at ' to=' (llama.cpp's gpt-oss grammar)",
    tags="harmony",
)

case(
    "harmony_stray_commentary_before_analysis_stays_thinking",
    "<|channel|>commentary<|channel|>analysis<|message|>The user wants the port.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>It listens on 8080.<|return|>",
    display="It listens on 8080.",
    thought=("The user wants the port.",),
    hidden=("commentary", "<|channel|>"),
    tags="harmony",
)

case(
    "harmony_commentary_to_assistant_then_final",
    "<|channel|>commentary to=assistant<|channel|>final<|message|>Nothing to run.",
    display="Nothing to run.",
    tags="harmony",
)

case(
    "harmony_final_message_holding_call_json_is_the_answer",
    "<|start|>assistant<|channel|>final<|message|>"
    '{"name": "run_shell_command", "arguments": {"command": "rm -rf build"}}',
    display='{"name": "run_shell_command", "arguments": {"command": "rm -rf build"}}',
    tags="harmony",
)

case(
    "harmony_final_message_mentioning_a_call_header_is_the_answer",
    "<|channel|>final<|message|>gpt-oss calls a tool with a line like\n"
    '<|channel|>commentary to=functions.read_file <|message|>{"file_path": "a.py"}\n'
    "and the runtime answers it.<|return|>",
    shown=('to=functions.read_file <|message|>{"file_path": "a.py"}', "and the runtime answers it."),
    tags="harmony",
)

case(
    "harmony_call_after_the_final_message_ended",
    "<|channel|>final<|message|>Reading the notes first.<|end|>"
    '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"file_path": "n.txt"}'
    "<|call|>",
    calls=[("read_file", {"file_path": "n.txt"})],
    display="Reading the notes first.",
    tags="harmony",
)

case(
    "harmony_header_inside_a_sentence_is_a_mention",
    'A call is written <|channel|>commentary to=functions.read_file <|message|>{"file_path": "a.py"} in harmony.',
    display='A call is written <|channel|>commentary to=functions.read_file <|message|>{"file_path": "a.py"} in '
            "harmony.",
    tags="harmony",
)

case(
    "harmony_call_followed_by_a_stray_brace",
    '<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"file_path": "a.py"}}<|call|>',
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="harmony",
)

# --------------------------------------------------------------------------------------------- LFM2 / LFM2.5

case(
    "lfm2_single_quoted_strings_with_commas_then_text",
    "<|tool_call_start|>[search_codebase(pattern='def main(a, b)', max_results=5), "
    "read_file(file_path='src/a, b.py', limit=20)]<|tool_call_end|>\nSearching and reading both.",
    calls=[("search_codebase", {"pattern": "def main(a, b)", "max_results": 5}),
           ("read_file", {"file_path": "src/a, b.py", "limit": 20})],
    display="Searching and reading both.",
    tags="lfm2",
)

case(
    "lfm2_shell_command_with_its_own_single_quotes",
    "<|tool_call_start|>[run_shell_command(command='sed -n '10,20p' src/app.py')]<|tool_call_end|>",
    calls=[("run_shell_command", {"command": "sed -n '10,20p' src/app.py"})],
    display="",
    tags="lfm2",
)

case(
    "lfm2_raw_line_breaks_in_a_string",
    "<|tool_call_start|>[write_file(file_path='notes.txt', content='one\ntwo, three\n')]<|tool_call_end|>",
    calls=[("write_file", {"file_path": "notes.txt", "content": "one\ntwo, three\n"})],
    display="",
    tags="lfm2",
)

case(
    "lfm2_leading_zeros_and_a_set",
    "<|tool_call_start|>[create_task(title='Q3', priority=07, labels={'bug', 'urgent'})]<|tool_call_end|>",
    calls=[("create_task", {"title": "Q3", "priority": 7, "labels": ["bug", "urgent"]})],
    display="",
    tags="lfm2",
)

case(
    "lfm2_json_array_between_the_tokens",
    '<|tool_call_start|>[{"name": "list_files", "arguments": {"directory": "tests"}}]<|tool_call_end|>',
    calls=[("list_files", {"directory": "tests"})],
    display="",
    tags="lfm2",
)

case(
    "lfm2_one_bad_call_does_not_drop_the_good_one",
    "<|tool_call_start|>[read_file(file_path='a.py'), list_files('src')]<|tool_call_end|>",
    calls=[("read_file", {"file_path": "a.py"})],
    errors=1,
    error_mentions=("key=value",),
    display="",
    tags="lfm2",
)

case(
    "lfm2_empty_list_is_no_call",
    "<|tool_call_start|>[]<|tool_call_end|>Nothing to look up.",
    display="Nothing to look up.",
    tags="lfm2",
)

case(
    "lfm2_token_mentioned_in_prose",
    "LFM2 opens a call with <|tool_call_start|> and a Python list.",
    display="LFM2 opens a call with <|tool_call_start|> and a Python list.",
    tags="lfm2",
)

# --------------------------------------------------------------------------------------------- Nemotron Nano v2

case(
    "nemotron_nano_array_after_prose",
    'Let me check both.<TOOLCALL>[{"name": "read_file", "arguments": {"file_path": "setup.py"}}, '
    '{"name": "list_files", "arguments": {"directory": "src"}}]</TOOLCALL>',
    calls=[("read_file", {"file_path": "setup.py"}), ("list_files", {"directory": "src"})],
    display="Let me check both.",
    tags="nemotron",
)

case(
    "nemotron_nano_one_object_arguments_as_a_string",
    '<think>\nNeed the tests.\n</think>\n<TOOLCALL>{"name": "run_shell_command", '
    '"arguments": "{\\"command\\": \\"pytest -q\\"}"}</TOOLCALL>',
    calls=[("run_shell_command", {"command": "pytest -q"})],
    display="",
    thought=("Need the tests.",),
    tags="nemotron",
)

case(
    "nemotron_nano_broken_json_is_reported",
    '<TOOLCALL>[{"name": "read_file", "arguments": {"file_path": "a.py"}</TOOLCALL>',
    errors=1,
    hidden=("<TOOLCALL>",),
    tags="nemotron",
)

case(
    "nemotron_nano_value_quoting_the_closer",
    '<TOOLCALL>[{"name": "write_file", "arguments": {"file_path": "d.md", "content": "ends with </TOOLCALL>"}}]'
    "</TOOLCALL>",
    calls=[("write_file", {"file_path": "d.md", "content": "ends with </TOOLCALL>"})],
    display="",
    tags="nemotron",
)

# --------------------------------------------------------------------------------------------- Nemotron 3

case(
    "nemotron3_last_parameter_closer_missing",
    "<tool_call>\n<function=read_file>\n<parameter=file_path>\nsrc/main.py\n</parameter>\n<parameter=limit>\n50\n"
    "</function>\n</tool_call>",
    calls=[("read_file", {"file_path": "src/main.py", "limit": 50})],
    display="",
    tags="nemotron3",
)

# --------------------------------------------------------------------------------------------- Seed-OSS

case(
    "seed_think_then_call_typed_by_schema",
    "<seed:think>The limit must be small.<seed:cot_budget_reflect>I have used 40 tokens.</seed:cot_budget_reflect>"
    "</seed:think>Reading it.\n<seed:tool_call>\n<function=read_file>\n<parameter=file_path>src/app.py</parameter>\n"
    "<parameter=limit>30</parameter>\n</function>\n</seed:tool_call>",
    calls=[("read_file", {"file_path": "src/app.py", "limit": 30})],
    display="Reading it.",
    thought=("The limit must be small.",),
    tags="seed",
)

case(
    "seed_python_repr_object_value",
    "<seed:tool_call>\n<function=configure>\n<parameter=extra>{'size': 'large', 'n': [1, 2.5e-07, None, True]}"
    "</parameter>\n<parameter=label>None</parameter>\n</function>\n</seed:tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"extra": {"size": "large", "n": [1, 2.5e-07, None, True]}, "label": None})],
    display="",
    tags="seed",
)

case(
    "seed_lone_closer_ends_the_prefilled_thinking",
    "The user asks for the port; it is 8080.</seed:think>The server listens on 8080.",
    display="The server listens on 8080.",
    thought=("it is 8080.",),
    tags="seed",
)

case(
    "seed_thinking_cut_off_stays_thinking",
    "<seed:think>First I will list the files, then",
    display="",
    thought=("First I will list the files, then",),
    tags="seed",
)

# --------------------------------------------------------------------------------------------- GLM-5.3-Flash, GLM-4.7

case(
    "glm53_json_form",
    'Looking it up.<tool_call>read_file>{"file_path": "docs/api.md", "offset": 10}</tool_call>',
    calls=[("read_file", {"file_path": "docs/api.md", "offset": 10})],
    display="Looking it up.",
    tags="glm53",
)

case(
    "glm53_json_form_grouped_name_closer_missing",
    '<tool_call>Files/list_files>{"directory": "lib"}\nThen I will read the entry point.',
    calls=[("list_files", {"directory": "lib"})],
    display="Then I will read the entry point.",
    tags="glm53",
)

case(
    "glm47_no_space_before_the_call_last_closer_missing",
    "I'll read both.<tool_call>read_file<arg_key>file_path</arg_key><arg_value>a.py</arg_value></tool_call>"
    "<tool_call>read_file<arg_key>file_path</arg_key><arg_value>b.py</arg_value>",
    calls=[("read_file", {"file_path": "a.py"}), ("read_file", {"file_path": "b.py"})],
    display="I'll read both.",
    tags="glm47",
)

# --------------------------------------------------------------------------------------------- last round's variants

case(
    "qwen3_numbers_and_booleans_written_in_json_quotes",
    "<tool_call>\n<function=configure>\n<parameter=retries>\n\"3\"\n</parameter>\n<parameter=enabled>\n\"false\"\n"
    "</parameter>\n<parameter=label>\n\"v1\"\n</parameter>\n</function>\n</tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"retries": 3, "enabled": False, "label": '"v1"'})],
    display="",
    tags="variant",
)

case(
    "glm_value_holding_a_whole_glm_call",
    "<tool_call>write_file\n<arg_key>file_path</arg_key>\n<arg_value>docs/glm.md</arg_value>\n"
    "<arg_key>content</arg_key>\n<arg_value>GLM writes:\n<tool_call>read_file\n<arg_key>file_path</arg_key>\n"
    "<arg_value>a.py</arg_value>\n</tool_call>\nand waits.</arg_value>\n</tool_call>\nDocumented.",
    calls=[("write_file", {"file_path": "docs/glm.md", "content": "GLM writes:\n<tool_call>read_file\n"
                           "<arg_key>file_path</arg_key>\n<arg_value>a.py</arg_value>\n</tool_call>\nand waits."})],
    display="Documented.",
    tags="variant",
)

case(
    "xlam_array_in_a_json_fence_then_the_end_of_turn_token",
    '```json\n[{"name": "read_file", "arguments": {"file_path": "a.py"}}]\n```<|im_end|>',
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="variant",
)

case(
    "xlam_tool_calls_object_in_a_json_fence",
    '<think>Both files.</think>\n```json\n{"tool_calls": [{"name": "read_file", "arguments": {"file_path": "a.py"}}, '
    '{"name": "list_files", "arguments": {"directory": "src"}}]}\n```',
    calls=[("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "src"})],
    display="",
    tags="variant",
)

case(
    "json_reply_followed_by_a_stray_brace",
    '{"name": "read_file", "parameters": {"file_path": "README.md"}}}',
    calls=[("read_file", {"file_path": "README.md"})],
    display="",
    tags="variant",
)

case(
    "python_tag_call_followed_by_a_stray_brace",
    '<|python_tag|>{"name": "list_files", "parameters": {"directory": "."}}}<|eom_id|>',
    calls=[("list_files", {"directory": "."})],
    display="",
    tags="variant",
)

case(
    "hermes_two_objects_apart_by_a_comma",
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "a.py"}},\n'
    '{"name": "list_files", "arguments": {"directory": "src"}}\n'
    "</tool_call>",
    calls=[("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "src"})],
    display="",
    tags="variant",
)

case(
    "minimax_m1_line_holding_an_array_of_calls",
    "<tool_calls>\n"
    '[{"name": "read_file", "arguments": {"file_path": "a.py"}}, {"name": "list_files", "arguments": {"directory": '
    '"src"}}]\n'
    "</tool_calls>",
    calls=[("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "src"})],
    display="",
    tags="variant",
)

case(
    "minimax_m1_two_objects_on_one_line_then_a_bad_line",
    "<tool_calls>\n"
    '{"name": "read_file", "arguments": {"file_path": "a.py"}} {"name": "read_file", "arguments": {"file_path": "b.py"}}\n'
    "calling both now\n"
    '{"name": "list_files", "arguments": {"directory": "src"}}\n'
    "</tool_calls>",
    calls=[("read_file", {"file_path": "a.py"}), ("read_file", {"file_path": "b.py"}),
           ("list_files", {"directory": "src"})],
    errors=1,
    display="",
    tags="variant",
)

case(
    "qwen3_values_typed_by_python_type_names_in_the_schema",
    "<tool_call>\n<function=resize>\n<parameter=width>\n640\n</parameter>\n<parameter=keep_ratio>\nTrue\n</parameter>\n"
    "<parameter=sizes>\n[1, 2]\n</parameter>\n</function>\n</tool_call>",
    [{"type": "function", "function": {"name": "resize", "parameters": {"type": "object", "properties": {
        "width": {"type": "int"}, "keep_ratio": {"type": "bool"}, "sizes": {"type": "list"}}}}}],
    calls=[("resize", {"width": 640, "keep_ratio": True, "sizes": [1, 2]})],
    display="",
    tags="variant",
)
