"""What a new user sees on the terminal in the first hour, each as the user sees it: the REPL's first
line names the server /status names; a command's lines in the order it wrote them; a call shown
once around its question, and nothing wrapped in the middle of a word at 80 columns."""

from __future__ import annotations

import re

import pytest
from support.fakellm import FakeLLM, Reply
from support.harness import server_args
from support.pty_harness import expect_prompt, finish

pexpect = pytest.importorskip("pexpect")

STYLES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def words(screen: str) -> str:
    """What the screen says, styles off, wrapped lines joined."""
    return " ".join(STYLES.sub("", screen).split())


@pytest.mark.parametrize("model", [None, "served-model"])
def test_the_banner_names_what_status_names_for_a_v1_url(ayder_on_pty, model):
    with FakeLLM(models=("served-model",)) as fake:
        child = ayder_on_pty("--base-url", fake.openai_url, *(["-m", model] if model else []))
        expect_prompt(child)
        banner = words(child.before)
        assert fake.requests == []  # the prompt comes before anything is asked of the server
        child.sendline("/status")
        child.expect_exact("instructions:")
        status = words(child.before)
        child.sendline("/exit")
        assert finish(child) == 0
    assert "provider: openai" in status and "model: served-model" in status
    assert "ollama" not in banner and "qwen2.5-coder:7b" not in banner, banner
    if model:
        assert f"ayder · openai served-model at {fake.openai_url} " in banner
    else:
        assert f"ayder · openai at {fake.openai_url} (the model it serves, asked at the first message)" in banner


def test_a_commands_stdout_and_stderr_lines_keep_the_order_it_wrote_them(fake, run_ayder):
    command = "echo out-1; echo err-1 >&2; echo out-2; echo err-2 >&2; echo out-3"
    fake.queue(Reply.calling("run_shell_command", {"command": command}), Reply(text="Ran it."))
    result = run_ayder(*server_args(fake, "openai"), "-x", "run it")
    assert result.returncode == 0, result.stderr
    order = ["out-1", "err-1", "out-2", "err-2", "out-3"]
    shown = [line.strip() for line in result.stderr.splitlines() if line.strip() in order]
    assert shown == order
    told = fake.chat_requests()[1]["body"]["messages"][-1]["content"]
    assert "\n".join(order) in told  # the model reads them in the same order
