"""The sandbox and what runs after a command: nothing a sandboxed command does may plant code that
runs later, unsandboxed (the project's .git, the package managers' bin/ and profile files), reach
the user's terminal, or read ayder's key; and a refused write is named, to the model and the user.
Through the real `ayder -x` against the fake server, in a real Landlock sandbox where the kernel has one."""

from __future__ import annotations

import pytest

from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.tools.landlock import probe

ABI, WHY_NOT = probe()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"Landlock is not available here: {WHY_NOT}")
REFUSED_TAIL = "was refused (outside the project; add it to sandbox_writable in your config, or set sandbox to off)"


@pytest.fixture
def run_env(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    return {"TMPDIR": str(temp)}


def ask_to_run(fake, run_ayder, run_env, command, *args):
    """`ayder -x` with a model that asks for one command; what the tool answered the model, and the run."""
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": command}}]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-x", *args, "go", env=run_env)
    assert result.returncode == 0, result.stderr
    answer = [m for m in fake.chat_requests()[-1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    return answer, result


# --- a refusal names the path refused, to the model and to the user


@needs_landlock
def test_a_refused_redirection_names_its_path_to_the_model_and_the_user(fake, run_ayder, run_env, project, outside):
    answer, result = ask_to_run(fake, run_ayder, run_env, "echo x > ../outside/f; echo done")
    assert not (outside / "f").exists()
    line = f"sandbox: writing {outside}/f {REFUSED_TAIL}"
    assert line in answer, answer
    assert f"✓ exit code 0; {line}" in result.stderr, result.stderr
    assert "/bin/sh was refused" not in answer
