"""Native tool calls, or tools taught as text: the fallback when a server will not take them.

A session starts by offering the tools natively (native_tools "auto"). A server
that refuses the tools parameter, or whose own tool-call parser chokes on the
model's output, gets the same request again with the tools taught as [CALL]
lines, which ayder reads itself; and the server profile remembers it, so the
next session does not fail first again. refuses_tools() is the one test of a
refusal: the doctor asks it too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ayder_cli.llm.wire_types import ChatClient, ChatRequest, Delta, LLMError
from ayder_cli.config.schema import Config
from ayder_cli.storage.profiles import ServerProfiles


def refuses_tools(exc: LLMError) -> bool:
    """The server refused the request over its tools. Servers say so in words: "does not support tools",
    "tools param requires --jinja", "auto tool choice requires ..."."""
    return exc.status in (400, 422, 500) and "tool" in exc.message.lower()


def parser_failed(exc: LLMError) -> bool:
    """The server's tool-call parser choked on the model's output ("Failed to parse tool call"): it fails
    the same way on every retry, while ayder can read the calls from the text itself."""
    return refuses_tools(exc) and "pars" in exc.message.lower()


class ToolMode:
    """How the offered tools reach this server and model: native (True), as text (False), or not known
    yet (None: native first, text if the server refuses them)."""

    def __init__(self, config: Config, profiles: ServerProfiles | None, log: Callable[[str], None],
                 notice: Callable[[str], None]) -> None:
        self.profiles = profiles  # what earlier runs learned about this server and model
        self.notice = notice
        self.native: bool | None = {"on": True, "off": False}.get(config.native_tools)
        learned = profiles.get(config.resolved_base_url, config.resolved_model) if profiles else {}
        if self.native is None and learned.get("native_tools") is False:
            self.native = False  # the server refused them last time: do not fail first again
            log(f"tools go as text: {learned.get('reason', 'the server refused them')} (learned "
                f"{learned.get('learned', 'earlier')}); native_tools \"on\" tries native calls again")

    @property
    def as_text(self) -> bool:
        return self.native is False

    def stream(self, client: ChatClient, config: Config, request: ChatRequest,
               rebuild: Callable[[], ChatRequest]) -> Iterator[Delta]:
        """The client's deltas for `request`; a server that refuses native tools gets the request
        again as `rebuild` makes it, with the tools as text."""
        deltas = client.stream(request)
        try:
            first = next(deltas)
        except StopIteration:
            return _chain(None, deltas)
        except LLMError as exc:
            failed = parser_failed(exc) and config.native_tools == "auto"
            if not request.tools or not (refuses_tools(exc) and self.native is None or failed):
                raise
            self.native = False
            what = "the server's tool-call parser failed" if failed else "the server refused native tool calling"
            self.notice(f"{what}; tools are now taught as text ([CALL] lines)")
            if self.profiles is not None:
                self.profiles.remember(config.resolved_base_url, config.resolved_model,
                                       native_tools=False, reason=what)
            return self.stream(client, config, rebuild(), rebuild)
        if request.tools and self.native is None:
            self.native = True  # the server took them
        return _chain(first, deltas)


def _chain(first: Delta | None, rest: Iterator[Delta]) -> Iterator[Delta]:
    """The first delta, already taken to see whether the request was accepted, then the rest."""
    if first is not None:
        yield first
    yield from rest
