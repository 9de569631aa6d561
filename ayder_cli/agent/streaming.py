"""One reply as it streams: its text and thinking shown through the callbacks as they arrive
(tool markup filtered out of the view), the whole reply gathered for the conversation."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ayder_cli.agent.arriving import ArrivingCalls, ArrivingText
from ayder_cli.agent.callbacks import Callbacks
from ayder_cli.agent.repeats import BLOCK_TIMES, RepeatingText, RestartCheck
from ayder_cli.intents import StreamFilter
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.wire_types import Delta, Reply, StreamCutError


def stream_reply(start: Callable[[], Iterator[Delta]], display: StreamFilter, callbacks: Callbacks,
                 keep: Callable[[Reply], Reply], goes_on_from: str = "") -> Reply:
    """The reply `start()` streams, shown as it arrives and handed whole to `keep`; also when Ctrl-C
    stops it (kept as interrupted) or the stream breaks (kept as cut off; the StreamCutError goes on).
    A reply that loops in its text is stopped; so is a continuation of `goes_on_from` (a reply
    max_tokens cut) that starts it again, before any of it is shown."""
    accumulator = Accumulator()
    repeating, restart = RepeatingText(), RestartCheck(goes_on_from)
    try:
        _receive(start(), accumulator, display, callbacks, repeating, restart)
    except KeyboardInterrupt:
        _show(display.feed(restart.finish()) + display.finish(), callbacks)
        return keep(accumulator.reply(interrupted=True))
    except StreamCutError:
        _show(display.feed(restart.finish()) + display.finish(), callbacks)
        keep(accumulator.reply(stream_cut=True))
        raise
    _show(display.feed(restart.finish()) + display.finish(), callbacks)
    reply = accumulator.reply()
    if repeating.block:  # stopped: the conversation keeps the block once
        callbacks.on_notice(f"the reply repeated the same {repeating.block} characters {BLOCK_TIMES} times "
                            "in a row; ayder stopped it there")
        reply.text, reply.finish_reason = repeating.kept(reply.text), "repeated"
    if restart.restarted:
        callbacks.on_notice("the model started its answer again instead of continuing it; "
                            "not asking it to continue")
        reply.finish_reason = "restarted"
    return keep(reply)


def _receive(deltas: Iterator[Delta], accumulator: Accumulator, display: StreamFilter, callbacks: Callbacks,
             repeating: RepeatingText, restart: RestartCheck) -> None:
    """Stream the reply into `accumulator`, showing its text and thinking, and each native call's
    name, subject and size, as they arrive; a reply that repeats a block of text is stopped."""
    arriving, written = ArrivingCalls(), ArrivingText(display.found.schemas)
    try:
        for delta in deltas:
            accumulator.add(delta)
            if delta.tool_calls:
                callbacks.on_tool_arriving(arriving.add(delta.tool_calls))
            if delta.thinking:
                callbacks.on_thinking(delta.thinking)
            text = restart.feed(delta.content) if delta.content else ""  # a continuation's start: held
            if restart.restarted:
                deltas.close()  # closes the response: the server stops generating
                return
            if text:
                _show(display.feed(text), callbacks)
                held = display.held()  # markup held: a call written as text, still streaming
                call = written.see(held)
                if call is not None:
                    callbacks.on_tool_arriving(call)
                if held:
                    repeating.reset()  # a file's content in a call may repeat itself: it is no loop
                elif repeating.add(text):
                    deltas.close()  # closes the response: the server stops generating
                    return
            elif delta.progress is not None:  # the server is still reading the prompt
                callbacks.on_progress(delta.progress)
            if delta.warning:  # e.g. malformed events the client skipped: said once per reply
                callbacks.on_notice(delta.warning)
    except KeyboardInterrupt:
        deltas.close()  # closes the response: the server stops generating
        raise


def _show(pieces: list[tuple[str, str]], callbacks: Callbacks) -> None:
    for kind, piece in pieces:
        if kind == "thinking":
            callbacks.on_thinking(piece)
        else:
            callbacks.on_text(piece)
