"""Types shared by both clients: the request, the streamed deltas, the finished reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator, Protocol

from ayder_cli.calls import ToolCall
from ayder_cli.errors import AyderError


@dataclass
class ChatRequest:
    model: str
    messages: list[dict[str, Any]]
    stream: bool = True
    tools: list[dict[str, Any]] | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    num_ctx: int | None = None
    keep_alive: str | None = None  # Ollama: how long the model stays loaded after this request
    # OpenAI-compatible servers: "required" (or {"type": "function", ...}) makes the model call a tool;
    # Ollama has no such option and leaves it out.
    tool_choice: str | dict[str, Any] | None = None
    # How long the server may take to read this prompt at its measured speed (None: not known):
    # the first-data deadline is then this, or timeout_s if longer.
    reading: ReadingTime | None = None


@dataclass(frozen=True)
class ReadingTime:
    """The time the caller gives a server to read one prompt: twice what it needs at its measured speed."""

    tokens: int  # prompt tokens the server must read (the cached prefix excluded)
    speed: float  # the server's measured prompt speed, tokens per second

    @property
    def seconds(self) -> float:
        return 2 * self.tokens / self.speed

    def describe(self, timeout_s: float | None) -> str:
        """Why the first-data limit is what it is, for the error when it passes."""
        measured = f"{self.speed:,.0f} tok/s measured before"
        if timeout_s is not None and timeout_s >= self.seconds:
            return f"timeout_s; {self.tokens:,} prompt tokens to read at the {measured}"
        limit = "" if timeout_s is None else f"; timeout_s is {timeout_s:g} s"
        return f"twice the {self.tokens:,} prompt tokens to read at the {measured}{limit}"


@dataclass(frozen=True, slots=True)
class PromptProgress:
    """llama.cpp's `prompt_progress` while it reads a prompt: `processed` counts the cached part too."""

    total: int
    cached: int
    processed: int
    time_ms: int  # since the server started reading this prompt

    @property
    def speed(self) -> float | None:
        """Tokens read per second so far (the cached part was not read)."""
        read = self.processed - self.cached
        return read * 1000 / self.time_ms if read > 0 and self.time_ms > 0 else None

    def seconds_left(self) -> float | None:
        speed = self.speed
        return (self.total - self.processed) / speed if speed else None


@dataclass
class Usage:
    prompt_tokens: int | None = None  # the whole prompt, cached part included
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # of the prompt, reused from the server's prompt cache (when it says)
    tokens_per_second: float | None = None  # generation speed, where the server reports its timings
    prompt_per_second: float | None = None  # prompt reading speed (llama.cpp timings, Ollama prompt_eval_*)

    @property
    def total_tokens(self) -> int:
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    @property
    def evaluated_tokens(self) -> int | None:
        """Prompt tokens the server had to read anew (None when it does not report its cache)."""
        if self.prompt_tokens is None or self.cached_tokens is None:
            return None
        return max(self.prompt_tokens - self.cached_tokens, 0)

    def describe_prompt(self) -> str:
        """"901", or "901 (880 cached, 21 read)" when the server reports its prompt cache."""
        if self.evaluated_tokens is None:
            return str(self.prompt_tokens or 0)
        return f"{self.prompt_tokens} ({self.cached_tokens} cached, {self.evaluated_tokens} read)"

    def merged(self, later: "Usage") -> "Usage":
        """Counts from two chunks of one reply (llama.cpp sends timings and usage apart)."""
        return Usage(*(b if b is not None else a for a, b in (
            (self.prompt_tokens, later.prompt_tokens),
            (self.completion_tokens, later.completion_tokens),
            (self.cached_tokens, later.cached_tokens),
            (self.tokens_per_second, later.tokens_per_second),
            (self.prompt_per_second, later.prompt_per_second))))


@dataclass(slots=True)
class ToolCallFragment:
    """A piece of a native tool call as streamed; `index` says which call it extends."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str | dict | None = None


@dataclass(slots=True)
class Delta:
    """One decoded piece of a streamed reply; any field may be empty."""

    content: str | None = None
    thinking: str | None = None
    tool_calls: list[ToolCallFragment] | None = None
    finish_reason: str | None = None
    usage: Usage | None = None
    warning: str | None = None  # for the user, once per reply: e.g. malformed events that were skipped
    # How far the server has read the prompt: set on a ProgressDelta only. A class attribute here, so
    # that the many deltas of a reply's text carry no field more (their decoding is the hot path).
    progress: ClassVar[PromptProgress | None] = None


class ProgressDelta(Delta):
    """The server is still reading the prompt (llama.cpp's prompt_progress): no reply data yet."""

    __slots__ = ("progress",)

    def __init__(self, progress: PromptProgress | None) -> None:
        Delta.__init__(self)
        self.progress = progress


@dataclass
class Reply:
    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    interrupted: bool = False  # stopped by Ctrl-C
    stream_cut: bool = False  # the stream ended before the server said it was done
    calls_cut: int = 0  # native calls past the most one reply may run, dropped before it was kept (agent/batch.py)


class LLMError(AyderError):
    """A failure talking to the server, with a next step for the user."""

    def __init__(self, message: str, hint: str | None = None, status: int | None = None):
        super().__init__(message, hint)
        self.status = status


class StreamCutError(LLMError):
    """The stream broke after it had started; what arrived is kept by the caller."""


class ChatClient(Protocol):
    provider: str
    base_url: str

    def stream(self, request: ChatRequest) -> Iterator[Delta]:
        """Send the request and yield deltas as they arrive (one delta when not streaming)."""

    def list_models(self) -> list[str]:
        """Model names the server offers."""
