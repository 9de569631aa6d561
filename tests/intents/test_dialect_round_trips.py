"""Properties every dialect must have (see test_dialect_properties.py): calls round-trip without a schema."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_dialect_properties import DIALECTS, FAST, RENDERERS, call_lists, got


@pytest.mark.parametrize("dialect", DIALECTS)
@FAST
@given(data=st.data())
def test_calls_round_trip_without_schema(dialect, data):
    render, kind = RENDERERS[dialect]
    calls = data.draw(call_lists(kind), label="calls")
    assert got(render(calls)) == calls
