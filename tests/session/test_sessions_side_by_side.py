"""Two Sessions in one process (as an editor front end will drive them), against the fake server: each keeps
its own conversation, transcript, model and window; nothing of one reaches the other's requests."""

from __future__ import annotations

import io
import os

import pytest
from support.fakellm import Reply

from ayder_cli.config.config_layers import load_config
from ayder_cli.session.services import build_session
from ayder_cli.storage.transcript import load
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment


@pytest.fixture
def open_session(fake, project):
    opened = []

    def open_session():
        environment = Environment(stdout=io.StringIO(), stderr=io.StringIO(), env=dict(os.environ), no_color=True,
                                  local_servers=())
        flags = {"base_url": fake.url}
        config = load_config(env=environment.env, root=project, flags=flags)
        opened.append(build_session(config, environment, root=project, console=Console(environment), flags=flags))
        return opened[-1]

    yield open_session
    for session in opened:
        session.close()


def user_texts(request) -> list[str]:
    return [message["content"] for message in request["body"]["messages"] if message["role"] == "user"]


def test_two_sessions_in_one_process_keep_their_histories_apart(fake, open_session):
    fake.queue(Reply(text="alpha noted"), Reply(text="beta noted"), Reply(text="alpha again"))
    first, second = open_session(), open_session()
    first.run("remember alpha")
    second.run("remember beta")
    first.run("what did I ask you to remember?")
    requests = fake.chat_requests()
    assert not any("alpha" in text for text in user_texts(requests[1]))  # the second session's only request
    asked = user_texts(requests[2])
    assert any("remember alpha" in text for text in asked) and not any("beta" in text for text in asked)
    # Each transcript on disk holds its own conversation only.
    saved = {session.keeper.current.path: load(session.keeper.current.path)[0] for session in (first, second)}
    assert len(saved) == 2
    assert [m["content"] for m in saved[first.keeper.current.path] if m["role"] == "assistant"] == \
        ["alpha noted", "alpha again"]
    assert [m["content"] for m in saved[second.keeper.current.path] if m["role"] == "assistant"] == ["beta noted"]


def test_a_model_switch_or_a_reset_in_one_session_leaves_the_other_as_it_was(fake, open_session):
    fake.queue(Reply(text="one"), Reply(text="two"))
    first, second = open_session(), open_session()
    second.run("keep me")
    first.use_model("llama3.2:3b")
    first.reset()
    second.run("still here?")
    last = fake.chat_requests()[-1]["body"]
    assert last["model"] == second.config.resolved_model != "llama3.2:3b"
    assert any("keep me" in text for text in user_texts(fake.chat_requests()[-1]))
    assert first.config.resolved_model == "llama3.2:3b" and first.conversation.messages == []
