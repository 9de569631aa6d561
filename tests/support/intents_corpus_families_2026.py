"""Replies in the call formats of the late-2026 families: Gemma 4, Kimi K3 (XTML), DeepSeek V4.1 (spaced DSML),
and the Kimi K2 section tokens that leak without a call (issue 28).

Same shape as `intents_corpus.py`. Written for these tests, in the shapes the
families' chat templates and encoders render (Gemma 4's format_argument, Kimi
K3's XTML channels and attribute escaping, DeepSeek V4.1's "## Tools" section)
and the variants engines' parser tests and public bug reports show (a
`<turn|>` closer, a stray colon, `</｜DSML｜inv>`, doubled bars, a self-closing
invoke, a tools channel the token budget cut). Every case carries a tag naming
its family.
"""

from __future__ import annotations

from typing import Any

from support.intents_corpus import TOOLS, Case

CASES: list[Case] = []


def case(id: str, text: str, tools: list[dict] | None = None, calls=(), *, tags: frozenset[str], **kw: Any) -> None:
    CASES.append(Case(id=id, text=text, tools=tools, calls=list(calls), tags=tags, **kw))


# --------------------------------------------------------------------------------------------
# 1. Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|>
# --------------------------------------------------------------------------------------------

GEMMA = frozenset({"gemma4"})
Q = '<|"|>'


def gemma(name: str, body: str, closer: str = "<tool_call|>") -> str:
    return f"<|tool_call>call:{name}{{{body}}}{closer}"


GEMMA_MARKUP = ("<|tool_call>", "<tool_call|>", Q, "call:")

case(
    "gemma4_prose_then_call_typed_by_schema",
    "I'll read the first 40 lines of the router.\n" + gemma("read_file", f"file_path:{Q}app/router.py{Q},limit:40"),
    TOOLS,
    calls=[("read_file", {"file_path": "app/router.py", "limit": 40})],
    shown=("I'll read the first 40 lines of the router.",),
    hidden=GEMMA_MARKUP + ("app/router.py",),
    tags=GEMMA,
)

case(
    "gemma4_blocks_back_to_back",
    "Two things first."
    + gemma("read_file", f"file_path:{Q}pyproject.toml{Q}")
    + gemma("run_shell_command", f"command:{Q}git status --short{Q},timeout:30"),
    TOOLS,
    calls=[("read_file", {"file_path": "pyproject.toml"}),
           ("run_shell_command", {"command": "git status --short", "timeout": 30})],
    display="Two things first.",
    tags=GEMMA,
)

case(
    "gemma4_nested_object_and_list",
    gemma("create_task", f"labels:[{Q}tests{Q},{Q}flaky{Q}],meta:{{failures:3,owner:{Q}ci{Q},seen:[1,2]}},"
                         f"priority:0.5,title:{Q}Flaky checkout test{Q}"),
    TOOLS,
    calls=[("create_task", {"labels": ["tests", "flaky"], "meta": {"failures": 3, "owner": "ci", "seen": [1, 2]},
                            "priority": 0.5, "title": "Flaky checkout test"})],
    display="",
    tags=GEMMA,
)

case(
    "gemma4_nested_keys_quoted",
    gemma("create_task", f"meta:{{{Q}owner{Q}:{Q}ci{Q},{Q}runs{Q}:50}},title:{Q}t{Q}"),
    TOOLS,
    calls=[("create_task", {"meta": {"owner": "ci", "runs": 50}, "title": "t"})],
    notes="format_argument quotes a mapping's keys with <|\"|> unless told not to",
    tags=GEMMA,
)

GEMMA_CODE = 'def f(a, b):\n    return {"a": a, "b": [b]}  # call:x{y:1}<tool_call|>, "quoted"\n'
case(
    "gemma4_string_holds_anything_but_its_quote_unescaped",
    "Writing it.\n" + gemma("write_file", f"content:{Q}{GEMMA_CODE}{Q},file_path:{Q}f.py{Q}") + "\nDone.",
    TOOLS,
    calls=[("write_file", {"content": GEMMA_CODE, "file_path": "f.py"})],
    display="Writing it.\n\nDone.",
    notes="nothing is escaped between the <|\"|> tokens: braces, commas, quotes and the closer are the value's",
    tags=GEMMA,
)

case(
    "gemma4_turn_end_closes_the_call",
    gemma("run_shell_command", f"command:{Q}pytest -x{Q}", closer="<turn|>"),
    TOOLS,
    calls=[("run_shell_command", {"command": "pytest -x"})],
    display="",
    tags=GEMMA,
)

case(
    "gemma4_stray_colon_after_the_opener",
    f"<|tool_call>:call:list_files{{directory:{Q}src{Q}}}<tool_call|>",
    TOOLS,
    calls=[("list_files", {"directory": "src"})],
    display="",
    tags=GEMMA,
)

case(
    "gemma4_drift_parentheses_and_json_strings",
    'Checking.\n<|tool_call>call:search_codebase(pattern: "def \\"main\\"", max_results: 5)<tool_call|>',
    TOOLS,
    calls=[("search_codebase", {"pattern": 'def "main"', "max_results": 5})],
    display="Checking.",
    tags=GEMMA,
)

case(
    "gemma4_drift_key_equals_value",
    "<|tool_call>call:read_file{file_path=README.md, limit=20}<tool_call|>",
    TOOLS,
    calls=[("read_file", {"file_path": "README.md", "limit": 20})],
    display="",
    tags=GEMMA,
)

case(
    "gemma4_values_typed_by_the_schema",
    gemma("search_codebase", f"case_sensitive:{Q}true{Q},file_glob:null,max_results:{Q}10{Q},pattern:007"),
    TOOLS,
    calls=[("search_codebase", {"case_sensitive": True, "file_glob": None, "max_results": 10, "pattern": "007"})],
    notes="a quoted number under an integer is the number; bare digits under a string stay the text as written",
    tags=GEMMA,
)

case(
    "gemma4_bare_values_without_a_schema",
    gemma("anything", f"a:{Q}10{Q},b:10,c:1.5,d:true,e:null,f:[]"),
    None,
    calls=[("anything", {"a": "10", "b": 10, "c": 1.5, "d": True, "e": None, "f": []})],
    tags=GEMMA,
)

case(
    "gemma4_thought_channel_then_call",
    "<|channel>thought\nThe user wants the failing test; run only that file.<channel|>"
    + gemma("run_shell_command", f"command:{Q}pytest tests/test_cart.py{Q}"),
    TOOLS,
    calls=[("run_shell_command", {"command": "pytest tests/test_cart.py"})],
    display="",
    thought=("run only that file.",),
    tags=GEMMA,
)

case(
    "gemma4_lone_channel_closer_after_a_prefilled_opener",
    "The template opened the channel, so this is thinking.<channel|>The answer is 42.",
    None,
    calls=[],
    display="The answer is 42.",
    thought=("this is thinking.",),
    tags=GEMMA,
)

case(
    "gemma4_call_inside_thought_is_not_run",
    "<|channel>thought\nI could " + gemma("run_shell_command", f"command:{Q}rm -rf build{Q}")
    + " but the user only asked.<channel|>Deleting build/ is safe; shall I?",
    TOOLS,
    calls=[],
    display="Deleting build/ is safe; shall I?",
    thought=("rm -rf build",),
    tags=GEMMA,
)

case(
    "gemma4_template_tokens_after_the_call_are_hidden",
    gemma("list_files", f"directory:{Q}.{Q}") + "<|tool_response>",
    TOOLS,
    calls=[("list_files", {"directory": "."})],
    display="",
    tags=GEMMA,
)

case(
    "gemma4_opener_mentioned_in_prose",
    "Gemma 4 starts each call with the <|tool_call> token and ends it with another.",
    TOOLS,
    calls=[],
    display="Gemma 4 starts each call with the <|tool_call> token and ends it with another.",
    tags=GEMMA,
)

GEMMA_FENCE = "```\n" + gemma("run_shell_command", f"command:{Q}rm -rf ~{Q}") + "\n```"
case(
    "gemma4_in_a_fence_is_shown_not_run",
    "A Gemma 4 call looks like this:\n" + GEMMA_FENCE,
    TOOLS,
    calls=[],
    shown=(GEMMA_FENCE,),
    tags=GEMMA,
)

case(
    "gemma4_cut_inside_a_string",
    "Writing.\n" + f"<|tool_call>call:write_file{{file_path:{Q}a.py{Q},content:{Q}print(",
    TOOLS,
    calls=[],
    errors=1,
    display="Writing.",
    tags=GEMMA,
)

case(
    "gemma4_unknown_tool",
    gemma("web_search", f"query:{Q}python 3.14{Q}"),
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("web_search",),
    tags=GEMMA,
)


# --------------------------------------------------------------------------------------------
# 2. Kimi K3 (XTML): <|open|>tools<|sep|><|open|>call tool="N" index="1"<|sep|>…<|close|>tools<|sep|>
# --------------------------------------------------------------------------------------------

K3 = frozenset({"kimi_k3"})
O, C, S = "<|open|>", "<|close|>", "<|sep|>"


def k3_arg(key: str, kind: str | None, value: str) -> str:
    typed = f' type="{kind}"' if kind else ""
    return f'{O}argument key="{key}"{typed}{S}{value}{C}argument{S}'


def k3_call(name: str, index: int, *arguments: str) -> str:
    return f'{O}call tool="{name}" index="{index}"{S}' + "".join(arguments) + f"{C}call{S}"


def k3_tools(*calls: str) -> str:
    return f"{O}tools{S}" + "".join(calls) + f"{C}tools{S}"


K3_MARKUP = (O, C, S, "argument", "tools")
K3_READ = k3_tools(k3_call("read_file", 1, k3_arg("file_path", "string", "src/cart.py"), k3_arg("limit", "number", "60")))

case(
    "kimi_k3_think_response_tools_message",
    f"{O}think{S}The cart total is wrong; read the module first.{C}think{S}"
    f"{O}response{S}Reading the cart module.{C}response{S}" + K3_READ + f"{C}message{S}",
    TOOLS,
    calls=[("read_file", {"file_path": "src/cart.py", "limit": 60})],
    display="Reading the cart module.",
    thought=("read the module first.",),
    tags=K3,
)

case(
    "kimi_k3_prefilled_think_and_response_openers",
    f"Read it first.{C}think{S}On it.{C}response{S}" + K3_READ + f"{C}message{S}<|end_of_msg|>",
    TOOLS,
    calls=[("read_file", {"file_path": "src/cart.py", "limit": 60})],
    display="On it.",
    thought=("Read it first.",),
    notes="the generation prompt opened both channels: their lone closers end them",
    tags=K3,
)

case(
    "kimi_k3_two_calls_and_every_type",
    k3_tools(
        k3_call("search_codebase", 1, k3_arg("pattern", "string", "TODO(\\w+)"), k3_arg("case_sensitive", "boolean", "false"),
                k3_arg("file_glob", "null", "null"), k3_arg("max_results", "number", "5")),
        k3_call("create_task", 2, k3_arg("title", "string", "Sweep TODOs"), k3_arg("labels", "array", '["debt"]'),
                k3_arg("meta", "object", '{"owner": "me"}'), k3_arg("priority", "number", "2.5")),
    ),
    TOOLS,
    calls=[("search_codebase", {"pattern": "TODO(\\w+)", "case_sensitive": False, "file_glob": None, "max_results": 5}),
           ("create_task", {"title": "Sweep TODOs", "labels": ["debt"], "meta": {"owner": "me"}, "priority": 2.5})],
    display="",
    tags=K3,
)

K3_VALUE = 'if a < b && c > "d":\n    x = "&amp;"\n'
case(
    "kimi_k3_string_value_is_raw_text",
    "Fixing.\n" + k3_tools(k3_call("write_file", 1, k3_arg("file_path", "string", "fix.py"),
                                   k3_arg("content", "string", K3_VALUE))),
    TOOLS,
    calls=[("write_file", {"file_path": "fix.py", "content": K3_VALUE})],
    display="Fixing.",
    notes="only attribute values are escaped; a string value is the text exactly",
    tags=K3,
)

case(
    "kimi_k3_escaped_attributes",
    k3_tools(f'{O}call tool="lookup" index="1"{S}' + k3_arg("q&amp;a", "string", "x")
             + k3_arg("say &quot;hi&quot;", "number", "1") + f"{C}call{S}"),
    None,
    calls=[("lookup", {"q&a": "x", 'say "hi"': 1})],
    tags=K3,
)

case(
    "kimi_k3_json_object_fallback",
    k3_tools(f'{O}call tool="read_file" index="1"{S}{O}json type="object"{S}'
             f'{{"file_path": "README.md", "limit": 10}}{C}json{S}{C}call{S}'),
    TOOLS,
    calls=[("read_file", {"file_path": "README.md", "limit": 10})],
    display="",
    tags=K3,
)

case(
    "kimi_k3_untyped_or_mistyped_values_follow_the_schema",
    k3_tools(k3_call("read_file", 1, k3_arg("file_path", None, "007.txt"), k3_arg("offset", "string", "3"),
                     k3_arg("limit", None, "9"))),
    TOOLS,
    calls=[("read_file", {"file_path": "007.txt", "offset": 3, "limit": 9})],
    tags=K3,
)

case(
    "kimi_k3_tools_channel_cut_after_a_whole_call",
    "Reading.\n" + f"{O}tools{S}" + k3_call("list_files", 1, k3_arg("directory", "string", "docs")),
    TOOLS,
    calls=[("list_files", {"directory": "docs"})],
    display="Reading.",
    notes="the token budget ran out before <|close|>tools<|sep|>: the call was whole",
    tags=K3,
)

case(
    "kimi_k3_cut_inside_an_argument",
    f"{O}tools{S}" + f'{O}call tool="write_file" index="1"{S}' + f'{O}argument key="content" type="string"{S}half a fi',
    TOOLS,
    calls=[],
    errors=1,
    display="",
    tags=K3,
)

case(
    "kimi_k3_bad_json_under_a_string_is_an_error_for_the_model",
    k3_tools(k3_call("create_task", 1, k3_arg("title", "string", "t"), k3_arg("labels", "array", "[debt"))),
    TOOLS,
    calls=[],
    errors=1,
    error_mentions=("labels",),
    tags=K3,
)

case(
    "kimi_k3_stray_channel_tokens_are_hidden",
    f"All done.{C}response{S}{C}message{S}",
    None,
    calls=[],
    display="All done.",
    tags=K3,
)


# --------------------------------------------------------------------------------------------
# 3. DeepSeek V4.1: a space after the DSML prefix in every tag; its leak variants
# --------------------------------------------------------------------------------------------

V41 = frozenset({"deepseek_v41"})
D = "｜DSML｜ "


def v41_param(name: str, value: str, string: bool = True) -> str:
    return f'<{D}parameter name="{name}" string="{"true" if string else "false"}">{value}</{D}parameter>\n'


case(
    "dsml_v41_calls_wrapper_two_invokes",
    "I'll read the handler and list its folder.\n\n"
    f"<{D}calls>\n<{D}invoke name=\"read_file\">\n" + v41_param("file_path", "api/orders.py")
    + v41_param("limit", "120", string=False) + f"</{D}invoke>\n<{D}invoke name=\"list_files\">\n"
    + v41_param("directory", "api") + f"</{D}invoke>\n</{D}calls>",
    TOOLS,
    calls=[("read_file", {"file_path": "api/orders.py", "limit": 120}), ("list_files", {"directory": "api"})],
    display="I'll read the handler and list its folder.",
    tags=V41,
)

case(
    "dsml_v41_doubled_bars_leak",
    "Checking the workflow.\n<｜｜DSML｜｜tool_calls>\n<｜｜DSML｜｜invoke name=\"read_file\">\n"
    "<｜｜DSML｜｜parameter name=\"file_path\" string=\"true\">.github/workflows/deploy.yml</｜｜DSML｜｜parameter>\n"
    "</｜｜DSML｜｜invoke>\n</｜｜DSML｜｜tool_calls>",
    TOOLS,
    calls=[("read_file", {"file_path": ".github/workflows/deploy.yml"})],
    display="Checking the workflow.",
    tags=V41,
)

case(
    "dsml_v4_closers_cut_short",
    "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"read_file\">\n"
    "<｜DSML｜parameter name=\"file_path\" string=\"true\">lines.txt</｜DSML｜parameter>\n"
    "</｜DSML｜inv>\n</｜DSML｜tool>\nThat is the file.",
    TOOLS,
    calls=[("read_file", {"file_path": "lines.txt"})],
    display="That is the file.",
    notes="the model writes </｜DSML｜inv> and </｜DSML｜tool>: its vocabulary splits the closers' words",
    tags=V41,
)

case(
    "dsml_v41_self_closing_invoke",
    f"<{D}calls>\n<{D}invoke name=\"list_files\"/>\n<{D}invoke name=\"read_file\">\n"
    + v41_param("file_path", "setup.cfg") + f"</{D}invoke>\n</{D}calls>",
    TOOLS,
    calls=[("list_files", {}), ("read_file", {"file_path": "setup.cfg"})],
    display="",
    tags=V41,
)

case(
    "dsml_v41_string_false_falls_back_by_schema",
    f"<{D}calls>\n<{D}invoke name=\"create_task\">\n"
    + v41_param("title", "2026", string=False)
    + v41_param("labels", "['ci', 'flaky']", string=False)
    + v41_param("priority", '"3"', string=False)
    + v41_param("meta", "{}", string=False)
    + f"</{D}invoke>\n</{D}calls>",
    TOOLS,
    calls=[("create_task", {"title": "2026", "labels": ["ci", "flaky"], "priority": 3, "meta": {}})],
    notes='string="false" on a string parameter keeps the text; a Python list is read as the list; a quoted number '
          "under a number is the number",
    tags=V41,
)

case(
    "dsml_v41_string_false_not_json_without_a_schema_is_text",
    f"<{D}calls>\n<{D}invoke name=\"note\">\n" + v41_param("text", "remember the milk", string=False)
    + f"</{D}invoke>\n</{D}calls>",
    None,
    calls=[("note", {"text": "remember the milk"})],
    tags=V41,
)

case(
    "dsml_v41_ascii_bars_and_tool_calls_wrapper",
    "<|DSML| tool_calls>\n<|DSML| invoke name=\"read_file\">\n"
    "<|DSML| parameter name=\"file_path\" string=\"true\">a.txt</|DSML| parameter>\n"
    "</|DSML| invoke>\n</|DSML| tool_calls>",
    TOOLS,
    calls=[("read_file", {"file_path": "a.txt"})],
    display="",
    tags=V41,
)

case(
    "dsml_lone_fragments_are_hidden",
    f"Let me look.\n<{D}calls>\nNothing to call after all.\n</{D}invoke>\nI read it. <｜｜DSML｜｜ calls>",
    TOOLS,
    calls=[],
    errors=None,
    display="Let me look.\n\nNothing to call after all.\n\nI read it.",
    tags=V41,
)

case(
    "dsml_v41_wrapper_mentioned_mid_sentence_is_shown",
    f"DeepSeek V4.1 wraps its calls in a <{D}calls> block.",
    TOOLS,
    calls=[],
    display=f"DeepSeek V4.1 wraps its calls in a <{D}calls> block.",
    tags=V41,
)


# --------------------------------------------------------------------------------------------
# 4. Kimi K2: section tokens with no call after them never reach the user
# --------------------------------------------------------------------------------------------

K2 = frozenset({"kimi_k2_tokens"})

case(
    "kimi_k2_section_opened_and_cut",
    "Let me check that.<|tool_calls_section_begin|>",
    TOOLS,
    calls=[],
    errors=None,
    display="Let me check that.",
    tags=K2,
)

case(
    "kimi_k2_empty_section",
    "Nothing to run.\n<|tool_calls_section_begin|><|tool_calls_section_end|>",
    TOOLS,
    calls=[],
    errors=None,
    display="Nothing to run.",
    tags=K2,
)

case(
    "kimi_k2_stray_call_tokens_in_the_answer",
    "The tests pass.<|tool_call_end|> Nothing else to do.<|tool_call_argument_begin|>",
    TOOLS,
    calls=[],
    errors=None,
    display="The tests pass. Nothing else to do.",
    tags=K2,
)
