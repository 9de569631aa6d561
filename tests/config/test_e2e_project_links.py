"""A project's .ayder/ files that ayder reads -- config.json, prompts/*.txt, the prompts folder -- are
read only as real folders and regular files of bounded size, never through a link: a cloned project
cannot point them at /dev/zero, a FIFO or a file outside. Each refusal is one line, and the run goes on
without that file. The real ayder with a private HOME against the fake server."""

from __future__ import annotations

import json
import os

import pytest
from support.fakellm import Reply
from support.files import OUTSIDE_SECRET, write_json
from support.harness import server_args

pytestmark = pytest.mark.skipif(os.name == "nt", reason="needs POSIX links, devices and FIFOs")


def everything_sent(fake) -> str:
    return json.dumps([request["body"] for request in fake.chat_requests()])


def lines_naming(stderr: str, name: str) -> list[str]:
    return [line for line in stderr.splitlines() if name in line]


def test_a_config_linked_outside_the_project_is_not_read_nor_applied(fake, run_ayder, project):
    outside = write_json(project.parent / "elsewhere.json", {"model": "outside-model", "temperature": 1.7})
    (project / ".ayder").mkdir()
    (project / ".ayder" / "config.json").symlink_to(outside)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 0, result.stderr
    [request] = fake.chat_requests()
    assert request["body"]["model"] != "outside-model" and "temperature" not in request["body"]
    [line] = lines_naming(result.stderr, "config.json")
    assert "is a symbolic link" in line and "the project's config is not used" in line


@pytest.mark.parametrize("what", ["/dev/zero", "a FIFO", "2 MB"])
def test_a_config_that_is_a_device_a_fifo_or_too_big_is_one_line_and_the_run_goes_on(fake, run_ayder, project,
                                                                                       what):
    config = project / ".ayder" / "config.json"
    config.parent.mkdir()
    if what == "/dev/zero":
        config.symlink_to("/dev/zero")
    elif what == "a FIFO":
        os.mkfifo(config)
    else:
        config.write_text(json.dumps({"model": "big-model", "instructions": ["x" * 100] * 20_000}))
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "hi", timeout=30)
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["model"] != "big-model"
    [line] = lines_naming(result.stderr, "config.json")
    assert line.endswith("the project's config is not used")


def test_a_config_that_is_a_real_file_still_applies(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"temperature": 0.3})
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["temperature"] == 0.3


def test_a_prompt_linked_outside_is_not_sent_and_the_shipped_one_is(fake, run_ayder, project):
    secret = project.parent / "secret.txt"
    secret.write_text(OUTSIDE_SECRET + "\n")
    (project / ".ayder" / "prompts").mkdir(parents=True)
    (project / ".ayder" / "prompts" / "system.txt").symlink_to(secret)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 0, result.stderr
    assert OUTSIDE_SECRET not in everything_sent(fake)
    assert "You are" in fake.chat_requests()[0]["body"]["messages"][0]["content"]  # the shipped system prompt
    [line] = lines_naming(result.stderr, "system.txt")
    assert "is a symbolic link; ayder does not read it as a prompt" in line


def test_the_prompts_folder_linked_outside_is_not_used(fake, run_ayder, project):
    outside = project.parent / "prompts"
    outside.mkdir()
    (outside / "system.txt").write_text(OUTSIDE_SECRET + "\n")
    (project / ".ayder").mkdir()
    (project / ".ayder" / "prompts").symlink_to(outside)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 0, result.stderr
    assert OUTSIDE_SECRET not in everything_sent(fake)
    [line] = lines_naming(result.stderr, "prompts")
    assert "is a symbolic link" in line and "the project's prompts are not used" in line


def test_a_named_prompt_linked_outside_is_unknown_and_nothing_is_sent(fake, run_ayder, project):
    secret = project.parent / "mine.txt"
    secret.write_text(OUTSIDE_SECRET + "\n")
    (project / ".ayder" / "prompts").mkdir(parents=True)
    (project / ".ayder" / "prompts" / "mine.txt").symlink_to(secret)
    (project / ".ayder" / "prompts" / "ours.txt").write_text("OUR-PROMPT: be brief.\n")
    fake.queue(Reply(text="hello"))
    refused = run_ayder(*server_args(fake, "openai"), "--prompts", "mine", "hi")
    assert refused.returncode == 2
    assert "unknown prompt 'mine'" in refused.stderr and fake.chat_requests() == []
    fake.queue(Reply(text="hello"))
    ours = run_ayder(*server_args(fake, "openai"), "--prompts", "ours", "hi")
    assert ours.returncode == 0, ours.stderr
    assert "OUR-PROMPT" in everything_sent(fake) and OUTSIDE_SECRET not in everything_sent(fake)
