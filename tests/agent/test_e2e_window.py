"""The window inside one message: a tool loop that outgrows a small window is held within it, round by
round, and ends with the model's answer; a window that cannot hold a request at all is one line; a
server's prompt count too low to be true is said once and not believed."""

from __future__ import annotations

import json

import pytest
from support import fakellm
from support.fakellm import Reply, numbered
from support.harness import server_args

WINDOW = 2048
ROUNDS = 12
ANSWER = "All twelve modules define numbered constants; nothing else."
REQUEST = "Read every module f0.py to f11.py and tell me what they define."


def _serve_a_small_window(fake, protocol: str) -> None:
    """The fake serves WINDOW tokens, says so as llama.cpp (/props) or Ollama (/api/show) does, and
    refuses a prompt over it as llama.cpp does (HTTP 400, exceed_context_size_error)."""
    fake.window = WINDOW
    if protocol == "openai":
        fake.props = {"default_generation_settings": {"n_ctx": WINDOW}}
    else:
        fake.show = {"parameters": "", "model_info": {"qwen2.context_length": WINDOW}, "capabilities": ["tools"]}


def _modules(project, count: int = ROUNDS) -> list[str]:
    """`count` modules of about 4 KB each: one of them alone fills half the window."""
    names = []
    for n in range(count):
        (project / f"f{n}.py").write_text("".join(f"VALUE_{n}_{i} = {i}  # a numbered constant\n" for i in range(100)))
        names.append(f"f{n}.py")
    return names


def _reader(names: list[str], form: str = "native"):
    """A model that reads the modules one per round (a native call, or a [CALL] line in its text), then
    answers; a summary request (no tools) gets a summary."""
    read: list[str] = []

    def respond(body: dict) -> Reply:
        if not body.get("tools"):
            return Reply(text="The user asked what the modules define; read so far: " + ", ".join(read) + ".")
        if len(read) < len(names):
            read.append(names[len(read)])
            if form == "text":
                return Reply(text=f"[CALL] read_file {json.dumps({'file_path': read[-1]})}")
            return Reply.calling("read_file", {"file_path": read[-1]})
        return Reply(text=ANSWER)

    return respond


def _sizes(fake) -> list[int]:
    """Each chat request's prompt, counted as the fake server counts it (its JSON, four characters a token)."""
    return [fakellm.prompt_tokens(r["body"]["messages"], r["body"].get("tools")) for r in fake.chat_requests()]


def _assert_held_within_the_window(fake, result) -> None:
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(ANSWER)
    assert result.stderr.count("→ read_file(") == ROUNDS  # every round ran
    assert fake.refused == [] and fake.truncated == []  # the server never found a prompt too long
    assert max(_sizes(fake)) <= WINDOW
    assert max(len(json.dumps(r["body"])) // 4 for r in fake.chat_requests()) <= WINDOW  # the whole body too
    tools = [r["body"] for r in fake.chat_requests() if r["body"].get("tools")]
    assert any(REQUEST in m["content"] for m in tools[-1]["messages"])  # the task is still there at the end


@pytest.mark.parametrize("form", ["native", "text"])
def test_a_twelve_round_tool_loop_in_one_message_on_a_2048_token_window_never_sends_over_it(
        fake, run_ayder, project, protocol, form):
    _serve_a_small_window(fake, protocol)
    fake.respond = _reader(_modules(project), form)
    result = run_ayder(*server_args(fake, protocol), REQUEST)
    _assert_held_within_the_window(fake, result)
    # cheapest first: earlier results cleared every round; a summary now and then, when they pile up
    assert "cleared the results of 1 earlier tool call (they can be made again)" in result.stderr
    assert 1 <= result.stderr.count("compacted the conversation") <= 3
    summaries = [r for r in fake.chat_requests() if not r["body"].get("tools")]
    assert len(summaries) == result.stderr.count("compacted the conversation")


def test_a_32_kb_agents_md_on_a_2048_token_window_is_cut_once_and_the_loop_still_ends_with_the_answer(
        fake, run_ayder, project):
    rules = "# House rules\n" + "".join(f"- rule {i}: keep module {i} tidy and tested\n" for i in range(740))
    assert 30_000 < len(rules) < 32 * 1024
    (project / "AGENTS.md").write_text(rules + "- the last rule: answer briefly\n")
    _serve_a_small_window(fake, "openai")
    fake.respond = _reader(_modules(project))
    result = run_ayder(*server_args(fake, "openai"), REQUEST)
    _assert_held_within_the_window(fake, result)
    assert result.stderr.count("the system prompt (with the project instructions) is about") == 1
    system = fake.chat_requests()[0]["body"]["messages"][0]["content"]
    assert "characters cut from the middle of this message" in system
    assert "the last rule: answer briefly" in system  # both ends stay


def test_a_window_too_small_for_the_tool_schemas_is_one_line_naming_num_ctx_and_nothing_is_sent(fake, run_ayder):
    result = run_ayder(*server_args(fake, "openai"), "--num-ctx", "256", "hi")
    assert result.returncode == 1
    assert result.stderr.startswith("error: the request does not fit the 256-token context window: about ")
    assert "--num-ctx N" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert fake.chat_requests() == []


def test_a_server_that_reports_one_prompt_token_is_said_once_and_not_believed(fake, run_ayder, project):
    _serve_a_small_window(fake, "openai")
    fake.reported_prompt = 1  # a proxy's count, whatever the request held
    fake.respond = _reader(_modules(project, count=4))
    result = run_ayder(*server_args(fake, "openai"), REQUEST)
    assert result.returncode == 0, result.stderr
    notice = "the server reports 1 prompt tokens for a request of about"
    assert result.stderr.count(notice) == 1
    assert "ayder estimates the window from its own count" in result.stderr
    assert fake.refused == [] and max(_sizes(fake)) <= WINDOW  # its count did not make ayder think all fits
    assert result.stdout.strip().endswith(ANSWER)


def test_between_messages_a_request_over_the_window_is_compacted_before_it_is_sent_not_after_a_refusal(
        fake, run_ayder):
    fake.window = 1000  # the tool schemas and system prompt take about 650 of it
    fake.props = {"default_generation_settings": {"n_ctx": 1000}}
    long = numbered("A long first answer about the code. ", 60)
    fake.queue(Reply(text=long), Reply(text="summary of the first exchange"), Reply(text="second answer"))
    result = run_ayder(*server_args(fake, "openai"), input="first question " + "in many words " * 40 + "\nsecond\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("second answer\n")
    assert "compacted the conversation" in result.stderr
    assert fake.refused == [] and max(_sizes(fake)) <= 1000
    assert "too long; compacting and asking once more" not in result.stderr
