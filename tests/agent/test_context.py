"""ContextKeeper and compaction with a fake loop: no client, no server."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from ayder_cli.agent.calibration import prompt_estimate
from ayder_cli.agent.compaction import COMPACT_REQUEST, cut_point
from ayder_cli.agent.context import ContextKeeper
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.request import next_request
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.agent.window import SMALLEST_CUT_SYSTEM
from ayder_cli.llm.wire_types import Delta, LLMError, Usage
from ayder_cli.storage.profiles import ServerProfiles
from ayder_cli.config.schema import Config


class Summarizing:
    """Answers every request with the same summary; remembers the requests."""

    def __init__(self, summary: str = "short summary") -> None:
        self.summary = summary
        self.requests = []

    def stream(self, request):
        self.requests.append(request)
        yield Delta(content=self.summary, finish_reason="stop")


class FakeLoop:
    """What a ContextKeeper uses of the loop."""

    def __init__(self, config: Config, client=None) -> None:
        self.conversation = Conversation("system")
        self.usage = SessionUsage()
        self.config = config
        self.profiles = None  # no server profile: nothing learned of its prompt speed
        self.client = client or Summarizing()

    def request(self):
        return next_request(self.config, self.conversation, None, tools_as_text=False)

    def narrow_window(self, num_ctx: int) -> None:  # the Session's part: the keeper asks, it narrows
        self.config = replace(self.config, num_ctx=num_ctx)


def exchanges(conversation: Conversation, count: int, size: int = 400) -> None:
    for i in range(count):
        conversation.add_user(f"question {i} " + "q" * size)
        conversation.messages.append({"role": "assistant", "content": f"answer {i} " + "a" * size})


def test_the_cut_keeps_the_last_exchange_and_during_a_run_the_message_answered():
    messages = [{"role": role, "content": ""} for role in ("user", "assistant", "user", "assistant", "user")]
    assert cut_point(messages, only_if_needed=False) == 4
    assert cut_point(messages, only_if_needed=True) == 2
    assert cut_point(messages[:2], only_if_needed=True) == 0


def test_compaction_replaces_older_turns_by_the_models_summary():
    loop, notices = FakeLoop(Config(num_ctx=8192)), []
    exchanges(loop.conversation, 3)
    keeper = ContextKeeper(loop, notices.append)
    assert keeper.compact()
    first, *rest = loop.conversation.messages
    assert first["role"] == "user" and first["content"].endswith("short summary")
    assert [m["content"][:10] for m in rest] == ["question 2", "answer 2 a"]
    assert loop.client.requests[0].messages[-1]["content"] == COMPACT_REQUEST and loop.usage.requests == 1
    # and what the next request makes the server read again: the summary request's re-read and its own
    assert re.fullmatch(r"compacted the conversation: ~\d+ -> ~\d+ tokens; the server reads about [\d,]+ tokens again",
                        notices[-1])


def test_a_compaction_that_would_not_shrink_is_not_applied_nor_tried_again_soon():
    loop, notices = FakeLoop(Config(num_ctx=100, compact_at=0.5), Summarizing("x" * 5000)), []
    exchanges(loop.conversation, 3, size=40)
    before = list(loop.conversation.messages)
    keeper = ContextKeeper(loop, notices.append)
    assert not keeper.compact(only_if_needed=True)
    assert loop.conversation.messages == before and "not applied" in notices[-1]
    assert keeper.compaction.failed_at == keeper.tokens()
    assert not keeper.compaction.worth_it(keeper.tokens(), loop.config)  # not again until it has grown


def test_a_server_finding_the_prompt_too_long_narrows_the_window_and_gets_one_more_try():
    loop, notices = FakeLoop(Config(num_ctx=8192)), []
    exchanges(loop.conversation, 2)
    keeper = ContextKeeper(loop, notices.append)
    tries = []

    def ask():
        tries.append(len(loop.conversation.messages))
        if len(tries) == 1:
            raise LLMError("request (6000 tokens) exceeds the available context size (4096 tokens)", status=400)
        return "answered"

    assert keeper.ask_fitting(ask) == "answered"
    assert loop.config.num_ctx == 4096 and tries == [4, 3]  # compacted before the second try
    assert "compacting and asking once more" in notices[0]


def test_a_prompt_still_too_long_after_compaction_is_one_error_with_the_numbers():
    loop = FakeLoop(Config(num_ctx=8192))
    keeper = ContextKeeper(loop, lambda message: None)

    def ask():
        raise LLMError("request (6000 tokens) exceeds the available context size (4096 tokens)", status=400)

    with pytest.raises(LLMError, match=r"does not fit the server's context window \(6000 tokens needed, 4096"):
        keeper.ask_fitting(ask)


def test_a_server_that_cut_the_prompt_narrows_the_window_and_compaction_comes_first():
    loop, notices = FakeLoop(Config(provider="openai", num_ctx=8192)), []
    exchanges(loop.conversation, 1, size=2000)
    keeper = ContextKeeper(loop, notices.append)
    keeper.learn(100, loop.request())  # what the server counted first is learned
    exchanges(loop.conversation, 2, size=2000)
    keeper.learn(110, loop.request())  # much more was sent, hardly more counted: the server cut it
    assert "the server read only 110" in notices[-1]
    assert loop.config.num_ctx == 110 and keeper.server_cut


def test_another_server_starts_learning_again():
    keeper = ContextKeeper(FakeLoop(Config(num_ctx=8192)), lambda message: None)
    keeper.calibration.at_least(2.0)
    keeper.server_cut = True
    keeper.meet_server()
    assert keeper.calibration.tokens_per_estimate == 1.0 and not keeper.server_cut


def test_a_count_too_low_to_be_true_is_said_once_and_teaches_nothing():
    loop, notices = FakeLoop(Config(provider="openai", num_ctx=8192)), []
    exchanges(loop.conversation, 2, size=2000)
    keeper = ContextKeeper(loop, notices.append)
    keeper.learn(1, loop.request())
    keeper.learn(0, loop.request())
    assert keeper.calibration.tokens_per_estimate == 1.0 and not keeper.server_cut
    assert len(notices) == 1 and re.fullmatch(r"the server reports 1 prompt tokens for a request of about \d+; "
                                              r"ayder estimates the window from its own count", notices[0])


def test_a_count_of_only_what_was_added_is_not_learned_and_not_called_implausible():
    loop, notices = FakeLoop(Config(provider="openai", num_ctx=8192)), []
    exchanges(loop.conversation, 3, size=2000)
    keeper = ContextKeeper(loop, notices.append)
    keeper.learn(3000, loop.request())
    learned = keeper.calibration.tokens_per_estimate
    loop.conversation.add_user("and now?")
    keeper.learn(9, loop.request())  # the cached prefix left out: only the new message counted
    assert keeper.calibration.tokens_per_estimate == learned and notices == []


# --- the overflow retry, a cut by the server, and what the notices say (the window group's mutation survivors)

TOO_LONG = "the prompt is too long for this model"  # a server's refusal that names no numbers


def test_a_refusal_naming_no_numbers_narrows_nothing_and_ends_in_an_error_naming_none():
    loop, notices = FakeLoop(Config(num_ctx=8192)), []
    exchanges(loop.conversation, 2)
    keeper = ContextKeeper(loop, notices.append)

    def ask():
        raise LLMError(TOO_LONG, status=400)

    with pytest.raises(LLMError) as raised:
        keeper.ask_fitting(ask)
    assert str(raised.value).startswith(f"the conversation does not fit the server's context window: {TOO_LONG}")
    assert raised.value.status == 400
    assert "llama.cpp -c N" in raised.value.hint
    assert raised.value.hint.endswith("set --num-ctx to what it serves, or /reset")
    assert loop.config.num_ctx == 8192  # nothing said what the server serves
    assert notices[0] == "the server found the conversation too long; compacting and asking once more"


@pytest.mark.parametrize("num_ctx, available, served", [(4096, 4096, 4096), (None, 4096, 4096), (2048, 4096, 2048)])
def test_the_retry_narrows_the_window_only_to_less_than_ayder_assumed(num_ctx, available, served):
    loop = FakeLoop(Config(num_ctx=num_ctx))
    exchanges(loop.conversation, 2)
    keeper = ContextKeeper(loop, lambda message: None)
    tries = []

    def ask():
        tries.append(1)
        if len(tries) == 1:
            raise LLMError(f"request (6000 tokens) exceeds the available context size ({available} tokens)", status=400)
        return "answered"

    assert keeper.ask_fitting(ask) == "answered"
    assert loop.config.num_ctx == served


def test_after_the_compaction_a_server_cut_asked_for_the_next_requests_are_not_compacted_again():
    client = Summarizing()
    loop = FakeLoop(Config(num_ctx=8192), client)
    exchanges(loop.conversation, 4)
    keeper = ContextKeeper(loop, lambda message: None)
    keeper.server_cut = True
    keeper.fit(forced=False)
    assert len(client.requests) == 1  # the summary
    exchanges(loop.conversation, 2)
    keeper.fit(forced=False)
    keeper.fit(forced=False)
    assert len(client.requests) == 1 and not keeper.server_cut


def test_ollama_cutting_the_prompt_it_was_pinned_to_makes_ayder_count_that_prompt_a_tenth_over_the_window():
    loop, notices = FakeLoop(Config(provider="ollama", num_ctx=4096)), []
    exchanges(loop.conversation, 1, size=2000)
    keeper = ContextKeeper(loop, notices.append)
    first = prompt_estimate(loop.request())
    keeper.learn(first, loop.request())  # one server token an estimated one
    exchanges(loop.conversation, 3, size=1200)
    keeper.learn(first + 10, loop.request())
    assert re.fullmatch(rf"the server read only {first + 10} of about \d+ prompt tokens: it cut the conversation "
                        r"to fit its context window; compacting before the next request", notices[-1])
    assert loop.config.num_ctx == 4096  # Ollama serves the window it is pinned to
    assert 1.05 * 4096 < keeper.tokens() < 1.15 * 4096  # the prompt it cut counts as over the window now
    assert keeper.server_cut


def test_the_summary_request_ends_with_the_instruction_as_the_users_message_and_its_usage_is_counted():
    class Counted(Summarizing):
        def stream(self, request):
            self.requests.append(request)
            yield Delta(content="short summary", finish_reason="stop",
                        usage=Usage(prompt_tokens=900, completion_tokens=20, prompt_per_second=450.0))

    client = Counted()
    loop = FakeLoop(Config(num_ctx=8192, model="qwen3"), client)
    exchanges(loop.conversation, 3)
    keeper = ContextKeeper(loop, lambda message: None)
    assert keeper.summarize(loop.conversation.messages[1:3], "Summarize.") == "short summary"
    assert client.requests[0].messages[-1] == {"role": "user", "content": "Summarize."}
    assert client.requests[0].tools is None or client.requests[0].tools == []
    assert (loop.usage.requests, loop.usage.prompt_tokens, loop.usage.completion_tokens) == (1, 900, 20)
    assert loop.usage.last_reply["model"] == client.requests[0].model
    assert loop.usage.last_reply["finish_reason"] == "stop"
    assert keeper.pace.speed == 450.0  # the summary's reading speed is learned too


def test_the_reread_note_counts_the_summary_request_once_then_only_the_next_request():
    loop = FakeLoop(Config(num_ctx=8192))
    exchanges(loop.conversation, 3)
    keeper = ContextKeeper(loop, lambda message: None)

    def said(note: str) -> int:
        return int(re.search(r"reads about ([\d,]+) tokens again", note).group(1).replace(",", ""))

    next_one = keeper.calibration.tokens(keeper.cache.reread(loop.request()))
    assert said(keeper.reread_note()) == next_one  # nothing sent yet
    keeper.paced(loop.request())
    assert said(keeper.reread_note()) == 0  # the same request again: an extension
    keeper.summarize(loop.conversation.messages[1:3], "Summarize.")
    with_summary, alone = said(keeper.reread_note()), said(keeper.reread_note())
    assert alone == keeper.calibration.tokens(keeper.cache.reread(loop.request())) > 0
    assert with_summary > alone  # the summary request's re-read said once, with the next request's
    keeper.pace.speed = 100.0
    assert keeper.reread_note().endswith("at 100 tok/s)")


def test_what_each_request_makes_the_server_read_again_adds_up_in_the_sessions_usage():
    loop = FakeLoop(Config(num_ctx=8192))
    exchanges(loop.conversation, 3)
    keeper = ContextKeeper(loop, lambda message: None)
    keeper.paced(loop.request())
    total = 0
    for i in range(2):
        earlier = loop.conversation.messages[1]
        loop.conversation.messages[1] = {**earlier, "content": earlier["content"] + f" changed {i}"}  # read again
        total += keeper.calibration.tokens(keeper.cache.reread(loop.request()))
        keeper.paced(loop.request())
    assert loop.usage.reread_tokens == total > 0
    keeper.pace.speed = 200.0  # measured: the first data is waited for as long as reading the prompt takes
    request = loop.request()
    assert keeper.paced(request).reading.tokens == keeper.tokens() > 0


def test_a_server_profile_gives_a_new_keeper_the_speed_and_prefix_reuse_measured_before(tmp_path):
    config = Config(num_ctx=8192, base_url="http://127.0.0.1:8080/v1", model="qwen3")
    profiles = ServerProfiles(tmp_path / "servers.json")
    profiles.remember(config.resolved_base_url, config.resolved_model, prompt_per_second=321.0,
                      partial_prefix_reuse=True)
    profiles.remember(config.resolved_base_url, "another", prompt_per_second=5.0, partial_prefix_reuse=False)
    loop = FakeLoop(config)
    loop.profiles = profiles
    keeper = ContextKeeper(loop, lambda message: None)
    assert keeper.pace.speed == 321.0 and keeper.cache.partial_reuse is True
    assert keeper.pace.reading(10_000) is not None


# --- the window held within one message (window.py): what is refused, cut and cleared, and what the notices say

REFUSAL = (r"the request does not fit the {window}-token context window: about (\d+) tokens, (\d+) of them the tool "
           r"schemas and system prompt every request carries; give a larger window with --num-ctx N \(and the "
           r"server: llama.cpp -c N, Ollama num_ctx\)")


def _numbers_refused(keeper: ContextKeeper, window: int) -> tuple[int, int]:
    with pytest.raises(LLMError) as raised:
        keeper.window.hold()
    return tuple(int(n) for n in re.fullmatch(REFUSAL.format(window=window), str(raised.value)).groups())


def test_a_window_too_small_for_the_least_of_the_system_prompt_is_refused_naming_that_least():
    loop = FakeLoop(Config(num_ctx=256))
    loop.conversation.system_prompt = "the house rules, at length. " * 700
    loop.conversation.add_user("hi")
    keeper = ContextKeeper(loop, lambda message: None)
    about, carried = _numbers_refused(keeper, 256)
    assert about == keeper.tokens() > 256
    # no tool schemas: what every request carries is the system prompt as cut to its least
    assert SMALLEST_CUT_SYSTEM // 4 <= carried <= SMALLEST_CUT_SYSTEM // 4 + 10
    assert len(loop.conversation.system_prompt) == 700 * 28  # nothing cut, nothing sent


def test_a_request_of_many_short_messages_that_no_remedy_fits_is_refused_and_nothing_is_lost():
    loop = FakeLoop(Config(num_ctx=1200, auto_compact=False))
    exchanges(loop.conversation, 150, size=10)
    keeper = ContextKeeper(loop, lambda message: None)
    about, carried = _numbers_refused(keeper, 1200)
    assert about > 1200 and 0 < carried < 20  # the system prompt is one word
    assert len(loop.conversation.messages) == 300


def test_a_long_system_prompt_is_cut_once_to_half_the_prompts_share_and_the_notice_says_how_much():
    loop, notices = FakeLoop(Config(num_ctx=2048)), []
    rules = "".join(f"- rule {i}: keep module {i} tidy and tested\n" for i in range(500))
    loop.conversation.system_prompt = rules
    loop.conversation.add_user("hi")
    keeper = ContextKeeper(loop, notices.append)
    keeper.calibration.at_least(1.25)  # the server counts a quarter more tokens than ayder estimates
    keeper.window.hold()
    kept = loop.conversation.system_prompt
    said = re.fullmatch(r"the system prompt \(with the project instructions\) is about (\d+) tokens: (\d+) characters "
                        r"cut from its middle, so requests fit the 2048-token context window", notices[0])
    assert said and int(said.group(1)) == int(len(rules) / 4 * 1.25) and int(said.group(2)) == len(rules) - len(kept)
    half_share = (2048 - 2048 // 4) // 2
    assert 0.9 * half_share <= keeper.calibration.tokens(len(kept) // 4) <= half_share  # in the server's tokens
    assert kept.startswith("- rule 0:") and kept.endswith("- rule 499: keep module 499 tidy and tested\n")
    keeper.window.hold()
    assert loop.conversation.system_prompt == kept and len(notices) == 1  # once for the session


def _tool_loop(conversation: Conversation, rounds: int, result_chars: int, reply_chars: int) -> None:
    conversation.add_user("Read the modules and tell me what they define.")
    for n in range(rounds):
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "read_file", "arguments": f'{{"file_path": "f{n}.py"}}'}}
        conversation.messages.append({"role": "assistant", "content": f"round {n}: " + "r" * reply_chars,
                                      "tool_calls": [call]})
        conversation.messages.append({"role": "tool", "tool_call_id": f"call_{n}", "content": "x" * result_chars})


def test_a_summary_refused_as_too_long_is_said_and_the_old_results_are_cleared_instead():
    class Refusing(Summarizing):
        def stream(self, request):
            self.requests.append(request)
            raise LLMError("request (9000 tokens) exceeds the available context size (2048 tokens)", status=400)
            yield  # a generator, as a client's stream is

    client = Refusing()
    loop, notices = FakeLoop(Config(num_ctx=2048), client), []
    _tool_loop(loop.conversation, rounds=6, result_chars=1600, reply_chars=800)
    keeper = ContextKeeper(loop, notices.append)
    keeper.window.hold()
    assert len(client.requests) == 1  # the summary was asked for
    assert "compaction did not fit the window either; not applied" in notices
    assert any(n.startswith("cleared the results of 5 earlier tool calls (they can be made again), to make room in "
                            "the 2048-token context window; the server reads about") for n in notices)
    assert keeper.tokens() <= 2048  # within the window it is sent; the replies too short to cut
    assert loop.conversation.messages[-1]["content"].startswith("x" * 400)  # the latest result is not cleared


def test_a_summary_refused_for_another_reason_is_the_error_the_user_sees():
    class Failing(Summarizing):
        def stream(self, request):
            raise LLMError("model not found", status=404)
            yield

    loop = FakeLoop(Config(num_ctx=2048), Failing())
    _tool_loop(loop.conversation, rounds=6, result_chars=1600, reply_chars=800)
    with pytest.raises(LLMError, match="^model not found$"):
        ContextKeeper(loop, lambda message: None).window.hold()


def test_a_trim_clears_the_oldest_results_down_to_a_part_of_the_prompts_share_so_the_next_rounds_append():
    loop, notices = FakeLoop(Config(num_ctx=4096, auto_compact=False)), []
    _tool_loop(loop.conversation, rounds=9, result_chars=1600, reply_chars=10)
    keeper = ContextKeeper(loop, notices.append)
    share = 4096 - 4096 // 4
    assert keeper.tokens() > share
    keeper.window.hold()
    cleared = int(re.match(r"cleared the results of (\d+) earlier tool calls", notices[0]).group(1))
    results = [m["content"] for m in loop.conversation.messages if m["role"] == "tool"]
    assert all(len(r) < 200 for r in results[:cleared]) and results[cleared:] == ["x" * 1600] * (9 - cleared)
    # down to 0.4 of the share (a server that reads the whole prompt again after a change), not just under it
    assert keeper.tokens() <= 0.4 * share < keeper.tokens() + 400  # one result fewer cleared would not do
    assert len(notices) == 1


def test_where_clearing_frees_too_little_the_earlier_rounds_are_summarized_from_their_whole_results_instead():
    loop, notices = FakeLoop(Config(num_ctx=2048)), []
    _tool_loop(loop.conversation, rounds=4, result_chars=600, reply_chars=900)  # long replies: clearing frees little
    keeper = ContextKeeper(loop, notices.append)
    keeper.window.hold()
    summary, = loop.client.requests
    assert [m["content"] for m in summary.messages if m["role"] == "tool"] == ["x" * 600] * 3  # whole, not cleared
    assert len(notices) == 1 and notices[0].startswith("compacted the conversation: ~")  # clear or summarize
    assert "short summary" in loop.conversation.messages[0]["content"]
    assert loop.conversation.messages[-1]["content"] == "x" * 600  # the latest round stays as it was
    assert keeper.tokens() <= 2048 - 2048 // 4


def test_between_messages_a_trim_clears_results_and_asks_for_no_summary():
    loop, notices = FakeLoop(Config(num_ctx=2048)), []
    _tool_loop(loop.conversation, rounds=4, result_chars=1600, reply_chars=300)
    loop.conversation.messages.append({"role": "assistant", "content": "They define numbered constants."})
    loop.conversation.add_user("And the tests?")
    keeper = ContextKeeper(loop, notices.append)
    keeper.window.hold()
    assert loop.client.requests == []  # compaction between messages had its turn before the hold
    assert notices == ["cleared the results of 4 earlier tool calls (they can be made again), to make room in the "
                       "2048-token context window; the server reads about 0 tokens again"]
    assert loop.conversation.messages[-1] == {"role": "user", "content": "And the tests?"}
