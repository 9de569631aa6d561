"""The family index (intents/families.py) names, for each row of the README's models table, the
dialect modules that read it: without them, the row's example is no longer read as its call."""

from __future__ import annotations

import pytest
from support.intents_corpus import TOOLS
from support.models_table import example_reply, models_table_rows

from ayder_cli.intents import dialects, parse, scanner, think
from ayder_cli.intents.families import FAMILIES

READ_AS_TEXT = [row for row in models_table_rows() if row[3] != "native"]


def read_as_its_call(text: str) -> bool:
    reply = parse(text, TOOLS)
    calls = [(call.name, call.arguments) for call in reply.calls]
    return not reply.errors and calls[:1] == [("read_file", {"file_path": "a.py"})] and not reply.display.strip()


def test_the_index_lists_the_readme_families_in_order():
    assert [family.name for family in FAMILIES] == [row[0] for row in READ_AS_TEXT]


@pytest.mark.parametrize("family, row", list(zip(FAMILIES, READ_AS_TEXT)), ids=[family.name for family in FAMILIES])
def test_the_named_modules_are_the_ones_that_read_the_family(family, row, monkeypatch):
    _, writes, example, _ = row
    text = example_reply(writes, example)
    assert read_as_its_call(text)

    named = [dialect for module in family.dialects for dialect in getattr(module, "DIALECTS", None) or [module.DIALECT]]
    rest = [dialect for dialect in dialects.TABLE if dialect not in named]
    monkeypatch.setattr(dialects, "TABLE", rest)
    monkeypatch.setattr(dialects, "PATTERNED", [dialect for dialect in rest if dialect.pattern is not None])
    monkeypatch.setattr(scanner, "FENCES", {info: dialect for dialect in rest for info in dialect.fences})
    monkeypatch.setattr(scanner, "OPENERS", dialects.OpenerIndex(think.TAGS))
    assert not read_as_its_call(text)
