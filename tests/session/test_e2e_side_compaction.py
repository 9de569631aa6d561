"""Compaction summaries by the side model (`side_model`) end to end, the side model on a second fake
server: /compact and automatic compaction ask it, not the main model; a summary whose request would
not fit the side model's window (what its server reports, else 8192 tokens) is the main model's,
said once with -v; no side_model: the main model summarizes, as it always did."""

from __future__ import annotations

from support import fakellm
from support.fakellm import FakeLLM, Reply, numbered
from support.files import write_json
from support.harness import server_args
from support.requests_seen import all_request_text, messages

ASKED_FOR_A_SUMMARY = "Summarize everything above"  # compaction.py's request, as the model reads it
SIDE = "tiny-summarizer"


def use_side_model(isolated_env, side: FakeLLM) -> None:
    write_json(isolated_env / ".config" / "ayder" / "config.json",
               {"side_model": {"model": SIDE, "base_url": side.openai_url, "provider": "openai"}})


def summary_requests(server: FakeLLM) -> list[dict]:
    return [r for r in server.chat_requests() if ASKED_FOR_A_SUMMARY in messages(r)[-1]["content"]]


def test_compact_asks_the_side_model_on_its_server_and_its_summary_goes_on_in_the_conversation(
        fake, run_ayder, isolated_env):
    big = "lorem ipsum " * 100
    with FakeLLM() as side:
        use_side_model(isolated_env, side)
        side.queue(Reply(text="<think>short</think>The user sent a long lorem note; nothing is open."))
        fake.queue(Reply(text="A1 " + big), Reply(text="A2"), Reply(text="A3"))

        result = run_ayder(*server_args(fake, "ollama"), "-v", input=f"Q1 {big}\nQ2\n/compact\nQ3\n")

        assert result.returncode == 0, result.stderr
        assert [r["body"]["model"] for r in side.chat_requests()] == [SIDE]
        asked = side.chat_requests()[0]
        assert not asked["body"].get("tools") and ASKED_FOR_A_SUMMARY in messages(asked)[-1]["content"]
        assert "Q1 lorem ipsum" in all_request_text(side)  # it read what it summarized
    assert len(fake.chat_requests()) == 3 and summary_requests(fake) == []  # Q1, Q2, Q3: no summary
    last = messages(fake.chat_requests()[-1])
    assert any("The user sent a long lorem note; nothing is open." in m["content"] for m in last)
    assert not any("Q1 lorem" in m["content"] for m in last)  # replaced by the summary
    assert "compacted the conversation" in result.stderr
    assert f"asking {SIDE} (side_model) for the compaction summary" in result.stderr


def test_a_conversation_too_big_for_the_side_models_reported_window_is_summarized_by_the_main_model(
        fake, run_ayder, isolated_env):
    big = "lorem ipsum " * 600  # about 1,800 tokens: more than the side server's 1,024, well within the main's
    with FakeLLM() as side:
        side.props = {"default_generation_settings": {"n_ctx": 1024}}  # llama.cpp's /props
        use_side_model(isolated_env, side)
        fake.queue(Reply(text="A1"), Reply(text="A2"), Reply(text="Summary by the main model, first."),
                   Reply(text="A3"), Reply(text="Summary by the main model, second."), Reply(text="A4"))

        result = run_ayder(*server_args(fake, "ollama"), "-v",
                           input=f"Q1 {big}\nQ2 {big}\n/compact\nQ3\n/compact\nQ4\n")

        assert result.returncode == 0, result.stderr
        assert side.chat_requests() == []
    assert len(summary_requests(fake)) == 2
    assert result.stderr.count("compacted the conversation") == 2
    assert any("Summary by the main model, second." in m["content"] for m in messages(fake.chat_requests()[-1]))
    note = "compaction summary by the main model: its request (~"
    assert result.stderr.count(note) == 1  # said once
    assert f"does not fit the side model {SIDE}'s 1024-token window" in result.stderr


def test_without_a_reported_window_the_side_model_holds_8192_tokens(fake, run_ayder, isolated_env):
    big = "lorem ipsum " * 3000  # about 9,000 tokens
    with FakeLLM() as side:  # it reports no window
        use_side_model(isolated_env, side)
        fake.queue(Reply(text="A1"), Reply(text="A2"), Reply(text="Summary by the main model."), Reply(text="A3"))

        result = run_ayder(*server_args(fake, "ollama"), "--num-ctx", "32768", "-v",
                           input=f"Q1 {big}\nQ2\n/compact\nQ3\n")

        assert result.returncode == 0, result.stderr
        assert side.chat_requests() == []
    assert len(summary_requests(fake)) == 1
    assert f"does not fit the side model {SIDE}'s 8192-token window" in result.stderr


def test_automatic_compaction_asks_the_side_model_too(fake, run_ayder, isolated_env):
    """Many turns of long answers in the main server's 2,048-token window: each compaction's summary
    comes from the side server, and no request to the main server goes over its window."""
    fake.window = 2048
    fake.props = {"default_generation_settings": {"n_ctx": 2048}}
    fake.default = Reply(text=numbered("Here is a long answer about the code. ", 25))
    with FakeLLM() as side:
        use_side_model(isolated_env, side)
        side.default = Reply(text="Side summary: the user asked about parts of the code.")
        questions = "".join(f"question {n}: tell me more about part {n}\n" for n in range(12))

        result = run_ayder(*server_args(fake, "openai"), input=questions)

        assert result.returncode == 0, result.stderr
        assert side.chat_requests() and summary_requests(side) == side.chat_requests()
    assert result.stdout.count("Here is a long answer") == 12 * 25  # every question was answered
    assert summary_requests(fake) == []
    assert "Side summary: the user asked about parts of the code." in all_request_text(fake)
    sizes = [fakellm.prompt_tokens(r["body"]["messages"], r["body"].get("tools")) for r in fake.chat_requests()]
    assert max(sizes) <= 2048


def test_without_a_side_model_the_main_model_summarizes(fake, run_ayder):
    big = "lorem ipsum " * 100
    fake.queue(Reply(text="A1 " + big), Reply(text="A2"), Reply(text="Summary by the main model."), Reply(text="A3"))

    result = run_ayder(*server_args(fake, "ollama"), "-v", input=f"Q1 {big}\nQ2\n/compact\nQ3\n")

    assert result.returncode == 0, result.stderr
    assert len(summary_requests(fake)) == 1 and len(fake.chat_requests()) == 4
    assert any("Summary by the main model." in m["content"] for m in messages(fake.chat_requests()[-1]))
    assert "side_model" not in result.stderr and "side model" not in result.stderr
