"""Piped script: `cat script.txt | ayder` -- each entry in order, as if typed at the REPL; it goes on
after a failure and exits 1 if any failed."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from ayder_cli.errors import ExitStatus
from ayder_cli.modes.entries import EntryOutcome, handle_entry, read_entries

if TYPE_CHECKING:
    from ayder_cli.setup.services import Services


def run_script(services: Services, stdin: IO[str]) -> int:
    """Every entry in order; go on after a failure, exit 1 if any failed."""

    def read_line(in_block: bool) -> str:
        line = stdin.readline()
        services.console.say_replaced_stdin()
        if not line:
            raise EOFError
        return line.rstrip("\n").rstrip("\r")

    def unclosed() -> None:
        services.console.notice('end of input inside a """ block; sending what it holds')

    failed = False
    for entry in read_entries(read_line, unclosed):
        outcome = handle_entry(services, entry)
        if outcome is EntryOutcome.INTERRUPTED:
            return ExitStatus.INTERRUPTED
        if outcome is EntryOutcome.EXIT:
            break
        failed = failed or outcome is EntryOutcome.FAILED
    return ExitStatus.ERROR if failed else ExitStatus.OK
