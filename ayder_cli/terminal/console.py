"""Everything printed. stdout carries the answer only; the rest goes to stderr.

Every text that reaches the terminal through here passes safe_text (or, streamed, a
StreamSanitizer) before ayder paints it: what came from outside (the model's answer and thinking,
a tool's name, a path, a server's message) cannot act on the terminal; ayder's own styling stays.
"""

from __future__ import annotations

import threading
from typing import IO

from ayder_cli.calls import describe
from ayder_cli.llm.wire_types import Reply, Usage
from ayder_cli.masking import MaskedStream, Secrets
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.safe_text import StreamSanitizer, cut_to_width, safe_text, terminal_columns, wrap_row
from ayder_cli.terminal.style import CLEAR_TO_END, DIM, ERASE_LINE, GREEN, RED, RESET, YELLOW
from ayder_cli.terminal.usage_line import describe_message_usage
from ayder_cli.wording import counted

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
WAITING = "waiting for the model"


class Spinner:
    """A spinner on stderr, from a request going out until the first token."""

    def __init__(self, stream: IO[str], label: str = WAITING) -> None:
        self.stream = stream
        self.label = label
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if not self._thread:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        self.stream.write(ERASE_LINE)
        self.stream.flush()

    def _spin(self) -> None:
        frame = 0
        while not self._stop.wait(0.1 if frame else 0.3):  # no flicker on a fast first token
            # The label may change (prompt progress): the rest of a longer one is cleared.
            spinner = SPINNER_FRAMES[frame % len(SPINNER_FRAMES)]
            self.stream.write(f"\r{DIM}{spinner} {self.label}…{RESET}{CLEAR_TO_END}")
            self.stream.flush()
            frame += 1


class Console:
    """The terminal side of the loop's callbacks, plus notices and errors."""

    def __init__(self, environment: Environment, *, show_thinking: bool = False, verbose: bool = False) -> None:
        self.environment = environment
        self.out = environment.stdout
        self.err = environment.stderr
        self.color = environment.stderr_is_tty and not environment.no_color
        # Lines may be redrawn in place (a command's live output): a terminal that moves its cursor.
        self.draws_in_place = environment.stderr_is_tty and environment.env.get("TERM") != "dumb"
        self.show_thinking = show_thinking
        self.verbose = verbose
        self._spinner = Spinner(self.err) if self.color else None
        self._out_line_open = False  # stdout has text not yet ended by a newline
        self._arriving = None  # the line of a native call still streaming, drawn on stderr (an ArrivingLine)
        self._progress_shown = False  # a prompt progress line is on stderr (drawn without the spinner)
        self._err_line_open = False  # stderr has thinking not yet ended by a newline
        self._activity: str | None = None  # the activity line while it is stderr's open line (its one row)
        self.call_named = False  # the call running now is named on screen (its activity line, or its question)
        self._message_usage: list[Usage] = []  # the counts of each request of the current user message
        # Markdown rendered only on a terminal with colour; anything else gets the model's text unchanged.
        self.markdown = environment.stdout_is_tty and not environment.no_color
        self._markdown = None  # the MarkdownView, made at the first text (its import waits until then)
        self._secrets: Secrets | None = None
        self._safe_answer, self._safe_thinking = StreamSanitizer(), StreamSanitizer()  # a sequence may span deltas

    def mask_with(self, secrets: Secrets) -> None:
        """From now on every write to stdout and stderr has the secrets masked."""
        if secrets:
            self.out = MaskedStream(self.environment.stdout, secrets)
            self.err = MaskedStream(self.environment.stderr, secrets)
            self._secrets = secrets  # Markdown masks them before rendering, as the stream does after
            if self._markdown:
                self._markdown.secrets = secrets

    def say_replaced_stdin(self) -> None:
        """Once per read: stdin held bytes that are not UTF-8, and what became of them."""
        lenient = self.environment.lenient_stdin
        count = lenient.take_replaced() if lenient else 0
        if count:
            self.notice(f"stdin held {counted(count, 'byte')} that are not UTF-8; "
                        "each was replaced by \ufffd")

    def settle(self) -> None:
        """At the end of a reply or of the run: write out what a masked stream held back."""
        for stream in (self.out, self.err):
            if isinstance(stream, MaskedStream):
                stream.settle()

    # --- the loop's callbacks

    def on_message_start(self, text: str) -> None:
        pass  # the terminal shows the replies, not the message asked

    def on_waiting(self) -> None:
        if self._spinner:
            self._spinner.label = WAITING
            self._spinner.start()

    def on_progress(self, progress) -> None:
        """One updating line while the server reads the prompt, on a terminal; -v logs each report elsewhere."""
        from ayder_cli.terminal.progress_line import describe_progress  # lazy: only long prompts on llama.cpp

        line = describe_progress(progress)
        if self._spinner:
            self._spinner.label = line  # the spinner draws it with its next frame
            self._spinner.start()  # again, if a line of its own (-v) stopped it
        elif self.draws_in_place:
            self.err.write(f"\r{line}{CLEAR_TO_END}")
            self.err.flush()
            self._progress_shown = True
        else:
            self.log(line)

    def on_text(self, text: str) -> None:
        self._stop_spinner()
        self._end_err_line()
        text = self._safe_answer.feed(text)  # before Markdown: its own styling is added after
        if not text:
            return
        if self.markdown:
            if self._markdown is None:
                from ayder_cli.terminal.markdown_view import (
                    MarkdownView,  # lazy: start-up before the first reply stays fast
                )
                self._markdown = MarkdownView(self._secrets)
            rendered = self._markdown.feed(text)  # what can be shown yet: markup waits for its line's end
            if rendered:
                self._out_line_open = not rendered.endswith("\n")
                self.out.write(rendered)
                self.out.flush()
            return
        # Before the write: a Ctrl-C landing just after it must still see the line as open.
        self._out_line_open = not text.endswith("\n")
        self.out.write(text)
        self.out.flush()  # a delta is on the screen at once, even through a pipe

    def on_thinking(self, text: str) -> None:
        self._stop_spinner()
        if not self.show_thinking:
            return
        text = self._safe_thinking.feed(text)
        if not text:
            return
        self._flush_markdown()
        # Start thinking on its own line only where both streams share a screen;
        # a redirected stdout keeps exactly the answer's text.
        if self._out_line_open and self.environment.stdout_is_tty and self.environment.stderr_is_tty:
            self.out.write("\n")
            self.out.flush()
            self._out_line_open = False
        self.err.write(self._paint(text, DIM))
        self.err.flush()
        self._err_line_open = not text.endswith("\n")

    def on_reply_end(self, reply: Reply) -> None:
        self._stop_spinner()
        if reply.finish_reason != "length" or reply.interrupted:  # else the rest goes on from this line
            self._flush_markdown()
        self.settle()
        self._end_err_line()
        if reply.finish_reason == "length" and not reply.interrupted:
            return  # the loop asks for the rest, which goes on from here
        self._safe_answer.finish()
        self._safe_thinking.finish()
        if self._out_line_open:
            self.out.write("\n")
            self.out.flush()
            self._out_line_open = False
        if reply.interrupted:
            self.notice("interrupted; the partial reply is kept")

    def on_tool_arriving(self, call) -> None:
        """A native call names itself while its arguments stream: one line redrawn in place, on a
        terminal only (a pipe or a log gets just the activity line once the call is whole)."""
        if not self.draws_in_place or not call.name:
            return
        if self._arriving is None:
            from ayder_cli.terminal.arriving_line import ArrivingLine  # lazy: not on the start-up path

            self._stop_spinner()
            self._end_err_line()
            self._flush_markdown()
            if self._out_line_open and self.environment.stdout_is_tty:
                self.out.write("\n")  # the line is redrawn from its start: the answer's line stays whole
                self.out.flush()
                self._out_line_open = False
            self._arriving = ArrivingLine(terminal_columns(self.environment))
        line = self._arriving.redraw(call.name, call.subject, call.size)
        if line is not None:
            self.err.write(ERASE_LINE + self._paint(line, DIM))
            self.err.flush()

    def on_tool_start(self, call) -> None:
        self._stop_spinner()
        self._end_err_line()
        self._flush_markdown()
        if self._out_line_open and self.environment.stdout_is_tty and self.environment.stderr_is_tty:
            self.out.write("\n")  # the activity line starts on a line of its own on a shared screen
            self.out.flush()
            self._out_line_open = False
        line = f"→ {safe_text(describe_call(call))}"
        if self.environment.stderr_is_tty:  # one row: never wrapped mid-word, and a question can take it back
            line = cut_to_width(line, terminal_columns(self.environment) - 1)
        self.err.write(self._paint(line, DIM))
        self.err.flush()
        self._err_line_open = True
        self._activity, self.call_named = line, True

    def end_activity_line(self) -> None:
        """Before a question about the call: on a terminal its activity line is taken back, as the question
        names the call whole (the call is not shown twice); elsewhere (a log) the line ends here."""
        if self._activity is not None and self._err_line_open and self.environment.stderr_is_tty:
            blank = CLEAR_TO_END if self.draws_in_place else " " * len(self._activity) + "\r"  # a dumb terminal has \r
            self.err.write("\r" + blank)
            self._err_line_open = False
        self._activity = None
        self._end_err_line()
        self.err.flush()

    def on_tool_done(self, call, result) -> None:
        mark = "✓" if result.ok else "✗"
        summary = safe_text(result.summary or ("ok" if result.ok else (result.error or "failed")))
        status = f"  {mark} {summary}"
        if self.environment.stderr_is_tty:  # wrapped at words; below the activity line when both do not fit
            columns = terminal_columns(self.environment)
            if self._activity is not None and self._err_line_open and \
                    len(self._activity) + len(status) > columns - 1:
                self._end_err_line()
            status = wrap_row(f"  {mark} ", summary, columns)
        self.err.write(status.replace(mark, self._paint(mark, GREEN if result.ok else RED), 1) + "\n")
        self.err.flush()
        self._err_line_open = False
        self._activity, self.call_named = None, False

    def on_check(self, run, excerpt: str | None) -> None:
        """One line per verify command: `✓ check: ruff check .`, `✗ check: pytest -q (exit 1)`."""
        self._stop_spinner()
        self._end_err_line()
        status = "" if run.ok else f" (exit {run.exit_status})" if run.exit_status is not None \
            else f" ({safe_text(run.summary)})"
        mark = self._paint("✓", GREEN) if run.ok else self._paint("✗", RED)
        self.err.write(f"{mark} check: {describe_command(run.command)}{status}\n")
        self.err.flush()

    def on_notice(self, message: str) -> None:
        self.notice(message)

    def on_aside(self, message: str) -> None:
        self.dim_line(message)

    def on_usage(self, usage: Usage) -> None:
        self._message_usage.append(usage)  # shown once, when the message is handled

    def on_message_end(self, result, window: int | None) -> None:
        """The usage line of the message's requests, however it ended (`result` is for --json's answer event)."""
        self._flush_markdown()  # a reply cut short by an error shows its last line too
        if self._out_line_open:  # a reply max_tokens cut, not continued: the next answer starts on its own line
            self.out.write("\n")
            self.out.flush()
            self._out_line_open = False
        usages, self._message_usage = self._message_usage, []
        line = describe_message_usage(usages, window)
        if line:
            self.dim_line(line)

    # --- stderr lines

    def notice(self, message: str) -> None:
        self._line(message, YELLOW)

    def dim_line(self, message: str) -> None:
        self._line(message, DIM)

    def info(self, message: str) -> None:
        self._line(message)

    def passing(self, message: str) -> None:
        """What is being done now: on a terminal redrawn in place and replaced by the next line; else a dim line."""
        if not self.draws_in_place:
            self.dim_line(message)
            return
        self.start_block()
        self.err.write(f"\r{self._paint(message, DIM)}{CLEAR_TO_END}")
        self.err.flush()
        self._progress_shown = True  # the next line clears it

    def error(self, message: str, hint: str | None = None) -> None:
        self._line(message, mark=self._paint("error: ", RED))
        if hint:
            self._line(f"  {hint}", DIM)

    def painted_line(self, text: str) -> None:
        """A line ayder painted itself, written as it is: what came from outside in it was made safe first."""
        self.start_block()
        self.err.write(text + "\n")
        self.err.flush()

    def log(self, message: str) -> None:
        """Request metadata, shown with --verbose / /verbose."""
        if self.verbose:
            self.dim_line(f"· {message}")

    def start_block(self) -> None:
        """Before lines of stderr's own (a notice, a command's output): what was half-printed ends."""
        self._stop_spinner()
        self._end_err_line()
        self._flush_markdown()
        if self._out_line_open and self.environment.stdout_is_tty and self.environment.stderr_is_tty:
            self.out.write("\n")  # a notice does not start mid-answer on a shared screen
            self.out.flush()
            self._out_line_open = False

    def _line(self, text: str, colour: str | None = None, mark: str = "") -> None:
        """One line on stderr: its text made safe (it may name a path, a server's message), then painted."""
        text = safe_text(text)
        self.start_block()
        self.err.write(mark + (self._paint(text, colour) if colour else text) + "\n")
        self.err.flush()

    def _paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{RESET}" if self.color else text

    def _flush_markdown(self) -> None:
        """The line Markdown holds back, shown now: the reply ended or something else must print."""
        rest = self._markdown.finish() if self._markdown else ""
        if rest:
            self.out.write(rest)
            self.out.flush()
            self._out_line_open = True

    def _stop_spinner(self) -> None:
        """Before anything else prints: the spinner, or a streaming call's line, is taken off."""
        if self._spinner:
            self._spinner.stop()
        if self._arriving is not None:
            self.err.write(ERASE_LINE)
            self.err.flush()
            self._arriving = None
        if self._progress_shown:
            self.err.write(ERASE_LINE)
            self._progress_shown = False

    def _end_err_line(self) -> None:
        if self._err_line_open:
            self.err.write("\n")
            self._err_line_open = False


def describe_command(command: str) -> str:
    """A command on one line, as the activity lines show it: control characters escaped."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in command.replace("\n", " "))


def describe_call(call) -> str:
    """read_file(file_path="src/app.py", start_line=5) -- values shortened to one line."""
    return describe(call.name, call.arguments if isinstance(call.arguments, dict) else {})
