"""The provider table: each record names a client that says it speaks for that provider."""

from __future__ import annotations

import pytest

from ayder_cli.llm import make_client
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.llm.providers import OLLAMA, OPENAI, PROVIDERS


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_each_provider_gets_its_own_client(name):
    endpoint = Endpoint(provider=name, base_url="http://127.0.0.1:9", model="m", connect_timeout_s=1,
                        read_timeout_s=1, stream_idle_timeout_s=None, request_timeout_s=None, max_retries=0)
    client = make_client(endpoint)
    assert client.provider == name
    assert client.base_url == "http://127.0.0.1:9"


def test_only_a_provider_with_a_model_command_suggests_it():
    assert OLLAMA.missing_model_hint("qwen3:8b") == "run: ollama pull qwen3:8b"
    assert OPENAI.missing_model_hint("qwen3:8b") == ""
