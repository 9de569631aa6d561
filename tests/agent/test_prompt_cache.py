"""PromptCache: what a request makes the server read again, by what the doctor learned of the server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ayder_cli.agent.conversation import estimate_tokens
from ayder_cli.agent.prompt_cache import TRIM_TO_REUSED, TRIM_TO_WHOLE, PromptCache, describe_reread
from ayder_cli.llm.wire_types import ChatRequest
from ayder_cli.storage.profiles import ServerProfiles

URL, MODEL = "http://127.0.0.1:8080/v1", "m"
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
SYSTEM = {"role": "system", "content": "s" * 400}
ASK = {"role": "user", "content": "u" * 40}
CALL = {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "function": {"name": "read_file"}}]}
RESULT = {"role": "tool", "tool_call_id": "1", "content": "r" * 4000}


def cache(tmp_path: Path, reuses: bool | None) -> PromptCache:
    profiles = ServerProfiles(tmp_path / "servers.json")
    if reuses is not None:
        profiles.remember(URL, MODEL, partial_prefix_reuse=reuses)
    return PromptCache(profiles, URL, MODEL)


def request(*messages: dict, tools=TOOLS) -> ChatRequest:
    return ChatRequest(model=MODEL, messages=[SYSTEM, *messages], tools=tools)


def tokens(*messages: dict) -> int:
    """Estimated tokens of these messages, each counted as ayder counts a message (four characters a token)."""
    return sum(estimate_tokens([message]) for message in messages)


SCHEMAS = len(json.dumps(TOOLS)) // 4


@pytest.mark.parametrize("reuses", [True, False, None])
def test_a_request_that_extends_the_one_before_is_read_again_nowhere(tmp_path, reuses):
    kept = cache(tmp_path, reuses)
    assert kept.sent(request(ASK)) == 0  # the first: nothing held, nothing read again
    assert kept.sent(request(ASK, CALL, RESULT)) == 0
    assert kept.sent(request(ASK, CALL, RESULT, CALL, RESULT)) == 0


def test_an_earlier_message_changed_is_read_again_from_there_where_the_server_reuses_a_partial_prefix(tmp_path):
    kept = cache(tmp_path, True)
    kept.sent(request(ASK, CALL, RESULT, CALL, RESULT))
    cleared = {**RESULT, "content": "cleared"}
    again = kept.reread(request(ASK, CALL, cleared, CALL, RESULT, CALL, RESULT))
    # from the changed result on, up to what the server held (the new round is read in any case)
    assert again == tokens(cleared, CALL, RESULT)


@pytest.mark.parametrize("reuses", [False, None])  # unknown counts as the common case today: a hybrid model
def test_an_earlier_message_changed_is_read_again_whole_where_the_server_keeps_no_partial_prefix(tmp_path, reuses):
    kept = cache(tmp_path, reuses)
    kept.sent(request(ASK, CALL, RESULT))
    changed = request({**ASK, "content": "v" * 40}, CALL, RESULT)
    partial = cache(tmp_path / "other", True)
    partial.sent(request(ASK, CALL, RESULT))
    assert partial.reread(changed) == tokens(changed.messages[1], CALL, RESULT)
    assert kept.reread(changed) == tokens(SYSTEM) + SCHEMAS + partial.reread(changed)  # system prompt, tools too
    assert kept.trim_to == TRIM_TO_WHOLE < TRIM_TO_REUSED == partial.trim_to  # such a server's trims free more


def test_other_tools_change_the_prompt_right_after_the_system_prompt(tmp_path):
    kept = cache(tmp_path, True)
    kept.sent(request(ASK, CALL, RESULT))
    assert kept.sent(request(ASK, CALL, RESULT, tools=None)) == tokens(ASK, CALL, RESULT)


def test_the_cost_is_said_in_tokens_and_in_time_where_the_speed_is_known():
    assert describe_reread(2400, None) == "the server reads about 2,400 tokens again"
    assert describe_reread(2400, 100.0) == "the server reads about 2,400 tokens again (~24 s at 100 tok/s)"
    assert describe_reread(24000, 100.0) == "the server reads about 24,000 tokens again (~4 min at 100 tok/s)"
