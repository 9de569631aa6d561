"""Runtime: the server and model a session talks to, as one value.

The settings (Config), where they point (Endpoint), the client talking there
and what the server said of its context window travel together: the loop holds
one Runtime, and switching model or server (/model, /provider) replaces it
whole (setup.server.runtime_for builds it); nothing patches a field of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ayder_cli.llm.wire_types import ChatClient
from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.config.schema import Config


@dataclass(frozen=True)
class Runtime:
    config: Config  # the settings every request uses; num_ctx is the window the server serves, once known
    endpoint: Endpoint  # config resolved: provider, URL, model, key
    client: ChatClient  # made from endpoint
    window_note: str = ""  # what the server said of the context window it serves, in words (/status)
