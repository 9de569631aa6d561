"""One runtime, resolved once: the config becomes an Endpoint, the Endpoint a client, and switching
model or server (/model, /provider) builds a new runtime -- a new window asked of the server, the
new key masked -- instead of patching the old one."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from support.fakellm import Reply

from ayder_cli.repl.commands import CommandResult, run_command
from ayder_cli.config.schema import Config
from ayder_cli.config.config_layers import load_config
from ayder_cli.config.keys import endpoint_of
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.modes.entries import command_context
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.errors import ConfigError
from ayder_cli.session.services import build_session

KEY = "sk-live-RUNTIME-7319"

SHOW_4K = {"model_info": {"llama.context_length": 4096}, "capabilities": ["completion", "tools"]}
SHOW_32K = {"model_info": {"llama.context_length": 32768}, "capabilities": ["completion", "tools"]}


class Session:
    """ayder's services in this process, against the fake server; what they print, in two buffers."""

    def __init__(self, project, env: dict[str, str], **flags) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()
        environment = Environment(stdout=self.out, stderr=self.err, env={**os.environ, **env}, no_color=True,
                                  local_servers=())
        config = load_config(env=environment.env, root=project, flags=flags)
        self.services = build_session(config, environment, root=project,
                                       console=Console(environment, verbose=True), flags=flags)

    def command(self, line: str) -> None:
        assert run_command(line, command_context(self.services)) is CommandResult.OK, self.err.getvalue()

    def say(self, text: str) -> None:
        self.services.loop.run(text)

    @property
    def printed(self) -> str:
        return self.out.getvalue() + self.err.getvalue()


@pytest.fixture
def start(project):
    started = []

    def start(env: dict[str, str] | None = None, **flags) -> Session:
        started.append(Session(project, env or {}, **flags))
        return started[-1]

    yield start
    for session in started:
        session.services.close()


def shows(fake) -> list[str]:
    """The models whose details ayder asked Ollama for (POST /api/show), in order."""
    return [r["body"]["model"] for r in fake.requests if r["path"] == "/api/show"]


# --- the endpoint


def test_the_config_resolves_once_to_an_endpoint_that_says_where_its_key_came_from(tmp_path):
    config = Config(provider="openai", base_url="http://llm.test/v1/", model="m", timeout_s=7, max_retries=1)
    endpoint = endpoint_of(config, {"OPENAI_API_KEY": f" {KEY}\n"})
    assert (endpoint.provider, endpoint.base_url, endpoint.model) == ("openai", "http://llm.test/v1", "m")
    assert (endpoint.api_key, endpoint.key_source, endpoint.key_env) == (KEY, "OPENAI_API_KEY", "OPENAI_API_KEY")
    assert (endpoint.read_timeout_s, endpoint.max_retries) == (7, 1)
    assert KEY not in repr(endpoint) and KEY not in endpoint.describe_key()
    assert endpoint.describe_key() == "API key from OPENAI_API_KEY"

    key_file = tmp_path / "key"
    key_file.write_text(KEY)
    assert endpoint_of(Config(provider="openai", api_key_file=str(key_file)), {}).key_source == "api_key_file"
    assert endpoint_of(Config(provider="openai", api_key=KEY), {}).key_source == "api_key"
    # Ollama needs no key: one from the environment is not sent to it, one the config names is.
    assert endpoint_of(Config(), {"OPENAI_API_KEY": KEY}).api_key is None
    assert endpoint_of(Config(api_key=KEY), {}).api_key == KEY
    assert endpoint_of(Config(), {}).describe_key() == "no API key"


def test_an_unreadable_key_file_is_a_config_error_when_the_endpoint_is_resolved(tmp_path):
    with pytest.raises(ConfigError, match="api_key_file: cannot read"):
        endpoint_of(Config(provider="openai", api_key_file=str(tmp_path / "missing")), {})


def test_the_clients_load_without_the_config_module(tmp_path):
    # The llm package takes an Endpoint: with ayder_cli.config.schema unimportable, every module of it
    # still loads and make_client still makes both clients.
    script = """
import importlib, pkgutil, sys
sys.modules["ayder_cli.config.schema"] = None  # any import of it now fails
import ayder_cli.llm
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm import make_client
for module in pkgutil.iter_modules(ayder_cli.llm.__path__):
    importlib.import_module(f"ayder_cli.llm.{module.name}")
for provider in ("ollama", "openai"):
    endpoint = Endpoint(provider=provider, base_url="http://127.0.0.1:9", model="m", api_key="k",
                        key_source="api_key", connect_timeout_s=1, read_timeout_s=1,
                        stream_idle_timeout_s=None, request_timeout_s=None, max_retries=0)
    print(type(make_client(endpoint)).__name__)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["OllamaClient", "OpenAIClient"]


# --- switching model


def test_model_switch_sends_the_next_message_to_the_other_model_and_asks_its_window(fake, start):
    fake.show = SHOW_4K
    session = start(base_url=fake.url)
    session.say("first")
    fake.show = SHOW_32K  # the other model was trained for a larger window
    session.command("/model llama3.2:3b")
    session.say("second")
    assert "model: llama3.2:3b" in session.err.getvalue()
    assert shows(fake) == ["qwen2.5-coder:7b", "llama3.2:3b"]
    bodies = [request["body"] for request in fake.chat_requests()]
    assert [body["model"] for body in bodies] == ["qwen2.5-coder:7b", "llama3.2:3b"]
    # The first model serves its trained 4096; the second gets the 8192 ayder pins, not the first one's window.
    assert [body["options"]["num_ctx"] for body in bodies] == [4096, 8192]
    session.command("/status")
    assert "context:      8192 tokens: the server serves 8192 tokens (the num_ctx ayder sends" in session.err.getvalue()


def test_model_switch_on_an_openai_compatible_server_learns_the_new_window(fake, start):
    fake.model_meta = {"max_model_len": 16384}
    session = start(provider="openai", base_url=fake.openai_url, model="qwen2.5-coder:7b")
    assert session.services.config.num_ctx == 16384
    fake.model_meta = {"max_model_len": 2048}
    session.command("/model llama3.2:3b")
    assert session.services.config.num_ctx == 2048
    assert "context window: 2048 tokens (vLLM max_model_len)" in session.err.getvalue()


def test_a_num_ctx_the_user_set_stays_when_the_model_changes(fake, start):
    fake.show = SHOW_32K
    session = start(base_url=fake.url, num_ctx=3000)
    session.command("/model llama3.2:3b")
    session.say("q")
    assert fake.chat_requests()[0]["body"]["options"]["num_ctx"] == 3000


def test_a_setting_that_is_not_the_server_or_model_keeps_the_client_and_the_window(fake, start):
    fake.show = SHOW_4K
    session = start(base_url=fake.url)
    before = session.services.runtime
    session.command("/prompts plain")
    after = session.services.runtime
    assert after is not before and after.config.prompts == ("plain",)
    assert after.client is before.client and after.config.num_ctx == 4096
    assert shows(fake) == ["qwen2.5-coder:7b"]  # not asked again


def test_services_and_the_loop_read_one_runtime(fake, start):
    session = start(base_url=fake.url)
    services = session.services
    session.command("/model llama3.2:3b")
    settings = services  # the Session: its config and runtime
    assert settings.config is services.loop.config is settings.runtime.config
    assert settings.runtime.endpoint.model == settings.config.resolved_model == "llama3.2:3b"
    assert services.loop.client is settings.runtime.client


# --- switching server


def test_provider_switch_makes_a_new_endpoint_and_masks_its_key(fake, start, project):
    fake.queue(Reply(text="on ollama"), Reply(text=f"your key is {KEY}, keep it safe"))
    session = start(env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.openai_url}, base_url=fake.url)
    session.say("first")
    session.command("/provider openai")
    session.say("what is my key?")
    assert f"openai at {fake.openai_url}, model gpt-4.1-mini, API key from OPENAI_API_KEY" in session.err.getvalue()
    first, second = fake.chat_requests()
    assert (first["path"], second["path"]) == ("/api/chat", "/v1/chat/completions")
    assert "Authorization" not in first["headers"]  # Ollama gets no key from the environment
    assert second["headers"]["Authorization"] == f"Bearer {KEY}"
    assert session.out.getvalue() == "on ollama\nyour key is ***, keep it safe\n"
    assert KEY not in session.printed
    saved = "".join(p.read_text(errors="replace") for p in (project / ".ayder").rglob("*") if p.is_file())
    assert "your key is ***" in saved and KEY not in saved


def test_a_key_first_set_after_the_start_is_masked_from_then_on(fake, start):
    fake.queue(Reply(text=f"the key is {KEY}"))
    session = start(base_url=fake.url)
    assert not session.services.secrets  # nothing to mask yet
    session.services.set_values(api_key=KEY)
    session.say("q")
    assert fake.chat_requests()[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    assert session.out.getvalue() == "the key is ***\n"


def test_a_server_that_refused_native_tools_does_not_decide_for_the_next_one(fake, start):
    fake.queue(Reply(reject_tools=True), Reply(text="as text"), Reply(text="native"))
    session = start(env={"OPENAI_BASE_URL": fake.openai_url}, base_url=fake.url)
    session.say("first")
    assert session.services.loop.tool_mode.native is False
    session.command("/provider openai")
    session.say("second")
    assert fake.chat_requests()[-1]["body"].get("tools")  # the new server is offered native tools again


def test_a_failed_switch_leaves_the_runtime_as_it_was(fake, start, tmp_path):
    session = start(base_url=fake.url)
    before = session.services.runtime
    with pytest.raises(ConfigError, match="api_key_file: cannot read"):
        session.services.set_values(api_key_file=str(tmp_path / "missing"))
    assert session.services.runtime is before


def test_an_endpoint_is_a_value():
    values = dict(provider="openai", base_url="http://x/v1", model="m", connect_timeout_s=1, read_timeout_s=2,
                  stream_idle_timeout_s=None, request_timeout_s=None, max_retries=0)
    assert Endpoint(**values) == Endpoint(**values)
    assert Endpoint(**values).serves_as(Endpoint(**values, api_key=KEY))  # same model, same server
    assert not Endpoint(**values).serves_as(Endpoint(**{**values, "model": "other"}))
    with pytest.raises(AttributeError):
        Endpoint(**values).model = "other"  # frozen: a switch makes a new one
