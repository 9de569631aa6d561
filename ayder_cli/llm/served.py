"""The context window a server actually serves, read from what each kind of server reports.

Local servers often serve less than the model's trained maximum (Ollama's
num_ctx, llama.cpp's -c, LM Studio's load setting), and an over-long prompt is
then cut or refused. Each reader takes one server answer (parsed JSON) and
returns the window it reports, or None. Nothing here talks to the network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.M)


@dataclass(frozen=True)
class ServedWindow:
    tokens: int  # what the server serves for this model
    source: str  # where that number came from, for -v and /status
    trained: int | None = None  # the model's trained maximum, when the server tells
    capabilities: tuple[str, ...] | None = None  # Ollama's list ("completion", "tools", "thinking", ...)

    def describe(self) -> str:
        trained = f", trained for {self.trained}" if self.trained and self.trained != self.tokens else ""
        return f"{self.tokens} tokens ({self.source}{trained})"


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def from_llama_cpp_props(props: Any) -> ServedWindow | None:
    """llama-server GET /props: default_generation_settings.n_ctx is the slot's window."""
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    tokens = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    tokens = tokens or _positive(props.get("n_ctx"))
    return ServedWindow(tokens, "llama.cpp /props") if tokens else None


def _entry(listing: Any, model: str, key: str = "data") -> dict | None:
    """The listing's entry for `model` (or its only entry)."""
    entries = listing.get(key) if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    entries = [entry for entry in entries if isinstance(entry, dict)]
    named = [entry for entry in entries if model in (entry.get("id"), entry.get("name"), entry.get("model"))]
    return named[0] if named else (entries[0] if len(entries) == 1 else None)


def from_openai_models(listing: Any, model: str) -> ServedWindow | None:
    """GET /v1/models: vLLM's max_model_len, or llama.cpp's meta.n_ctx."""
    entry = _entry(listing, model)
    if entry is None:
        return None
    tokens = _positive(entry.get("max_model_len"))
    if tokens:
        return ServedWindow(tokens, "vLLM max_model_len")
    meta = entry.get("meta")
    if isinstance(meta, dict) and _positive(meta.get("n_ctx")):
        return ServedWindow(meta["n_ctx"], "llama.cpp /v1/models", trained=_positive(meta.get("n_ctx_train")))
    return None


def from_lm_studio_models(listing: Any, model: str) -> ServedWindow | None:
    """LM Studio GET /api/v0/models: the loaded context length, which can be below the maximum."""
    entry = _entry(listing, model)
    if entry is None:
        return None
    trained = _positive(entry.get("max_context_length"))
    loaded = _positive(entry.get("loaded_context_length"))
    if loaded:
        return ServedWindow(loaded, "LM Studio loaded context", trained=trained)
    return ServedWindow(trained, "LM Studio maximum context") if trained else None


def from_ollama_show(show: Any, requested: int | None) -> ServedWindow | None:
    """Ollama POST /api/show: the trained maximum (model_info *.context_length), the Modelfile's
    num_ctx and the capabilities. Ollama serves the num_ctx each request sends (ayder's,
    `requested`), else the Modelfile's, else its own default (4096)."""
    if not isinstance(show, dict):
        return None
    info = show.get("model_info")
    trained = None
    if isinstance(info, dict):
        trained = next((_positive(value) for key, value in info.items() if key.endswith(".context_length")), None)
    modelfile = _NUM_CTX.search(show.get("parameters") or "") if isinstance(show.get("parameters"), str) else None
    capabilities = show.get("capabilities")
    capabilities = tuple(c for c in capabilities if isinstance(c, str)) if isinstance(capabilities, list) else None
    if requested:
        tokens, source = requested, "the num_ctx ayder sends to Ollama"
    elif modelfile:
        tokens, source = int(modelfile.group(1)), "the Modelfile's num_ctx"
    else:
        tokens, source = 4096, "Ollama's default"
    if trained and tokens > trained:
        tokens, source = trained, "the model's trained maximum"
    return ServedWindow(tokens, source, trained=trained, capabilities=capabilities)


_OVERFLOW_WORDS = ("context length", "context size", "context window", "maximum context", "context_length_exceeded",
                   "prompt is too long", "too many tokens")
_TOKEN_COUNTS = re.compile(r"(\d[\d,]*)\s*tokens|(\d[\d,]*)\s*>\s*(\d[\d,]*)")


def context_overflow(message: str) -> tuple[int | None, int | None] | None:
    """(tokens needed, tokens available) when a server's error says the prompt is too long, else None.

    llama.cpp: "request (4102 tokens) exceeds the available context size (2048 tokens)"; vLLM and
    OpenAI: "maximum context length is 8192 tokens. However, you requested 9000 tokens"; others just
    "context length exceeded". The larger number is what was needed.
    """
    lowered = message.lower()
    if not any(word in lowered for word in _OVERFLOW_WORDS):
        return None
    numbers = sorted({int(number.replace(",", "")) for match in _TOKEN_COUNTS.findall(message)
                      for number in match if number})
    if len(numbers) >= 2:
        return numbers[-1], numbers[0]
    return None, None
