"""The README's models table ("Which models ayder understands"), read as rows of cells."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def models_table_rows() -> list[list[str]]:
    section = README.split("### Which models ayder understands\n", 1)[1]
    lines = [line for line in section.split("\n\n", 2)[1].splitlines() if line.startswith("| ")]
    return [re.split(r"(?<!\\) \| ", line.strip("| ")) for line in lines[2:]]  # past the header and the rule


def first_code_span(cell: str) -> str:
    match = re.search(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", cell)  # a run of backticks closes only its twin
    return match.group(2).strip().replace("\\|", "|")


def example_reply(writes: str, example: str) -> str:
    """The reply a row's example stands for (a tool_code row shows only the fence's inside)."""
    text = first_code_span(example)
    return f"```tool_code\n{text}\n```" if "tool_code" in writes else text
