"""Model replies in the further tool-call dialects the intent parser reads, with what each must give.

Same shape as `intents_corpus.py`: each case is a reply as a model would
stream it, the tool schemas in play (or None), the calls it must yield, how
many malformed calls it must report, and what must or must not be shown. Every
case carries a tag naming its dialect.
"""

from __future__ import annotations

from typing import Any

from support.intents_corpus import INTEGER, STRING, TOOLS, Case, tool

CASES: list[Case] = []


def case(id: str, text: str, tools: list[dict] | None = None, calls=(), *, tags: frozenset[str], **kw: Any) -> None:
    CASES.append(Case(id=id, text=text, tools=tools, calls=list(calls), tags=tags, **kw))


def tags(name: str) -> frozenset[str]:
    return frozenset({name})


# --------------------------------------------------------------------------------------------
# 1. GLM-4.5 / 4.6 / 4.7: <tool_call>NAME <arg_key>K</arg_key><arg_value>V</arg_value></tool_call>
# --------------------------------------------------------------------------------------------

GLM = tags("glm")

GLM45_READ = (
    "I'll read the first 40 lines of the router before changing anything.\n"
    "<tool_call>read_file\n"
    "<arg_key>file_path</arg_key>\n"
    "<arg_value>app/router.py</arg_value>\n"
    "<arg_key>limit</arg_key>\n"
    "<arg_value>40</arg_value>\n"
    "</tool_call>"
)

case(
    "glm45_prose_then_call_typed_with_schema",
    GLM45_READ,
    TOOLS,
    calls=[("read_file", {"file_path": "app/router.py", "limit": 40})],
    shown=("I'll read the first 40 lines of the router before changing anything.",),
    hidden=("<tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "</tool_call>", "app/router.py"),
    tags=GLM,
)

case(
    "glm45_values_stay_strings_without_schema",
    GLM45_READ,
    None,
    calls=[("read_file", {"file_path": "app/router.py", "limit": "40"})],
    shown=("I'll read the first 40 lines of the router before changing anything.",),
    hidden=("<arg_key>", "app/router.py"),
    tags=GLM,
)

case(
    "glm47_no_newlines_two_calls_bool_array_object",
    "Searching for the TODO markers, then filing a task for them.\n"
    "<tool_call>search_codebase<arg_key>pattern</arg_key><arg_value>TODO\\((\\w+)\\)</arg_value>"
    "<arg_key>case_sensitive</arg_key><arg_value>true</arg_value>"
    "<arg_key>max_results</arg_key><arg_value>20</arg_value></tool_call>"
    "<tool_call>create_task<arg_key>title</arg_key><arg_value>Resolve owner TODOs</arg_value>"
    "<arg_key>labels</arg_key><arg_value>['cleanup', 'tech-debt']</arg_value>"
    '<arg_key>meta</arg_key><arg_value>{"source": "grep", "count": 7}</arg_value>'
    "<arg_key>priority</arg_key><arg_value>2.5</arg_value></tool_call>",
    TOOLS,
    calls=[
        ("search_codebase", {"pattern": "TODO\\((\\w+)\\)", "case_sensitive": True, "max_results": 20}),
        (
            "create_task",
            {"title": "Resolve owner TODOs", "labels": ["cleanup", "tech-debt"], "meta": {"source": "grep", "count": 7},
             "priority": 2.5},
        ),
    ],
    shown=("Searching for the TODO markers, then filing a task for them.",),
    hidden=("<tool_call>", "<arg_value>", "Resolve owner TODOs", "tech-debt"),
    notes="arrays may come as Python literals (single quotes); objects as JSON",
    tags=GLM,
)

case(
    "glm47_python_literal_object_and_no_schema_keeps_strings",
    "<tool_call>create_task<arg_key>title</arg_key><arg_value>Pin deps</arg_value>"
    "<arg_key>labels</arg_key><arg_value>['build']</arg_value>"
    "<arg_key>meta</arg_key><arg_value>{'blocking': True, 'owner': None}</arg_value></tool_call>",
    None,
    calls=[
        ("create_task", {"title": "Pin deps", "labels": "['build']", "meta": "{'blocking': True, 'owner': None}"}),
    ],
    notes="without a schema every GLM value is the text between the tags",
    tags=GLM,
)

case(
    "glm47_python_literal_object_with_schema",
    "<tool_call>create_task<arg_key>title</arg_key><arg_value>Pin deps</arg_value>"
    "<arg_key>labels</arg_key><arg_value>['build']</arg_value>"
    "<arg_key>meta</arg_key><arg_value>{'blocking': True, 'owner': None}</arg_value></tool_call>",
    TOOLS,
    calls=[("create_task", {"title": "Pin deps", "labels": ["build"], "meta": {"blocking": True, "owner": None}})],
    tags=GLM,
)

FLAG_TOOLS = TOOLS + [
    tool("set_flag", "Turn a feature flag on or off.",
         {"flag": STRING, "enabled": {"type": "boolean"}, "rollout": INTEGER}, ("flag", "enabled")),
]

case(
    "glm47_boolean_false_and_integer_with_schema",
    "Turning the new checkout off again.\n"
    "<tool_call>set_flag<arg_key>flag</arg_key><arg_value>new_checkout</arg_value>"
    "<arg_key>enabled</arg_key><arg_value>false</arg_value>"
    "<arg_key>rollout</arg_key><arg_value>0</arg_value></tool_call>",
    FLAG_TOOLS,
    calls=[("set_flag", {"flag": "new_checkout", "enabled": False, "rollout": 0})],
    shown=("Turning the new checkout off again.",),
    hidden=("new_checkout", "<arg_value>"),
    tags=GLM,
)

case(
    "glm_string_parameters_keep_text_exactly",
    "Bumping the worker count and rewriting the helper.\n"
    "<tool_call>replace_string\n"
    "<arg_key>file_path</arg_key>\n"
    "<arg_value>deploy/gunicorn.conf.py</arg_value>\n"
    "<arg_key>old_string</arg_key>\n"
    "<arg_value>40</arg_value>\n"
    "<arg_key>new_string</arg_key>\n"
    "<arg_value>true</arg_value>\n"
    "</tool_call>\n"
    "<tool_call>write_file\n"
    "<arg_key>file_path</arg_key>\n"
    "<arg_value>deploy/check.py</arg_value>\n"
    "<arg_key>content</arg_key>\n"
    "<arg_value>def ok(n):\n"
    "    # List<int> style: n < 4 and n > 0\n"
    "    return 0 < n < 4\n"
    "</arg_value>\n"
    "</tool_call>",
    TOOLS,
    calls=[
        ("replace_string", {"file_path": "deploy/gunicorn.conf.py", "old_string": "40", "new_string": "true"}),
        (
            "write_file",
            {"file_path": "deploy/check.py",
             "content": "def ok(n):\n    # List<int> style: n < 4 and n > 0\n    return 0 < n < 4\n"},
        ),
    ],
    shown=("Bumping the worker count and rewriting the helper.",),
    hidden=("gunicorn.conf.py", "List<int>", "return 0 < n"),
    notes="string-typed parameters are never converted, and the file's final newline is part of the value",
    tags=GLM,
)

case(
    "glm47_call_without_arguments",
    "Let me see what is in the working directory.\n<tool_call>list_files</tool_call>",
    TOOLS,
    calls=[("list_files", {})],
    shown=("Let me see what is in the working directory.",),
    hidden=("<tool_call>", "list_files", "</tool_call>"),
    tags=GLM,
)

case(
    "glm45_same_line_after_colon_with_spaces",
    "Let me search for configuration files in the backend directory: "
    "<tool_call>list_files <arg_key>directory</arg_key> <arg_value>backend</arg_value> </tool_call>",
    TOOLS,
    calls=[("list_files", {"directory": "backend"})],
    errors=None,
    shown=("Let me search for configuration files in the backend directory:",),
    hidden=("<tool_call>", "<arg_key>", "</tool_call>"),
    notes="a shape GLM-4.5-Air was seen to emit through llama.cpp: the call follows the prose on the same line, "
    "with spaces between the parts; <tool_call>NAME<arg_key> is unambiguous structure, not a mention",
    tags=GLM,
)

case(
    "glm_truncated_inside_arg_key",
    "Opening the settings module.\n<tool_call>read_file\n<arg_key>file_pa",
    TOOLS,
    calls=[],
    errors=1,
    shown=("Opening the settings module.",),
    hidden=("<tool_call>", "<arg_key>"),
    tags=GLM,
)

case(
    "glm_unknown_tool_with_schema",
    "<tool_call>read_files\n<arg_key>file_path</arg_key>\n<arg_value>a.py</arg_value>\n</tool_call>",
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("read_files", "read_file"),
    tags=GLM,
)

case(
    "glm_inside_think_is_not_run",
    "<think>I could clear the cache with "
    "<tool_call>run_shell_command<arg_key>command</arg_key><arg_value>rm -rf .cache</arg_value></tool_call> "
    "but the user only asked what it holds.</think>\n"
    "The .cache folder holds downloaded wheels; nothing there needs deleting.",
    TOOLS,
    calls=[],
    shown=("The .cache folder holds downloaded wheels; nothing there needs deleting.",),
    hidden=("rm -rf", "<tool_call>", "<think>"),
    thought=("rm -rf .cache", "but the user only asked what it holds."),
    tags=GLM,
)

GLM_FENCE = (
    "```xml\n"
    "<tool_call>write_file\n"
    "<arg_key>file_path</arg_key>\n"
    "<arg_value>/etc/hosts</arg_value>\n"
    "<arg_key>content</arg_key>\n"
    "<arg_value>127.0.0.1 example.test</arg_value>\n"
    "</tool_call>\n"
    "```"
)
case(
    "glm_in_xml_fence_is_shown_not_run",
    "This is what a GLM call looks like on the wire:\n" + GLM_FENCE + "\nThe parser turns it into a write_file call.",
    TOOLS,
    calls=[],
    shown=(GLM_FENCE, "The parser turns it into a write_file call."),
    tags=GLM,
)

case(
    "glm_tags_mentioned_in_prose",
    "GLM opens a call with <tool_call> and the function name, then gives each argument as an "
    "<arg_key> tag followed by an <arg_value> tag.",
    TOOLS,
    calls=[],
    shown=("GLM opens a call with <tool_call> and the function name, then gives each argument as an "
           "<arg_key> tag followed by an <arg_value> tag.",),
    notes="'<tool_call> and' is not <tool_call>NAME: the space and the sentence around it make it a mention",
    tags=GLM,
)


# --------------------------------------------------------------------------------------------
# 2. DeepSeek V3 / R1 / V3.1 special-token calls (fullwidth ｜ and ▁ are literal characters)
# --------------------------------------------------------------------------------------------

DEEPSEEK = tags("deepseek")

DS_CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
DS_CALLS_END = "<｜tool▁calls▁end｜>"
DS_CALL_BEGIN = "<｜tool▁call▁begin｜>"
DS_CALL_END = "<｜tool▁call▁end｜>"
DS_SEP = "<｜tool▁sep｜>"
DS_EOS = "<｜end▁of▁sentence｜>"

case(
    "deepseek_v3_two_calls_json_fences_then_eos",
    "I'll check the package layout and the test config together.\n\n"
    + DS_CALLS_BEGIN
    + DS_CALL_BEGIN + "function" + DS_SEP + "list_files\n```json\n{\"directory\": \"src/shop\"}\n```"
    + DS_CALL_END + "\n"
    + DS_CALL_BEGIN + "function" + DS_SEP + "read_file\n```json\n{\"file_path\": \"pytest.ini\", \"limit\": 30}\n```"
    + DS_CALL_END
    + DS_CALLS_END + DS_EOS,
    TOOLS,
    calls=[("list_files", {"directory": "src/shop"}), ("read_file", {"file_path": "pytest.ini", "limit": 30})],
    shown=("I'll check the package layout and the test config together.",),
    hidden=("tool▁call", "｜", "```json", "src/shop", "pytest.ini", "function"),
    tags=DEEPSEEK,
)

case(
    "deepseek_r1_think_then_call",
    "<think>\nThe user says the build fails on import. Running the failing command shows the traceback.\n</think>\n\n"
    + DS_CALLS_BEGIN + DS_CALL_BEGIN + "function" + DS_SEP + "run_shell_command\n```json\n"
    '{"command": "python -c \\"import shop\\"", "timeout": 60}\n'
    "```" + DS_CALL_END + DS_CALLS_END + DS_EOS,
    TOOLS,
    calls=[("run_shell_command", {"command": 'python -c "import shop"', "timeout": 60})],
    hidden=("import shop", "Running the failing command", "<think>", "｜"),
    thought=("Running the failing command shows the traceback.",),
    tags=DEEPSEEK,
)

case(
    "deepseek_v31_two_calls_inline_json",
    "Reading both halves of the parser.\n"
    + DS_CALLS_BEGIN
    + DS_CALL_BEGIN + "read_file" + DS_SEP + '{"file_path": "parser/lexer.py"}' + DS_CALL_END
    + DS_CALL_BEGIN + "read_file" + DS_SEP + '{"file_path": "parser/grammar.py", "offset": 120, "limit": 80}'
    + DS_CALL_END
    + DS_CALLS_END,
    TOOLS,
    calls=[
        ("read_file", {"file_path": "parser/lexer.py"}),
        ("read_file", {"file_path": "parser/grammar.py", "offset": 120, "limit": 80}),
    ],
    shown=("Reading both halves of the parser.",),
    hidden=("｜", "tool▁sep", "lexer.py", "grammar.py"),
    tags=DEEPSEEK,
)

case(
    "deepseek_v31_without_schema_json_types_kept",
    DS_CALLS_BEGIN
    + DS_CALL_BEGIN + "search_codebase" + DS_SEP
    + '{"pattern": "class \\\\w+Error", "case_sensitive": false, "max_results": 10, "file_glob": null}'
    + DS_CALL_END + DS_CALLS_END + DS_EOS,
    None,
    calls=[("search_codebase", {"pattern": "class \\w+Error", "case_sensitive": False, "max_results": 10,
                                "file_glob": None})],
    hidden=("｜", "search_codebase"),
    tags=DEEPSEEK,
)

case(
    "deepseek_v31_prose_after_section",
    DS_CALLS_BEGIN + DS_CALL_BEGIN + "list_files" + DS_SEP + '{"directory": "migrations"}' + DS_CALL_END
    + DS_CALLS_END + "\nOnce I see the migrations I'll pick the next number.",
    TOOLS,
    calls=[("list_files", {"directory": "migrations"})],
    shown=("Once I see the migrations I'll pick the next number.",),
    hidden=("｜", '"migrations"'),
    tags=DEEPSEEK,
)

case(
    "deepseek_v31_truncated_in_json",
    "Opening the model file.\n"
    + DS_CALLS_BEGIN + DS_CALL_BEGIN + "read_file" + DS_SEP + '{"file_path": "shop/mod',
    TOOLS,
    calls=[],
    errors=1,
    shown=("Opening the model file.",),
    hidden=("｜",),
    tags=DEEPSEEK,
)

case(
    "deepseek_v31_unknown_tool_with_schema",
    DS_CALLS_BEGIN + DS_CALL_BEGIN + "shell" + DS_SEP + '{"command": "ls"}' + DS_CALL_END + DS_CALLS_END,
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("shell",),
    tags=DEEPSEEK,
)

case(
    "deepseek_think_holds_call_section",
    "<think>\nI might just run it: "
    + DS_CALLS_BEGIN + DS_CALL_BEGIN + "run_shell_command" + DS_SEP + '{"command": "git push --force"}'
    + DS_CALL_END + DS_CALLS_END
    + "\nNo, pushing needs the user's go-ahead.\n</think>\n\nShall I push the branch?",
    TOOLS,
    calls=[],
    shown=("Shall I push the branch?",),
    hidden=("git push", "｜"),
    thought=("git push --force", "No, pushing needs the user's go-ahead."),
    tags=DEEPSEEK,
)

DS_FENCE = (
    "```text\n"
    + DS_CALLS_BEGIN + DS_CALL_BEGIN + "run_shell_command" + DS_SEP + '{"command": "reboot"}' + DS_CALL_END
    + DS_CALLS_END + "\n```"
)
case(
    "deepseek_in_plain_fence_is_shown_not_run",
    "A DeepSeek V3.1 call is a run of special tokens:\n" + DS_FENCE + "\nvLLM turns it into a tool call.",
    TOOLS,
    calls=[],
    shown=(DS_FENCE, "vLLM turns it into a tool call."),
    tags=DEEPSEEK,
)

case(
    "deepseek_marker_mentioned_in_prose",
    "DeepSeek opens the call section with the " + DS_CALLS_BEGIN + " token, which you should never see in chat.",
    TOOLS,
    calls=[],
    errors=None,
    shown=("DeepSeek opens the call section with the " + DS_CALLS_BEGIN
           + " token, which you should never see in chat.",),
    notes="the marker mid-sentence with prose after it is a mention",
    tags=DEEPSEEK,
)


# --------------------------------------------------------------------------------------------
# 3. DeepSeek V3.2 DSML
# --------------------------------------------------------------------------------------------

DSML = tags("dsml")

DSML_TWO = (
    "I'll read the handler and look up its callers.\n\n"
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="read_file">\n'
    '<｜DSML｜parameter name="file_path" string="true">api/views/orders.py</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="limit" string="false">120</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    '<｜DSML｜invoke name="search_codebase">\n'
    '<｜DSML｜parameter name="pattern" string="true">OrderView\\(</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="case_sensitive" string="false">true</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="file_glob" string="false">null</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>"
)

case(
    "dsml_two_invokes_with_schema",
    DSML_TWO,
    TOOLS,
    calls=[
        ("read_file", {"file_path": "api/views/orders.py", "limit": 120}),
        ("search_codebase", {"pattern": "OrderView\\(", "case_sensitive": True, "file_glob": None}),
    ],
    shown=("I'll read the handler and look up its callers.",),
    hidden=("DSML", "<｜", "orders.py", "OrderView"),
    tags=DSML,
)

case(
    "dsml_string_false_is_json_even_without_schema",
    DSML_TWO,
    None,
    calls=[
        ("read_file", {"file_path": "api/views/orders.py", "limit": 120}),
        ("search_codebase", {"pattern": "OrderView\\(", "case_sensitive": True, "file_glob": None}),
    ],
    shown=("I'll read the handler and look up its callers.",),
    notes='string="false" says the value is JSON; no schema is needed to type it',
    tags=DSML,
)

case(
    "dsml_string_true_keeps_digits_and_json_looking_text",
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="replace_string">\n'
    '<｜DSML｜parameter name="file_path" string="true">settings.toml</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="old_string" string="true">1024</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="new_string" string="true">{"size": 2048}</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>",
    None,
    calls=[("replace_string", {"file_path": "settings.toml", "old_string": "1024", "new_string": '{"size": 2048}'})],
    tags=DSML,
)

case(
    "dsml_plural_tool_calls_wrapper_array_value",
    "Filing it.\n"
    "<｜DSML｜tool_calls>\n"
    '<｜DSML｜invoke name="create_task">\n'
    '<｜DSML｜parameter name="title" string="true">Flaky checkout test</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="labels" string="false">["tests", "flaky"]</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="meta" string="false">{"runs": 50, "failures": 3}</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜tool_calls>",
    TOOLS,
    calls=[("create_task", {"title": "Flaky checkout test", "labels": ["tests", "flaky"],
                            "meta": {"runs": 50, "failures": 3}})],
    shown=("Filing it.",),
    hidden=("DSML", "Flaky checkout test"),
    tags=DSML,
)

case(
    "dsml_ascii_bars",
    "Running the linter.\n"
    "<|DSML|function_calls>\n"
    '<|DSML|invoke name="run_shell_command">\n'
    '<|DSML|parameter name="command" string="true">ruff check --fix src/</|DSML|parameter>\n'
    '<|DSML|parameter name="timeout" string="false">90</|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    "</|DSML|function_calls>\n"
    "I'll summarise what it changed.",
    TOOLS,
    calls=[("run_shell_command", {"command": "ruff check --fix src/", "timeout": 90})],
    shown=("Running the linter.", "I'll summarise what it changed."),
    hidden=("DSML", "ruff check"),
    tags=DSML,
)

case(
    "dsml_invoke_body_is_one_json_object",
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="read_file">{"file_path": "a.py", "offset": 10}</｜DSML｜invoke>\n'
    '<｜DSML｜invoke name="list_files">\n{"directory": "lib"}\n</｜DSML｜invoke>\n'
    "</｜DSML｜function_calls>",
    TOOLS,
    calls=[("read_file", {"file_path": "a.py", "offset": 10}), ("list_files", {"directory": "lib"})],
    hidden=("DSML", "a.py"),
    tags=DSML,
)

case(
    "dsml_multiline_code_value",
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="write_file">\n'
    '<｜DSML｜parameter name="file_path" string="true">web/App.tsx</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="content" string="true">export const App = () => (\n'
    "  <main className=\"a&b\">{items.length < 3 ? <Empty /> : <List items={items} />}</main>\n"
    ");\n"
    "</｜DSML｜parameter>\n"
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>",
    TOOLS,
    calls=[
        (
            "write_file",
            {"file_path": "web/App.tsx",
             "content": "export const App = () => (\n"
             "  <main className=\"a&b\">{items.length < 3 ? <Empty /> : <List items={items} />}</main>\n"
             ");\n"},
        )
    ],
    hidden=("App.tsx", "<main"),
    tags=DSML,
)

case(
    "dsml_truncated_in_invoke_tag",
    "Let me look.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_fi",
    TOOLS,
    calls=[],
    errors=1,
    shown=("Let me look.",),
    hidden=("DSML",),
    tags=DSML,
)

case(
    "dsml_inside_think_is_not_run",
    "<think>\nDraft:\n<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="run_shell_command">\n'
    '<｜DSML｜parameter name="command" string="true">dropdb prod</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>\n"
    "That would destroy data. Ask first.\n</think>\n"
    "Dropping the database is irreversible. Do you want me to go ahead?",
    TOOLS,
    calls=[],
    shown=("Dropping the database is irreversible. Do you want me to go ahead?",),
    hidden=("dropdb", "DSML"),
    thought=("dropdb prod", "That would destroy data. Ask first."),
    tags=DSML,
)

DSML_ASCII_FENCE = (
    "```\n"
    "<|DSML|function_calls>\n"
    '<|DSML|invoke name="run_shell_command">\n'
    '<|DSML|parameter name="command" string="true">shutdown -h now</|DSML|parameter>\n'
    "</|DSML|invoke>\n"
    "</|DSML|function_calls>\n"
    "```"
)
case(
    "dsml_ascii_in_plain_fence_is_shown_not_run",
    "Some GGUF builds print the bars as ASCII:\n" + DSML_ASCII_FENCE,
    TOOLS,
    calls=[],
    shown=(DSML_ASCII_FENCE,),
    tags=DSML,
)

case(
    "dsml_wrapper_mentioned_in_prose",
    "DeepSeek V3.2 puts its calls in a <｜DSML｜function_calls> block with one invoke per call.",
    TOOLS,
    calls=[],
    shown=("DeepSeek V3.2 puts its calls in a <｜DSML｜function_calls> block with one invoke per call.",),
    tags=DSML,
)


# --------------------------------------------------------------------------------------------
# 4. Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}
# --------------------------------------------------------------------------------------------

KIMI = tags("kimi")

K_SEC_BEGIN = "<|tool_calls_section_begin|>"
K_SEC_END = "<|tool_calls_section_end|>"
K_BEGIN = "<|tool_call_begin|>"
K_ARGS = "<|tool_call_argument_begin|>"
K_END = "<|tool_call_end|>"

case(
    "kimi_prose_then_one_call",
    "Let me check which Python the project pins.\n"
    + K_SEC_BEGIN + K_BEGIN + "functions.read_file:0" + K_ARGS + '{"file_path": ".python-version"}' + K_END + K_SEC_END,
    TOOLS,
    calls=[("read_file", {"file_path": ".python-version"})],
    shown=("Let me check which Python the project pins.",),
    hidden=("<|tool_call", "functions.", ":0", ".python-version"),
    tags=KIMI,
)

case(
    "kimi_two_calls_running_indices",
    "Two lookups:\n"
    + K_SEC_BEGIN
    + K_BEGIN + "functions.search_codebase:3" + K_ARGS
    + '{"pattern": "def migrate", "max_results": 5, "case_sensitive": true}' + K_END
    + K_BEGIN + "functions.list_files:4" + K_ARGS + '{"directory": "db/migrations"}' + K_END
    + K_SEC_END
    + "<|im_end|>",
    TOOLS,
    calls=[
        ("search_codebase", {"pattern": "def migrate", "max_results": 5, "case_sensitive": True}),
        ("list_files", {"directory": "db/migrations"}),
    ],
    shown=("Two lookups:",),
    hidden=("functions.", "<|im_end|>", "db/migrations", "<|tool_calls_section"),
    notes="the index after ':' counts calls over the whole conversation; it is not part of the name",
    tags=KIMI,
)

case(
    "kimi_thinking_then_call_without_schema",
    "<think>The user wants the failing test. Run pytest on that file only.</think>"
    + K_SEC_BEGIN + K_BEGIN + "functions.run_shell_command:0" + K_ARGS
    + '{"command": "pytest -x tests/test_cart.py", "timeout": 300}' + K_END + K_SEC_END,
    None,
    calls=[("run_shell_command", {"command": "pytest -x tests/test_cart.py", "timeout": 300})],
    hidden=("Run pytest on that file only.", "test_cart.py", "<|tool_call"),
    thought=("Run pytest on that file only.",),
    tags=KIMI,
)

case(
    "kimi_newlines_between_tokens",
    "Writing the config.\n"
    + K_SEC_BEGIN + "\n" + K_BEGIN + "functions.write_file:1\n" + K_ARGS
    + '{"file_path": ".editorconfig", "content": "root = true\\n\\n[*]\\nindent_style = space\\n"}'
    + K_END + "\n" + K_SEC_END,
    TOOLS,
    calls=[("write_file", {"file_path": ".editorconfig", "content": "root = true\n\n[*]\nindent_style = space\n"})],
    shown=("Writing the config.",),
    hidden=("indent_style", "<|tool_call"),
    tags=KIMI,
)

case(
    "kimi_truncated_in_arguments",
    "Reading it.\n" + K_SEC_BEGIN + K_BEGIN + "functions.read_file:2" + K_ARGS + '{"file_path": "src/ki',
    TOOLS,
    calls=[],
    errors=1,
    shown=("Reading it.",),
    hidden=("<|tool_call", "functions."),
    tags=KIMI,
)

case(
    "kimi_unknown_tool_with_schema",
    K_SEC_BEGIN + K_BEGIN + "functions.web_search:0" + K_ARGS + '{"query": "python 3.13 release"}' + K_END + K_SEC_END,
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("web_search",),
    tags=KIMI,
)

case(
    "kimi_inside_think_is_not_run",
    "<think>Could do "
    + K_SEC_BEGIN + K_BEGIN + "functions.run_shell_command:0" + K_ARGS + '{"command": "npm publish"}'
    + K_END + K_SEC_END
    + " but publishing is the user's call.</think>The package builds cleanly; publish when you are ready.",
    TOOLS,
    calls=[],
    shown=("The package builds cleanly; publish when you are ready.",),
    hidden=("npm publish",),
    thought=("npm publish", "but publishing is the user's call."),
    tags=KIMI,
)

KIMI_FENCE = (
    "```\n"
    + K_SEC_BEGIN + K_BEGIN + "functions.run_shell_command:0" + K_ARGS + '{"command": "rm -rf ~"}' + K_END + K_SEC_END
    + "\n```"
)
case(
    "kimi_in_plain_fence_is_shown_not_run",
    "Kimi K2 writes a call like this:\n" + KIMI_FENCE + "\nThe name comes from the id before the colon.",
    TOOLS,
    calls=[],
    shown=(KIMI_FENCE, "The name comes from the id before the colon."),
    tags=KIMI,
)


# --------------------------------------------------------------------------------------------
# 5. MiniMax-M1: <tool_calls> one JSON object per line </tool_calls>
# --------------------------------------------------------------------------------------------

MINIMAX_M1 = tags("minimax_m1")

case(
    "minimax_m1_think_prose_two_lines",
    "<think>\nNeed the schema and the seed data.\n</think>\n\n"
    "Reading the schema and the seed script.\n"
    "<tool_calls>\n"
    '{"name": "read_file", "arguments": {"file_path": "db/schema.sql"}}\n'
    '{"name": "read_file", "arguments": {"file_path": "db/seed.py", "offset": 0, "limit": 60}}\n'
    "</tool_calls>",
    TOOLS,
    calls=[
        ("read_file", {"file_path": "db/schema.sql"}),
        ("read_file", {"file_path": "db/seed.py", "offset": 0, "limit": 60}),
    ],
    shown=("Reading the schema and the seed script.",),
    hidden=("<tool_calls>", "</tool_calls>", "schema.sql", "seed.py", "Need the schema"),
    thought=("Need the schema and the seed data.",),
    tags=MINIMAX_M1,
)

case(
    "minimax_m1_without_schema_one_line",
    "<tool_calls>\n"
    '{"name": "create_task", "arguments": {"title": "Rotate keys", "labels": ["security"], "priority": 1}}\n'
    "</tool_calls>\nI've queued the rotation.",
    None,
    calls=[("create_task", {"title": "Rotate keys", "labels": ["security"], "priority": 1})],
    shown=("I've queued the rotation.",),
    hidden=("<tool_calls>", "Rotate keys"),
    tags=MINIMAX_M1,
)

case(
    "minimax_m1_bad_line_reported_good_lines_run",
    "Checking three files.\n"
    "<tool_calls>\n"
    '{"name": "read_file", "arguments": {"file_path": "a.cfg"}}\n'
    "{'name': 'read_file', 'arguments': {'file_path': 'b.cfg'}}\n"
    '{"name": "read_file", "arguments": {"file_path": "c.cfg"}}\n'
    "</tool_calls>",
    TOOLS,
    calls=[("read_file", {"file_path": "a.cfg"}), ("read_file", {"file_path": "c.cfg"})],
    errors=1,
    shown=("Checking three files.",),
    hidden=("<tool_calls>", "b.cfg"),
    tags=MINIMAX_M1,
)

case(
    "minimax_m1_unknown_tool_line_reported",
    "<tool_calls>\n"
    '{"name": "browse", "arguments": {"url": "https://example.test"}}\n'
    '{"name": "list_files", "arguments": {"directory": "docs"}}\n'
    "</tool_calls>",
    TOOLS,
    calls=[("list_files", {"directory": "docs"})],
    errors=1,
    error_mentions=("browse",),
    tags=MINIMAX_M1,
)

case(
    "minimax_m1_truncated",
    "Reading.\n<tool_calls>\n" + '{"name": "read_file", "arguments": {"file_pa',
    TOOLS,
    calls=[],
    errors=1,
    shown=("Reading.",),
    hidden=("<tool_calls>",),
    tags=MINIMAX_M1,
)

case(
    "minimax_m1_inside_think_is_not_run",
    "<think>\n<tool_calls>\n"
    '{"name": "run_shell_command", "arguments": {"command": "kubectl delete ns staging"}}\n'
    "</tool_calls>\nToo destructive without asking.\n</think>\n"
    "Deleting the staging namespace removes every service in it. Confirm and I'll do it.",
    TOOLS,
    calls=[],
    shown=("Deleting the staging namespace removes every service in it. Confirm and I'll do it.",),
    hidden=("kubectl", "<tool_calls>"),
    thought=("kubectl delete ns staging",),
    tags=MINIMAX_M1,
)

M1_FENCE = (
    "```xml\n"
    "<tool_calls>\n"
    '{"name": "run_shell_command", "arguments": {"command": "mkfs.ext4 /dev/sda1"}}\n'
    "</tool_calls>\n"
    "```"
)
case(
    "minimax_m1_in_xml_fence_is_shown_not_run",
    "MiniMax-M1's format, for reference:\n" + M1_FENCE,
    TOOLS,
    calls=[],
    shown=(M1_FENCE,),
    tags=MINIMAX_M1,
)

case(
    "minimax_m1_tag_mentioned_in_prose",
    "MiniMax-M1 lists its calls inside <tool_calls> tags, one JSON object per line.",
    TOOLS,
    calls=[],
    shown=("MiniMax-M1 lists its calls inside <tool_calls> tags, one JSON object per line.",),
    tags=MINIMAX_M1,
)


# --------------------------------------------------------------------------------------------
# 6. xLAM / Llama JSON: arrays in <tool_call>, whole-reply objects, <|python_tag|>
# --------------------------------------------------------------------------------------------

JSON_CALLS = tags("json_calls")

case(
    "xlam_array_inside_tool_call",
    "I'll gather both files.\n"
    "<tool_call>[{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"Dockerfile\"}}, "
    "{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"compose.yaml\", \"limit\": 80}}]</tool_call>",
    TOOLS,
    calls=[("read_file", {"file_path": "Dockerfile"}), ("read_file", {"file_path": "compose.yaml", "limit": 80})],
    shown=("I'll gather both files.",),
    hidden=("<tool_call>", "Dockerfile", "compose.yaml"),
    tags=JSON_CALLS,
)

case(
    "json_fence_array_two_calls_parameters_key",
    "```json\n"
    "[\n"
    '  {"name": "list_files", "parameters": {"directory": "charts"}},\n'
    '  {"name": "search_codebase", "parameters": {"pattern": "replicaCount", "max_results": 3}}\n'
    "]\n"
    "```",
    TOOLS,
    calls=[("list_files", {"directory": "charts"}),
           ("search_codebase", {"pattern": "replicaCount", "max_results": 3})],
    hidden=("```", "replicaCount", "parameters"),
    tags=JSON_CALLS,
)

case(
    "llama_single_object_whole_reply",
    '{"name": "read_file", "parameters": {"file_path": "CHANGELOG.md", "limit": 25}}',
    TOOLS,
    calls=[("read_file", {"file_path": "CHANGELOG.md", "limit": 25})],
    hidden=("CHANGELOG", "parameters"),
    tags=JSON_CALLS,
)

case(
    "llama_single_object_whole_reply_without_schema",
    '\n{"name": "run_shell_command", "arguments": {"command": "go test ./...", "timeout": 120}}\n',
    None,
    calls=[("run_shell_command", {"command": "go test ./...", "timeout": 120})],
    hidden=("go test",),
    tags=JSON_CALLS,
)

case(
    "json_data_object_is_text",
    '{"name": "Alice", "age": 30}',
    TOOLS,
    calls=[],
    shown=('{"name": "Alice", "age": 30}',),
    notes="no arguments/parameters key: this is data, not a call",
    tags=JSON_CALLS,
)

case(
    "json_object_naming_no_offered_tool_is_text",
    '{"name": "Alice", "parameters": {"team": "infra", "level": 3}}',
    TOOLS,
    calls=[],
    errors=None,
    shown=('{"name": "Alice", "parameters": {"team": "infra", "level": 3}}',),
    notes="with tools given, a lone object only counts as a call when it names a tool on offer",
    tags=JSON_CALLS,
)

case(
    "llama31_python_tag_then_eom",
    '<|python_tag|>{"name": "list_files", "parameters": {"directory": "cmd/server"}}<|eom_id|>',
    TOOLS,
    calls=[("list_files", {"directory": "cmd/server"})],
    hidden=("<|python_tag|>", "<|eom_id|>", "cmd/server"),
    tags=JSON_CALLS,
)

case(
    "llama31_python_tag_several_joined_by_semicolon",
    '<|python_tag|>{"name": "read_file", "parameters": {"file_path": "go.mod"}}; '
    '{"name": "search_codebase", "parameters": {"pattern": "func main", "file_glob": "*.go"}}<|eot_id|>',
    TOOLS,
    calls=[("read_file", {"file_path": "go.mod"}),
           ("search_codebase", {"pattern": "func main", "file_glob": "*.go"})],
    hidden=("<|python_tag|>", "<|eot_id|>", "go.mod", "func main"),
    tags=JSON_CALLS,
)

case(
    "llama31_python_tag_after_prose_without_schema",
    "Let me check the module file.\n"
    '<|python_tag|>{"name": "read_file", "parameters": {"file_path": "go.mod", "limit": "20"}}<|eot_id|>',
    None,
    calls=[("read_file", {"file_path": "go.mod", "limit": "20"})],
    shown=("Let me check the module file.",),
    hidden=("<|python_tag|>", "<|eot_id|>"),
    notes="without a schema a JSON string stays a string",
    tags=JSON_CALLS,
)

case(
    "llama31_python_tag_truncated",
    'Checking.\n<|python_tag|>{"name": "read_file", "parameters": {"file_pa',
    TOOLS,
    calls=[],
    errors=1,
    shown=("Checking.",),
    hidden=("<|python_tag|>",),
    tags=JSON_CALLS,
)

case(
    "json_call_object_inside_think_is_not_run",
    '<think>I could send {"name": "run_shell_command", "parameters": {"command": "rm -rf node_modules"}} '
    "but a reinstall is not needed.</think>\nYour node_modules folder is fine; the error comes from the lock file.",
    TOOLS,
    calls=[],
    shown=("Your node_modules folder is fine; the error comes from the lock file.",),
    hidden=("rm -rf",),
    thought=("rm -rf node_modules",),
    tags=JSON_CALLS,
)

PY_TAG_FENCE = '```\n<|python_tag|>{"name": "run_shell_command", "parameters": {"command": "halt"}}\n```'
case(
    "llama_python_tag_in_plain_fence_is_shown_not_run",
    "Llama 3.1 starts a built-in tool call like this:\n" + PY_TAG_FENCE,
    TOOLS,
    calls=[],
    shown=(PY_TAG_FENCE,),
    tags=JSON_CALLS,
)


# --------------------------------------------------------------------------------------------
# 7. Mistral: [TOOL_CALLS][...] after prose, [TOOL_CALLS]NAME[ARGS]{...}, [CALL_ID]
# --------------------------------------------------------------------------------------------

MISTRAL = tags("mistral")

case(
    "mistral_array_after_prose_on_same_line",
    'Sure.[TOOL_CALLS][{"name": "read_file", "arguments": {"file_path": "requirements.txt"}}]',
    TOOLS,
    calls=[("read_file", {"file_path": "requirements.txt"})],
    shown=("Sure.",),
    hidden=("[TOOL_CALLS]", "requirements.txt"),
    tags=MISTRAL,
)

case(
    "mistral_name_args_several_in_a_row",
    "I'll list the app and read its entry point."
    '[TOOL_CALLS]list_files[ARGS]{"directory": "app"}'
    '[TOOL_CALLS]read_file[ARGS]{"file_path": "app/__main__.py", "limit": 50}',
    TOOLS,
    calls=[("list_files", {"directory": "app"}), ("read_file", {"file_path": "app/__main__.py", "limit": 50})],
    shown=("I'll list the app and read its entry point.",),
    hidden=("[TOOL_CALLS]", "[ARGS]", "__main__"),
    tags=MISTRAL,
)

case(
    "mistral_name_call_id_args",
    '[TOOL_CALLS]run_shell_command[CALL_ID]abc123def[ARGS]{"command": "cargo build --release", "timeout": 900}',
    TOOLS,
    calls=[("run_shell_command", {"command": "cargo build --release", "timeout": 900})],
    hidden=("[TOOL_CALLS]", "[CALL_ID]", "abc123def", "[ARGS]", "cargo"),
    tags=MISTRAL,
)

case(
    "mistral_name_args_without_schema_json_types",
    "[TOOL_CALLS]search_codebase[ARGS]"
    '{"pattern": "unsafe \\\\{", "case_sensitive": true, "file_glob": "*.rs", "max_results": 50}\n'
    "Looking for unsafe blocks first.",
    None,
    calls=[("search_codebase", {"pattern": "unsafe \\{", "case_sensitive": True, "file_glob": "*.rs",
                                "max_results": 50})],
    shown=("Looking for unsafe blocks first.",),
    hidden=("[TOOL_CALLS]", "*.rs"),
    tags=MISTRAL,
)

case(
    "mistral_name_args_truncated",
    'Reading the manifest.[TOOL_CALLS]read_file[ARGS]{"file_path": "Carg',
    TOOLS,
    calls=[],
    errors=1,
    shown=("Reading the manifest.",),
    hidden=("[TOOL_CALLS]", "[ARGS]"),
    tags=MISTRAL,
)

case(
    "mistral_name_args_unknown_tool_with_schema",
    '[TOOL_CALLS]cargo[ARGS]{"args": ["build"]}',
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("cargo",),
    tags=MISTRAL,
)

case(
    "mistral_inside_think_is_not_run",
    '<think>Maybe [TOOL_CALLS]run_shell_command[ARGS]{"command": "git reset --hard"} to start over? '
    "No, that loses the user's work.</think>\nYou have uncommitted changes; want me to stash them first?",
    TOOLS,
    calls=[],
    shown=("You have uncommitted changes; want me to stash them first?",),
    hidden=("git reset", "[TOOL_CALLS]"),
    thought=("git reset --hard",),
    tags=MISTRAL,
)

MISTRAL_FENCE = '```\n[TOOL_CALLS]run_shell_command[ARGS]{"command": "poweroff"}\n```'
case(
    "mistral_in_plain_fence_is_shown_not_run",
    "Devstral's raw output for a call:\n" + MISTRAL_FENCE + "\nThe server turns it into tool_calls.",
    TOOLS,
    calls=[],
    shown=(MISTRAL_FENCE, "The server turns it into tool_calls."),
    tags=MISTRAL,
)

case(
    "mistral_token_mentioned_in_prose",
    "[TOOL_CALLS] is a special token that Mistral models emit right before their calls.",
    TOOLS,
    calls=[],
    shown=("[TOOL_CALLS] is a special token that Mistral models emit right before their calls.",),
    tags=MISTRAL,
)


# --------------------------------------------------------------------------------------------
# 8. Reasoning tags: <thinking>, <reasoning>
# --------------------------------------------------------------------------------------------

REASONING = tags("reasoning_tags")

case(
    "thinking_tag_block_then_answer",
    "<thinking>\nThe user wants the default port. "
    "config.py sets PORT from the env with 8000 as fallback.\n</thinking>\n"
    "The default port is 8000; set PORT to change it.",
    TOOLS,
    calls=[],
    shown=("The default port is 8000; set PORT to change it.",),
    hidden=("<thinking>", "</thinking>", "fallback"),
    thought=("config.py sets PORT from the env with 8000 as fallback.",),
    tags=REASONING,
)

case(
    "reasoning_tag_block_then_call",
    "<reasoning>Need to see the failing assertion before guessing.</reasoning>\n"
    "Let me run that test.\n"
    '<tool_call>\n{"name": "run_shell_command", "arguments": {"command": "pytest -x -k test_refund"}}\n</tool_call>',
    TOOLS,
    calls=[("run_shell_command", {"command": "pytest -x -k test_refund"})],
    shown=("Let me run that test.",),
    hidden=("<reasoning>", "</reasoning>", "before guessing", "test_refund"),
    thought=("Need to see the failing assertion before guessing.",),
    tags=REASONING,
)

case(
    "thinking_tag_holds_call_that_is_not_run",
    "<thinking>\nI could write the file directly:\n"
    '[CALL] write_file {"file_path": "LICENSE", "content": "MIT"}\n'
    "but the user hasn't picked a licence yet.\n</thinking>\n"
    "Which licence would you like: MIT or Apache-2.0?",
    TOOLS,
    calls=[],
    shown=("Which licence would you like: MIT or Apache-2.0?",),
    hidden=("[CALL]", "hasn't picked"),
    thought=('[CALL] write_file {"file_path": "LICENSE", "content": "MIT"}',),
    tags=REASONING,
)

case(
    "reasoning_tag_holds_xml_call_then_real_call",
    "<reasoning>\n<function=run_shell_command>\n<parameter=command>\nmake clean\n</parameter>\n</function>\n"
    "Cleaning is not needed, only a build.\n</reasoning>\n"
    "<function=run_shell_command>\n<parameter=command>\nmake -j8\n</parameter>\n</function>",
    TOOLS,
    calls=[("run_shell_command", {"command": "make -j8"})],
    hidden=("make clean", "make -j8", "<reasoning>"),
    thought=("make clean", "Cleaning is not needed, only a build."),
    tags=REASONING,
)

case(
    "lone_closing_thinking_tag_makes_prefix_thinking",
    "The user asked for the version string; it lives in pyproject.</thinking>Let me check.\n"
    '[CALL] read_file {"file_path": "pyproject.toml"}',
    None,
    calls=[("read_file", {"file_path": "pyproject.toml"})],
    shown=("Let me check.",),
    hidden=("The user asked", "</thinking>"),
    thought=("The user asked for the version string; it lives in pyproject.",),
    tags=REASONING,
)

case(
    "lone_closing_thinking_tag_with_fake_call_before_it",
    "Plan:\n"
    '[CALL] run_shell_command {"command": "git clean -fdx"}\n'
    "No, that deletes untracked work.\n"
    "</thinking>\n"
    "Nothing needs cleaning.",
    TOOLS,
    calls=[],
    shown=("Nothing needs cleaning.",),
    hidden=("git clean", "Plan:", "</thinking>"),
    thought=("git clean -fdx", "No, that deletes untracked work."),
    tags=REASONING,
)

case(
    "unclosed_thinking_tag_at_end_is_thinking",
    "Short answer: yes.\n<thinking>\nThough I should double-check\n"
    '[CALL] read_file {"file_path": "setup.cfg"}',
    TOOLS,
    calls=[],
    shown=("Short answer: yes.",),
    hidden=("double-check", "setup.cfg"),
    thought=("Though I should double-check",),
    notes="like <think>: an unclosed block at the end of the reply is thinking",
    tags=REASONING,
)

REASONING_FENCE = "```xml\n<reasoning>\nweigh both options\n</reasoning>\n<thinking>\nstill weighing\n</thinking>\n```"
case(
    "reasoning_tags_in_fence_are_shown",
    "Some models wrap their thoughts like this:\n" + REASONING_FENCE + "\nand then answer.",
    TOOLS,
    calls=[],
    shown=(REASONING_FENCE, "and then answer."),
    tags=REASONING,
)


# --------------------------------------------------------------------------------------------
# 9. gpt-oss harmony passed through raw
# --------------------------------------------------------------------------------------------

HARMONY = tags("harmony")

case(
    "harmony_analysis_then_final",
    "<|channel|>analysis<|message|>User asks which port; settings default it to 8080.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>The server listens on port 8080 unless PORT is set.<|return|>",
    TOOLS,
    calls=[],
    shown=("The server listens on port 8080 unless PORT is set.",),
    hidden=("<|channel|>", "<|message|>", "<|end|>", "<|start|>", "<|return|>", "analysis", "final",
            "settings default it"),
    thought=("User asks which port; settings default it to 8080.",),
    tags=HARMONY,
)

case(
    "harmony_analysis_then_constrained_call",
    "<|channel|>analysis<|message|>Need the README to answer; read it.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>"
    '{"file_path": "README.md", "limit": 100}<|call|>',
    TOOLS,
    calls=[("read_file", {"file_path": "README.md", "limit": 100})],
    hidden=("<|channel|>", "commentary", "functions.", "<|constrain|>", "<|call|>", "README.md"),
    thought=("Need the README to answer; read it.",),
    tags=HARMONY,
)

case(
    "harmony_call_without_constrain_no_schema",
    "<|start|>assistant<|channel|>commentary to=functions.run_shell_command<|message|>"
    '{"command": "npm test -- --runInBand", "timeout": 600}<|call|>',
    None,
    calls=[("run_shell_command", {"command": "npm test -- --runInBand", "timeout": 600})],
    hidden=("<|channel|>", "functions.", "<|call|>", "runInBand"),
    tags=HARMONY,
)

case(
    "harmony_call_starting_at_channel_token",
    "<|channel|>commentary to=functions.list_files <|constrain|>json<|message|>{\"directory\": \"packages\"}<|call|>",
    TOOLS,
    calls=[("list_files", {"directory": "packages"})],
    hidden=("<|channel|>", "commentary", "packages"),
    notes="the first message of a reply often starts at <|channel|>: '<|start|>assistant' was part of the prompt",
    tags=HARMONY,
)

case(
    "harmony_analysis_holds_call_text_not_run",
    "<|channel|>analysis<|message|>I could emit "
    '<tool_call>{"name": "run_shell_command", "arguments": {"command": "rm -rf dist"}}</tool_call> '
    "but nothing needs deleting.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>dist/ only holds build output; it is safe to keep.<|return|>",
    TOOLS,
    calls=[],
    shown=("dist/ only holds build output; it is safe to keep.",),
    hidden=("rm -rf", "<tool_call>"),
    thought=("rm -rf dist", "but nothing needs deleting."),
    tags=HARMONY,
)

case(
    "harmony_call_truncated",
    "<|channel|>analysis<|message|>Open it.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>"
    '{"file_path": "src/ind',
    TOOLS,
    calls=[],
    errors=1,
    hidden=("<|channel|>", "functions."),
    thought=("Open it.",),
    tags=HARMONY,
)

case(
    "harmony_unknown_tool_with_schema",
    "<|start|>assistant<|channel|>commentary to=functions.fetch_url <|constrain|>json<|message|>"
    '{"url": "https://example.test/changelog"}<|call|>',
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("fetch_url",),
    tags=HARMONY,
)


# --------------------------------------------------------------------------------------------
# 10. Hermes quirks
# --------------------------------------------------------------------------------------------

HERMES = tags("hermes_quirks")

case(
    "hermes_two_objects_in_one_block_are_two_calls",
    "Reading both entry points.\n"
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "cli/main.py"}}\n'
    '{"name": "read_file", "arguments": {"file_path": "cli/__init__.py", "limit": 20}}\n'
    "</tool_call>",
    TOOLS,
    calls=[("read_file", {"file_path": "cli/main.py"}), ("read_file", {"file_path": "cli/__init__.py", "limit": 20})],
    shown=("Reading both entry points.",),
    hidden=("<tool_call>", "cli/main.py"),
    tags=HERMES,
)

case(
    "hermes_two_objects_on_one_line",
    "<tool_call>\n"
    '{"name": "list_files", "arguments": {"directory": "a"}}{"name": "list_files", "arguments": {"directory": "b"}}\n'
    "</tool_call>",
    None,
    calls=[("list_files", {"directory": "a"}), ("list_files", {"directory": "b"})],
    tags=HERMES,
)

case(
    "hermes_stray_closing_brace_after_object",
    "Checking the lock file.\n"
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "poetry.lock", "limit": 40}}}\n'
    "</tool_call>",
    TOOLS,
    calls=[("read_file", {"file_path": "poetry.lock", "limit": 40})],
    shown=("Checking the lock file.",),
    hidden=("}", "poetry.lock", "<tool_call>"),
    tags=HERMES,
)

case(
    "hermes_words_after_object_before_closer",
    "<tool_call>\n"
    '{"name": "run_shell_command", "arguments": {"command": "make lint"}}\n'
    "hope this works\n"
    "</tool_call>\n"
    "I'll read the lint output next.",
    TOOLS,
    calls=[("run_shell_command", {"command": "make lint"})],
    shown=("I'll read the lint output next.",),
    hidden=("hope this works", "make lint", "</tool_call>"),
    tags=HERMES,
)

case(
    "hermes_arguments_as_json_string_with_schema",
    "<tool_call>\n"
    r'{"name": "read_file", "arguments": "{\"file_path\": \"a\", \"offset\": 5}"}'
    "\n</tool_call>",
    TOOLS,
    calls=[("read_file", {"file_path": "a", "offset": 5})],
    tags=HERMES,
)

case(
    "hermes_good_object_then_truncated_second",
    "<tool_call>\n"
    '{"name": "read_file", "arguments": {"file_path": "one.md"}}\n'
    '{"name": "read_file", "argu',
    TOOLS,
    calls=[("read_file", {"file_path": "one.md"})],
    errors=1,
    hidden=("one.md",),
    tags=HERMES,
)


# --------------------------------------------------------------------------------------------
# 11. Lazy single parameter: <function=NAME>VALUE</function>
# --------------------------------------------------------------------------------------------

LAZY = tags("lazy_function")

case(
    "lazy_function_fills_only_required_parameter",
    "Listing everything, hidden files included.\n<function=run_shell_command>ls -la</function>",
    TOOLS,
    calls=[("run_shell_command", {"command": "ls -la"})],
    shown=("Listing everything, hidden files included.",),
    hidden=("<function=", "</function>", "ls -la"),
    tags=LAZY,
)

case(
    "lazy_function_inside_tool_call_with_prose_after",
    "<tool_call>\n<function=read_file>src/app.py</function>\n</tool_call>\nThen I'll trace the startup path.",
    TOOLS,
    calls=[("read_file", {"file_path": "src/app.py"})],
    shown=("Then I'll trace the startup path.",),
    hidden=("<function=", "<tool_call>", "src/app.py"),
    tags=LAZY,
)

case(
    "lazy_function_two_in_a_row",
    "<function=run_shell_command>git status --short</function>\n"
    "<function=run_shell_command>git log --oneline -3</function>",
    TOOLS,
    calls=[("run_shell_command", {"command": "git status --short"}),
           ("run_shell_command", {"command": "git log --oneline -3"})],
    hidden=("git status", "git log"),
    tags=LAZY,
)

case(
    "lazy_function_with_several_required_parameters_is_an_error",
    "Saving the notes.\n<function=write_file>TODO: ship it</function>",
    TOOLS,
    calls=[],
    errors=1,
    shown=("Saving the notes.",),
    hidden=("<function=",),
    notes="write_file needs file_path and content: one bare value cannot say which it is",
    tags=LAZY,
)

case(
    "lazy_function_mid_sentence_is_a_mention",
    "You can use <function=run_shell_command>ls</function> here to list the files yourself.",
    TOOLS,
    calls=[],
    shown=("You can use <function=run_shell_command>ls</function> here to list the files yourself.",),
    tags=LAZY,
)

case(
    "lazy_function_inside_think_is_not_run",
    "<think>\n<function=run_shell_command>docker system prune -af</function>\nToo broad; ask.\n</think>\n"
    "Pruning removes every unused image. Should I go ahead?",
    TOOLS,
    calls=[],
    shown=("Pruning removes every unused image. Should I go ahead?",),
    hidden=("docker system prune",),
    thought=("docker system prune -af", "Too broad; ask."),
    tags=LAZY,
)

LAZY_FENCE = "```\n<function=run_shell_command>make deploy</function>\n```"
case(
    "lazy_function_in_plain_fence_is_shown_not_run",
    "A one-parameter call can be written as:\n" + LAZY_FENCE,
    TOOLS,
    calls=[],
    shown=(LAZY_FENCE,),
    tags=LAZY,
)


# --------------------------------------------------------------------------------------------
# 12. Pythonic calls: whole-reply lists, ```tool_code fences
# --------------------------------------------------------------------------------------------

PYTHONIC = tags("pythonic")

case(
    "pythonic_list_whole_reply",
    '[read_file(file_path="a.py", limit=40), list_files(directory="src")]',
    TOOLS,
    calls=[("read_file", {"file_path": "a.py", "limit": 40}), ("list_files", {"directory": "src"})],
    hidden=("read_file(", "list_files(", "a.py"),
    tags=PYTHONIC,
)

case(
    "pythonic_list_literals_without_schema",
    "[search_codebase(pattern='TODO', case_sensitive=True, file_glob=None, max_results=5), "
    "create_task(title=\"Sweep\", labels=['a', 'b'], meta={'k': 1}, priority=0.5)]",
    None,
    calls=[
        ("search_codebase", {"pattern": "TODO", "case_sensitive": True, "file_glob": None, "max_results": 5}),
        ("create_task", {"title": "Sweep", "labels": ["a", "b"], "meta": {"k": 1}, "priority": 0.5}),
    ],
    tags=PYTHONIC,
)

case(
    "pythonic_list_with_prose_around_is_text",
    "The call would be\n"
    '[read_file(file_path="a.py", limit=40), list_files(directory="src")]\n'
    "if you want me to run it.",
    TOOLS,
    calls=[],
    shown=('[read_file(file_path="a.py", limit=40), list_files(directory="src")]', "if you want me to run it."),
    tags=PYTHONIC,
)

case(
    "pythonic_tool_code_fence_lines",
    "Let me look at both.\n"
    "```tool_code\n"
    'read_file(file_path="src/billing/invoice.py")\n'
    'list_files(directory="src/billing")\n'
    "```",
    TOOLS,
    calls=[("read_file", {"file_path": "src/billing/invoice.py"}), ("list_files", {"directory": "src/billing"})],
    shown=("Let me look at both.",),
    hidden=("```tool_code", "invoice.py"),
    tags=PYTHONIC,
)

case(
    "pythonic_tool_code_print_and_default_api",
    "```tool_code\n"
    'print(default_api.run_shell_command(command="uv run pytest -q", timeout=300))\n'
    "```\n"
    "```tool_code\n"
    'default_api.read_file(file_path="uv.lock", limit=10)\n'
    "```",
    TOOLS,
    calls=[("run_shell_command", {"command": "uv run pytest -q", "timeout": 300}),
           ("read_file", {"file_path": "uv.lock", "limit": 10})],
    hidden=("default_api", "uv run pytest", "print("),
    tags=PYTHONIC,
)

case(
    "pythonic_positional_argument_is_an_error",
    '[read_file("a.py")]',
    TOOLS,
    calls=[],
    errors=1,
    tags=PYTHONIC,
)

case(
    "pythonic_tool_code_positional_argument_is_an_error",
    'Reading it.\n```tool_code\nread_file("a.py")\n```',
    TOOLS,
    calls=[],
    errors=1,
    shown=("Reading it.",),
    tags=PYTHONIC,
)

case(
    "pythonic_list_call_expression_argument_is_an_error",
    '[run_shell_command(command=os.system("touch /tmp/ayder_pwned"))]',
    TOOLS,
    calls=[],
    errors=1,
    notes="a whole-reply list naming a tool on offer is a call attempt; the argument is never evaluated",
    tags=PYTHONIC,
)

case(
    "pythonic_variable_argument_is_an_error",
    "```tool_code\nread_file(file_path=path)\n```",
    TOOLS,
    calls=[],
    errors=1,
    tags=PYTHONIC,
)

case(
    "pythonic_call_expression_argument_is_never_evaluated",
    "```tool_code\n"
    'run_shell_command(command=os.system("touch /tmp/ayder_pwned"))\n'
    "```",
    TOOLS,
    calls=[],
    errors=1,
    notes="arguments are read as literals; an expression is malformed, never evaluated",
    tags=PYTHONIC,
)

case(
    "pythonic_list_inside_think_is_not_run",
    '<think>[run_shell_command(command="rm -rf /srv/data")]</think>\nThe data directory is not part of the repo.',
    TOOLS,
    calls=[],
    shown=("The data directory is not part of the repo.",),
    hidden=("rm -rf",),
    thought=('run_shell_command(command="rm -rf /srv/data")',),
    tags=PYTHONIC,
)

PY_CALL_FENCE = '```python\nread_file(file_path="a.py")\n```'
case(
    "pythonic_in_python_fence_is_shown_not_run",
    "In a script you would write:\n" + PY_CALL_FENCE + "\nand get the file's text back.",
    TOOLS,
    calls=[],
    shown=(PY_CALL_FENCE, "and get the file's text back."),
    notes="only ```tool_code fences hold calls; ```python is an example",
    tags=PYTHONIC,
)


# --------------------------------------------------------------------------------------------
# 13. Empty or whitespace function names: an error for the model, never a call
# --------------------------------------------------------------------------------------------

EMPTY_NAME = tags("empty_name")

case(
    "empty_name_qwen_function",
    "Running it.\n<function=>\n<parameter=command>\nls\n</parameter>\n</function>",
    TOOLS,
    calls=[],
    errors=1,
    shown=("Running it.",),
    hidden=("<function=", "<parameter="),
    tags=EMPTY_NAME,
)

case(
    "empty_name_hermes_json",
    '<tool_call>{"name": "", "arguments": {}}</tool_call>',
    None,
    calls=[],
    errors=1,
    hidden=("<tool_call>",),
    tags=EMPTY_NAME,
)

case(
    "whitespace_name_invoke",
    '<invoke name=" ">\n<parameter name="directory">src</parameter>\n</invoke>',
    None,
    calls=[],
    errors=1,
    hidden=("<invoke", "<parameter"),
    tags=EMPTY_NAME,
)

case(
    "empty_name_call_line",
    'Trying.\n[CALL] {"a": 1}',
    None,
    calls=[],
    errors=1,
    shown=("Trying.",),
    hidden=("[CALL]",),
    tags=EMPTY_NAME,
)

case(
    "empty_name_glm",
    "<tool_call>\n<arg_key>file_path</arg_key>\n<arg_value>a.py</arg_value>\n</tool_call>",
    TOOLS,
    calls=[],
    errors=1,
    hidden=("<arg_key>",),
    tags=EMPTY_NAME,
)

case(
    "empty_name_then_good_call",
    "<function=  >\n<parameter=file_path>\nx.py\n</parameter>\n</function>\n"
    "<function=read_file>\n<parameter=file_path>\ny.py\n</parameter>\n</function>",
    TOOLS,
    calls=[("read_file", {"file_path": "y.py"})],
    errors=1,
    tags=EMPTY_NAME,
)


# --------------------------------------------------------------------------------------------
# 14. Display rules: orphan closers, leaked special tokens, blank lines, mentions, fences
# --------------------------------------------------------------------------------------------

DISPLAY = tags("display")

for closer in ("</tool_call>", "</function>", "</function_calls>", "</invoke>"):
    case(
        f"display_orphan_closer_{closer.strip('</>')}_at_end",
        "Done.\n" + closer,
        TOOLS,
        calls=[],
        errors=None,
        shown=("Done.",),
        hidden=(closer,),
        tags=DISPLAY,
    )

case(
    "display_orphan_closer_after_call_and_prose",
    '<tool_call>\n{"name": "list_files", "arguments": {"directory": "."}}\n</tool_call>\n'
    "Listing now.\n</tool_call>\n",
    TOOLS,
    calls=[("list_files", {"directory": "."})],
    errors=None,
    shown=("Listing now.",),
    hidden=("</tool_call>",),
    tags=DISPLAY,
)

for token in ("<|im_end|>", "<|eot_id|>", "<|end|>", "<|return|>", "<|call|>", "<｜end▁of▁sentence｜>"):
    case(
        f"display_leaked_token_{token.strip('<|>｜').replace('▁', '_')}",
        "All tests pass." + token,
        TOOLS,
        calls=[],
        shown=("All tests pass.",),
        hidden=(token,),
        tags=DISPLAY,
    )

case(
    "display_leaked_tokens_mid_reply",
    "First part.<|im_end|>\nSecond part.<|eot_id|>\nThird part.",
    TOOLS,
    calls=[],
    shown=("First part.", "Second part.", "Third part."),
    hidden=("<|im_end|>", "<|eot_id|>"),
    tags=DISPLAY,
)

case(
    "display_minimax_role_markers",
    "The migration is written.[e~[\n]~b]ai\nRun it with `alembic upgrade head`.[e~[\n]~!b[",
    TOOLS,
    calls=[],
    shown=("The migration is written.", "Run it with `alembic upgrade head`."),
    hidden=("]~b]ai", "]~!b[", "[e~["),
    tags=DISPLAY,
)

case(
    "display_no_blank_line_run_where_call_removed",
    "Intro paragraph.\n\n"
    '<tool_call>\n{"name": "list_files", "arguments": {"directory": "."}}\n</tool_call>\n\n\n'
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "x.md"}}\n</tool_call>\n\n'
    "Next paragraph.",
    TOOLS,
    calls=[("list_files", {"directory": "."}), ("read_file", {"file_path": "x.md"})],
    shown=("Intro paragraph.", "Next paragraph."),
    hidden=("\n\n\n", "<tool_call>"),
    tags=DISPLAY,
)

case(
    "display_no_blank_line_run_where_think_removed",
    "Answer first.\n\n<think>\nside thought\n</think>\n\n\nMore answer.",
    None,
    calls=[],
    shown=("Answer first.", "More answer."),
    hidden=("\n\n\n", "side thought"),
    thought=("side thought",),
    tags=DISPLAY,
)

case(
    "display_tool_tag_mid_sentence_is_a_mention",
    "Next time, wrap it in <tool_call> tags so the agent can run it.",
    TOOLS,
    calls=[],
    shown=("Next time, wrap it in <tool_call> tags so the agent can run it.",),
    tags=DISPLAY,
)

case(
    "display_closer_mid_sentence_is_a_mention",
    "Every call must end with </tool_call> or the parser waits for more.",
    TOOLS,
    calls=[],
    errors=None,
    shown=("Every call must end with </tool_call> or the parser waits for more.",),
    tags=DISPLAY,
)

JSON_FENCE = '```json\n{"name": "run_shell_command", "arguments": {"command": "format c:"}}\n```'
case(
    "display_json_fence_with_prose_is_shown_not_run",
    "The request body looks like:\n" + JSON_FENCE + "\nSend it with curl.",
    TOOLS,
    calls=[],
    shown=(JSON_FENCE, "Send it with curl."),
    tags=DISPLAY,
)

ORPHANS_FENCE = "```xml\n</invoke>\n</function_calls>\n</tool_call>\n```"
case(
    "display_closers_in_fence_are_shown",
    "These closing tags end the three formats:\n" + ORPHANS_FENCE,
    TOOLS,
    calls=[],
    shown=(ORPHANS_FENCE,),
    tags=DISPLAY,
)


_ids = [c.id for c in CASES]
assert len(_ids) == len(set(_ids)), "case ids must be unique"
assert all(len(c.tags) == 1 for c in CASES), "every dialect case names its dialect"
