"""Finding a model server on this machine when none is configured.

The usual local ports are asked for their model list, all at once; the first
candidate in CANDIDATES order that answers wins. Only talks to the network:
what to do with the answer is decided by the caller.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

import requests

from ayder_cli.llm.http import fetch_json
from ayder_cli.llm.providers import OLLAMA, OPENAI, provider_named
from ayder_cli.wording import listed

# On loopback a listener accepts at once and a closed port refuses at once,
# so these only matter for a port that swallows connections or never answers.
CONNECT_TIMEOUT_S = 0.3
READ_TIMEOUT_S = 1.5
DEADLINE_S = 1.5  # the whole search never takes longer


@dataclass(frozen=True)
class Candidate:
    provider: str  # the provider whose client speaks to it (llm/providers.py)
    kind: str  # what usually listens there, for -v and errors
    base_url: str
    models_path: str = ""  # GET base_url + this lists the models; "": its provider's (llm/providers.py)

    @property
    def port(self) -> int | None:
        return urlsplit(self.base_url).port

    @property
    def models_url(self) -> str:
        return self.base_url + (self.models_path or provider_named(self.provider).models_path)


# Priority order: Ollama first, so the README's default wins whenever it runs.
# Ollama's URL is the default one, so what ayder remembers about it still applies.
CANDIDATES: tuple[Candidate, ...] = (
    Candidate(OLLAMA.name, OLLAMA.kind, OLLAMA.default_base_url),
    Candidate(OPENAI.name, "llama.cpp-style", "http://127.0.0.1:8080/v1"),
    Candidate(OPENAI.name, "LM Studio-style", "http://127.0.0.1:1234/v1"),
    Candidate(OPENAI.name, "vLLM-style", "http://127.0.0.1:8000/v1"),
)


@dataclass(frozen=True)
class FoundServer:
    provider: str
    kind: str
    base_url: str
    models: tuple[str, ...]  # as the server listed them

    def describe(self) -> str:
        """e.g. 'llama.cpp-style server at http://127.0.0.1:8080/v1 (1 model: qwen3)'"""
        return f"{self.kind} server at {self.base_url} ({self.model_list()})"

    def model_list(self, limit: int = 10) -> str:
        """'no models', '1 model: a', '12 models: a, b, ... and 2 more'."""
        return listed(self.models, "model", limit)


def find_local_server(candidates: tuple[Candidate, ...] | None = None,
                      deadline_s: float = DEADLINE_S) -> FoundServer | None:
    """The first candidate, in order, that answers with a model list; None if none does in time.

    All are asked in parallel; this returns as soon as every candidate before
    the winner has failed, without waiting for the slower ones behind it. Those
    still reading then stop at their next piece and close their connection.
    """
    candidates = CANDIDATES if candidates is None else candidates
    answers: list[tuple[str, ...] | None] = [None] * len(candidates)
    done = [threading.Event() for _ in candidates]
    decided = threading.Event()

    def ask(index: int) -> None:
        try:
            answers[index] = list_models(candidates[index], cancelled=decided.is_set)
        finally:
            done[index].set()

    for index in range(len(candidates)):
        # Daemon threads: a port that never answers must not hold up ayder's exit.
        threading.Thread(target=ask, args=(index,), daemon=True, name="ayder-discover").start()
    deadline = time.monotonic() + deadline_s
    try:
        for index, candidate in enumerate(candidates):
            done[index].wait(max(0.0, deadline - time.monotonic()))
            models = answers[index]
            if models is not None:
                return FoundServer(candidate.provider, candidate.kind, candidate.base_url, models)
        return None
    finally:
        decided.set()


def list_models(candidate: Candidate, cancelled: Callable[[], bool] | None = None) -> tuple[str, ...] | None:
    """The model names the candidate lists; None if nothing answers there with a model list (capped,
    in time) or once `cancelled` says the answer is no longer wanted."""
    with requests.Session() as session:
        session.trust_env = False  # a proxy from the environment must not stand between us and loopback
        return model_names(fetch_json(session, "GET", candidate.models_url,
                                      timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S), allow_redirects=False,
                                      headers={"User-Agent": "ayder"}, cancelled=cancelled))


def model_names(listing: Any) -> tuple[str, ...] | None:
    """The names in an Ollama /api/tags or OpenAI /v1/models answer; None if it is neither."""
    entries = listing.get("data", listing.get("models")) if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    names = (entry.get("id") or entry.get("name") for entry in entries if isinstance(entry, dict))
    return tuple(name for name in names if isinstance(name, str) and name)
