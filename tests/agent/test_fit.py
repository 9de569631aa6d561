"""A message too big for the window loses its middle, with a marker; the rest is left alone."""

from __future__ import annotations

import re

from ayder_cli.agent.conversation import RESULTS_HEADER
from ayder_cli.agent.fit import CLEARED, MARKER, WindowShare, clear_old_results, shorten_middles


def test_budget_leaves_room_for_the_reply_but_never_all_of_the_window():
    assert WindowShare.for_window(8192, 1024).prompt == 8192 - 1024
    assert WindowShare.for_window(2048, 4096).prompt == 2048 - 512  # max_tokens above the window: a quarter
    assert WindowShare.for_window(2048, None).prompt == 2048 - 512


def test_the_longest_message_loses_its_middle_and_keeps_both_ends():
    big = "START " + "x" * 20_000 + " END"
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "short question"},
                {"role": "assistant", "content": big}, {"role": "user", "content": "go on"}]
    notes = shorten_middles(messages, 15_000)
    text = messages[2]["content"]
    assert text.startswith("START ") and text.endswith(" END")
    assert len(text) <= len(big) - 15_000 + 1
    cut = int(re.search(r"\[… (\d+) characters cut from the middle", text).group(1))
    assert cut >= 15_000 and len(text) == len(big) - cut + len(MARKER.format(cut=cut))
    assert [m["content"] for i, m in enumerate(messages) if i != 2] == ["be brief", "short question", "go on"]
    assert len(notes) == 1 and "assistant" in notes[0]


def test_the_latest_user_message_is_cut_only_when_nothing_else_can_be():
    huge = "Summarize this:\n" + "The quick brown fox. " * 1000
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": huge}]
    shorten_middles(messages, 10_000)
    assert messages[1]["content"].startswith("Summarize this:\n")
    assert len(messages[1]["content"]) < len(huge) - 9_000
    assert messages[0]["content"] == "be brief"


def test_nothing_is_cut_when_it_already_fits_or_nothing_is_long_enough():
    messages = [{"role": "user", "content": "a" * 500}]
    assert shorten_middles(messages, 0) == [] and messages[0]["content"] == "a" * 500
    assert shorten_middles(messages, 100) == [] and messages[0]["content"] == "a" * 500


def _round(n: int, result: str, native: bool = True) -> list[dict]:
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{n}", "type": "function",
                                                                 "function": {"name": "read_file", "arguments": "{}"}}]}
    if native:
        return [call, {"role": "tool", "tool_call_id": f"c{n}", "name": "read_file", "content": result}]
    return [{"role": "assistant", "content": "[CALL] read_file {}"}, {"role": "user", "content": RESULTS_HEADER + result}]


def test_earlier_results_are_cleared_oldest_first_and_the_latest_round_stays():
    messages = [{"role": "user", "content": "read them"}, *_round(0, "A" * 3000), *_round(1, "B" * 3000),
                *_round(2, "C" * 3000)]
    assert clear_old_results(messages, 1000) == 1  # the oldest was enough
    assert messages[2]["content"] == CLEARED and messages[4]["content"] == "B" * 3000
    assert clear_old_results(messages, 10_000) == 1  # the latest round's result is never cleared
    assert messages[4]["content"] == CLEARED and messages[6]["content"] == "C" * 3000
    assert messages[0] == {"role": "user", "content": "read them"} and messages[1]["tool_calls"]  # calls stay


def test_results_of_calls_written_as_text_are_cleared_too_but_not_the_users_words():
    messages = [{"role": "user", "content": "U" * 3000}, *_round(0, "A" * 3000, native=False),
                *_round(1, "B" * 3000, native=False)]
    assert clear_old_results(messages, 10_000) == 1
    assert messages[2]["content"] == RESULTS_HEADER + CLEARED
    assert messages[0]["content"] == "U" * 3000 and messages[4]["content"] == RESULTS_HEADER + "B" * 3000


def test_a_huge_argument_of_a_call_loses_its_middle_and_the_arguments_stay_json():
    import json
    content = "HEAD " + "x" * 50_000 + " TAIL"
    call = {"id": "c0", "type": "function",
            "function": {"name": "write_file", "arguments": json.dumps({"file_path": "big.txt", "content": content})}}
    messages = [{"role": "user", "content": "write it"}, {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c0", "name": "write_file", "content": "ok"}]
    notes = shorten_middles(messages, 40_000)
    arguments = json.loads(messages[1]["tool_calls"][0]["function"]["arguments"])
    assert arguments["file_path"] == "big.txt"
    assert arguments["content"].startswith("HEAD ") and arguments["content"].endswith(" TAIL")
    assert len(arguments["content"]) < 11_000 and "characters cut from the middle" in arguments["content"]
    assert notes == [notes[0]] and "arguments of a tool call" in notes[0]
    assert call["function"]["arguments"].endswith(' TAIL"}')  # the conversation's own message is left as it was
