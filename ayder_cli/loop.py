"""ChatLoop: one user message -> model turns until the reply is done.

The loop never prints. It reports through a small callbacks protocol that the
console implements for the terminal and tests implement with a recorder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from ayder_cli.config import Config
from ayder_cli.conversation import Conversation
from ayder_cli.intents import ThinkFilter
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.base import AssistantTurn, ChatClient, ChatRequest, LLMError, StreamCutError, Usage


class Callbacks(Protocol):
    def on_waiting(self) -> None:
        """A request went out; nothing has arrived yet."""

    def on_text(self, text: str) -> None: ...

    def on_thinking(self, text: str) -> None: ...

    def on_reply_end(self, turn: AssistantTurn) -> None: ...

    def on_notice(self, message: str) -> None: ...

    def on_usage(self, usage: Usage) -> None: ...


class IterationController:
    """Counts model turns for one user message against the budget (-I)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def next_turn(self) -> bool:
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    @property
    def exhausted(self) -> bool:
        return self.used >= self.limit


@dataclass
class RunResult:
    turn: AssistantTurn | None
    interrupted: bool = False


@dataclass
class SessionUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0

    def add(self, usage: Usage | None) -> None:
        self.requests += 1
        if usage:
            self.prompt_tokens += usage.prompt_tokens or 0
            self.completion_tokens += usage.completion_tokens or 0


class ChatLoop:
    def __init__(
        self,
        client: ChatClient,
        conversation: Conversation,
        config: Config,
        callbacks: Callbacks,
        log: Callable[[str], None] = lambda message: None,
    ) -> None:
        self.client = client
        self.conversation = conversation
        self.config = config
        self.callbacks = callbacks
        self.log = log
        self.usage = SessionUsage()

    def run(self, user_text: str) -> RunResult:
        """Handle one user message. Raises LLMError when the server fails."""
        self.conversation.add_user(user_text)
        iterations = IterationController(self.config.iterations)
        iterations.next_turn()
        try:
            turn = self._ask()
        except StreamCutError as exc:
            exc.hint = exc.hint or "what arrived is kept in the conversation; ask again to retry"
            raise  # the partial reply is kept, so the prompt stays too
        except LLMError:
            self.conversation.drop_last_user()  # nothing arrived: as if never sent
            raise
        if turn.interrupted:
            return RunResult(turn, interrupted=True)
        if turn.finish_reason == "length":
            self.callbacks.on_notice(
                f"the reply was truncated at max_tokens ({self.config.max_tokens}); "
                "raise max_tokens or ask the model to continue"
            )
        return RunResult(turn)

    def _request(self) -> ChatRequest:
        config = self.config
        return ChatRequest(
            model=config.resolved_model,
            messages=self.conversation.for_request(),
            stream=config.stream,
            temperature=config.temperature,
            top_p=config.top_p,
            max_tokens=config.max_tokens,
            num_ctx=config.num_ctx,
        )

    def _ask(self) -> AssistantTurn:
        """One model turn: stream it to the callbacks and keep it in the conversation."""
        request = self._request()
        self.log(
            f"{self.client.provider} model={request.model} messages={len(request.messages)} "
            f"stream={str(request.stream).lower()} max_tokens={request.max_tokens}"
        )
        accumulator = Accumulator()
        display = ThinkFilter()
        callbacks = self.callbacks
        callbacks.on_waiting()
        deltas = self.client.stream(request)
        try:
            for delta in deltas:
                accumulator.add(delta)
                if delta.thinking:
                    callbacks.on_thinking(delta.thinking)
                if delta.content:
                    self._show(display.feed(delta.content))
        except KeyboardInterrupt:
            deltas.close()
            self._show(display.finish())
            return self._keep(accumulator.turn(interrupted=True))
        except StreamCutError:
            self._show(display.finish())
            self._keep(accumulator.turn(cut_off=True))
            raise
        self._show(display.finish())
        turn = self._keep(accumulator.turn())
        if turn.usage:
            callbacks.on_usage(turn.usage)
        return turn

    def _show(self, pieces: list[tuple[bool, str]]) -> None:
        for is_thinking, piece in pieces:
            if is_thinking:
                self.callbacks.on_thinking(piece)
            else:
                self.callbacks.on_text(piece)

    def _keep(self, turn: AssistantTurn) -> AssistantTurn:
        self.usage.add(turn.usage)
        self.callbacks.on_reply_end(turn)
        self.conversation.add_assistant(turn)
        return turn

