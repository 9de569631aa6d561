"""What the model sees of MCP tools without a server running: their names and their results."""

from __future__ import annotations

from types import SimpleNamespace as Item

import pytest

from ayder_cli.mcp_servers.server_config import check_servers, secrets_of, servers_of
from ayder_cli.mcp_servers.tools import MAX_NAME, result_text, tool_name


def test_names_are_server__tool_in_safe_characters():
    assert tool_name("time", "get_current_time", set()) == "time__get_current_time"
    assert tool_name("my-docs", "search.v2 (beta)", set()) == "my-docs__search_v2__beta_"


def test_a_long_or_taken_name_gets_a_short_hash_and_stays_within_64():
    long = tool_name("server", "x" * 100, set())
    assert len(long) == MAX_NAME and long.startswith("server__xxx")
    first = tool_name("a", "b.c", set())
    second = tool_name("a", "b_c", {first})
    assert first == "a__b_c" and second != first and len(second) <= MAX_NAME


def test_results_join_text_and_summarise_the_rest():
    result = Item(content=[Item(type="text", text="one"), Item(type="image", data="AAAA", mime_type="image/png"),
                           Item(type="resource_link", uri="file:///x")], is_error=False)
    shown = result_text(result)
    assert shown.ok and shown.output == "one\n[image: image/png, 3 bytes, not shown]\n[resource link: file:///x]"
    failed = result_text(Item(content=[Item(type="text", text="no such city")], is_error=True))
    assert not failed.ok and failed.error == "no such city"


@pytest.mark.parametrize("value, said", [
    ({"s": {"command": "x", "permission": "w"}}, '"permission" must be "x" or "r"'),
    ({"s": {"url": "ftp://x"}}, '"url" must start with http:// or https://'),
    ({"s": {"command": "x", "startup_timeout_s": 0}}, "'startup_timeout_s' must be a number of seconds > 0"),
    ({"s": {"command": "x", "comand": "y"}}, "unknown key 'comand'"),
    ({"a b": {"command": "x"}}, "letters, digits, _ and - only"),
    ({"a__b": {"command": "x"}}, 'may not hold "__" nor end in "_"'),
    ({"a_": {"command": "x"}}, 'may not hold "__" nor end in "_"'),
])
def test_bad_server_entries_say_what_is_wrong(value, said):
    with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        check_servers(value)


def test_variables_in_env_and_headers_are_secrets():
    servers = servers_of({"a": {"command": "x", "env": {"T": "${TOKEN}"}},
                          "b": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${KEY}"}}})
    assert secrets_of(servers, {"TOKEN": "t0k3n-value", "KEY": "k3y-value"}) == ["t0k3n-value", "k3y-value"]
