"""save_memory / load_memory: notes kept in .ayder/memory/memories.jsonl."""

from __future__ import annotations

from support.tool_calls import call_tool


def test_notes_are_saved_and_found_newest_first(root):
    assert call_tool(root, "save_memory", content="tests run with pytest -q", category="commands", tags=["ci"]).ok
    assert call_tool(root, "save_memory", content="the API lives in src/api", category="layout").ok
    everything = call_tool(root, "load_memory").output.splitlines()
    assert "src/api" in everything[0] and "pytest -q" in everything[1] and "#ci" in everything[1]
    assert "pytest" in call_tool(root, "load_memory", category="commands").output
    assert "src/api" not in call_tool(root, "load_memory", category="commands").output
    assert "pytest" in call_tool(root, "load_memory", query="CI").output  # tags are searched too
    assert len(call_tool(root, "load_memory", limit=1).output.splitlines()) == 1


def test_a_torn_last_line_loses_only_that_note(root):
    call_tool(root, "save_memory", content="kept")
    path = root / ".ayder" / "memory" / "memories.jsonl"
    with path.open("a") as stream:
        stream.write('{"content": "half a no')
    assert call_tool(root, "load_memory").output.startswith("[") and "kept" in call_tool(root, "load_memory").output


def test_nothing_saved_yet_and_an_empty_note(root):
    assert call_tool(root, "load_memory").output == "no saved notes match"
    result = call_tool(root, "save_memory", content="   ")
    assert not result.ok and "needs some content" in result.error
