"""Asking the user on the terminal before a call runs that was not allowed up front.

The question is always asked on the terminal, never on stdin when stdin is a
pipe or a file: there `/dev/tty` is opened for the question. With no terminal
at all (CI, cron, setsid) the confirmer returns None and the executor denies.
"""

from __future__ import annotations

import difflib
import io
import os
import sys
import unicodedata
from contextlib import contextmanager
from typing import IO, Callable, ContextManager, Iterator, Mapping

from ayder_cli.terminal.environment import Environment, is_tty
from ayder_cli.terminal.safe_text import wrap_row
from ayder_cli.terminal.style import BOLD, CYAN, DIM, GREEN, RED, RESET, YELLOW
from ayder_cli.terminal.key_input import cbreak, key_fd, read_waiting
from ayder_cli.tools.spec import Preview
from ayder_cli.tools.executor import PERMISSION_NAMES, Answer, ConfirmRequest, Decision

QUESTION = "Allow? y yes, n no, a always for this tool, d deny with a reason [y/N/a/d] "
REASON_QUESTION = "Reason for the model: "
MAX_TRIES = 3  # unclear answers before it counts as no
DIFF_HEAD, DIFF_TAIL = 40, 20  # diff lines kept before and after the cut of a long diff
MAX_LINE_CHARS = 400  # a longer diff line is shortened on screen (a minified file, say)

ANSWERS = {
    "y": Decision.YES, "yes": Decision.YES,
    "n": Decision.NO, "no": Decision.NO, "": Decision.NO,
    "a": Decision.ALWAYS, "always": Decision.ALWAYS,
    "d": Decision.DENY, "deny": Decision.DENY,
}
END_OF_INPUT = "\x04"  # Ctrl-D, as read one key at a time

Streams = tuple[IO[str], IO[str]]  # (reader, writer) of the terminal
TtyOpener = Callable[[], ContextManager[Streams | None]]


# --- where the question is asked


def tty_opener(stdin: IO[str] | None, stderr: IO[str] | None, tty_path: str = "/dev/tty") -> TtyOpener:
    """The terminal streams for one question: stdin and stderr when they are the terminal, else tty_path."""

    @contextmanager
    def open_tty() -> Iterator[Streams | None]:
        if is_tty(stdin) and is_tty(stderr):
            yield stdin, stderr
            return
        try:
            reader = open(tty_path, encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
        except OSError:  # no controlling terminal
            reader = None
        if reader is None:
            # stdin may still be the terminal (stderr redirected): ask there, the question goes to stderr.
            yield (stdin, stderr) if is_tty(stdin) and stderr is not None else None
            return
        try:
            # Line buffered: the question is on the screen before the read waits.
            with open(tty_path, "w", buffering=1, encoding="utf-8", errors="replace") as writer:
                yield (stdin if is_tty(stdin) else reader), writer
        finally:
            reader.close()

    return open_tty


# --- the diff


def diff_lines(preview: Preview) -> list[tuple[str, str]]:
    """The unified diff of a change as (kind, text) pairs; kind: header, hunk, add, del, context, note."""
    old = split_lines(preview.old or "")
    new = split_lines(preview.new)
    old_name = "/dev/null" if preview.old is None else f"a/{preview.path}"
    lines: list[tuple[str, str]] = [("header", f"--- {old_name}"), ("header", f"+++ b/{preview.path}")]
    body = list(difflib.unified_diff(old, new, n=3))[2:]  # its own ---/+++ lines are replaced above
    if not body:
        if preview.old is None:
            lines.append(("note", "(a new, empty file)"))
        else:
            return [("note", f"(no changes to {preview.path})")]
    kinds = {"@": "hunk", "+": "add", "-": "del", " ": "context"}
    for line in body:
        lines.append((kinds.get(line[:1], "context"), line.rstrip("\n")))
        if not line.endswith("\n"):
            lines.append(("note", "\\ No newline at end of file"))
    return lines


def split_lines(text: str) -> list[str]:
    """Lines with their newlines, split on \\n only (a \\r or form feed stays inside its line)."""
    if not text:
        return []
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


DIFF_STYLES = {"header": (BOLD,), "hunk": (CYAN,), "add": (GREEN,), "del": (RED,), "note": (DIM,), "cut": (DIM,),
               "context": ()}


def painted_diff(preview: Preview, paint: Callable[..., str]) -> list[str]:
    """The preview's diff as shown: cut in its middle when long, each line made visible and painted."""
    return [paint(visible(line), *DIFF_STYLES[kind]) for kind, line in cut_middle(diff_lines(preview))]


def cut_middle(lines: list[tuple[str, str]], head: int = DIFF_HEAD,
               tail: int = DIFF_TAIL) -> list[tuple[str, str]]:
    """A long diff keeps its first `head` and last `tail` lines, with a line counting the rest."""
    if len(lines) <= head + tail + 1:  # cutting one line would cost a line
        return lines
    hidden = len(lines) - head - tail
    return [*lines[:head], ("cut", f"[... {hidden} lines of the diff not shown ...]"), *lines[len(lines) - tail:]]


def visible(text: str, width: int = MAX_LINE_CHARS) -> str:
    """Control and invisible format characters shown as text, so the screen shows what will be written."""
    out = []
    for char in text:
        if char == "\t" or not unicodedata.category(char).startswith("C"):
            out.append(char)
        elif ord(char) < 0x20:
            out.append("^" + chr(ord(char) + 64))  # ^M for a carriage return, ^[ for escape
        elif ord(char) == 0x7F:
            out.append("^?")
        else:
            out.append(f"<U+{ord(char):04X}>")  # e.g. a bidirectional override
    shown = "".join(out)
    if len(shown) > width:
        shown = f"{shown[:width]}… ({len(shown) - width} more characters)"
    return shown


# --- the confirmer


class TerminalConfirmer:
    """Shows the call (and for a file change its diff) on the terminal and reads the answer there."""

    def __init__(self, open_tty: TtyOpener | None = None, color: bool | None = None,
                 env: Mapping[str, str] = os.environ, mask: Callable[[str], str] = lambda text: text) -> None:
        """open_tty gives the terminal's (reader, writer) or None; color None: when the writer is a terminal."""
        self.open_tty = open_tty or tty_opener(sys.stdin, sys.stderr)
        self.color = color
        self.no_color = bool(env.get("NO_COLOR"))
        self.mask = mask  # the API key never shows in a question or its diff

    @classmethod
    def for_environment(cls, environment: Environment,
                        mask: Callable[[str], str] = lambda text: text) -> "TerminalConfirmer":
        """For a run's Environment: its stdin and stderr when they are the terminal, else /dev/tty."""
        stdin = environment.stdin if environment.stdin_is_tty else None  # a piped stdin is never read here
        return cls(open_tty=tty_opener(stdin, environment.stderr),
                   env={"NO_COLOR": "1"} if environment.no_color else {}, mask=mask)

    def confirm(self, request: ConfirmRequest) -> Answer | None:
        with self.open_tty() as streams:
            if streams is None:
                return None
            reader, writer = streams
            color = self.color if self.color is not None else (is_tty(writer) and not self.no_color)
            writer.write(self.mask(self.describe(request, color, _columns_of(writer))))
            try:
                return self._ask(reader, writer, color)
            except KeyboardInterrupt:  # propagates: the loop counts the tool as interrupted
                writer.write("\n")  # what is printed next starts on a line of its own, not after ^C
                raise
            finally:
                writer.flush()

    def describe(self, request: ConfirmRequest, color: bool, columns: int | None = None) -> str:
        """The summary line (wrapped between words to `columns`, on a terminal), and for a file change
        the diff, each line ending in a newline."""
        paint = painter(color)
        lead = f"ayder wants to {PERMISSION_NAMES.get(request.permission, request.permission)}:"
        summary = wrap_row(f"{lead} ", visible(request.summary, 2000), columns)
        text = paint(lead, BOLD, YELLOW) + summary[len(lead):] + "\n"
        if request.preview is not None:
            text += "".join(line + "\n" for line in painted_diff(request.preview, paint))
        return text

    def _ask(self, reader: IO[str], writer: IO[str], color: bool) -> Answer:
        """One key on a terminal (Enter: the default, no); a line from anything else."""
        paint = painter(color)
        fd = key_fd(reader)
        for attempt in range(MAX_TRIES):
            writer.write(paint(QUESTION, BOLD))
            writer.flush()
            if fd is None:
                line = reader.readline()
                if not line:  # end of input on the terminal
                    writer.write("\n")
                    return Answer(Decision.NO)
                answer, typed_ahead = line.strip().lower(), ""
            else:
                key, typed_ahead = read_key(fd)
                if key == END_OF_INPUT:
                    writer.write("\n")
                    return Answer(Decision.NO)
                answer = key.strip().lower()
                writer.write(f"{(visible(key.strip()) or 'n') if answer in ANSWERS else visible(key, 10)}\n")  # no echo
            decision = ANSWERS.get(answer)
            if decision is Decision.DENY:
                writer.write(REASON_QUESTION)
                writer.flush()
                if typed_ahead:  # the start of the reason, typed before the question was ready
                    writer.write(typed_ahead)
                    writer.flush()
                reason = typed_ahead + (reader.readline() if not typed_ahead.endswith("\n") else "")
                if not reason:
                    writer.write("\n")
                return Answer(Decision.DENY, reason.strip())
            if decision is not None:
                return Answer(decision)
            if attempt + 1 < MAX_TRIES:
                writer.write("Please answer y, n, a or d.\n")
        writer.write("No clear answer; not allowed.\n")
        return Answer(Decision.NO)


def _columns_of(writer: IO[str]) -> int | None:
    """The width of the terminal the question is written on; None where it is not one."""
    try:
        return os.get_terminal_size(writer.fileno()).columns
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return None


def read_key(fd: int) -> tuple[str, str]:
    """One key from a terminal in cbreak mode (no Enter needed, no echo; Ctrl-C still interrupts), the
    mode restored whatever happens. -> (the key, text typed right after it, less an escape sequence)."""
    with cbreak(fd):
        data = read_waiting(fd, os.read(fd, 1), wait_s=0.02, size=64)  # the rest of a key that sends several bytes
    text = data.decode("utf-8", errors="replace")
    if not text:
        return END_OF_INPUT, ""
    if text[0] == "\033":  # an arrow or function key: one unclear answer, not several
        return text, ""
    if text[0] in "\r\n":
        return "", ""  # Enter: the default
    rest = text[1:].lstrip("\r\n") if text[1:2] in ("\r", "\n") else text[1:]
    return text[0], rest


def yes_or_no(reader: IO[str], writer: IO[str], question: str) -> bool:
    """`question` written, one key read (a line where the reader is no terminal) and echoed: True for y.
    Enter, Ctrl-D or any other key is no."""
    writer.write(question)
    writer.flush()
    fd = key_fd(reader)
    if fd is None:
        answer = reader.readline()
    else:
        answer, _ = read_key(fd)
        writer.write(f"{visible(answer.strip(), 10) or 'n'}\n")
    writer.flush()
    return answer.strip().lower() in ("y", "yes")


def ask_on_terminal(environment: Environment, describe: Callable[[Callable[..., str]], str],
                    question: str) -> bool | None:
    """What `describe(paint)` says, then `question`, on this run's terminal (or /dev/tty): True for y.
    None: no terminal to ask on."""
    with tty_opener(environment.stdin, environment.stderr)() as streams:
        if streams is None:
            return None
        reader, writer = streams
        paint = painter(not environment.no_color)
        writer.write(describe(paint))
        return yes_or_no(reader, writer, paint(question, BOLD))


def painter(color: bool) -> Callable[..., str]:
    def paint(text: str, *styles: str) -> str:
        return "".join(styles) + text + RESET if color and styles else text

    return paint
