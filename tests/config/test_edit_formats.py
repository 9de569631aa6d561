"""The edit formats' table (config/edit_formats.py) and the write tools each offers (tools/edit_formats.py)."""

from __future__ import annotations

import pytest

from ayder_cli.config.edit_formats import CHOICES, FORMATS, TEACHING, doctor_line, from_table, resolve
from ayder_cli.tools import default_registry
from ayder_cli.tools.edit_formats import EDIT_TOOL_NAMES, OFFERED_BY_FORMAT
from ayder_cli.tools.executor import ToolPolicy


def test_the_two_halves_name_the_same_formats_and_real_tools():
    assert set(OFFERED_BY_FORMAT) == set(FORMATS) == set(TEACHING) and CHOICES == (*FORMATS, "auto")
    assert EDIT_TOOL_NAMES <= set(default_registry().names())
    assert all("write_file" in offered for offered in OFFERED_BY_FORMAT.values())  # new files, in every format
    assert not any("replace_string" in OFFERED_BY_FORMAT[name] for name in ("lines", "search-replace", "whole"))


def test_the_teaching_is_a_few_lines_and_replace_teaches_nothing():
    assert TEACHING["replace"] == ""
    assert all(text.count("\n") <= 6 and len(text) <= 200 for text in TEACHING.values())


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
