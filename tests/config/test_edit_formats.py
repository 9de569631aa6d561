"""The edit formats' records (ayder_cli/edit_formats.py): the write tools each offers, its teaching, what auto picks."""

from __future__ import annotations

import pytest

from ayder_cli.edit_formats import (CHOICES, EDIT_FORMATS, EDIT_TOOL_NAMES, FORMATS, SEARCH_REPLACE, doctor_line,
                                    from_table, resolve)
from ayder_cli.intents import parse
from ayder_cli.tools import default_registry
from ayder_cli.tools.executor import ToolPolicy


def test_each_format_offers_real_write_tools_and_write_file_for_new_files():
    assert CHOICES == (*FORMATS, "auto") and FORMATS == ("replace", "lines", "search-replace", "whole")
    assert EDIT_TOOL_NAMES <= set(default_registry().names())
    for edit in EDIT_FORMATS.values():
        assert "write_file" in edit.offers <= EDIT_TOOL_NAMES, edit.name
        assert not (edit.written_as_text and "replace_string" in edit.offers), edit.name  # its edits are in the text


def test_the_teaching_is_a_few_lines_and_replace_teaches_nothing():
    assert EDIT_FORMATS["replace"].teaching == ""
    assert all(edit.teaching.count("\n") <= 6 and len(edit.teaching) <= 200 for edit in EDIT_FORMATS.values())
    assert all(edit.teaching for edit in EDIT_FORMATS.values() if edit.written_as_text)  # a form it must be taught


def test_the_opener_taught_is_the_one_a_reply_is_read_by():
    # The line the system prompt teaches (and agent/batch.py looks for) is the one the dialect reads.
    assert SEARCH_REPLACE.opener in SEARCH_REPLACE.teaching
    reply = f"src/app.py\n{SEARCH_REPLACE.opener}\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n"
    assert [call.name for call in parse(reply).calls] == ["replace_string"]


@pytest.mark.parametrize("model, picked", [
    ("qwen2.5-coder:32b", "whole"), ("Qwen/Qwen2.5-Coder-7B-Instruct", "whole"), ("qwen3-coder:30b", "whole"),
    ("qwen3:8b", "whole"), ("deepseek-coder-v2:16b", "whole"), ("devstral:24b", "replace"),
    ("mistral:7b", "replace"), ("llama3.2:3b", "lines"), ("qwen2.5:7b", "lines"), ("gemma3:4b", "lines"),
    ("deepseek-r1:8b", "lines"), ("llama3.1:70b", None), ("gpt-oss:20b", None), ("gpt-4o", None),
])
def test_auto_table_by_model_name(model, picked):
    assert from_table(model) == picked


def test_a_learned_format_wins_over_the_table_and_a_set_format_over_both():
    assert resolve("auto", "qwen2.5-coder:7b") == ("whole", "the table's row for qwen2.5-coder:7b")
    assert resolve("auto", "qwen2.5-coder:7b", {"edit_format": "lines"})[0] == "lines"
    assert resolve("auto", "qwen2.5-coder:7b", {"edit_format": "bogus"})[0] == "whole"  # a bad file is ignored
    assert resolve("auto", "gpt-4o") == ("replace", "no row of the table names gpt-4o")
    assert resolve("lines", "qwen2.5-coder:7b", {"edit_format": "whole"})[0] == "lines"


def test_the_doctor_line_says_what_auto_would_pick():
    assert doctor_line("auto", "llama3.2:3b").startswith("edit format: auto picks lines for llama3.2:3b")
    assert doctor_line("replace", "gpt-4o") == "edit format: replace (the one auto picks for gpt-4o too)"


def test_a_policy_without_a_format_offers_every_write_tool():
    specs = {spec.name: spec for spec in default_registry().specs()}
    assert all(ToolPolicy().offers(specs[name]) for name in EDIT_TOOL_NAMES)
    lines = ToolPolicy(edit_format="lines")
    assert [name for name in sorted(EDIT_TOOL_NAMES) if lines.offers(specs[name])] == ["replace_lines", "write_file"]
    assert lines.offers(specs["read_file"]) and lines.hidden_by_format(specs["replace_string"])
