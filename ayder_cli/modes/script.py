"""Piped script: `cat script.txt | ayder` -- each entry in order, as if typed at the REPL; it goes on
after a failure and exits 1 if any failed, naming the lines of those that did."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from ayder_cli.errors import ExitStatus
from ayder_cli.modes.entries import EntryOutcome, handle_entry, read_entries

if TYPE_CHECKING:
    from ayder_cli.session.session import Session


def run_script(session: Session, stdin: IO[str]) -> int:
    """Every entry in order; go on after a failure, exit 1 if any failed."""
    read = 0  # lines read so far
    start = 0  # the line the entry being read began on (a block: its opening """ line)

    def read_line(in_block: bool) -> str:
        nonlocal read, start
        line = stdin.readline()
        session.console.say_replaced_stdin()
        if not line:
            raise EOFError
        read += 1
        if not in_block:
            start = read
        return line.rstrip("\n").rstrip("\r")

    def unclosed() -> None:
        session.console.notice('end of input inside a """ block; sending what it holds')

    failed: list[int] = []
    for entry in read_entries(read_line, unclosed):
        outcome = handle_entry(session, entry)
        if outcome is EntryOutcome.INTERRUPTED:
            return ExitStatus.INTERRUPTED
        if outcome is EntryOutcome.EXIT:
            break
        if outcome is EntryOutcome.FAILED:
            failed.append(start)
    if not failed:
        return ExitStatus.OK
    session.console.error(f"script {failed_lines(failed)} failed")
    return ExitStatus.ERROR


def failed_lines(numbers: list[int]) -> str:
    """'line 3', 'lines 3 and 7', 'lines 2, 5 and 9': the lines named the way a person would."""
    shown = [str(number) for number in numbers]
    if len(shown) == 1:
        return f"line {shown[0]}"
    return f"lines {', '.join(shown[:-1])} and {shown[-1]}"
