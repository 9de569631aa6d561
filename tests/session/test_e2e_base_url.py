"""--base-url given alone, as a new user types it: the API its URL speaks (a /v1 path is OpenAI's, a
bare host:port is asked once and remembered), the server's only model when none is named, and a
scheme-less host:port corrected."""

from __future__ import annotations

import json
import os

from support.harness import server_args
from support.pages import WEB_UI

from ayder_cli.llm import providers
from ayder_cli.storage.profiles import profiles_path

LISTS = ("/api/tags", "/v1/models", "/props")


def paths(fake) -> list[str]:
    return [request["path"] for request in fake.requests]


def remembered() -> dict:
    path = profiles_path(os.environ)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_a_v1_url_without_p_is_the_openai_api(fake, run_ayder):
    result = run_ayder("--base-url", fake.openai_url, "-m", "some-model", "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"
    assert [r["path"] for r in fake.chat_requests()] == ["/v1/chat/completions"]
    assert not any(path in paths(fake) for path in ("/api/tags", "/v1/api/chat"))  # known from the URL: not asked


def test_a_bare_url_is_asked_once_what_it_speaks(fake, run_ayder):
    first = run_ayder("--base-url", fake.url, "-m", "some-model", "q")
    assert first.returncode == 0, first.stderr
    assert [r["path"] for r in fake.chat_requests()] == ["/api/chat"]  # Ollama answers /api/tags
    assert remembered()[fake.url]["provider"] == "ollama"
    fake.requests.clear()
    second = run_ayder("--base-url", fake.url, "-m", "some-model", "q")
    assert second.returncode == 0, second.stderr
    assert not any(path in paths(fake) for path in LISTS)  # remembered, not asked again
    assert [r["path"] for r in fake.chat_requests()] == ["/api/chat"]


def test_a_bare_url_with_only_an_openai_model_list_is_openai_under_v1(fake, run_ayder):
    fake.routes["/api/tags"] = (404, "text/plain", "404 page not found")
    result = run_ayder("--base-url", fake.url, "-m", "some-model", "-v", "q")
    assert result.returncode == 0, result.stderr
    assert [r["path"] for r in fake.chat_requests()] == ["/v1/chat/completions"]
    assert f"openai at {fake.openai_url} ({fake.url} answered as OpenAI-compatible)" in result.stderr


def test_llama_cpp_listing_models_ollama_style_still_gets_openai_chat(fake, run_ayder):
    fake.props = {"default_generation_settings": {"n_ctx": 4096}}  # llama-server answers /api/tags and /props
    result = run_ayder("--base-url", fake.url, "-m", "some-model", "q")
    assert result.returncode == 0, result.stderr
    assert [r["path"] for r in fake.chat_requests()] == ["/v1/chat/completions"]


def test_the_only_model_served_is_used_when_none_is_named(fake, run_ayder):
    fake.models = ("smollm2-135m-instruct",)
    result = run_ayder("--base-url", fake.openai_url, "q")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["model"] == "smollm2-135m-instruct"


def test_a_named_provider_uses_the_only_model_its_server_serves_when_none_is_named(fake, run_ayder, protocol):
    # -p openai alone sent gpt-4.1-mini to a server serving one other model, which answered 404
    fake.models = ("smollm2-135m-instruct",)
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["model"] == "smollm2-135m-instruct"


def test_a_named_provider_with_several_models_keeps_its_default(fake, run_ayder, protocol):
    fake.models = ("one-model", "another-model")
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    default = providers.provider_named(protocol).default_model
    assert fake.chat_requests()[0]["body"]["model"] == default


def test_several_models_and_none_named_exits_2_listing_them(fake, run_ayder):
    fake.models = tuple(f"model-{n}" for n in range(13))
    result = run_ayder("--base-url", fake.url, "q")
    assert result.returncode == 2 and result.stdout == ""
    [error] = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert f"the Ollama server at {fake.url} serves 13 models: model-0, model-1," in error
    assert error.endswith("model-9 and 3 more") and "-m NAME" in result.stderr
    assert fake.chat_requests() == []


def test_the_providers_default_among_several_is_kept(fake, run_ayder):
    fake.models = ("llama3.2:3b", providers.OLLAMA.default_model)
    result = run_ayder("--base-url", fake.url, "q")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["model"] == providers.OLLAMA.default_model


def test_a_provider_named_in_the_environment_keeps_its_server(fake, run_ayder, monkeypatch):
    fake.props = {"default_generation_settings": {"n_ctx": 4096}}  # would make a bare URL llama.cpp
    monkeypatch.setenv("OLLAMA_HOST", fake.url)
    result = run_ayder("-m", "some-model", "q")
    assert result.returncode == 0, result.stderr
    assert [r["path"] for r in fake.chat_requests()] == ["/api/chat"]
    assert "/api/tags" not in paths(fake)


def test_a_web_page_where_the_api_should_be_is_one_line(fake, run_ayder):
    fake.routes["*"] = (200, "text/html; charset=utf-8", WEB_UI)  # a web UI on that port, no API
    result = run_ayder("--base-url", fake.url, "q")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "got an HTML page, 'Open WebUI'" in lines[0], lines
    assert fake.url not in remembered()  # nothing learned: the next run asks again


def test_host_and_port_without_a_scheme_suggests_http(fake, run_ayder):
    address = fake.url.removeprefix("http://")
    result = run_ayder("--base-url", address, "q")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[0].endswith(f"(did you mean http://{address}?)")
    assert fake.requests == []


def test_ollama_named_at_a_v1_url_says_the_path_is_wrong_not_the_model(fake, run_ayder):
    fake.routes["/v1/api/chat"] = (404, "text/plain; charset=utf-8", "404 page not found")  # Go's own 404
    result = run_ayder("-p", "ollama", "--base-url", fake.openai_url, "-m", "some-model", "q")
    assert result.returncode == 1
    assert f"{fake.openai_url}/api/chat not found (HTTP 404)" in result.stderr
    assert "has no model" not in result.stderr and "-p openai" in result.stderr


def test_openai_base_url_alone_names_the_server_as_the_openai_sdks_read_it(fake, run_ayder, monkeypatch):
    """What ../real-llm's start script (and many a tutorial) exports: OPENAI_BASE_URL, nothing else."""
    fake.models = ("smollm2-135m-instruct",)
    monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
    result = run_ayder("q")
    assert result.returncode == 0, result.stderr
    [request] = fake.chat_requests()
    assert request["path"] == "/v1/chat/completions"  # not Ollama's default port, not /api/chat
    assert request["body"]["model"] == "smollm2-135m-instruct"  # its only model, as with --base-url


def test_openai_base_url_does_not_move_a_server_named_elsewhere(fake, run_ayder, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # set for some other tool
    monkeypatch.setenv("OLLAMA_HOST", fake.url)
    result = run_ayder("-m", "some-model", "q")
    assert result.returncode == 0, result.stderr
    assert [r["path"] for r in fake.chat_requests()] == ["/api/chat"]  # OLLAMA_HOST names Ollama's server
