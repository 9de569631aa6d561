"""The context window: learned from the server, overridden by the user, and never exceeded silently."""

from __future__ import annotations

import json

from support import fakellm
from support.fakellm import Reply, numbered
from support.harness import server_args

OLLAMA_SHOW = {  # the shape of Ollama's POST /api/show
    "parameters": "num_ctx 2048\nstop \"<|im_end|>\"",
    "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 4096},
    "capabilities": ["completion", "tools"],
}


def test_llama_cpp_props_give_the_served_window(fake, run_ayder):
    fake.props = {"default_generation_settings": {"n_ctx": 2048}, "total_slots": 1}
    result = run_ayder(*server_args(fake, "openai"), "-v", "q")
    assert result.returncode == 0, result.stderr
    assert "context window: 2048 tokens (llama.cpp /props)" in result.stderr


def test_vllm_max_model_len_gives_the_served_window(fake, run_ayder):
    fake.model_meta = {"max_model_len": 16384}
    result = run_ayder(*server_args(fake, "openai"), "-m", fake.models[0], "-v", "q")
    assert "context window: 16384 tokens (vLLM max_model_len)" in result.stderr


def test_a_num_ctx_above_what_the_server_serves_is_kept_with_a_warning(fake, run_ayder):
    fake.props = {"default_generation_settings": {"n_ctx": 2048}}
    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "8192", "q")
    assert result.returncode == 0, result.stderr
    assert "num_ctx is 8192, but the server serves 2048 tokens" in result.stderr


def test_ollama_gets_one_pinned_num_ctx_capped_at_the_trained_maximum_and_keep_alive(fake, run_ayder):
    fake.show = OLLAMA_SHOW
    fake.queue(Reply(text="one"), Reply(text="two"))
    result = run_ayder("--base-url", fake.url, "-v", input="first\nsecond\n")
    assert result.returncode == 0, result.stderr
    assert "context window: 4096 tokens (the model's trained maximum)" in result.stderr
    bodies = [request["body"] for request in fake.chat_requests()]
    assert [body["options"]["num_ctx"] for body in bodies] == [4096, 4096]
    assert [body["keep_alive"] for body in bodies] == ["10m", "10m"]


def test_the_users_num_ctx_wins_over_the_server(fake, run_ayder):
    fake.show = OLLAMA_SHOW
    result = run_ayder("--base-url", fake.url, "--num-ctx", "3000", "q")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["options"]["num_ctx"] == 3000


def test_a_server_that_reports_nothing_keeps_the_configured_window(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "-v", "q")
    assert "context window: 8192 tokens (from the config; the server does not say)" in result.stderr
    assert fake.chat_requests()[0]["body"]["options"]["num_ctx"] == 8192


LLAMA_CPP_OVERFLOW = "request (4102 tokens) exceeds the available context size (2048 tokens), try increasing it"


def test_a_server_that_finds_the_conversation_too_long_gets_one_more_try_after_compaction(fake, run_ayder):
    long_answer = numbered("a first answer of many words. ", 200).strip()
    fake.queue(Reply(text=long_answer), Reply(status=400, error=LLAMA_CPP_OVERFLOW),
               Reply(text="summary of the earlier turns"), Reply(text="second answer"))
    result = run_ayder(*server_args(fake, "openai"), input="first question\nsecond question\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{long_answer}\nsecond answer\n"
    assert "too long; compacting and asking once more" in result.stderr
    retried = fake.chat_requests()[-1]["body"]["messages"]
    assert "summary of the earlier turns" in retried[1]["content"]  # the older turns went into a summary
    assert retried[-1] == {"role": "user", "content": "second question"}


def test_a_conversation_that_still_does_not_fit_is_one_line_with_the_numbers(fake, run_ayder):
    fake.queue(Reply(status=400, error=LLAMA_CPP_OVERFLOW), Reply(status=400, error=LLAMA_CPP_OVERFLOW))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 1
    assert "does not fit the server's context window (4102 tokens needed, 2048 available)" in result.stderr
    assert "llama.cpp -c N" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_message_too_big_for_the_window_is_cut_in_the_middle_before_it_is_sent(fake, run_ayder, project):
    fake.props = {"default_generation_settings": {"n_ctx": 2048}}
    document = "BEGINNING of the log\n" + "".join(f"line {n}: nothing happened\n" for n in range(3000)) + "the END\n"
    result = run_ayder(*server_args(fake, "openai"), "What happened at the end?", input=document)
    assert result.returncode == 0, result.stderr
    assert "characters cut from the middle of a user message" in result.stderr
    sent = fake.chat_requests()[0]["body"]["messages"][-1]["content"]
    assert "BEGINNING of the log" in sent and "the END" in sent and "What happened at the end?" in sent
    assert "characters cut from the middle of this message" in sent
    assert len(json.dumps(fake.chat_requests()[0]["body"])) < 2048 * 4  # about 4 characters a token


def test_status_shows_the_window_and_where_it_came_from(fake, run_ayder):
    fake.props = {"default_generation_settings": {"n_ctx": 2048}}
    result = run_ayder(*server_args(fake, "openai"), input="/status\n")
    assert result.returncode == 0, result.stderr
    assert "context:      2048 tokens: the server serves 2048 tokens (llama.cpp /props)" in result.stderr


# --- the prompt cache, and a window that the conversation outgrows

def test_the_cached_part_of_each_prompt_is_shown_per_reply_and_in_status(fake, run_ayder, protocol):
    fake.queue(Reply(text="hello", usage=(901, 5), cached=880))
    result = run_ayder(*server_args(fake, protocol), input="hi\n/status\n/usage\n")
    assert result.returncode == 0, result.stderr
    assert "tokens: in 901 (880 cached, 21 read) · out 5" in result.stderr
    assert "last request: 901 prompt tokens: 880 from the cache, 21 read" in result.stderr
    assert "prompt 901 (880 cached)" in result.stderr  # /usage


def test_a_server_that_does_not_report_its_cache_says_so_in_status(fake, run_ayder):
    fake.queue(Reply(text="hello", usage=(901, 5)))
    result = run_ayder(*server_args(fake, "openai"), input="hi\n/status\n")
    assert "tokens: in 901 · out 5" in result.stderr
    assert "901 prompt tokens (the server does not report its prompt cache)" in result.stderr


def _overflowing_session(fake, run_ayder, protocol, replies=12):
    """Many turns of long answers in a 2,048-token window: the session goes on, compacting."""
    fake.window = 2048
    fake.props = {"default_generation_settings": {"n_ctx": 2048}}
    fake.show = {**OLLAMA_SHOW, "parameters": "", "model_info": {"qwen2.context_length": 2048}}
    fake.default = Reply(text=numbered("Here is a long answer about the code. ", 25))
    questions = "".join(f"question {n}: tell me more about part {n}\n" for n in range(replies))
    return run_ayder(*server_args(fake, protocol), input=questions)


def test_a_session_that_outgrows_a_small_window_compacts_and_never_sends_too_much(fake, run_ayder, protocol):
    result = _overflowing_session(fake, run_ayder, protocol)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Here is a long answer") == 12 * 25  # every question was answered
    assert "compacted the conversation" in result.stderr
    sizes = [fakellm.prompt_tokens(r["body"]["messages"], r["body"].get("tools")) for r in fake.chat_requests()]
    assert max(sizes) <= 2048  # no request was refused or cut by the server
    assert fake.truncated == []


def test_ollama_is_asked_not_to_cut_and_its_refusal_is_compacted_and_asked_again(fake, run_ayder):
    fake.show = {**OLLAMA_SHOW, "parameters": ""}
    fake.window = 1000  # smaller than ayder believes (--num-ctx): the server refuses, ayder recovers
    fake.queue(Reply(text=numbered("A long first answer. ", 60)), Reply(), Reply(text="summary of the first turn"),
               Reply(text="second answer"))
    result = run_ayder(*server_args(fake, "ollama"), "--num-ctx", "4096", input="first\nsecond\n")
    assert result.returncode == 0, result.stderr
    assert all(r["body"]["truncate"] is False for r in fake.chat_requests())
    assert "too long; compacting and asking once more" in result.stderr
    assert result.stdout.endswith("second answer\n")
    assert fake.truncated == []


def test_a_server_that_cuts_the_prompt_silently_is_caught_by_its_count_and_the_conversation_compacted(
        fake, run_ayder):
    fake.cuts_silently = True  # as Ollama's /v1 endpoint does: 200, with the oldest messages dropped
    fake.window = 1500  # less than the user told ayder (--num-ctx 8192)
    long = numbered("A long answer about the code. ", 70)
    fake.queue(Reply(text=long), Reply(text=long), Reply(text=long), Reply(text="summary of the earlier turns"),
               Reply(text="fourth answer"))
    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "8192", input="first\nsecond\nthird\nfourth\n")
    assert result.returncode == 0, result.stderr
    assert len(fake.truncated) == 1  # the third request was cut by the server ...
    assert "the server read only" in result.stderr and "it cut the conversation to fit" in result.stderr
    last = fake.chat_requests()[-1]["body"]  # ... so the fourth went compacted, and whole
    assert any("summary of the earlier turns" in m["content"] for m in last["messages"])
    assert fakellm.prompt_tokens(last["messages"], last.get("tools")) <= 1500
    assert result.stdout.endswith("fourth answer\n")


def test_a_count_that_grows_less_than_the_estimate_or_leaves_out_the_cache_is_not_taken_for_a_cut(
        fake, run_ayder):
    long = "    indented code line\n" * 100  # about 600 estimated tokens, fewer real ones
    first = 1000
    fake.queue(Reply(text=long, usage=(first, 5)),
               Reply(text="ok", usage=(first + 300, 5)),  # grew by half the estimate: whitespace is cheap
               Reply(text="ok", usage=(40, 5)))  # only the new tokens: a server leaving its cache out
    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "8192", input="a\nb\nc\n")
    assert result.returncode == 0, result.stderr
    assert "cut the conversation" not in result.stderr
    assert "compacted" not in result.stderr


def test_a_compaction_that_could_not_shrink_the_context_asks_the_model_nothing(fake, run_ayder):
    """Two short exchanges: a summary could only be as big as what it replaces, so no request is made."""
    fake.queue(Reply(text="A1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, "ollama"), input="Q1\nQ2\n/compact\n")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 2  # the two questions; no summary asked for
    line = next(line for line in result.stderr.splitlines() if "would not shrink" in line)
    assert "smaller than a summary would be" in line and line.endswith("not applied, no model call")
    assert result.stderr.rstrip().endswith(line)  # said in one line


def test_compacting_again_right_after_a_compaction_asks_the_model_nothing(fake, run_ayder):
    big = "lorem ipsum " * 100
    fake.queue(Reply(text="A1 " + big), Reply(text="A2"), Reply(text="Summary: a long note was sent."))
    result = run_ayder(*server_args(fake, "ollama"), input=f"Q1 {big}\nQ2\n/compact\n/compact\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("compacted the conversation") == 1
    assert result.stderr.rstrip().splitlines()[-1].endswith(
        "nothing new since the last compaction; not applied, no model call")  # one line, nothing after it
    assert len(fake.chat_requests()) == 3  # Q1, Q2 and the one summary


def test_a_refusal_that_names_no_numbers_is_tried_once_more_then_one_error_with_the_hint(fake, run_ayder):
    fake.queue(Reply(status=400, error="context length exceeded"), Reply(status=400, error="context length exceeded"))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 1
    assert ("error: the conversation does not fit the server's context window: the server rejected the request "
            "(HTTP 400): context length exceeded\n") in result.stderr
    assert "tokens needed" not in result.stderr and "None" not in result.stderr
    assert "set --num-ctx to what it serves, or /reset" in result.stderr
    assert len(fake.chat_requests()) == 2 and "Traceback" not in result.stderr


def test_a_message_cut_to_fit_leaves_the_reply_its_room_a_quarter_of_the_window_at_most(fake, run_ayder):
    fake.props = {"default_generation_settings": {"n_ctx": 8192}}
    document = "BEGINNING of the log\n" + "".join(f"line {n}: nothing happened\n" for n in range(3000)) + "the END\n"
    prompts = []
    for reply in ("4096", "512"):
        fake.requests.clear()
        result = run_ayder(*server_args(fake, "openai"), "--max-tokens", reply, "What happened?", input=document)
        assert result.returncode == 0, result.stderr
        sent = fake.chat_requests()[0]["body"]
        prompts.append(fakellm.prompt_tokens(sent["messages"], sent.get("tools")))
    # a reply of 4096 gets a quarter of the window (2048), one of 512 its 512: the prompt has about 1536 fewer
    assert 1300 < prompts[1] - prompts[0] < 1700
