"""Reading the served context window out of each server's own answer (shapes as the servers send them)."""

from __future__ import annotations

from ayder_cli.llm.served import (ServedWindow, from_llama_cpp_props, from_lm_studio_models, from_ollama_show,
                                  from_openai_models)


def test_llama_cpp_props_and_models_meta():
    assert from_llama_cpp_props({"default_generation_settings": {"n_ctx": 4096}}).tokens == 4096
    assert from_llama_cpp_props({"error": "not found"}) is None
    listing = {"data": [{"id": "m", "meta": {"n_ctx": 2048, "n_ctx_train": 8192}}]}
    assert from_openai_models(listing, "m") == ServedWindow(2048, "llama.cpp /v1/models", trained=8192)


def test_vllm_max_model_len_is_looked_up_by_model():
    listing = {"data": [{"id": "a", "max_model_len": 32768}, {"id": "b", "max_model_len": 8192}]}
    assert from_openai_models(listing, "b").tokens == 8192
    assert from_openai_models(listing, "c") is None  # several models, none of them ours: no guess
    assert from_openai_models({"data": [{"id": "gpt-4.1-mini", "object": "model"}]}, "gpt-4.1-mini") is None


def test_lm_studio_reports_the_loaded_context_below_the_maximum():
    listing = {"data": [{"id": "qwen", "state": "loaded", "max_context_length": 32768, "loaded_context_length": 4096}]}
    window = from_lm_studio_models(listing, "qwen")
    assert (window.tokens, window.trained) == (4096, 32768)
    assert from_lm_studio_models({"data": [{"id": "qwen", "max_context_length": 32768}]}, "qwen").tokens == 32768


def test_ollama_serves_what_is_sent_then_the_modelfile_then_its_default_never_above_training():
    show = {"parameters": "num_ctx 2048", "model_info": {"llama.context_length": 131072},
            "capabilities": ["completion", "tools"]}
    assert from_ollama_show(show, 8192).tokens == 8192
    assert from_ollama_show(show, None).tokens == 2048
    assert from_ollama_show({"model_info": {}}, None).tokens == 4096
    assert from_ollama_show({"model_info": {"qwen2.context_length": 4096}}, 8192).tokens == 4096
    assert from_ollama_show(show, 8192).capabilities == ("completion", "tools")
    assert from_ollama_show("not json", 8192) is None
