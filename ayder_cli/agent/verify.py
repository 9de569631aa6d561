"""Verify: the user's checks run after a reply whose calls changed files, before the model's next request.

What the model gets is short and the repairs are bounded: only the first failing
command, one line naming it and its exit status and an excerpt of its output
(failure_excerpt, 1,200 characters, less for a small window); at most
MAX_REPAIR_ROUNDS such rounds per user message, then the turn stops and the user
sees the failure. A read-only reply runs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.agent.checks.run_checks import (CheckRun, git_prefix, git_status, missing_program, run_check,
                                               status_paths, with_files)
from ayder_cli.tools.executor import ToolExecutor, normalize
from ayder_cli.agent.checks.failure_excerpt import failure_excerpt

MAX_REPAIR_ROUNDS = 2  # failing checks the model is asked to repair per user message; the next one stops the turn
EXCERPT_CHARS = 1200  # what tool output beyond this costs small models: they stop or wander
FULL_WINDOW = 16384  # a window below this gets a proportionally shorter excerpt
MIN_EXCERPT_CHARS = 300
SHELL = "run_shell_command"
NOT_ASKED = "the verify commands from the config were not run: they need -x or a yes at a terminal, and there is " \
            "no terminal to ask (run with -x, or give them with --verify)"


def excerpt_limit(num_ctx: int | None) -> int:
    """1,200 characters; scaled down for a window under 16k tokens, never under 300."""
    if not num_ctx:
        return EXCERPT_CHARS
    return max(MIN_EXCERPT_CHARS, int(EXCERPT_CHARS * min(1.0, num_ctx / FULL_WINDOW)))


@dataclass
class Checked:
    """What the checks after one batch came to."""

    notes: list[str] = field(default_factory=list)  # for the model, sent with the batch's results
    stopped: str | None = None  # the repair rounds are spent: why the turn stops
    interrupted: bool = False  # Ctrl-C during a check


class Consent:
    """Whether the checks may run: --verify is the user's own; a config's needs -x or a yes, asked once."""

    def __init__(self, from_flag: bool, may_execute: Callable[[], bool],
                 ask: Callable[[tuple[str, ...]], bool | None], warn: Callable[[str], None]) -> None:
        self.from_flag = from_flag
        self.may_execute = may_execute  # -x now (the REPL can change it)
        self.ask = ask  # the question at the terminal; None: no terminal
        self.warn = warn
        self.answer: bool | None = None  # the session's answer, once asked

    def allows(self, commands: tuple[str, ...]) -> bool:
        if self.from_flag or self.may_execute():
            return True
        if self.answer is None:
            answer = self.ask(commands)
            if answer is None:
                self.warn(NOT_ASKED)  # said once: the answer stays no for the session
            elif not answer:
                self.warn("the verify commands will not run in this session")
            self.answer = bool(answer)
        return self.answer


class Verifier:
    """The checks of a session, and the repair rounds of the current user message."""

    def __init__(self, commands: tuple[str, ...] = (), executor: ToolExecutor | None = None,
                 consent: Consent | None = None, report: Callable[[CheckRun, str | None], None] = lambda run, e: None,
                 show: Callable[[str], None] = lambda text: None,
                 window: Callable[[], int | None] = lambda: None, warn: Callable[[str], None] = lambda text: None,
                 ) -> None:
        self.commands = commands
        self.executor = executor
        self.consent = consent  # None: the commands are the caller's own
        self.report = report  # one activity line (and a --json event) per check
        self.show = show  # the failure the turn stopped on, for the user
        self.window = window  # num_ctx now
        self.warn = warn  # a check that cannot run, said once
        self.missing: set[str] = set()  # commands whose program is not installed: not run again this session
        self._prefix: str | None | bool = False  # where the root sits in its git work tree; False: not looked yet
        self.new_message()

    def new_message(self) -> None:
        self.failures = 0
        self.changed: list[str] = []  # files changed since the user's message, in order
        self.passed: bool | None = None  # how the last check of this message went; None: none ran
        self.failure = ""  # the last failure as the model got it: the head line and the excerpt

    def run(self, calls: list[ToolCall], run_calls: Callable[[], tuple[list[ToolResult], bool]]
            ) -> tuple[list[ToolResult], bool, Checked]:
        """Run the batch (run_calls), then the checks if its calls changed files -> (results, interrupted, checked)."""
        refused = self.consent is not None and self.consent.answer is False
        if not self.commands or self.executor is None or refused:  # nothing will run
            results, interrupted = run_calls()
            return results, interrupted, Checked()
        root, env = self.executor.context.root, self.executor.context.env
        before = git_status(root, env) if any(c.name == SHELL for c in calls) and self._git_prefix() is not None \
            else None
        results, interrupted = run_calls()
        if interrupted:
            return results, interrupted, Checked()
        changed = self._written(calls, results)
        if before is not None:
            after = git_status(root, env)
            changed += status_paths(before, after, self._git_prefix()) if after is not None else []
        if not changed:
            return results, False, Checked()
        self.changed += [path for path in dict.fromkeys(changed) if path not in self.changed]
        return results, False, self._check()

    def _written(self, calls: list[ToolCall], results: list[ToolResult]) -> list[str]:
        """The files the write tools that succeeded wrote (their paths as the tools took them)."""
        paths = []
        for call, result in zip(calls, results):
            spec = self.executor.registry.get(call.name)
            if spec is None or spec.permission != "w" or not spec.path_args or not result.ok or call.error:
                continue
            arguments = normalize(spec, call.arguments if isinstance(call.arguments, dict) else {},
                                  self.executor.context.root)
            paths += [arguments[name] for name in spec.path_args if isinstance(arguments.get(name), str)]
        return paths

    def _git_prefix(self) -> str | None:
        if self._prefix is False:
            self._prefix = git_prefix(self.executor.context.root, self.executor.context.env)
        return self._prefix

    def _check(self) -> Checked:
        """The commands in order, up to the first that fails."""
        if self.consent is not None and not self.consent.allows(self.commands):
            return Checked()
        root = self.executor.context.root
        files = [path for path in self.changed if (root / path).is_file()]  # a deleted file is not checked
        ran = []
        for command in self.commands:
            line = with_files(command, files)
            if line is None or command in self.missing:
                continue
            try:
                run = run_check(self.executor.context, line)
            except KeyboardInterrupt:
                return Checked(["the checks were interrupted by the user"], interrupted=True)
            missing = missing_program(run)
            if missing is not None:  # nothing the model can repair: said once, and not run again
                self.missing.add(command)
                self.warn(f"check `{command}` cannot run ({missing}): is it installed? Skipped for this session")
                continue
            if not run.ok:
                return self._failed(run)
            self.report(run, None)
            ran.append(f"`{line}`")
        if ran:
            self.passed = True
            return Checked([f"checks passed: {', '.join(ran)}"])
        return Checked()

    def _failed(self, run: CheckRun) -> Checked:
        self.passed = False
        self.failures += 1
        body = run.output.split("\n", 1)[1] if "\n" in run.output else run.output  # its status is in the head line
        excerpt = failure_excerpt(body, excerpt_limit(self.window()))
        self.report(run, excerpt)
        head = f"check failed: `{run.command}` ({_status(run)})"
        self.failure = f"{head}\n{excerpt}"
        if self.failures > MAX_REPAIR_ROUNDS:
            self.show(self.failure)
            return Checked([f"{head}\n{excerpt}"], stopped=(
                f"stopped: the checks still fail after {MAX_REPAIR_ROUNDS} repair rounds; fix it yourself, "
                "or send a message to let the model try again"))
        return Checked([f"{head}; repair round {self.failures} of {MAX_REPAIR_ROUNDS}: fix what it reports "
                        f"(the checks run again after your edits).\n{excerpt}"])


def _status(run: CheckRun) -> str:
    return f"exit status {run.exit_status}" if run.exit_status is not None else run.summary
