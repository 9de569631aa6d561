"""The front matter parser on the shapes published skills use: plain, folded, literal and quoted values,
a metadata mapping, CRLF line ends, a byte-order mark; and what it refuses, in a few words."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ayder_cli.skills.front_matter import FrontMatterError, split


def test_plain_values_and_a_metadata_mapping_of_a_published_skill():
    fields, body = split("---\nname: pdf\ndescription: Use this skill whenever the user wants to do anything with "
                         "PDF files.\nlicense: Proprietary. LICENSE.txt has complete terms\nmetadata:\n"
                         "  author: example-org\n  version: \"1.0\"\n---\n\n# PDF Processing Guide\n")
    assert fields["name"] == "pdf"
    assert fields["description"] == "Use this skill whenever the user wants to do anything with PDF files."
    assert fields["license"] == "Proprietary. LICENSE.txt has complete terms"
    assert body == "# PDF Processing Guide"


@pytest.mark.parametrize("value, expected", [
    (">-\n  Write release notes from the log.\n  Use when asked for a changelog.", "Write release notes from the log. "
                                                                                 "Use when asked for a changelog."),
    ("|\n  first line\n  second line\n", "first line\nsecond line"),
    ('"Review a change: read the \\"diff\\" first."', 'Review a change: read the "diff" first.'),
    ("'Format SQL the team''s way: one clause a line.'", "Format SQL the team's way: one clause a line."),
    ("Fill in PDF forms. Use when the user mentions\n  a PDF form.", "Fill in PDF forms. Use when the user mentions "
                                                                     "a PDF form."),
    ("Find flaky tests  # a comment", "Find flaky tests"),
    ('"Two lines in quotes\n  go on here."', "Two lines in quotes go on here."),
])
def test_each_kind_of_value_reads_as_yaml_reads_it(value, expected):
    fields, _ = split(f"---\nname: x\ndescription: {value}\n---\nbody\n")
    assert fields["description"] == expected


def test_crlf_line_ends_and_a_byte_order_mark_are_read_the_same():
    fields, body = split("\ufeff---\r\nname: sql-style\r\ndescription: Format SQL.\r\n---\r\nUpper-case it.\r\n")
    assert fields == {"name": "sql-style", "description": "Format SQL."} and body == "Upper-case it."


def test_no_front_matter_is_none_and_a_broken_one_says_what_is_wrong():
    assert split("# Title\n\nname: x\n") is None
    with pytest.raises(FrontMatterError, match="no closing --- line"):
        split("---\nname: x\ndescription: y\n")
    with pytest.raises(FrontMatterError, match="line 3 of its front matter is not `key: value`"):
        split("---\nname: x\nthis is prose\n---\n")
    with pytest.raises(FrontMatterError, match="double-quoted string that does not end"):
        split('---\nname: x\ndescription: "open\n---\n')


@given(st.text(max_size=300))
def test_any_text_is_read_or_refused_in_a_few_words(text):
    try:
        found = split("---\n" + text)
    except FrontMatterError as error:
        assert "\n" not in str(error)
    else:
        assert found is not None
