"""Environment: what one run is given, as one value built once and passed down.

Its streams and what each is connected to, its environment variables, its
working directory, whether colour is off, the clock and the pipe wait the
modes keep time with, the pause between two tries of a request, and the ports
asked for a server when none is configured. main() builds it from the process (or from what a caller
gives); tests build it directly, with only the fields they care about.
Building one changes nothing of the process.
"""

from __future__ import annotations

import io
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Callable, Mapping

from ayder_cli.terminal.piped_stdin import LenientStdin

PIPED_STDIN_WAIT_S = 1.0  # how long a prompt waits for the first byte of a pipe beside it


@dataclass(frozen=True, kw_only=True)
class Environment:
    stdout: IO[str]
    stderr: IO[str]
    stdin: IO[str] | None = None  # text; None: there is no stdin at all
    env: Mapping[str, str] = field(default_factory=dict)  # this run's environment variables
    cwd: Path | None = None  # resolved; None: it has been removed
    stdin_is_tty: bool = False
    stdout_is_tty: bool = False
    stderr_is_tty: bool = False
    no_color: bool = False  # --no-color, or NO_COLOR set to anything but empty
    lenient_stdin: LenientStdin | None = None  # piped stdin, read so that no byte can fail it
    piped_stdin_wait_s: float = PIPED_STDIN_WAIT_S
    clock: Callable[[], float] = time.monotonic  # the REPL's double-Ctrl-C window and the tools' deadlines
    pause: Callable[[float], None] | None = None  # between two tries of a request; None: a real sleep
    local_servers: tuple | None = None  # discover.Candidate's asked with no server configured; None: the usual
    landlock_abi: int | None = None  # the Landlock ABI the sandbox assumes; None: the kernel's (tests: 0, none)

    @classmethod
    def of(cls, stdin: IO | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None,
           env: Mapping[str, str] | None = None, cwd: str | os.PathLike | None = None) -> Environment:
        """What is given, and the process's own for the rest. stdin may be text or bytes; one that is
        not a terminal is read so that no byte can fail it."""
        stdin = sys.stdin if stdin is None else stdin
        stdout = sys.stdout if stdout is None else stdout
        stderr = sys.stderr if stderr is None else stderr
        env = dict(os.environ if env is None else env)
        stdin_is_tty = is_tty(stdin)
        raw = None
        if stdin is not None and not stdin_is_tty:
            raw = stdin if isinstance(stdin, (io.RawIOBase, io.BufferedIOBase)) else getattr(stdin, "buffer", None)
        lenient = LenientStdin(raw) if raw is not None else None
        return cls(stdin=lenient.text if lenient else stdin, stdout=stdout, stderr=stderr, env=env,
                   cwd=_directory(cwd), stdin_is_tty=stdin_is_tty, stdout_is_tty=is_tty(stdout),
                   stderr_is_tty=is_tty(stderr), no_color=bool(env.get("NO_COLOR")), lenient_stdin=lenient)

    def without_color(self) -> Environment:
        """--no-color: the same run, with colour off."""
        return replace(self, no_color=True)

    def path(self, given: str) -> Path:
        """A path from the command line: `~` is this run's HOME; a relative path starts at its directory."""
        path = Path(given)
        if (given == "~" or given.startswith("~/")) and self.env.get("HOME"):
            path = Path(self.env["HOME"], given[2:])
        elif given.startswith("~"):
            path = path.expanduser()
        return path if path.is_absolute() or self.cwd is None else self.cwd / path


def is_tty(stream: IO | None) -> bool:
    try:
        return bool(stream) and stream.isatty()
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def _directory(given: str | os.PathLike | None) -> Path | None:
    """The working directory, resolved (so symlinks cannot move it later); None if it is gone."""
    try:
        path = Path(os.getcwd() if given is None else given).resolve()
    except OSError:
        return None
    return path if path.is_dir() else None
