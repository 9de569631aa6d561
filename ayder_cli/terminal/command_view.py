"""CommandView: what a command prints, shown on stderr while it runs, and its last lines after it.

run_shell_command (a model's command, a check) hands each chunk it reads to the view
(ToolContext.watch, wired in session/services.py). Where it goes:

- a terminal: the last LIVE_LINES lines, dimmed, redrawn in place under the activity
  line; when the command ends, its last TAIL_LINES lines stay;
- with -v (or /verbose): every line scrolls by, dimmed; nothing is redrawn;
- piped, --json, or TERM=dumb: nothing moves; the last TAIL_LINES lines are printed once
  at the end (with -v, every line as it comes).

The command's own status line follows (the activity line's end, or a check's line);
output with no activity line or question above it naming the call (a check) gets
a `$ command` line first. Lines are made safe (safe_text: no escape sequence of the
command's reaches the terminal), masked (a key split across two reads is held back),
then cut to the terminal's width so a redraw knows how many rows it covers. The read loop never waits on the view: it redraws at
most every REDRAW_S, and one that cannot write (a closed stderr) stops drawing.
"""

from __future__ import annotations

import codecs
import time
from collections import deque
from typing import Callable

from ayder_cli.masking import Secrets
from ayder_cli.terminal.console import describe_command
from ayder_cli.terminal.safe_text import cut_to_width, safe_line, terminal_columns
from ayder_cli.terminal.style import CLEAR_BELOW, DIM, RESET, rows_up

LIVE_LINES = 5  # the lines redrawn in place while the command runs
TAIL_LINES = 10  # the lines that stay when it ends
REDRAW_S = 0.1  # the least time between two redraws (also before the first: a quick command only leaves its tail)
INDENT = "    "  # under the activity line's arrow, apart from the status line's mark
LINE_CHARS = 400  # the most of a line shown where no width is known (a pipe, a log)
MAX_LINE = 8192  # the most of one line kept: a command printing a huge line costs little
SCROLL_BATCH = 1000  # with -v, the most lines written per redraw; more are counted, not shown


class CommandView:
    """One command's output on the console's stderr (the OutputWatch of tools/spec.py)."""

    def __init__(self, console, secrets: Secrets, command: str = "",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console  # its stderr (masked), colour, -v, and whether it may redraw in place
        self.command = command
        self.secrets = secrets
        self.clock = clock
        self.scroll = console.verbose
        self.in_place = console.draws_in_place and not self.scroll
        # On a terminal the rows are cut to its width (a redraw must know the rows it covers); in a
        # pipe to LINE_CHARS; with -v nothing is redrawn, and a line is shown whole.
        self.columns = max(_columns(console) - len(INDENT), 10) if console.draws_in_place else None
        self._decoders = {1: _utf8(), 2: _utf8()}
        self._partial = {1: "", 2: ""}  # each stream's line not ended yet
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)  # the last whole lines, safe and masked
        self._pending: list[str] = []  # with -v: whole lines not written yet (raw)
        self._skipped = 0  # with -v: lines beyond SCROLL_BATCH in one redraw
        self._drawn = 0  # the rows of the live view on the screen now
        self._dirty = False
        self._due = clock() + REDRAW_S
        self._broken = False  # stderr could not be written: the view stops, the command goes on
        self._started = False  # something was written: the output's place on the screen is taken

    # --- the OutputWatch

    def output(self, stream: int, data: bytes) -> None:
        self._take(stream, self._decoders[stream].decode(data))

    def tick(self) -> None:
        if not self._dirty or self.clock() < self._due:
            return
        self._due = self.clock() + REDRAW_S
        self._dirty = False
        if self.scroll:
            self._write(self._scrolled())
        elif self.in_place:
            lines = [*self._tail, *self._unfinished()][-LIVE_LINES:]
            self._write(self._erase() + "".join(self._row(line) for line in lines))
            self._drawn = len(lines)

    def end(self) -> None:
        for stream, decoder in self._decoders.items():
            self._take(stream, decoder.decode(b"", final=True))
            if self._partial[stream]:
                self._take(stream, "\n")  # a last line without its newline is a line
        if self.scroll:
            self._write(self._scrolled())
            return
        lines = list(self._tail)
        while lines and not lines[-1].strip():
            lines.pop()  # blank lines at the end say nothing
        frame = self._erase() + "".join(self._row(line) for line in lines)
        self._drawn = 0
        self._write(frame)

    # --- lines

    def _take(self, stream: int, text: str) -> None:
        """Whole lines to the tail (or, with -v, to be written); the unfinished end kept for the next read.
        Only the lines that can be shown are split off: a chunk of thousands of lines costs little."""
        if not text:
            return
        text = self._partial[stream] + text
        if self.scroll:
            room = SCROLL_BATCH - len(self._pending)
            pieces = text.split("\n", room)  # at most `room` lines split off; the rest in one piece
            rest = pieces.pop()
            self._pending.extend(pieces)
            self._skipped += rest.count("\n")
        else:
            pieces = text.rsplit("\n", TAIL_LINES + 1)  # the last lines, and before them the rest in one piece
            rest = pieces.pop()
            self._tail.extend(self._shown(raw) for raw in pieces[-TAIL_LINES:])
        last = rest[rest.rfind("\n") + 1:]
        carriage = last.rfind("\r", 0, len(last) - 1)  # a \r at the very end may be a \r\n's half
        self._partial[stream] = last[carriage + 1:][:MAX_LINE]
        self._dirty = True

    def _shown(self, raw: str) -> str:
        """A whole line as it may be shown: safe, masked; a line cut short loses an end that could start a key."""
        if len(raw) < MAX_LINE:
            return self.secrets.mask(safe_line(raw))
        return self.secrets.split_unfinished(safe_line(raw[:MAX_LINE]))[0] + "…"

    def _unfinished(self) -> list[str]:
        """The lines still being written, as far as they can be shown (an unfinished key is held back)."""
        shown = [self.secrets.split_unfinished(safe_line(partial))[0] for partial in self._partial.values()]
        return [line for line in shown if line]

    def _scrolled(self) -> str:
        lines, self._pending = self._pending, []
        text = "".join(self._row(self._shown(raw), whole=True) for raw in lines)
        if self._skipped:
            text += self._row(f"[... {self._skipped:,} more lines ...]", whole=True)
            self._skipped = 0
        return text

    def _row(self, line: str, whole: bool = False, indent: str = INDENT) -> str:
        if not whole and self.columns is not None:
            line = cut_to_width(line, self.columns)
        elif not whole and len(line) > LINE_CHARS:
            line = line[:LINE_CHARS - 1] + "…"
        return f"{DIM}{indent}{line}{RESET}\n" if self.console.color else f"{indent}{line}\n"

    # --- the screen

    def _erase(self) -> str:
        """Back to the live view's first row, and the rows below cleared."""
        return f"\r{rows_up(self._drawn)}{CLEAR_BELOW}" if self._drawn else ""

    def _write(self, text: str) -> None:
        if not text or self._broken:
            return
        try:
            if not self._started:
                self._started = True
                named = self.console.call_named  # the model's command: its activity line or question names it
                self.console.start_block()  # that line ends; the output goes under it
                if not named and self.command:  # a check: named here
                    text = self._row(f"$ {self.secrets.mask(describe_command(self.command))}", indent="") + text
            self.console.err.write(text)
            self.console.err.flush()
        except (OSError, ValueError):
            self._broken = True


def _utf8():
    return codecs.getincrementaldecoder("utf-8")(errors="replace")


def _columns(console) -> int:
    """The terminal's width now (it may have changed since the last command)."""
    return terminal_columns(console.environment)
