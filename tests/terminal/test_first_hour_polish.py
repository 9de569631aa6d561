"""What a new user trips over in the first hour, each seen as the user sees it: /status, /doctor in a
session, /help at 80 columns, the config error's pointer, a cap of one call, the history file's mode."""

from __future__ import annotations

import os
import re
import stat

import pytest
from support.fakellm import FakeLLM, Reply
from support.files import write_json
from support.harness import server_args
from support.pty_harness import expect_prompt, finish


def depth(text: str) -> int:
    """The deepest parentheses in text (0: none, 1: never nested)."""
    level = deepest = 0
    for char in text:
        level += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, level)
    return deepest


def test_status_never_nests_parentheses(fake, run_ayder, project):
    fake.props = {"default_generation_settings": {"n_ctx": 2048}}  # its window note has its own
    (project / "AGENTS.md").write_text("Be brief.\n")
    result = run_ayder(*server_args(fake, "openai"), input="/status\n")
    assert result.returncode == 0, result.stderr
    assert "context:      2048 tokens: the server serves 2048 tokens (llama.cpp /props)" in result.stderr
    assert [line for line in result.stderr.splitlines() if depth(line) > 1] == []


def test_doctor_in_a_session_names_the_model_command(run_ayder):
    with FakeLLM(models=("served-one",)) as fake:
        result = run_ayder("--base-url", fake.url, "-m", "missing", input="/doctor\n")
    assert result.returncode == 1
    assert "pick one with /model NAME" in result.stderr
    assert "-m NAME" not in result.stderr


def test_help_wraps_at_word_boundaries_within_80_columns(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/help\n")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert max(map(len, lines)) <= 80
    start = lines[0].index("summarize")  # where each command's help begins
    for before, line in zip(lines, lines[1:]):
        if not line.lstrip().startswith(("/", '"""', "!CMD", "@PATH")):  # a continued help
            assert line[:start].strip() == "" and line[start] != " ", line
            assert before[-1] != " " and line[start:].split()[0].isprintable()
    words = " ".join(lines).split()
    assert "(resume" in words and "with" in words  # whole words, none cut in two
    assert "/sessions" in result.stderr and "--resume ID)" in result.stderr


def test_an_unknown_config_key_points_at_a_list_the_installed_ayder_has(run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"colour_scheme": "dark"})
    result = run_ayder("q")
    assert result.returncode == 2
    assert "ayder --help-config lists every key" in result.stderr
    listed = run_ayder("--help-config")
    assert listed.returncode == 0, listed.stderr
    keys = [line.split()[0] for line in listed.stdout.splitlines()[1:]]
    assert "colour_scheme" not in keys and {"model", "num_ctx", "root", "verify"} <= set(keys)
    assert '  num_ctx' in listed.stdout and "8192" in listed.stdout


def test_a_cap_of_one_call_is_said_in_the_singular(fake, run_ayder, project, notes):
    write_json(project / ".ayder" / "config.json", {"tools": {"max_calls_per_message": {"read_file": 1}}})
    read = {"name": "read_file", "arguments": {"file_path": "notes.txt"}}
    fake.queue(Reply(text="", tool_calls=[read, read]), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "read it twice")
    assert result.returncode == 0, result.stderr
    results = [m["content"] for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"]
    assert "may be called at most 1 time per message" in results[1]


@pytest.mark.parametrize("earlier_mode", [None, 0o644])
def test_the_history_file_is_readable_by_its_owner_only(fake, ayder_on_pty, isolated_env, earlier_mode):
    history = isolated_env / ".local" / "state" / "ayder" / "history"
    if earlier_mode is not None:  # one an older ayder made with the umask's mode
        history.parent.mkdir(parents=True)
        history.write_text("\n# 2024-01-01 00:00:00\n+an old line\n")
        history.chmod(earlier_mode)
    fake.default = Reply(text="Noted.")
    child = ayder_on_pty("--base-url", fake.url)
    expect_prompt(child)
    child.sendline("a line with a secret in it")
    child.expect_exact("Noted.")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    assert "a line with a secret in it" in history.read_text()
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600


def test_the_banner_wraps_at_word_boundaries_within_80_columns(fake, ayder_on_pty):
    model = "hf.co/some-organisation/a-rather-long-model-name-GGUF:Q4_K_M"
    child = ayder_on_pty("--base-url", fake.url + "/a/long/path/to/the/api", "-m", model)
    expect_prompt(child)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before).replace("\r", "")
    lines = [line for line in plain.split("\n") if line.strip()]
    child.sendline("/exit")
    assert finish(child) == 0
    # within 80 columns, broken between words: only a word longer than a line (the temp root's path, whose
    # length depends on pytest's numbering) may stand alone on a longer one
    assert len(lines) >= 2 and all(len(line) <= 80 or " " not in line.strip() for line in lines), lines
    said = " ".join(lines)
    assert model in said.split() and "/help for commands, Ctrl-D to leave" in lines[-1]
