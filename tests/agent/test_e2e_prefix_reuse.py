"""The server's prompt cache kept: a session that fits only appends; a tool loop under window pressure trims
rarely, frees room for several rounds at once and says what the server reads again; /usage counts it; llama.cpp
is asked to keep and reuse its cache; what the doctor learned of the server sets how much a trim frees."""

from __future__ import annotations

import json
import os
import re

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.prefix_cache import cache_report

from ayder_cli.storage.profiles import profiles_path

MODEL = "qwen2.5-coder:7b"
WINDOW = 8192
ROUNDS = 30
ANSWER = "Every module defines numbered constants."
REQUEST = f"Read m0.py to m{ROUNDS - 1}.py and say what they define."
SPEED = 100.0  # prompt tokens a second, as the fake's timings report them
REREAD = re.compile(r"the server reads about ([\d,]+) tokens again \(~(\d+) s at 100 tok/s\)")


def _modules(project, count: int = ROUNDS) -> None:
    """Modules of about 4.6 KB each as read_file shows them: a 8k window holds four or five."""
    for n in range(count):
        (project / f"m{n}.py").write_text("".join(f"VALUE_{n}_{i} = {i * 7}  # constant {i} of module {n}\n"
                                                  for i in range(88)))


def _reader(count: int = ROUNDS):
    """A model that reads the modules one a round and then answers; a summary request (no tools) gets one.
    Every reply reports the prompt speed, as llama.cpp's timings do."""
    read: list[str] = []

    def respond(body: dict) -> Reply:
        if not body.get("tools"):
            return Reply(text="The user asked what the modules define; read so far: " + ", ".join(read) + ".",
                         prompt_speed=SPEED)
        if len(read) < count:
            read.append(f"m{len(read)}.py")
            return Reply.calling("read_file", {"file_path": read[-1]}, prompt_speed=SPEED)
        return Reply(text=ANSWER, prompt_speed=SPEED)

    return respond


def _serve_8k(fake) -> None:
    fake.window = WINDOW
    fake.props = {"default_generation_settings": {"n_ctx": WINDOW}}  # llama.cpp's /props


def _remember_partial_reuse(fake, reuses: bool) -> None:
    """The server profile as `ayder --doctor` leaves it for this server and model."""
    path = profiles_path(os.environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({f"{fake.openai_url} {MODEL}": {"partial_prefix_reuse": reuses}}))


def _bodies(fake) -> list[dict]:
    return [r["body"] for r in fake.chat_requests()]


def _cleared(stderr: str) -> list[int]:
    """How many results each trim cleared, in order."""
    return [int(n) for n in re.findall(r"cleared the results of (\d+) earlier tool call", stderr)]


def test_a_session_that_fits_sends_every_request_as_an_extension_of_the_one_before(fake, run_ayder, project,
                                                                                    protocol):
    (project / "app.py").write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(40)))
    fake.queue(
        Reply.calling("read_file", {"file_path": "app.py"}), Reply(text="app.py defines f0 to f39."),
        Reply.calling("replace_string", {"file_path": "app.py", "old_string": "return 3\n", "new_string": "return 33\n"}),
        Reply.calling("run_shell_command", {"command": "python3 -c 'import app; print(app.f3())'"}),
        Reply(text="f3 now returns 33."),
        Reply.calling("write_file", {"file_path": "notes.txt", "content": "f3 returns 33\n"}),
        Reply.calling("read_file", {"file_path": "notes.txt"}), Reply.calling("list_files", {}),
        Reply(text="Noted in notes.txt."))
    stdin = "What does app.py define?\nMake f3 return 33 and run it.\nWrite that down in notes.txt.\n/usage\n"
    result = run_ayder(*server_args(fake, protocol), "-w", "-x", input=stdin)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("Noted in notes.txt.")
    assert "33" in (project / "app.py").read_text() and (project / "notes.txt").exists()  # the calls all ran
    report = cache_report(_bodies(fake))
    assert report.requests == 9
    assert report.changed == 0  # each request extends the one before: the server reads only what is new
    assert report.hybrid_read == report.prefix_read == report.new_tokens
    assert "context window" not in result.stderr  # no trim, no notice
    assert "· read again ~0" in result.stderr  # /usage


def test_a_read_file_loop_under_window_pressure_trims_rarely_says_what_it_costs_and_ends_with_the_answer(
        fake, run_ayder, project):
    _serve_8k(fake)
    _modules(project)
    fake.respond = _reader()
    result = run_ayder("-p", "openai", "--base-url", fake.openai_url, "-m", MODEL, input=f"{REQUEST}\n/usage\n")
    assert result.returncode == 0, result.stderr
    assert ANSWER in result.stdout
    assert result.stderr.count("→ read_file(") == ROUNDS  # every round ran
    report = cache_report(_bodies(fake))
    assert fake.refused == [] and report.largest <= WINDOW  # the window keeper's guarantee holds
    assert report.changed <= 10  # was 26 of 31 when each request cleared one old result
    assert report.hybrid_ratio <= 1.8  # a hybrid model reads at most 1.8 times the new content (was 3.97)
    cleared = _cleared(result.stderr)
    assert 3 <= len(cleared) <= 10 and min(cleared) >= 2  # few trims, each frees room for several rounds
    trims = [line for line in result.stderr.splitlines() if "cleared the results of" in line or "compacted" in line]
    # Every trim and compaction says what the server reads again, and how long: a clearing that a compaction
    # follows at once leaves that to the compaction's line.
    costs = [line for line, after in zip(trims, [*trims[1:], ""]) if not after.startswith("compacted")]
    said = [REREAD.search(line) for line in costs]
    assert all(said) and len(costs) >= len(cleared), trims
    for match in said:
        tokens, seconds = int(match.group(1).replace(",", "")), int(match.group(2))
        assert 0 < tokens < WINDOW and seconds == round(tokens / SPEED)
    summaries = [body for body in _bodies(fake) if not body.get("tools")]
    assert len(summaries) == result.stderr.count("compacted the conversation") >= 1
    for summary in summaries:  # clear or summarize, not both: the summary sees the latest results whole
        assert any("VALUE_" in (m.get("content") or "") for m in summary["messages"] if m["role"] == "tool")
    usage = re.search(r"· read again ~(\d+)", result.stderr)  # /usage
    assert usage and int(usage.group(1)) >= sum(int(m.group(1).replace(",", "")) for m in said) // 2


def test_where_the_server_reuses_a_partial_prefix_a_trim_frees_less_than_where_it_reads_all_again(
        fake, run_ayder, project):
    """The doctor's finding in the server profile: a server that reads the whole prompt again after any change
    gets fewer, larger trims."""
    _serve_8k(fake)
    _modules(project)
    trims = {}
    for reuses in (True, False):
        _remember_partial_reuse(fake, reuses)
        fake.respond = _reader()
        fake.requests.clear()
        result = run_ayder("-p", "openai", "--base-url", fake.openai_url, "-m", MODEL, REQUEST)
        assert result.returncode == 0, result.stderr
        assert ANSWER in result.stdout and fake.refused == []
        trims[reuses] = _cleared(result.stderr)
    # the same 30 results cleared in fewer, larger trims where every trim is a whole re-read
    assert len(trims[False]) < len(trims[True])
    assert sum(trims[False]) / len(trims[False]) > sum(trims[True]) / len(trims[True])


def test_llama_cpp_is_asked_to_keep_its_prompt_cache_and_reuse_chunks_of_it(fake, run_ayder):
    fake.props = {"default_generation_settings": {"n_ctx": WINDOW}}
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 0, result.stderr
    body = fake.chat_requests()[0]["body"]
    assert body["cache_prompt"] is True and body["n_cache_reuse"] == 256


@pytest.mark.parametrize("protocol", ["openai", "ollama"])
def test_a_server_not_known_as_llama_cpp_is_not_sent_its_cache_fields(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "hi")
    assert result.returncode == 0, result.stderr
    body = fake.chat_requests()[0]["body"]
    assert "cache_prompt" not in body and "n_cache_reuse" not in body
