"""ContextKeeper and compaction with a fake loop: no client, no server."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ayder_cli.agent.compaction import COMPACT_REQUEST, cut_point
from ayder_cli.agent.context import ContextKeeper
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.request import next_request
from ayder_cli.agent.usage import SessionUsage
from ayder_cli.llm.wire_types import Delta, LLMError
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
    assert notices[-1].startswith("compacted the conversation: ~")


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
    assert len(notices) == 1 and notices[0].startswith("the server reports 1 prompt tokens for a request of about")


def test_a_count_of_only_what_was_added_is_not_learned_and_not_called_implausible():
    loop, notices = FakeLoop(Config(provider="openai", num_ctx=8192)), []
    exchanges(loop.conversation, 3, size=2000)
    keeper = ContextKeeper(loop, notices.append)
    keeper.learn(3000, loop.request())
    learned = keeper.calibration.tokens_per_estimate
    loop.conversation.add_user("and now?")
    keeper.learn(9, loop.request())  # the cached prefix left out: only the new message counted
    assert keeper.calibration.tokens_per_estimate == learned and notices == []
