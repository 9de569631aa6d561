"""The interactive REPL: line editing, history and slash commands completed at a prompt on the
terminal; each entry handled as a piped script's would be (modes/entries.py).

The Session is built at the first entry (or before the prompt when the run
needed them first): the prompt is ready to type in before the HTTP stack, the
parser and the tools are loaded.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_input
from prompt_toolkit.output import create_output

from ayder_cli.errors import ExitStatus
from ayder_cli.modes.entries import EntryOutcome, handle_entry, read_entries
from ayder_cli.modes.prepare import offer_checkpoint
from ayder_cli.config.schema import Config
from ayder_cli.session.deferred import Deferred
from ayder_cli.session.url_server import known_before_asking, names_only_a_url
from ayder_cli.storage.profiles import ServerProfiles, profiles_path
from ayder_cli.storage.layout import Layout
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.repl.line_input import prompt_session
from ayder_cli.terminal.signals import raise_if_terminated
from ayder_cli.terminal.typed_ahead import TypedAhead

if TYPE_CHECKING:
    from ayder_cli.session.session import Session

LEAVE_HINT = "Ctrl-C again within a second leaves (so does Ctrl-D or /exit)"


def run_repl(session: Deferred[Session], console: Console, config: Config, root: Path, environment: Environment,
             repo_root: Path | None = None) -> int:
    """Read and handle entries at the prompt until /exit, Ctrl-D or Ctrl-C twice at an empty prompt.
    root: the tools' root; repo_root: where .ayder/ is (None: root)."""
    # Keys come from this run's stdin, the prompt goes to its stdout, or to stderr when stdout is
    # redirected, so `ayder > log` stays clean.
    output = create_output(stdout=environment.stdout if environment.stdout_is_tty else environment.stderr)
    with create_app_session(input=create_input(environment.stdin), output=output):
        prompts = prompt_session(environment.env, None if environment.stdout_is_tty else output,
                                 environment.no_color, root, custom=lambda: _custom_commands(session))
        leave = CtrlCToLeave(lambda: console.dim_line(LEAVE_HINT), clock=environment.clock)
        typed = TypedAhead()  # what was typed before the checkpoint question: not its answer, and not lost

        def ask(question: str) -> str:
            typed.take_from(environment.stdin)
            return prompts.prompt(question)

        def read_line(in_block: bool) -> str:
            ahead = typed.next_line()
            if ahead is not None:
                console.dim_line(f"{'... ' if in_block else '> '}{ahead}")  # typed before the question, sent now
                return ahead
            while True:
                try:
                    line = prompts.prompt("... " if in_block else "> ", default=typed.take_partial())
                except KeyboardInterrupt:
                    raise_if_terminated()
                    if in_block:
                        raise
                    if leave.pressed(empty=not prompts.default_buffer.text.strip()):
                        raise EOFError from None  # twice at an empty prompt: leave, as Ctrl-D does
                    continue  # Ctrl-C at the prompt clears the line
                raise_if_terminated()  # a SIGTERM or SIGHUP as the prompt returned
                leave.reset()
                return line

        if session.built:
            config = session.get().config  # with the server that was looked for
        console.dim_line(banner(config, root, repo_root or root, environment))
        if Layout(repo_root or root).checkpoint.is_file():  # asked of the path: no checkpoint, nothing to build yet
            offer_checkpoint(session.get(), ask=ask)
        for entry in read_entries(read_line, lambda: None, lambda: console.dim_line("block discarded")):
            try:
                if handle_entry(session.get(), entry) is EntryOutcome.EXIT:
                    break
            except KeyboardInterrupt:  # Ctrl-C in a slash command: back to the prompt
                console.notice("interrupted")
    return ExitStatus.OK  # /exit or Ctrl-D


def banner(config: Config, root: Path, repo_root: Path, environment: Environment, columns: int = 80) -> str:
    """The first lines: the model and server, the root the tools reach (and the repository's when
    that is wider), then how to get help; wrapped at word boundaries within `columns`."""
    import textwrap

    home = environment.env.get("HOME")

    def shown(path: Path) -> str:  # ~/src/app rather than /home/me/src/app
        return f"~/{path.relative_to(home).as_posix()}" if home and path.is_relative_to(home) and \
            path != Path(home) else str(path)

    where = f"root {shown(root)}"
    if repo_root != root and root.is_relative_to(repo_root):
        where += f" (in the git work tree {shown(repo_root)}, which holds .ayder/; --root widens it)"
    parts = [f"ayder · {server_before_asking(config, environment)}", where,
             "/help for commands, Ctrl-D to leave"]
    lines: list[str] = []
    for part in parts:  # a part goes on the line if it fits there; a part too long for any line is wrapped
        if lines and len(lines[-1]) + 3 + len(part) <= columns:
            lines[-1] += f" · {part}"
        else:
            lines += textwrap.wrap(part, columns, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)


def server_before_asking(config: Config, environment: Environment) -> str:
    """The provider, model and URL as /status will show them, said before the server is asked anything
    (the prompt comes first): for a URL given alone, what is not known yet is said to be asked."""
    if not names_only_a_url(config, environment.env):
        return f"{config.provider} {config.resolved_model} at {config.resolved_base_url}"
    known = known_before_asking(config, ServerProfiles(profiles_path(environment.env)))
    named = config.model is not None or config.sources.get("model", "default") != "default"
    if known is None:
        model = f", model {config.resolved_model}" if named else ""
        return f"the server at {config.resolved_base_url}{model} ({'its API' if named else 'its API and model'} " \
               "asked at the first message)"
    provider, base_url, _ = known
    if named:
        return f"{provider} {config.resolved_model} at {base_url}"
    return f"{provider} at {base_url} (the model it serves, asked at the first message)"


class CtrlCToLeave:
    """Ctrl-C at an empty prompt twice within `window_s` leaves; the first one, the first time, says so."""

    def __init__(self, hint: Callable[[], None], window_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hint, self.window_s, self.clock = hint, window_s, clock
        self.last: float | None = None
        self.hinted = False

    def pressed(self, empty: bool) -> bool:
        """One Ctrl-C at the prompt; True when it is the second at an empty prompt in time."""
        now = self.clock()
        if not empty:  # it cleared a line: a later Ctrl-C starts afresh
            self.last = None
            return False
        if self.last is not None and now - self.last <= self.window_s:
            return True
        self.last = now
        if not self.hinted:
            self.hinted = True
            self.hint()
        return False

    def reset(self) -> None:
        self.last = None


def _custom_commands(session: Deferred[Session]) -> dict[str, str]:
    """For the completer: the custom commands and skills already found (none before the first entry)."""
    skills = session.get().skills if session.built else None
    return skills.slash_help() if skills is not None else {}
