"""Held-out replies in the variants of each family that real models write beyond their templates (issue 20, item 5).

Same shape as `intents_corpus.py`. Each case is tagged with the variant it
holds: the figures in the issue's report ("calls read", "display cases right")
are counted over these cases (`benchmarks/dialect_variants.py`).
"""

from __future__ import annotations

from typing import Any

from support.intents_corpus import INTEGER, STRING, TOOLS, Case, tool

CASES: list[Case] = []


def case(id: str, text: str, tools: list[dict] | None = TOOLS, calls=(), *, tags: str, **kw: Any) -> None:
    CASES.append(Case(id=id, text=text, tools=tools, calls=list(calls), tags=frozenset({tags, "variant"}), **kw))


# Parameters whose schema names no type, or a union: how GLM and Qwen3-Coder values are typed.
CONFIG_TOOLS = TOOLS + [
    tool("configure", "Set options.", {
        "options": {"description": "any JSON"},
        "count": {},
        "label": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "ratio": {"oneOf": [{"type": "number"}, {"type": "null"}]},
        "enabled": {"type": "boolean"},
        "tags": {"type": "array", "items": STRING},
        "retries": INTEGER,
        "scale": {"type": "number"},
        "extra": {"type": "object"},
    }),
]

FW = "｜ＤＳＭＬ｜"  # DeepSeek V3.2's tag prefix written with fullwidth letters too

# --------------------------------------------------------------------------------------------- DeepSeek V3.2 DSML

case(
    "dsml_fullwidth_letters_plural_container",
    "Reading both before editing.\n"
    f"<{FW}tool_calls>\n"
    f'<{FW}invoke name="read_file">\n'
    f'<{FW}parameter name="file_path" string="true">src/app.py</{FW}parameter>\n'
    f'<{FW}parameter name="limit" string="false">80</{FW}parameter>\n'
    f"</{FW}invoke>\n"
    f'<{FW}invoke name="list_files">\n'
    f'<{FW}parameter name="directory" string="true">src</{FW}parameter>\n'
    f"</{FW}invoke>\n"
    f"</{FW}tool_calls>",
    calls=[("read_file", {"file_path": "src/app.py", "limit": 80}), ("list_files", {"directory": "src"})],
    display="Reading both before editing.",
    tags="dsml",
)

case(
    "dsml_fullwidth_letters_function_calls_indented",
    f"<{FW}function_calls>\n"
    f'  <{FW}invoke name="run_shell_command">\n'
    f'    <{FW}parameter name="command" string="true">pytest -q</{FW}parameter>\n'
    f"  </{FW}invoke>\n"
    f"</{FW}function_calls>\n"
    "I'll report the failures.",
    calls=[("run_shell_command", {"command": "pytest -q"})],
    display="I'll report the failures.",
    tags="dsml",
)

case(
    "dsml_ascii_bars_plural_container",
    "<|DSML|tool_calls>\n"
    '<|DSML|invoke name="read_file">\n'
    '<|DSML|parameter name="file_path" string="true">README.md</|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    "</|DSML|tool_calls>",
    calls=[("read_file", {"file_path": "README.md"})],
    display="",
    tags="dsml",
)

case(
    "dsml_orphan_closer_after_a_sentence",
    "That is everything the module exports.</｜DSML｜tool_calls>",
    calls=[],
    display="That is everything the module exports.",
    tags="dsml",
)

case(
    "dsml_orphan_closers_fullwidth_letters_in_prose",
    f"Both files are read. </{FW}invoke> </{FW}tool_calls>\nThe bug is in the parser.",
    calls=[],
    display="Both files are read.\nThe bug is in the parser.",
    tags="dsml",
)

case(
    "dsml_orphan_closer_on_its_own_line",
    f"Done reading.\n</{FW}function_calls>\nNext, the fix.",
    calls=[],
    hidden=("DSML", "ＤＳＭＬ"),
    shown=("Done reading.", "Next, the fix."),
    tags="dsml",
)

# --------------------------------------------------------------------------------------------- GLM-4.5 / 4.6

case(
    "glm_call_indented_in_a_list",
    "Plan:\n"
    "1. Read the settings.\n"
    "    <tool_call>read_file\n"
    "    <arg_key>file_path</arg_key>\n"
    "    <arg_value>conf/settings.py</arg_value>\n"
    "    </tool_call>\n"
    "2. Change the timeout.",
    calls=[("read_file", {"file_path": "conf/settings.py"})],
    hidden=("<tool_call>", "arg_key", "conf/settings.py"),
    shown=("1. Read the settings.", "2. Change the timeout."),
    tags="glm",
)

case(
    "glm_call_indented_with_tabs",
    "\t<tool_call>list_files\n\t<arg_key>directory</arg_key>\n\t<arg_value>lib</arg_value>\n\t</tool_call>\n",
    calls=[("list_files", {"directory": "lib"})],
    display="",
    tags="glm",
)

case(
    "glm_untyped_values_decoded_as_json",
    "<tool_call>configure\n"
    "<arg_key>options</arg_key>\n<arg_value>{\"a\": 1, \"b\": [true, null]}</arg_value>\n"
    "<arg_key>count</arg_key>\n<arg_value>42</arg_value>\n"
    "</tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"options": {"a": 1, "b": [True, None]}, "count": 42})],
    display="",
    tags="glm",
)

case(
    "glm_untyped_value_that_is_not_json_stays_text",
    "<tool_call>configure\n"
    "<arg_key>options</arg_key>\n<arg_value>fast mode</arg_value>\n"
    "<arg_key>count</arg_key>\n<arg_value>007</arg_value>\n"
    "</tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"options": "fast mode", "count": "007"})],
    tags="glm",
)

case(
    "glm_union_with_null_and_typed_values",
    "<tool_call>configure<arg_key>label</arg_key><arg_value>None</arg_value>"
    "<arg_key>limit</arg_key><arg_value>12</arg_value>"
    "<arg_key>ratio</arg_key><arg_value>0.5</arg_value>"
    "<arg_key>enabled</arg_key><arg_value>True</arg_value></tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"label": None, "limit": 12, "ratio": 0.5, "enabled": True})],
    tags="glm",
)

case(
    "glm_empty_key_is_ignored",
    "<tool_call>read_file\n<arg_key>file_path</arg_key>\n<arg_value>a.py</arg_value>\n"
    "<arg_key></arg_key>\n<arg_value>stray</arg_value>\n</tool_call>",
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="glm",
)

# --------------------------------------------------------------------------------------------- Qwen3-Coder

case(
    "qwen3_values_typed_by_schema",
    "<tool_call>\n<function=configure>\n"
    "<parameter=retries>\n3\n</parameter>\n"
    "<parameter=scale>\n1.5\n</parameter>\n"
    "<parameter=enabled>\nfalse\n</parameter>\n"
    "<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n"
    "<parameter=extra>\n{\"k\": {\"n\": 1}}\n</parameter>\n"
    "</function>\n</tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"retries": 3, "scale": 1.5, "enabled": False, "tags": ["a", "b"],
                          "extra": {"k": {"n": 1}}})],
    display="",
    tags="qwen3",
)

case(
    "qwen3_any_of_with_null_and_python_none",
    "<tool_call>\n<function=configure>\n"
    "<parameter=label>\nNone\n</parameter>\n"
    "<parameter=limit>\n5\n</parameter>\n"
    "<parameter=ratio>\nnull\n</parameter>\n"
    "</function>\n</tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"label": None, "limit": 5, "ratio": None})],
    tags="qwen3",
)

case(
    "qwen3_any_of_string_keeps_its_text",
    "<tool_call>\n<function=configure>\n<parameter=label>\n 42 \n</parameter>\n"
    "<parameter=limit>\nNone\n</parameter>\n</function>\n</tool_call>",
    CONFIG_TOOLS,
    calls=[("configure", {"label": " 42 ", "limit": None})],
    tags="qwen3",
)

TOOL_CALL_DOC = (
    "# Calling tools\n"
    "A call looks like this:\n"
    "<tool_call>\n"
    "<function=read_file>\n"
    "<parameter=file_path>\n"
    "src/main.py\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>\n"
    "The server runs it.\n"
)
case(
    "qwen3_value_holds_a_whole_tool_call",
    "Writing the doc.\n<tool_call>\n<function=write_file>\n<parameter=file_path>\ndocs/calls.md\n</parameter>\n"
    "<parameter=content>\n" + TOOL_CALL_DOC + "\n</parameter>\n</function>\n</tool_call>",
    calls=[("write_file", {"file_path": "docs/calls.md", "content": TOOL_CALL_DOC})],
    display="Writing the doc.",
    tags="qwen3",
)

case(
    "qwen3_value_holds_a_whole_tool_call_without_schema",
    "<function=write_file>\n<parameter=file_path>\ndocs/calls.md\n</parameter>\n"
    "<parameter=content>\n" + TOOL_CALL_DOC + "\n</parameter>\n</function>\nDone.",
    None,
    calls=[("write_file", {"file_path": "docs/calls.md", "content": TOOL_CALL_DOC})],
    display="Done.",
    tags="qwen3",
)

PARAM_XML = (
    "<settings>\n"
    "<parameter=file_path>\n"
    "/var/log/app.log\n"
    "</parameter>\n"
    "</settings>\n"
)
case(
    "qwen3_value_holds_parameter_tags_of_the_same_tool",
    "<tool_call>\n<function=write_file>\n<parameter=file_path>\nconf/logging.xml\n</parameter>\n"
    "<parameter=content>\n" + PARAM_XML + "\n</parameter>\n</function>\n</tool_call>",
    calls=[("write_file", {"file_path": "conf/logging.xml", "content": PARAM_XML})],
    display="",
    tags="qwen3",
)

case(
    "qwen3_value_with_a_written_call_that_never_closes_is_not_run",
    "<tool_call>\n<function=write_file>\n<parameter=file_path>\na.md\n</parameter>\n<parameter=content>\n"
    "Start with\n<function=example>\nthen the rest.\n</parameter>\n</function>\n</tool_call>",
    calls=[],
    errors=1,
    error_mentions=("do not close",),
    notes="where the value ends is unclear: the model is told, nothing runs with a value that may be wrong",
    tags="qwen3",
)

case(
    "qwen3_empty_parameter_name_is_ignored",
    "<tool_call>\n<function=read_file>\n<parameter=file_path>\na.py\n</parameter>\n"
    "<parameter=>\nstray\n</parameter>\n</function>\n</tool_call>",
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="qwen3",
)

case(
    "invoke_empty_parameter_name_is_ignored",
    '<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="file_path">a.py</parameter>\n'
    '<parameter name="">stray</parameter>\n</invoke>\n</minimax:tool_call>',
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="qwen3",
)

# --------------------------------------------------------------------------------------------- xLAM / Hermes JSON

XLAM = ('[{"name": "read_file", "arguments": {"file_path": "a.py"}}, '
        '{"name": "list_files", "arguments": {"directory": "."}}]')

case(
    "xlam_array_in_json_fence_is_the_whole_reply",
    "```json\n" + XLAM + "\n```\n",
    calls=[("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "."})],
    display="",
    tags="xlam",
)

case(
    "xlam_array_in_json_fence_after_thinking",
    "<think>Two reads.</think>\n```json\n" + XLAM + "\n```",
    calls=[("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "."})],
    display="",
    tags="xlam",
)

case(
    "two_json_objects_in_one_tool_call",
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "a.py"}}\n'
    '{"name": "read_file", "arguments": {"file_path": "b.py"}}\n'
    "</tool_call>",
    calls=[("read_file", {"file_path": "a.py"}), ("read_file", {"file_path": "b.py"})],
    display="",
    tags="xlam",
)

case(
    "call_object_followed_by_extra_text_before_the_closer",
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.py"}} (reading it first)\n</tool_call>',
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="xlam",
)

case(
    "call_object_followed_by_extra_text_without_a_closer",
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.py"}}\nThen I will fix the import.',
    calls=[("read_file", {"file_path": "a.py"})],
    display="Then I will fix the import.",
    tags="xlam",
)

# --------------------------------------------------------------------------------------------- MiniMax-M1

case(
    "minimax_m1_cut_line_skipped_next_line_runs",
    "<tool_calls>\n"
    '{"name": "read_file", "arguments": {"file_path": "a.py"}\n'
    '{"name": "read_file", "arguments": {"file_path": "b.py"}}\n'
    "</tool_calls>",
    calls=[("read_file", {"file_path": "b.py"})],
    errors=1,
    display="",
    tags="minimax-m1",
)

case(
    "minimax_m1_unclosed_string_line_skipped",
    "<tool_calls>\n"
    '{"name": "list_files", "arguments": {"directory": "src}}\n'
    '{"name": "list_files", "arguments": {"directory": "tests"}}\n'
    "</tool_calls>",
    calls=[("list_files", {"directory": "tests"})],
    errors=1,
    display="",
    tags="minimax-m1",
)

case(
    "minimax_m1_pretty_printed_object_still_reads",
    "<tool_calls>\n"
    '{"name": "read_file",\n "arguments": {"file_path": "a.py"}}\n'
    "</tool_calls>",
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="minimax-m1",
)

case(
    "minimax_m1_empty_parameter_name_ignored",
    "<tool_calls>\n"
    '{"name": "read_file", "arguments": {"file_path": "a.py", "": "x"}}\n'
    "</tool_calls>",
    calls=[("read_file", {"file_path": "a.py"})],
    display="",
    tags="minimax-m1",
)

# --------------------------------------------------------------------------------------------- MiniMax-M3

M3 = "]<]minimax[>["

case(
    "minimax_m3_namespaced_elements",
    f"Reading it.\n{M3}<tool_call>\n{M3}<invoke name=\"read_file\">\n{M3}<file_path>src/app.py{M3}</file_path>\n"
    f"{M3}<limit>40{M3}</limit>\n{M3}</invoke>\n{M3}</tool_call>",
    calls=[("read_file", {"file_path": "src/app.py", "limit": 40})],
    display="Reading it.",
    tags="minimax-m3",
)

case(
    "minimax_m3_nested_object_and_list",
    f"{M3}<tool_call>\n{M3}<invoke name=\"create_task\">\n{M3}<title>Pin deps{M3}</title>\n"
    f"{M3}<labels>{M3}<item>build{M3}</item>{M3}<item>ci{M3}</item>{M3}</labels>\n"
    f"{M3}<meta>{M3}<owner>ana{M3}</owner>{M3}<count>2{M3}</count>{M3}</meta>\n{M3}</invoke>\n{M3}</tool_call>",
    calls=[("create_task", {"title": "Pin deps", "labels": ["build", "ci"], "meta": {"owner": "ana", "count": 2}})],
    display="",
    tags="minimax-m3",
)

case(
    "minimax_m3_cut_off_is_reported_not_run",
    f"{M3}<tool_call>\n{M3}<invoke name=\"run_shell_command\">\n{M3}<command>rm -rf bu",
    calls=[],
    errors=1,
    display="",
    tags="minimax-m3",
)


# --------------------------------------------------------------------------------------------- what the user sees

case(
    "minimax_namespace_markers_removed",
    "]<]minimax[>[The build passes.\n]<]minimax[>[\nNothing else to do.]<]minimax[>[",
    calls=[],
    display="The build passes.\n\nNothing else to do.",  # a line that held only markup leaves one blank line
    tags="display",
)

case(
    "minimax_role_markers_removed",
    "]~b]ai\nThe build passes.[e~[\n]~b]user\n",
    calls=[],
    display="The build passes.",
    tags="display",
)

case(
    "orphan_function_calls_closer_between_sentences",
    "I read it. </function_calls> Next I will fix it.",
    calls=[],
    display="I read it. Next I will fix it.",
    tags="display",
)

case(
    "orphan_closer_glued_to_a_word",
    "Let me check the tests</function_calls>",
    calls=[],
    display="Let me check the tests",
    tags="display",
)

case(
    "closing_tag_mentioned_mid_sentence_is_shown",
    "Close the block with </function_calls> and stop writing.",
    calls=[],
    display="Close the block with </function_calls> and stop writing.",
    tags="display",
)

case(
    "tool_call_block_mid_line_hidden",
    'Reading it now <tool_call>{"name": "read_file", "arguments": {"file_path": "a.py"}}</tool_call> and then fixing.',
    calls=[("read_file", {"file_path": "a.py"})],
    display="Reading it now and then fixing.",
    tags="display",
)

LIST_CALL = '<tool_call>\n{"name": "list_files", "arguments": {"directory": "."}}\n</tool_call>'

case(
    "blank_line_runs_collapse_where_calls_were",
    "Plan:\n\n\n" + LIST_CALL + "\n\n\n\n" + LIST_CALL + "\n\n\nDone.",
    calls=[("list_files", {"directory": "."})] * 2,
    display="Plan:\n\nDone.",
    tags="display",
)

case(
    "blank_line_runs_collapse_around_leaked_tokens",
    "One.\n\n\n<|im_end|>\n\n\n\nTwo.\n\n\n]<]minimax[>[\n\n\nThree.",
    calls=[],
    display="One.\n\nTwo.\n\nThree.",
    tags="display",
)

OPENAI_ARRAY = ('[{"id": "call_1", "type": "function", "function": {"name": "read_file", '
                '"arguments": "{\\"file_path\\": \\"a.py\\"}"}}]')

case(
    "openai_call_array_after_prose_hidden_and_run",
    "I will read the file first.\n" + OPENAI_ARRAY,
    calls=[("read_file", {"file_path": "a.py"})],
    display="I will read the file first.",
    tags="display",
)

case(
    "openai_call_array_pretty_printed_after_prose",
    "Reading both.\n[\n  {\"type\": \"function\", \"function\": {\"name\": \"read_file\", \"arguments\": "
    "{\"file_path\": \"a.py\"}}},\n  {\"type\": \"function\", \"function\": {\"name\": \"list_files\", "
    "\"arguments\": {\"directory\": \"src\"}}}\n]\n",
    calls=[("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "src"})],
    display="Reading both.",
    tags="display",
)

OTHER_API = ('[{"id": "call_1", "type": "function", "function": {"name": "get_weather", '
             '"arguments": "{\\"city\\": \\"Oslo\\"}"}}]')
case(
    "openai_array_of_a_tool_not_on_offer_is_an_example",
    "The API answers with a list like this:\n" + OTHER_API,
    calls=[],
    display="The API answers with a list like this:\n" + OTHER_API,
    tags="display",
)

case(
    "openai_array_followed_by_prose_is_an_example",
    "A response holds:\n" + OPENAI_ARRAY + "\nand the client runs each call.",
    calls=[],
    display="A response holds:\n" + OPENAI_ARRAY + "\nand the client runs each call.",
    tags="display",
)

RM_XML = ("<tool_call>\n<function=run_shell_command>\n<parameter=command>\nrm -rf ~/projects\n</parameter>\n"
          "</function>\n</tool_call>\n")
RM_JSON = '{"name": "run_shell_command", "arguments": {"command": "rm -rf ~/projects"}}'

for fence_id, example in [
    ("xml_fence", "Never run this:\n```xml\n" + RM_XML + "```\nIt deletes your projects."),
    ("json_fence", "An example call:\n```json\n" + RM_JSON + "\n```\nDon't run it."),
    ("json_fence_prose_after_only", "```json\n" + RM_JSON + "\n```\nThat is the shape of a call."),
    ("json_fence_array_prose_before_only", "For example:\n```json\n[" + RM_JSON + "]\n```"),
    ("tilde_fence", "Never run this:\n~~~xml\n" + RM_XML + "~~~\nIt deletes your projects."),
    ("tilde_fence_unclosed", "Never run this:\n~~~\n" + RM_XML),
    ("indented_fence", "1. An example:\n   ```xml\n   " + RM_XML.replace("\n", "\n   ") + "```\n2. Done."),
    ("json_fence_holding_hermes_markup", "```json\n<tool_call>" + RM_JSON + "</tool_call>\n```"),
    ("xml_fence_alone", "```xml\n" + RM_XML + "```"),
    ("four_backtick_fence", "Example:\n````markdown\n```xml\n" + RM_XML + "```\n````\nDone."),
]:
    case(
        f"fenced_rm_rf_example_never_runs_{fence_id}",
        example,
        calls=[],
        display=example,
        tags="fence",
    )

case(
    "tool_fence_amid_prose_still_runs",
    "Listing first.\n```tool\n" + '{"name": "list_files", "arguments": {"directory": "."}}' + "\n```\nBack soon.",
    calls=[("list_files", {"directory": "."})],
    display="Listing first.\nBack soon.",
    tags="fence",
)
