"""Model replies written in every tool-call format the intent parser reads, with what each must give.

Each case is a reply as a model would stream it (prose, think blocks, calls,
code fences), the tool schemas in play (or None), the calls it must yield
(name + arguments, in order), how many malformed calls it must report, and
strings that must or must not be shown to the user.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


def tool(name: str, description: str, properties: dict, required: tuple[str, ...] = ()) -> dict:
    """One OpenAI-format function schema."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(required)},
        },
    }


STRING = {"type": "string"}
INTEGER = {"type": "integer"}

TOOLS = [
    tool("read_file", "Read a text file.", {"file_path": STRING, "offset": INTEGER, "limit": INTEGER}, ("file_path",)),
    tool("write_file", "Write a whole file.", {"file_path": STRING, "content": STRING}, ("file_path", "content")),
    tool(
        "replace_string",
        "Replace one exact snippet in a file.",
        {"file_path": STRING, "old_string": STRING, "new_string": STRING},
        ("file_path", "old_string", "new_string"),
    ),
    tool("run_shell_command", "Run a shell command.", {"command": STRING, "timeout": INTEGER}, ("command",)),
    tool(
        "search_codebase",
        "Search files for a regex.",
        {
            "pattern": STRING,
            "file_glob": {"type": ["string", "null"]},
            "case_sensitive": {"type": "boolean"},
            "max_results": INTEGER,
        },
        ("pattern",),
    ),
    tool("list_files", "List a directory.", {"directory": STRING}),
    tool(
        "create_task",
        "Create a task.",
        {
            "title": STRING,
            "labels": {"type": "array", "items": STRING},
            "meta": {"type": "object"},
            "priority": {"type": "number"},
        },
        ("title",),
    ),
]


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    tools: list[dict] | None
    calls: list[tuple[str, dict[str, Any]]]
    errors: int | None = 0  # None: the number of errors is not specified for this reply
    shown: tuple[str, ...] = ()  # must appear in display
    hidden: tuple[str, ...] = ()  # must not appear in display
    thought: tuple[str, ...] = ()  # must appear in the joined thinking
    error_mentions: tuple[str, ...] = ()  # must appear in the joined errors
    display: str | None = None  # when given, the whole display exactly
    notes: str = ""
    tags: frozenset[str] = field(default_factory=frozenset)


CASES: list[Case] = []


def case(id: str, text: str, tools: list[dict] | None = None, calls=(), **kw) -> None:
    CASES.append(Case(id=id, text=text, tools=tools, calls=list(calls), **kw))


# --------------------------------------------------------------------------------------------
# 1. [CALL] tool_name {json}  -- the documented ayder format
# --------------------------------------------------------------------------------------------

case(
    "call_line_after_prose",
    "I'll start by reading the entry point.\n"
    '[CALL] read_file {"file_path": "src/app/main.py"}\n',
    calls=[("read_file", {"file_path": "src/app/main.py"})],
    shown=("I'll start by reading the entry point.",),
    hidden=("[CALL]", "src/app/main.py"),
)

case(
    "call_lines_several_with_text_between",
    "Two things to check.\n"
    '[CALL] read_file {"file_path": "setup.cfg", "offset": 10, "limit": 40}\n'
    "Then the tests:\n"
    '[CALL] search_codebase {"pattern": "def test_", "file_glob": null, "case_sensitive": false, "max_results": 25}\n'
    "I'll report back after that.",
    TOOLS,
    calls=[
        ("read_file", {"file_path": "setup.cfg", "offset": 10, "limit": 40}),
        ("search_codebase", {"pattern": "def test_", "file_glob": None, "case_sensitive": False, "max_results": 25}),
    ],
    shown=("Two things to check.", "Then the tests:", "I'll report back after that."),
    hidden=("[CALL]", "setup.cfg", "def test_"),
)

case(
    "call_line_code_with_escapes_and_unicode",
    "Writing the helper.\n"
    r'[CALL] write_file {"file_path": "greet.py", "content": "def greet(name):\n    return f\"Merhaba, {name}! 👋\"\n"}',
    calls=[("write_file", {"file_path": "greet.py", "content": 'def greet(name):\n    return f"Merhaba, {name}! 👋"\n'})],
    shown=("Writing the helper.",),
    hidden=("greet.py", "Merhaba"),
)

case(
    "call_line_ascii_escaped_unicode",
    r'[CALL] write_file {"file_path": "notes/\u00f6zet.md", "content": "\u4f60\u597d <b>bold</b> & a<b"}',
    calls=[("write_file", {"file_path": "notes/özet.md", "content": "你好 <b>bold</b> & a<b"})],
    hidden=("[CALL]",),
)

case(
    "call_line_empty_arguments",
    "[CALL] list_files {}",
    calls=[("list_files", {})],
    hidden=("[CALL]", "list_files"),
)

case(
    "call_line_bad_json_single_quotes",
    "Let me read it.\n[CALL] read_file {'file_path': 'a.py'}\n",
    calls=[],
    errors=1,
    shown=("Let me read it.",),
)

case(
    "call_line_bad_json_bare_words",
    "[CALL] run_shell_command {command: ls -la}\n",
    calls=[],
    errors=1,
)

case(
    "call_line_truncated_in_string",
    'Reading it now.\n[CALL] read_file {"file_path": "a.py',
    calls=[],
    errors=1,
    shown=("Reading it now.",),
)

case(
    "call_line_unknown_tool_with_schema",
    '[CALL] read_fiel {"file_path": "a.py"}',
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("read_fiel", "read_file"),
)

case(
    "call_line_unknown_tool_without_schema_is_a_call",
    '[CALL] read_fiel {"file_path": "a.py"}',
    None,
    calls=[("read_fiel", {"file_path": "a.py"})],
)

case(
    "call_line_then_valid_after_bad",
    "[CALL] read_file {file_path: a.py}\n"
    '[CALL] read_file {"file_path": "b.py"}\n',
    calls=[("read_file", {"file_path": "b.py"})],
    errors=1,
)

case(
    "call_line_arguments_not_an_object",
    'Trying again.\n[CALL] read_file ["src/app.py"]\n',
    calls=[],
    errors=1,
    shown=("Trying again.",),
    notes="a [CALL] line at the start of a line is a call attempt; arguments that are not an object are malformed",
)

case(
    "prose_mentions_call_format_mid_sentence",
    "I will use the [CALL] format to read the file once you confirm which one you mean.",
    calls=[],
    shown=("I will use the [CALL] format to read the file once you confirm which one you mean.",),
)

case(
    "prose_call_syntax_mid_line_is_not_a_call",
    'You can also type: [CALL] read_file {"file_path": "x.py"} to try it yourself.',
    calls=[],
    errors=None,
    shown=('[CALL] read_file {"file_path": "x.py"}',),
)

# --------------------------------------------------------------------------------------------
# 2. ```tool fences
# --------------------------------------------------------------------------------------------

case(
    "tool_fence_args",
    "Let me look at the directory layout first.\n\n"
    "```tool\n"
    '{"name": "list_files", "args": {"directory": "src"}}\n'
    "```\n",
    calls=[("list_files", {"directory": "src"})],
    shown=("Let me look at the directory layout first.",),
    hidden=("```tool", '"directory"'),
)

case(
    "tool_fence_pretty_arguments_with_code",
    "The comparison is off by one; fixing it.\n"
    "```tool\n"
    "{\n"
    '  "name": "replace_string",\n'
    '  "arguments": {\n'
    '    "file_path": "src/util.py",\n'
    '    "old_string": "if a<b:\\n    pass",\n'
    '    "new_string": "if a <= b:\\n    return None"\n'
    "  }\n"
    "}\n"
    "```\n"
    "That should do it.",
    TOOLS,
    calls=[
        (
            "replace_string",
            {"file_path": "src/util.py", "old_string": "if a<b:\n    pass", "new_string": "if a <= b:\n    return None"},
        )
    ],
    shown=("The comparison is off by one; fixing it.", "That should do it."),
    hidden=("```tool", "replace_string", "src/util.py"),
)

case(
    "tool_fence_two_blocks",
    "```tool\n"
    '{"name": "read_file", "args": {"file_path": "a.txt"}}\n'
    "```\n"
    "and\n"
    "```tool\n"
    '{"name": "read_file", "args": {"file_path": "b.txt"}}\n'
    "```",
    calls=[("read_file", {"file_path": "a.txt"}), ("read_file", {"file_path": "b.txt"})],
    shown=("and",),
)

case(
    "tool_fence_truncated",
    'Checking.\n```tool\n{"name": "read_file", "args": {"file_',
    calls=[],
    errors=1,
    shown=("Checking.",),
)

# --------------------------------------------------------------------------------------------
# 3. Qwen3-Coder XML
# --------------------------------------------------------------------------------------------

QWEN_READ = (
    "I'll read the first 40 lines of the config module.\n\n"
    "<tool_call>\n"
    "<function=read_file>\n"
    "<parameter=file_path>\n"
    "src/config.py\n"
    "</parameter>\n"
    "<parameter=offset>\n"
    "0\n"
    "</parameter>\n"
    "<parameter=limit>\n"
    "40\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>"
)

case(
    "qwen3_typed_with_schema",
    QWEN_READ,
    TOOLS,
    calls=[("read_file", {"file_path": "src/config.py", "offset": 0, "limit": 40})],
    shown=("I'll read the first 40 lines of the config module.",),
    hidden=("<tool_call>", "<function=", "<parameter=", "</parameter>", "</function>", "</tool_call>", "src/config.py"),
)

case(
    "qwen3_strings_without_schema",
    QWEN_READ,
    None,
    calls=[("read_file", {"file_path": "src/config.py", "offset": "0", "limit": "40"})],
    shown=("I'll read the first 40 lines of the config module.",),
    hidden=("<tool_call>", "<parameter=", "src/config.py"),
)

case(
    "qwen3_indented_code_with_angle_brackets",
    "The guard is inverted. Here is the fix:\n"
    "<tool_call>\n"
    "<function=replace_string>\n"
    "<parameter=file_path>\n"
    "lib/paging.py\n"
    "</parameter>\n"
    "<parameter=old_string>\n"
    "        if count > limit:\n"
    "            return []\n"
    "</parameter>\n"
    "<parameter=new_string>\n"
    "        if count < 0 or count > limit:\n"
    "            # List<Item> stays empty when <limit> is hit\n"
    "            return []\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>",
    TOOLS,
    calls=[
        (
            "replace_string",
            {
                "file_path": "lib/paging.py",
                "old_string": "        if count > limit:\n            return []",
                "new_string": "        if count < 0 or count > limit:\n"
                "            # List<Item> stays empty when <limit> is hit\n"
                "            return []",
            },
        )
    ],
    shown=("The guard is inverted. Here is the fix:",),
    hidden=("lib/paging.py", "List<Item>"),
)

case(
    "qwen3_whitespace_beyond_one_newline_is_kept",
    "<tool_call>\n"
    "<function=write_file>\n"
    "<parameter=file_path>\n"
    "pad.txt\n"
    "</parameter>\n"
    "<parameter=content>\n"
    "\n"
    "  two spaces, a blank line above and two newlines below\t\n"
    "\n"
    "\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>",
    TOOLS,
    calls=[
        (
            "write_file",
            {"file_path": "pad.txt", "content": "\n  two spaces, a blank line above and two newlines below\t\n\n"},
        )
    ],
)

case(
    "qwen3_without_wrapper",
    "Listing the package.\n"
    "<function=list_files>\n"
    "<parameter=directory>\n"
    "ayder_cli/tools\n"
    "</parameter>\n"
    "</function>\n",
    calls=[("list_files", {"directory": "ayder_cli/tools"})],
    shown=("Listing the package.",),
    hidden=("<function=", "ayder_cli/tools"),
)

case(
    "qwen3_missing_all_closers_at_end",
    "Running the tests now.\n"
    "<tool_call>\n"
    "<function=run_shell_command>\n"
    "<parameter=command>\n"
    "pytest -q tests/test_cli.py\n",
    calls=[("run_shell_command", {"command": "pytest -q tests/test_cli.py"})],
    shown=("Running the tests now.",),
    hidden=("<parameter=", "pytest -q"),
)

case(
    "qwen3_missing_function_and_tool_call_closers",
    "<tool_call>\n"
    "<function=run_shell_command>\n"
    "<parameter=command>\n"
    "git status --short\n"
    "</parameter>\n",
    calls=[("run_shell_command", {"command": "git status --short"})],
    hidden=("git status",),
)

case(
    "qwen3_missing_tool_call_closer_only",
    "<tool_call>\n"
    "<function=read_file>\n"
    "<parameter=file_path>\n"
    "Makefile\n"
    "</parameter>\n"
    "</function>",
    calls=[("read_file", {"file_path": "Makefile"})],
)

case(
    "qwen3_wrapper_closer_missing_then_prose",
    "<tool_call>\n<function=list_files>\n<parameter=directory>\nsrc\n</parameter>\n</function>\n"
    "I will wait for the listing.",
    calls=[("list_files", {"directory": "src"})],
    shown=("I will wait for the listing.",),
    notes="text after a closed function is prose even when </tool_call> never comes",
)

case(
    "qwen3_two_calls_with_text_between",
    "First the manifest.\n"
    "<tool_call>\n<function=read_file>\n<parameter=file_path>\npyproject.toml\n</parameter>\n</function>\n</tool_call>\n"
    "Then the lock file.\n"
    "<tool_call>\n<function=read_file>\n<parameter=file_path>\nuv.lock\n</parameter>\n</function>\n</tool_call>\n"
    "Back soon.",
    calls=[("read_file", {"file_path": "pyproject.toml"}), ("read_file", {"file_path": "uv.lock"})],
    shown=("First the manifest.", "Then the lock file.", "Back soon."),
    hidden=("pyproject.toml", "uv.lock"),
)

case(
    "qwen3_schema_tells_quoted_closing_tag_from_real_one",
    "I'll add a fixture holding an example of the XML call format.\n"
    "<tool_call>\n"
    "<function=write_file>\n"
    "<parameter=file_path>\n"
    "tests/fixtures/xml_call.py\n"
    "</parameter>\n"
    "<parameter=content>\n"
    'EXAMPLE = """\n'
    "<parameter=path>\n"
    "demo.txt\n"
    "</parameter>\n"
    '"""\n'
    "</parameter>\n"
    "</function>\n"
    "</tool_call>",
    TOOLS,
    calls=[
        (
            "write_file",
            {
                "file_path": "tests/fixtures/xml_call.py",
                "content": 'EXAMPLE = """\n<parameter=path>\ndemo.txt\n</parameter>\n"""',
            },
        )
    ],
    shown=("I'll add a fixture holding an example of the XML call format.",),
    hidden=("demo.txt", "EXAMPLE"),
)

case(
    "qwen3_schema_quoted_closer_before_a_foreign_parameter_tag",
    "<tool_call>\n"
    "<function=write_file>\n"
    "<parameter=file_path>\n"
    "tests/fixtures/two_params.py\n"
    "</parameter>\n"
    "<parameter=content>\n"
    'SAMPLE = """\n'
    "<parameter=path>\n"
    "a.txt\n"
    "</parameter>\n"
    "<parameter=mode>\n"
    "w\n"
    "</parameter>\n"
    '"""\n'
    "</parameter>\n"
    "</function>\n"
    "</tool_call>",
    TOOLS,
    calls=[
        (
            "write_file",
            {
                "file_path": "tests/fixtures/two_params.py",
                "content": 'SAMPLE = """\n<parameter=path>\na.txt\n</parameter>\n<parameter=mode>\nw\n</parameter>\n"""',
            },
        )
    ],
    notes="write_file has no 'mode' parameter, so the </parameter> before <parameter=mode> is quoted text",
)

case(
    "qwen3_parameter_tag_mid_line_is_value_text",
    "<tool_call>\n"
    "<function=write_file>\n"
    "<parameter=file_path>\n"
    "tags.py\n"
    "</parameter>\n"
    "<parameter=content>\n"
    'OPEN = "<parameter=file_path>"\n'
    "</parameter>\n"
    "</function>\n"
    "</tool_call>",
    None,
    calls=[("write_file", {"file_path": "tags.py", "content": 'OPEN = "<parameter=file_path>"'})],
)

case(
    "qwen3_unicode_values",
    "Güncelliyorum / 正在更新:\n"
    "<tool_call>\n"
    "<function=write_file>\n"
    "<parameter=file_path>\n"
    "docs/设计说明.md\n"
    "</parameter>\n"
    "<parameter=content>\n"
    "# Başlık\n"
    "\n"
    "Çalışma notları — 完成 ✅\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>",
    TOOLS,
    calls=[("write_file", {"file_path": "docs/设计说明.md", "content": "# Başlık\n\nÇalışma notları — 完成 ✅"})],
    shown=("Güncelliyorum / 正在更新:",),
    hidden=("Başlık",),
)

case(
    "qwen3_schema_types_null_bool_array_object_number",
    "<tool_call>\n"
    "<function=search_codebase>\n"
    "<parameter=pattern>\nTODO|FIXME\n</parameter>\n"
    "<parameter=file_glob>\nnull\n</parameter>\n"
    "<parameter=case_sensitive>\ntrue\n</parameter>\n"
    "<parameter=max_results>\n100\n</parameter>\n"
    "</function>\n"
    "</tool_call>\n"
    "<tool_call>\n"
    "<function=create_task>\n"
    "<parameter=title>\nTriage TODO comments\n</parameter>\n"
    '<parameter=labels>\n["cleanup", "tech-debt"]\n</parameter>\n'
    '<parameter=meta>\n{"source": "search", "count": 3}\n</parameter>\n'
    "<parameter=priority>\n0.5\n</parameter>\n"
    "</function>\n"
    "</tool_call>",
    TOOLS,
    calls=[
        ("search_codebase", {"pattern": "TODO|FIXME", "file_glob": None, "case_sensitive": True, "max_results": 100}),
        (
            "create_task",
            {"title": "Triage TODO comments", "labels": ["cleanup", "tech-debt"], "meta": {"source": "search", "count": 3},
             "priority": 0.5},
        ),
    ],
)

case(
    "qwen3_nullable_string_keeps_a_real_string",
    "<tool_call>\n<function=search_codebase>\n"
    "<parameter=pattern>\nimport requests\n</parameter>\n"
    "<parameter=file_glob>\n*.py\n</parameter>\n"
    "</function>\n</tool_call>",
    TOOLS,
    calls=[("search_codebase", {"pattern": "import requests", "file_glob": "*.py"})],
)

case(
    "qwen3_string_type_keeps_digits_as_string",
    "<tool_call>\n<function=replace_string>\n"
    "<parameter=file_path>\nconfig.ini\n</parameter>\n"
    "<parameter=old_string>\n1024\n</parameter>\n"
    "<parameter=new_string>\n2048\n</parameter>\n"
    "</function>\n</tool_call>",
    TOOLS,
    calls=[("replace_string", {"file_path": "config.ini", "old_string": "1024", "new_string": "2048"})],
)

case(
    "qwen3_truncated_function_name",
    "Let me open it.\n<function=read_fi",
    calls=[],
    errors=1,
    shown=("Let me open it.",),
)

case(
    "qwen3_truncated_after_function_prefix",
    "<tool_call>\n<function=",
    calls=[],
    errors=1,
)

case(
    "qwen3_truncated_parameter_tag",
    "<tool_call>\n<function=list_files>\n<parameter=direc",
    calls=[],
    errors=1,
    notes="the reply stops inside the opening parameter tag: the call is cut off, not complete",
)

case(
    "qwen3_truncated_after_parameter_prefix",
    "Listing.\n<tool_call>\n<function=list_files>\n<parameter=",
    calls=[],
    errors=1,
    shown=("Listing.",),
)

case(
    "qwen3_unknown_tool_with_schema",
    "<tool_call>\n<function=run_shell>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>",
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("run_shell", "run_shell_command"),
)

case(
    "prose_mentions_function_syntax",
    "Qwen3-Coder writes calls with the <function=NAME> syntax, one tag per parameter.",
    calls=[],
    shown=("Qwen3-Coder writes calls with the <function=NAME> syntax, one tag per parameter.",),
)

# --------------------------------------------------------------------------------------------
# 4. Namespaced wrappers (MiniMax-M2)
# --------------------------------------------------------------------------------------------

MINIMAX = (
    "<think>\nThe user wants the request handler. Search first, then open the file.\n</think>\n\n"
    "I'll look for the handler and then open it.\n"
    "<minimax:tool_call>\n"
    '<invoke name="search_codebase">\n'
    '<parameter name="pattern">def handle_request</parameter>\n'
    '<parameter name="max_results">5</parameter>\n'
    "</invoke>\n"
    '<invoke name="read_file">\n'
    '<parameter name="file_path">server/handlers.py</parameter>\n'
    "</invoke>\n"
    "</minimax:tool_call>"
)

case(
    "minimax_invoke_with_schema",
    MINIMAX,
    TOOLS,
    calls=[
        ("search_codebase", {"pattern": "def handle_request", "max_results": 5}),
        ("read_file", {"file_path": "server/handlers.py"}),
    ],
    shown=("I'll look for the handler and then open it.",),
    hidden=("<minimax:tool_call>", "<invoke", "def handle_request", "Search first", "<think>"),
    thought=("Search first, then open the file.",),
)

case(
    "minimax_invoke_without_schema",
    MINIMAX,
    None,
    calls=[
        ("search_codebase", {"pattern": "def handle_request", "max_results": "5"}),
        ("read_file", {"file_path": "server/handlers.py"}),
    ],
    thought=("Search first, then open the file.",),
)

case(
    "minimax_invoke_multiline_value",
    "<minimax:tool_call>\n"
    '<invoke name="write_file">\n'
    '<parameter name="file_path">web/index.html</parameter>\n'
    '<parameter name="content"><!doctype html>\n'
    "<html>\n"
    '  <body class="a&b">x < y</body>\n'
    "</html></parameter>\n"
    "</invoke>\n"
    "</minimax:tool_call>",
    TOOLS,
    calls=[
        (
            "write_file",
            {"file_path": "web/index.html",
             "content": '<!doctype html>\n<html>\n  <body class="a&b">x < y</body>\n</html>'},
        )
    ],
)

case(
    "minimax_wrapper_closer_missing_then_prose",
    '<minimax:tool_call>\n<invoke name="list_files">\n<parameter name="directory">src</parameter>\n</invoke>\n'
    "I will wait for the listing.",
    calls=[("list_files", {"directory": "src"})],
    shown=("I will wait for the listing.",),
)

case(
    "minimax_wrapping_function_form",
    "Let me see what's there.\n"
    "<minimax:tool_call>\n"
    "<function=list_files>\n"
    "<parameter=directory>\n"
    "./scripts\n"
    "</parameter>\n"
    "</function>\n"
    "</minimax:tool_call>",
    calls=[("list_files", {"directory": "./scripts"})],
    shown=("Let me see what's there.",),
    hidden=("minimax", "./scripts"),
)

case(
    "minimax_truncated_invoke_name",
    'One moment.\n<minimax:tool_call>\n<invoke name="read_fi',
    calls=[],
    errors=1,
    shown=("One moment.",),
)

case(
    "minimax_truncated_parameter_tag",
    '<minimax:tool_call>\n<invoke name="list_files">\n<parameter name="direc',
    calls=[],
    errors=1,
)

# --------------------------------------------------------------------------------------------
# 5. <function_calls><invoke> (Anthropic style) and DeepSeek DSML
# --------------------------------------------------------------------------------------------

case(
    "dsml_two_invokes_string_attr",
    "Let me check both.\n\n"
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="read_file">\n'
    '<｜DSML｜parameter name="file_path" string="true">README.md</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="limit" string="false">120</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    '<｜DSML｜invoke name="run_shell_command">\n'
    '<｜DSML｜parameter name="command" string="true">grep -rn "x<3" src | sort > /tmp/hits.txt</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>",
    None,
    calls=[
        ("read_file", {"file_path": "README.md", "limit": 120}),
        ("run_shell_command", {"command": 'grep -rn "x<3" src | sort > /tmp/hits.txt'}),
    ],
    shown=("Let me check both.",),
    hidden=("DSML", "README.md", "grep"),
)

case(
    "dsml_string_false_json_values",
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="create_task">\n'
    '<｜DSML｜parameter name="title" string="true">Port the parser</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="labels" string="false">["parser", "p1"]</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="meta" string="false">{"estimate_h": 6, "blocked": false}</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="priority" string="false">2.5</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>",
    None,
    calls=[
        ("create_task", {"title": "Port the parser", "labels": ["parser", "p1"], "meta": {"estimate_h": 6, "blocked": False},
                         "priority": 2.5})
    ],
)

case(
    "dsml_string_true_keeps_digits",
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="write_file">\n'
    '<｜DSML｜parameter name="file_path" string="true">VERSION</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="content" string="true">007</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>",
    None,
    calls=[("write_file", {"file_path": "VERSION", "content": "007"})],
)

case(
    "function_calls_plain_with_string_attr",
    "I'll run the linter.\n"
    "<function_calls>\n"
    '<invoke name="run_shell_command">\n'
    '<parameter name="command" string="true">ruff check . --fix</parameter>\n'
    '<parameter name="timeout" string="false">300</parameter>\n'
    "</invoke>\n"
    "</function_calls>",
    None,
    calls=[("run_shell_command", {"command": "ruff check . --fix", "timeout": 300})],
    shown=("I'll run the linter.",),
    hidden=("<function_calls>", "<invoke", "ruff check"),
)

case(
    "function_calls_plain_no_attr_typed_by_schema",
    "<function_calls>\n"
    '<invoke name="read_file">\n'
    '<parameter name="file_path">CHANGELOG.md</parameter>\n'
    '<parameter name="limit">30</parameter>\n'
    "</invoke>\n"
    "</function_calls>",
    TOOLS,
    calls=[("read_file", {"file_path": "CHANGELOG.md", "limit": 30})],
)

case(
    "dsml_truncated_invoke_name",
    'Checking.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="read_fi',
    calls=[],
    errors=1,
    shown=("Checking.",),
)

case(
    "dsml_truncated_parameter_tag",
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="read_file">\n'
    '<｜DSML｜parameter name="file_',
    calls=[],
    errors=1,
)

# --------------------------------------------------------------------------------------------
# 6. Hermes / Qwen2.5 <tool_call>{json}</tool_call>
# --------------------------------------------------------------------------------------------

case(
    "hermes_single",
    "I'll run the test suite.\n"
    "<tool_call>\n"
    '{"name": "run_shell_command", "arguments": {"command": "python -m pytest -x", "timeout": 120}}\n'
    "</tool_call>",
    TOOLS,
    calls=[("run_shell_command", {"command": "python -m pytest -x", "timeout": 120})],
    shown=("I'll run the test suite.",),
    hidden=("<tool_call>", "</tool_call>", "pytest -x"),
)

case(
    "hermes_parallel_two_blocks",
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "a/__init__.py"}}\n'
    "</tool_call>\n"
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "b/__init__.py"}}\n'
    "</tool_call>",
    calls=[("read_file", {"file_path": "a/__init__.py"}), ("read_file", {"file_path": "b/__init__.py"})],
)

case(
    "hermes_arguments_as_json_string",
    "<tool_call>\n"
    r'{"name": "run_shell_command", "arguments": "{\"command\": \"ls -la build/\", \"timeout\": 30}"}'
    "\n</tool_call>",
    calls=[("run_shell_command", {"command": "ls -la build/", "timeout": 30})],
)

case(
    "hermes_missing_closing_tag_after_complete_json",
    "Let me check git.\n"
    "<tool_call>\n"
    '{"name": "run_shell_command", "arguments": {"command": "git log --oneline -5"}}\n',
    calls=[("run_shell_command", {"command": "git log --oneline -5"})],
    shown=("Let me check git.",),
    hidden=("git log",),
)

case(
    "hermes_json_types_kept",
    "<tool_call>\n"
    '{"name": "create_task", "arguments": {"title": "Ship it", "labels": ["release", ["nested", 1]], '
    '"meta": {"done": true, "count": 0, "owner": null}, "priority": 1}}\n'
    "</tool_call>",
    calls=[
        ("create_task", {"title": "Ship it", "labels": ["release", ["nested", 1]],
                         "meta": {"done": True, "count": 0, "owner": None}, "priority": 1})
    ],
)

case(
    "hermes_closing_tag_quoted_inside_json_string",
    "<tool_call>\n"
    r'{"name": "write_file", "arguments": {"file_path": "t.txt", "content": "end marker: </tool_call>\nafter"}}'
    "\n</tool_call>",
    calls=[("write_file", {"file_path": "t.txt", "content": "end marker: </tool_call>\nafter"})],
    notes="JSON decides where the object ends; the quoted closing tag is string content",
)

case(
    "hermes_no_closing_tag_then_prose",
    "<tool_call>\n"
    '{"name": "list_files", "arguments": {"directory": "src"}}\n'
    "I will wait for the listing.",
    calls=[("list_files", {"directory": "src"})],
    shown=("I will wait for the listing.",),
    notes="the JSON says where the call ends; what follows is prose, which stays shown",
)

case(
    "hermes_truncated",
    'Reading.\n<tool_call>\n{"name": "read_file", "argu',
    calls=[],
    errors=1,
    shown=("Reading.",),
)

case(
    "hermes_bad_json",
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": a.py}}\n</tool_call>',
    calls=[],
    errors=1,
)

case(
    "hermes_missing_name",
    '<tool_call>\n{"arguments": {"file_path": "a.py"}}\n</tool_call>',
    calls=[],
    errors=1,
)

case(
    "hermes_arguments_string_not_an_object",
    '<tool_call>\n{"name": "read_file", "arguments": "[\\"a.py\\"]"}\n</tool_call>',
    calls=[],
    errors=1,
)

case(
    "hermes_unknown_tool_with_schema",
    '<tool_call>\n{"name": "list_dir", "arguments": {"directory": "."}}\n</tool_call>',
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("list_dir",),
)

case(
    "prose_mentions_tool_call_in_backticks",
    "Models trained on the Hermes template wrap each call in `<tool_call>` tags and put JSON inside.",
    calls=[],
    shown=("`<tool_call>`",),
)

# --------------------------------------------------------------------------------------------
# 7. JSON array replies (OpenAI shape, Llama "parameters", Mistral [TOOL_CALLS])
# --------------------------------------------------------------------------------------------

case(
    "json_array_whole_reply",
    '[{"name": "read_file", "arguments": {"file_path": "pyproject.toml"}}]',
    calls=[("read_file", {"file_path": "pyproject.toml"})],
    hidden=("pyproject.toml", "arguments"),
)

case(
    "json_array_whole_reply_with_surrounding_whitespace",
    '\n  [{"name": "list_files", "parameters": {"directory": "docs"}}]\n',
    calls=[("list_files", {"directory": "docs"})],
    hidden=("docs", "parameters"),
)

case(
    "mistral_tool_calls_two",
    '[TOOL_CALLS][{"name": "list_files", "arguments": {"directory": "tests"}}, '
    '{"name": "read_file", "arguments": {"file_path": "tests/conftest.py", "limit": 50}}]',
    calls=[("list_files", {"directory": "tests"}), ("read_file", {"file_path": "tests/conftest.py", "limit": 50})],
    hidden=("[TOOL_CALLS]", "conftest"),
)

case(
    "openai_function_objects_string_arguments",
    "[\n"
    "  {\n"
    '    "id": "call_0",\n'
    '    "type": "function",\n'
    '    "function": {\n'
    '      "name": "run_shell_command",\n'
    r'      "arguments": "{\"command\": \"make -j4\", \"timeout\": 600}"'
    "\n"
    "    }\n"
    "  },\n"
    "  {\n"
    '    "type": "function",\n'
    '    "function": {"name": "read_file", "arguments": {"file_path": "build.log"}}\n'
    "  }\n"
    "]",
    calls=[("run_shell_command", {"command": "make -j4", "timeout": 600}), ("read_file", {"file_path": "build.log"})],
    hidden=("make -j4", "build.log"),
)

case(
    "json_array_in_json_fence_whole_reply",
    '```json\n[{"name": "read_file", "arguments": {"file_path": "tox.ini"}}]\n```',
    calls=[("read_file", {"file_path": "tox.ini"})],
    hidden=("tox.ini", "```"),
)

case(
    "json_array_with_prose_is_text",
    "The call would look like this:\n"
    '[{"name": "read_file", "arguments": {"file_path": "tox.ini"}}]\n'
    "but I don't need it yet.",
    calls=[],
    shown=('[{"name": "read_file", "arguments": {"file_path": "tox.ini"}}]', "but I don't need it yet."),
)

case(
    "json_array_in_json_fence_with_prose_is_text",
    "Example payload:\n```json\n[{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"tox.ini\"}}]\n```\nThat's all.",
    calls=[],
    shown=("```json", '"file_path": "tox.ini"', "That's all."),
)

case(
    "json_array_of_plain_objects_is_text",
    '[{"city": "Izmir", "temp": 24}, {"city": "Oslo", "temp": 3}]',
    calls=[],
    shown=('[{"city": "Izmir", "temp": 24}, {"city": "Oslo", "temp": 3}]',),
)

case(
    "json_array_of_numbers_is_text",
    "[1, 2, 3]",
    calls=[],
    shown=("[1, 2, 3]",),
)

case(
    "mistral_truncated",
    '[TOOL_CALLS][{"name": "read_file", "arguments": {"file_path": "a',
    calls=[],
    errors=1,
)

case(
    "json_array_unknown_tool_with_schema",
    '[{"name": "grep", "arguments": {"pattern": "x"}}]',
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("grep",),
)

# --------------------------------------------------------------------------------------------
# 8. Think blocks
# --------------------------------------------------------------------------------------------

case(
    "think_holds_fake_call_line",
    "<think>\nI could run\n[CALL] run_shell_command {\"command\": \"rm -rf build\"}\nbut nothing needs cleaning.\n</think>\n"
    "Nothing to run; the build directory is already clean.",
    calls=[],
    shown=("Nothing to run; the build directory is already clean.",),
    hidden=("rm -rf", "[CALL]", "<think>", "</think>"),
    thought=('[CALL] run_shell_command {"command": "rm -rf build"}',),
)

case(
    "think_holds_fake_xml_then_real_hermes_call",
    "<think>\nMaybe:\n<tool_call>\n<function=write_file>\n<parameter=file_path>\n/etc/passwd\n</parameter>\n"
    "</function>\n</tool_call>\nNo, just read the README.\n</think>\n"
    "Reading the README.\n"
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "README.md"}}\n</tool_call>',
    calls=[("read_file", {"file_path": "README.md"})],
    shown=("Reading the README.",),
    hidden=("/etc/passwd", "No, just read"),
    thought=("/etc/passwd", "No, just read the README."),
)

case(
    "only_closing_think_tag",
    "The user asked for the version. I should read pyproject.</think>Let me check.\n"
    '[CALL] read_file {"file_path": "pyproject.toml"}',
    calls=[("read_file", {"file_path": "pyproject.toml"})],
    shown=("Let me check.",),
    hidden=("The user asked", "I should read pyproject.", "</think>"),
    thought=("The user asked for the version. I should read pyproject.",),
)

case(
    "only_closing_think_tag_with_fake_call_before_it",
    "Plan:\n"
    '[CALL] run_shell_command {"command": "rm -rf dist"}\n'
    "No, that is not needed.\n"
    "</think>\n"
    "No changes required.",
    calls=[],
    shown=("No changes required.",),
    hidden=("rm -rf", "Plan:"),
    thought=("rm -rf dist", "No, that is not needed."),
)

case(
    "unclosed_think_at_end_holds_call",
    "Let me think about this.\n<think>\nPerhaps\n"
    '[CALL] write_file {"file_path": "x.py", "content": "print(1)"}\n'
    "would work",
    calls=[],
    shown=("Let me think about this.",),
    hidden=("print(1)", "Perhaps"),
    thought=("Perhaps", "write_file", "would work"),
)

case(
    "think_then_json_array_reply",
    '<think>Just one read.</think>\n[{"name": "read_file", "arguments": {"file_path": "setup.py"}}]',
    calls=[("read_file", {"file_path": "setup.py"})],
    hidden=("setup.py", "Just one read."),
    thought=("Just one read.",),
    notes="once the think block is taken out, the array is the whole reply",
)

# --------------------------------------------------------------------------------------------
# Code fences: examples, not calls
# --------------------------------------------------------------------------------------------

PY_FENCE = (
    "```python\n"
    "# the agent accepts lines like this:\n"
    '[CALL] read_file {"file_path": "demo.py"}\n'
    "```"
)
case(
    "python_fence_holds_call_line",
    "Here is how a call line looks inside a script:\n\n" + PY_FENCE + "\n\nYou can paste it into the prompt.",
    calls=[],
    shown=(PY_FENCE, "You can paste it into the prompt."),
)

XML_FENCE = (
    "```xml\n"
    "<tool_call>\n"
    "<function=run_shell_command>\n"
    "<parameter=command>\n"
    "rm -rf /\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>\n"
    "```"
)
case(
    "xml_fence_holds_qwen_call",
    "Never let a model emit this:\n" + XML_FENCE + "\nIt would wipe the disk.",
    calls=[],
    shown=(XML_FENCE, "It would wipe the disk."),
)

BARE_FENCE = '```\n<tool_call>\n{"name": "run_shell_command", "arguments": {"command": "shutdown now"}}\n</tool_call>\n```'
case(
    "bare_fence_holds_hermes_call",
    "For reference, the Hermes shape is:\n" + BARE_FENCE,
    calls=[],
    shown=(BARE_FENCE,),
)

DSML_FENCE = (
    "```text\n"
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="run_shell_command">\n'
    '<｜DSML｜parameter name="command" string="true">reboot</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>\n"
    "```"
)
case(
    "text_fence_holds_dsml_call",
    "DeepSeek writes:\n" + DSML_FENCE,
    calls=[],
    shown=(DSML_FENCE,),
)

THINK_FENCE = "```xml\n<think>\nweigh the options\n</think>\n```"
case(
    "fence_holds_think_tags",
    "Reasoning models wrap their thoughts like this:\n" + THINK_FENCE + "\nand then answer.",
    calls=[],
    shown=(THINK_FENCE, "and then answer."),
)

case(
    "think_holds_tool_fence",
    "<think>\n```tool\n{\"name\": \"run_shell_command\", \"args\": {\"command\": \"make clean\"}}\n```\n</think>\n"
    "The tree is already clean.",
    calls=[],
    shown=("The tree is already clean.",),
    hidden=("make clean",),
    thought=("make clean",),
)

case(
    "call_after_a_closed_fence_runs",
    "The current function:\n```python\ndef area(r):\n    return 3.14 * r * r\n```\n"
    '[CALL] replace_string {"file_path": "geo.py", "old_string": "3.14", "new_string": "math.pi"}\n',
    calls=[("replace_string", {"file_path": "geo.py", "old_string": "3.14", "new_string": "math.pi"})],
    shown=("```python\ndef area(r):\n    return 3.14 * r * r\n```", "The current function:"),
    hidden=("[CALL]",),
)

# --------------------------------------------------------------------------------------------
# Mixed, empty, unbalanced
# --------------------------------------------------------------------------------------------

case(
    "mixed_formats_in_order",
    '[CALL] read_file {"file_path": "one.txt"}\n'
    "and also\n"
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "two.txt"}}\n</tool_call>\n'
    "<tool_call>\n<function=read_file>\n<parameter=file_path>\nthree.txt\n</parameter>\n</function>\n</tool_call>",
    calls=[("read_file", {"file_path": "one.txt"}), ("read_file", {"file_path": "two.txt"}),
           ("read_file", {"file_path": "three.txt"})],
    shown=("and also",),
)

case(
    "plain_answer_no_markup",
    "The function returns None when the list is empty; add a guard before indexing.",
    calls=[],
    shown=("The function returns None when the list is empty; add a guard before indexing.",),
)

case(
    "prose_with_comparisons_and_brackets",
    "Use `a < b` and `b > c`; arrays look like [1, 2]; dicts like {\"k\": 1}. Also x<y>z.",
    calls=[],
    shown=("Use `a < b` and `b > c`; arrays look like [1, 2]; dicts like {\"k\": 1}. Also x<y>z.",),
)

case(
    "empty",
    "",
    calls=[],
)

case(
    "stray_closing_tags_after_a_complete_call",
    "<tool_call>\n<function=list_files>\n<parameter=directory>\nsrc\n</parameter>\n</function>\n</tool_call>\n"
    "</function>\n</tool_call>\n",
    calls=[("list_files", {"directory": "src"})],
    errors=None,
)

case(
    "stray_closing_tag_in_prose",
    "All done.</tool_call>",
    calls=[],
    errors=None,
    shown=("All done.",),
)


# --------------------------------------------------------------------------------------------
# Huge values
# --------------------------------------------------------------------------------------------

HUGE_CODE = "\n".join(
    f"    row_{i} = '<td data-i=\"{i}\">' if a < {i} and b > {i} else \"</td>\"  # ünïcode {i}" for i in range(4000)
)

case(
    "huge_value_qwen3",
    "Writing the generated table.\n<tool_call>\n<function=write_file>\n<parameter=file_path>\ngen/table.py\n</parameter>\n"
    "<parameter=content>\n" + HUGE_CODE + "\n</parameter>\n</function>\n</tool_call>",
    TOOLS,
    calls=[("write_file", {"file_path": "gen/table.py", "content": HUGE_CODE})],
    shown=("Writing the generated table.",),
    hidden=("row_17 ",),
    tags=frozenset({"huge"}),
)

case(
    "huge_value_call_line",
    "[CALL] write_file " + json.dumps({"file_path": "gen/table.py", "content": HUGE_CODE}, ensure_ascii=False),
    calls=[("write_file", {"file_path": "gen/table.py", "content": HUGE_CODE})],
    hidden=("row_17 ",),
    tags=frozenset({"huge"}),
)

case(
    "huge_value_hermes",
    "<tool_call>\n" + json.dumps({"name": "write_file", "arguments": {"file_path": "t.py", "content": HUGE_CODE}})
    + "\n</tool_call>",
    calls=[("write_file", {"file_path": "t.py", "content": HUGE_CODE})],
    hidden=("row_17 ",),
    tags=frozenset({"huge"}),
)

case(
    "huge_value_dsml",
    "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n"
    '<｜DSML｜parameter name="file_path" string="true">t.py</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="content" string="true">' + HUGE_CODE + "</｜DSML｜parameter>\n"
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    calls=[("write_file", {"file_path": "t.py", "content": HUGE_CODE})],
    hidden=("row_17 ",),
    tags=frozenset({"huge"}),
)

# --------------------------------------------------------------------------------------------
# Edits written as text: SEARCH/REPLACE blocks (aider's form), read whatever the tools
# --------------------------------------------------------------------------------------------

case(
    "search_replace_two_files_aider_style",
    "The bug is the off-by-one in the loop, and the test expects the old value.\n\n"
    "src/pager.py\n```python\n<<<<<<< SEARCH\n    for i in range(1, len(pages)):\n=======\n"
    "    for i in range(len(pages)):\n>>>>>>> REPLACE\n```\n\n"
    "tests/test_pager.py\n```python\n<<<<<<< SEARCH\n    assert count == 2\n=======\n    assert count == 3\n"
    ">>>>>>> REPLACE\n```\n\nRun the tests to confirm.",
    TOOLS,
    calls=[
        ("replace_string", {"file_path": "src/pager.py", "old_string": "    for i in range(1, len(pages)):",
                            "new_string": "    for i in range(len(pages)):"}),
        ("replace_string", {"file_path": "tests/test_pager.py", "old_string": "    assert count == 2",
                            "new_string": "    assert count == 3"}),
    ],
    shown=("The bug is the off-by-one", "src/pager.py", "Run the tests to confirm."),
    hidden=("<<<<<<<", ">>>>>>>", "=======", "```", "range(1,"),
)

case(
    "search_replace_path_inside_the_fence_and_a_new_file",
    "```go\ninternal/cache/cache.go\n<<<<<<< SEARCH\nconst ttl = 60\n=======\nconst ttl = 300\n>>>>>>> REPLACE\n```\n"
    "```go\ninternal/cache/cache_test.go\n<<<<<<< SEARCH\n=======\npackage cache\n>>>>>>> REPLACE\n```\n",
    TOOLS,
    calls=[
        ("replace_string", {"file_path": "internal/cache/cache.go", "old_string": "const ttl = 60",
                            "new_string": "const ttl = 300"}),
        ("replace_string", {"file_path": "internal/cache/cache_test.go", "old_string": "",
                            "new_string": "package cache\n"}),
    ],
    hidden=("<<<<<<<", "internal/cache", "```"),
)

case(
    "search_replace_after_a_call_line",
    'First the config.\n[CALL] read_file {"file_path": "setup.cfg"}\n\n**setup.cfg**\n'
    "<<<<<<< SEARCH\nversion = 1.0\n=======\nversion = 1.1\n>>>>>>> REPLACE\n",
    TOOLS,
    calls=[("read_file", {"file_path": "setup.cfg"}),
           ("replace_string", {"file_path": "setup.cfg", "old_string": "version = 1.0", "new_string": "version = 1.1"})],
    shown=("First the config.", "**setup.cfg**"),
    hidden=("[CALL]", "<<<<<<<", "version = 1.1"),
)

case(
    "search_replace_without_a_path_is_reported",
    "Change this:\n\n<<<<<<< SEARCH\nDEBUG = True\n=======\nDEBUG = False\n>>>>>>> REPLACE\n",
    TOOLS,
    errors=1,
    error_mentions=("needs the file path on the line before it",),
    shown=("Change this:",),
    hidden=("<<<<<<<", "DEBUG = False"),
)

case(
    "merge_conflict_example_is_no_edit",
    "Git marks a conflict like this:\n\n```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n```\n"
    "Keep the side you want and delete the markers.",
    TOOLS,
    shown=("<<<<<<< HEAD", "=======", ">>>>>>> feature", "Keep the side you want"),
)

_ids = [c.id for c in CASES]
assert len(_ids) == len(set(_ids)), "case ids must be unique"
