"""Finding a local server when none is configured.

The CLI runs in-process (so monkeypatched candidates apply), the candidates point at fake servers.
"""

from __future__ import annotations

import io
import os
import socket
import time
from dataclasses import replace

import pytest
from support.fakellm import FakeLLM, Reply
from support.files import write_json
from support.harness import run_in_process

from ayder_cli.config.schema import ProjectTrust
from ayder_cli.config.config_layers import load_config
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.llm import providers
from ayder_cli.llm.discover import READ_TIMEOUT_S, Candidate, find_local_server
from ayder_cli.session.server import with_discovered_server


# As CANDIDATES are: each lists its models where its provider's record says (llm/providers.py models_path).
def ollama_at(url: str) -> Candidate:
    return Candidate(providers.OLLAMA.name, "Ollama", url)


def llama_cpp_at(url: str) -> Candidate:
    return Candidate(providers.OPENAI.name, "llama.cpp-style", url)


class Candidates:
    """The ports discovery asks, in priority order: set by a test, handed to ayder in its Environment."""

    def __init__(self) -> None:
        self.chosen: tuple[Candidate, ...] = ()

    def __call__(self, *found: Candidate) -> None:
        self.chosen = found


@pytest.fixture
def candidates() -> Candidates:
    return Candidates()


@pytest.fixture
def ayder(project, candidates):
    """Run the ayder command in this process, asking the candidates above: (exit status, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        result = run_in_process(args, cwd=project, seams={"local_servers": candidates.chosen})
        return result.returncode, result.stdout, result.stderr

    return run


@pytest.fixture
def default_ollama_at(monkeypatch):
    """Where the default Ollama URL points, so a test never reaches a real Ollama on 11434."""

    def point_at(url: str) -> None:
        monkeypatch.setitem(providers.PROVIDERS, "ollama", replace(providers.OLLAMA, default_base_url=url))

    return point_at


def free_port_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


# --- what is found is used


def test_the_only_served_model_is_used(fake, candidates, ayder):
    fake.models = ("tiny-coder",)
    fake.default = Reply(text="hello from tiny")
    candidates(llama_cpp_at(fake.openai_url))
    status, out, err = ayder("-v", "q")
    assert status == 0, err
    assert out == "hello from tiny\n"
    [chat] = fake.chat_requests()
    assert chat["path"] == "/v1/chat/completions"
    assert chat["body"]["model"] == "tiny-coder"
    assert "Authorization" not in chat["headers"]  # a local server needs no key, and none was set
    assert f"found llama.cpp-style server at {fake.openai_url} (1 model: tiny-coder)" in err
    assert f"openai at {fake.openai_url} (found on this machine), model tiny-coder (the only one served)" in err


def test_a_found_server_is_not_sent_the_api_key_from_the_environment(fake, candidates, ayder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-meant-for-the-cloud")
    fake.models = ("tiny-coder",)
    candidates(llama_cpp_at(fake.openai_url))
    status, out, err = ayder("q")
    assert status == 0, err
    assert "Authorization" not in fake.chat_requests()[0]["headers"]


def test_several_models_and_none_named_is_a_usage_error_listing_them(fake, candidates, ayder):
    fake.models = tuple(f"model-{n}" for n in range(12))
    candidates(llama_cpp_at(fake.openai_url))
    status, out, err = ayder("q")
    assert status == 2
    assert out == ""
    [error] = [line for line in err.splitlines() if line.startswith("error:")]
    assert f"server found at {fake.openai_url} serves 12 models: model-0, model-1," in error
    assert "model-9 and 2 more" in error and "model-10" not in error
    assert "-m NAME" in err
    assert "Traceback" not in err
    assert fake.chat_requests() == []


def test_a_model_named_on_the_command_line_is_used_on_a_found_server(fake, candidates, ayder):
    fake.models = ("model-a", "model-b", "model-c")
    candidates(llama_cpp_at(fake.openai_url))
    status, _, err = ayder("-m", "model-b", "q")
    assert status == 0, err
    assert fake.chat_requests()[0]["body"]["model"] == "model-b"


def test_ollama_serving_the_default_model_among_others_keeps_the_default(fake, candidates, ayder):
    fake.models = (providers.OLLAMA.default_model, "llama3.2:3b")
    candidates(ollama_at(fake.url))
    status, _, err = ayder("q")
    assert status == 0, err
    [chat] = fake.chat_requests()
    assert chat["path"] == "/api/chat"
    assert chat["body"]["model"] == providers.OLLAMA.default_model


def test_ollama_is_preferred_when_two_servers_answer(candidates, ayder):
    with FakeLLM(models=("ollama-model",)) as ollama, FakeLLM(models=("llama-model",)) as llama:
        candidates(ollama_at(ollama.url), llama_cpp_at(llama.openai_url))
        status, _, err = ayder("-v", "q")
        assert status == 0, err
        assert [r["body"]["model"] for r in ollama.chat_requests()] == ["ollama-model"]
        assert llama.chat_requests() == []
        assert f"found Ollama server at {ollama.url}" in err


def test_a_port_answering_without_a_model_list_is_passed_over(fake, candidates, ayder):
    fake.models = ("the-one",)
    with FakeLLM(models=("served",)) as other:
        # Something else listens on the first port: its answer is a 404, not a model list.
        candidates(Candidate("openai", "vLLM-style", other.url, "/not-a-model-list"),
                   llama_cpp_at(fake.openai_url))
        status, _, err = ayder("q")
        assert status == 0, err
        assert fake.chat_requests()[0]["body"]["model"] == "the-one"
        assert other.chat_requests() == []


# --- a configured server is never probed


@pytest.mark.parametrize("how", ["--base-url", "-p openai --base-url"])
def test_a_server_given_on_the_command_line_is_used_without_probing(fake, candidates, ayder, how):
    with FakeLLM(models=("candidate-model",)) as candidate:
        candidates(llama_cpp_at(candidate.openai_url))
        fake.models = ("only-one",)
        url = fake.url if how == "--base-url" else fake.openai_url
        status, _, err = ayder(*how.split(), url, "q")
        assert status == 0, err
        assert candidate.requests == []
        # The server's only model is used when none is named: a URL given alone (issue 23), or with -p (issue 30).
        assert fake.chat_requests()[0]["body"]["model"] == "only-one"


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "OLLAMA_HOST", "AYDER_BASE_URL", "AYDER_PROVIDER"])
def test_a_server_named_in_the_environment_is_not_probed(fake, candidates, project, monkeypatch, variable):
    value = {"OPENAI_BASE_URL": fake.openai_url, "OLLAMA_HOST": fake.url.removeprefix("http://"),
             "AYDER_BASE_URL": fake.url, "AYDER_PROVIDER": "openai"}[variable]
    monkeypatch.setenv(variable, value)
    candidates(ollama_at(fake.url))
    config = with_discovered_server(*configured(project), console(), candidates.chosen)
    assert fake.requests == []
    assert config.sources["base_url"] != "found on this machine"


@pytest.mark.parametrize("key", ["provider", "base_url"])
def test_a_server_named_in_a_config_file_is_not_probed(fake, candidates, project, key):
    setting = {"provider": "ollama"} if key == "provider" else {"base_url": fake.url}
    write_json(project / ".ayder" / "config.json", setting)
    candidates(ollama_at(fake.url))
    before, env = configured(project)
    assert with_discovered_server(before, env, console(), candidates.chosen) == before
    assert fake.requests == []


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_do_not_probe(fake, candidates, ayder, flag):
    candidates(ollama_at(fake.url))
    status, _, _ = ayder(flag)
    assert status == 0
    assert fake.requests == []


# --- nothing answers


def test_nothing_answering_keeps_the_cannot_reach_ollama_error(candidates, ayder, default_ollama_at, closed_url):
    closed = [free_port_url(), free_port_url()]
    candidates(ollama_at(closed[0]), llama_cpp_at(closed[1] + "/v1"))
    default_ollama_at(closed_url)
    status, out, err = ayder("q")  # said without -v
    assert status == 1
    assert out == ""
    ports = ", ".join(url.rsplit(":", 1)[1] for url in closed)
    assert f"no local server answered on {ports}; using Ollama at {closed_url}" in err
    assert f"error: cannot reach Ollama at {closed_url}" in err
    assert "ollama serve" in err


def test_refused_ports_cost_nearly_nothing():
    closed = tuple(llama_cpp_at(free_port_url() + "/v1") for _ in range(4))
    started = time.monotonic()
    assert find_local_server(closed) is None
    assert time.monotonic() - started < 1.0  # under DEADLINE_S (1.5): no waiting, even on a busy machine


@pytest.fixture
def silent_url():
    """A loopback URL that accepts connections (into the listen backlog) but never says a word."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        yield f"http://127.0.0.1:{silent.getsockname()[1]}"


def test_a_port_that_never_answers_holds_the_search_no_longer_than_the_deadline(fake, silent_url):
    fake.models = ("behind",)
    deadline_s = 0.3  # shorter than DEADLINE_S: the same rule, sooner
    started = time.monotonic()
    found = find_local_server((ollama_at(silent_url), llama_cpp_at(fake.openai_url)), deadline_s=deadline_s)
    assert time.monotonic() - started < READ_TIMEOUT_S  # cut at the deadline, not at the silent port's timeout
    assert found is not None and found.base_url == fake.openai_url and found.models == ("behind",)


def test_the_first_answer_in_priority_order_does_not_wait_for_a_silent_port_behind_it(fake, silent_url):
    started = time.monotonic()
    found = find_local_server((ollama_at(fake.url), llama_cpp_at(silent_url + "/v1")))
    assert time.monotonic() - started < READ_TIMEOUT_S  # the silent port is not waited for
    assert found is not None and found.provider == "ollama" and found.base_url == fake.url


# --- helpers


def configured(project):
    """The Config the command line would build with no flags (in a project the user trusts), and the
    environment it was built from."""
    env = dict(os.environ)
    return load_config(env=env, root=project, trust=lambda path, data, asked: ProjectTrust(tuple(asked), True, "")), env


def console() -> Console:
    return Console(Environment(stdout=io.StringIO(), stderr=io.StringIO(), no_color=True), verbose=True)
