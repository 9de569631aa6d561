"""One-shot: `ayder "PROMPT"` -- the prompt from words, -f FILE or --stdin (piped stdin attached as
context), sent once; the answer on stdout, the exit status from how the message ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ayder_cli.errors import ExitStatus, UsageError
from ayder_cli.modes.options import Options
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.piped_stdin import attach_context, read_piped_stdin

if TYPE_CHECKING:
    from ayder_cli.agent.callbacks import RunResult
    from ayder_cli.session.session import Session


def one_shot_prompt(options: Options, environment: Environment, console: Console) -> str | None:
    """The one-shot prompt from words, -f and --stdin; None means REPL or script mode."""
    words = " ".join(options.prompt).strip()
    if options.prompt and not words:
        raise UsageError("the prompt is empty")
    if options.prompt_file and options.read_stdin:
        raise UsageError("use either -f FILE or --stdin, not both")
    if options.prompt_file:
        try:
            with open(environment.path(options.prompt_file), encoding="utf-8") as handle:
                body = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read prompt file {options.prompt_file}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from None
    elif options.read_stdin:
        if environment.stdin is None:
            raise UsageError("--stdin given but there is no stdin")
        body = environment.stdin.read()
    elif words and not environment.stdin_is_tty:
        wait_s = environment.piped_stdin_wait_s
        piped = read_piped_stdin(environment.stdin, wait_s)
        if piped is None and environment.stdin is not None:
            console.notice(f"stdin sent nothing within {wait_s:g} s; not attached (use --stdin to wait for it)")
        return attach_context(words, piped or "")
    elif words:
        return words
    else:
        return None
    prompt = "\n\n".join(part for part in (words, body.strip("\n")) if part.strip())
    if not prompt.strip():
        raise UsageError("the prompt is empty")
    return prompt


def run_one_shot(session: Session, prompt: str) -> int:
    """Send the prompt once -> 0 with an answer, 130 interrupted, 1 when the loop gave up or the last check failed.
    `ayder "/NAME args"` sends a custom command's or a skill's text, as at the REPL."""
    if prompt.startswith("/") and session.skills is not None:
        from ayder_cli.repl.commands import COMMANDS  # the built-in names, only for a prompt starting with /

        prompt = session.skills.prompt_for(prompt, COMMANDS) or prompt
    result = session.run(prompt)
    if result.interrupted:
        return ExitStatus.INTERRUPTED
    if ended_on_a_failed_check(session, result):
        return ExitStatus.ERROR
    return ExitStatus.ERROR if result.stopped else ExitStatus.OK  # the loop gave up: a failure


def ended_on_a_failed_check(session: Session, result: RunResult) -> bool:
    """The model ended its answer with the last check still failing: shown to the user, and a failure
    of the prompt (a one-shot run exits 1, a script names the line)."""
    if result.stopped or session.loop.verify.passed is not False:
        return False
    session.console.info(session.loop.verify.failure)  # the model ended its turn on it: the user sees it
    session.console.notice("the last check failed; fix it, or run again to let the model try")
    return True
