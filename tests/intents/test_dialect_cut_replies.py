"""Properties every dialect must have (see test_dialect_properties.py): cut-off replies run nothing wrong."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.dialect_renderers import MARKUP, RENDERERS
from test_dialect_properties import DIALECTS, SHORT, call_lists, calls_of, find_all, prefix_free, tools_for
from test_intents_properties import edit_reply, edits, expected_edit, whole_content

from ayder_cli.intents import parse


# ---------------------------------------------------------------------------- (c) cut-off replies


@functools.cache
def prefix_free_call_lists(kind: str):
    # a lambda: hypothesis reads a named predicate's source again at every draw of a filtered list
    return call_lists(kind, typed=True, max_size=2).filter(lambda calls: prefix_free(calls))


@pytest.mark.parametrize("dialect", DIALECTS)
@SHORT
@given(data=st.data())
def test_a_reply_that_hit_max_tokens_never_runs_a_different_call(dialect, data):
    """A reply cut at max_tokens (parsed with hit_max_tokens=True, as the chat loop does when the server says
    finish_reason "length"): a call cut short is reported or absent; a call found is exactly one intended."""
    render, kind = RENDERERS[dialect]
    calls = data.draw(prefix_free_call_lists(kind), label="calls")
    text = render(calls)
    tools = tools_for(calls)
    cuts = set(data.draw(st.lists(st.integers(1, len(text)), max_size=8), label="cuts"))
    cuts |= {len(text) * i // 8 for i in range(1, 8)}
    # Right after a tag or token is where a cut call looks most complete: take those too (up to 16).
    bounds = sorted({at + len(token) for token in MARKUP[dialect] + (">",) for at in find_all(text, token)})
    cuts |= set(bounds[:: max(1, len(bounds) // 16)])
    cuts = sorted(cuts)
    for cut in cuts:
        found = calls_of(parse(text[:cut], tools, hit_max_tokens=True))
        assert found == calls[: len(found)], f"cut at {cut}: {text[:cut]!r} gave {found}"


@SHORT
@given(edits, st.data())
def test_a_reply_of_edits_cut_at_max_tokens_applies_only_whole_edits_as_meant(drawn, data):
    """Edits written as text (SEARCH/REPLACE blocks; a whole file under its path): cut anywhere, what is
    applied is the first edits exactly as meant, and nothing of an edit whose end did not come."""
    text = edit_reply(drawn, "Changing it.", "Done.")
    intended = [expected_edit(p, s, r) for p, s, r, _, _ in drawn]
    cuts = set(data.draw(st.lists(st.integers(1, len(text)), max_size=8), label="cuts"))
    cuts |= {at + len(token) for token in ("SEARCH", "=======", "REPLACE", "```", "\n") for at in find_all(text, token)}
    for cut in sorted(cuts):
        found = calls_of(parse(text[:cut], hit_max_tokens=True))
        assert found == intended[: len(found)], f"cut at {cut}: {text[:cut]!r} gave {found}"
    lines = data.draw(whole_content, label="file")
    text = "src/app.py\n```python\n" + "".join(line + "\n" for line in lines) + "```\nDone."
    for cut in range(1, len(text) + 1):
        found = calls_of(parse(text[:cut], hit_max_tokens=True, whole_files=True))
        assert found in ([], [("write_file", {"file_path": "src/app.py", "content": "".join(f"{x}\n" for x in lines)})])
        assert found or cut < text.index("```\nDone") + 3, f"cut at {cut}"
