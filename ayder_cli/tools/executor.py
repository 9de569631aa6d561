"""The ToolExecutor pipeline every call goes through, native or parsed:

    normalize -> validate -> policy -> permission -> confirm -> execute

Each stage is a small function; a failure at any stage is the call's result
(the model reads it and goes on), and nothing runs unless every stage passed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

from ayder_cli.calls import ToolCall, ToolResult, describe, first_line
from ayder_cli.edit_formats import offered_with
from ayder_cli.errors import ToolError
from ayder_cli.tool_groups import CORE, FIND_TOOLS, SKILL, tools_of
from ayder_cli.tools.spec import Preview, ToolContext, ToolRegistry, ToolSpec, cap_output
from ayder_cli.tools.validate import aliases_of, check_arguments
from ayder_cli.wording import counted

PERMISSION_NAMES = {"r": "read", "w": "write", "x": "execute"}
FLAG_FOR = {"r": "-r", "w": "-w", "x": "-x"}


@dataclass
class Permissions:
    """What runs without asking: reads by default; -w adds writes, -x adds commands."""

    granted: set[str] = field(default_factory=lambda: {"r"})

    def allows(self, letter: str) -> bool:
        return letter in self.granted

    def toggle(self, letter: str) -> bool:
        """Flip one letter; returns whether it is now granted."""
        if letter in self.granted:
            self.granted.discard(letter)
            return False
        self.granted.add(letter)
        return True

    def __str__(self) -> str:
        return "".join(letter if letter in self.granted else "-" for letter in "rwx")


@dataclass
class ToolPolicy:
    """From the config: the groups offered, the tools enabled, tools never offered, and a cap on calls per
    tool per user message."""

    disabled: frozenset[str] = frozenset()
    # tools.enabled or --tools naming tools: exactly these are offered (a group asked for joins them);
    # None: the groups decide.
    enabled: frozenset[str] | None = None
    max_calls_per_message: dict[str, int] = field(default_factory=dict)
    groups: frozenset[str] | None = None  # the tool groups offered (core always); None: every group
    # The edit format in use (auto already resolved for the model): which write tools are offered; None: all.
    edit_format: str | None = None

    def allowed(self, spec: ToolSpec) -> bool:
        """Neither disabled nor left out of the allowlist: an MCP tool that is not is never listed."""
        names = spec.names()
        if names & self.disabled:
            return False
        return self.enabled is None or bool(names & self.enabled) or spec.name in (FIND_TOOLS, SKILL)

    def offers(self, spec: ToolSpec) -> bool:
        if not self.allowed(spec) or not offered_with(self.edit_format, spec.name):
            return False
        return self.enabled is not None or self.groups is None or spec.group == CORE or spec.group in self.groups

    def not_enabled(self, spec: ToolSpec) -> bool:
        return self.enabled is not None and not spec.names() & self.disabled and not self.allowed(spec)

    def hidden_by_format(self, spec: ToolSpec) -> bool:
        return not offered_with(self.edit_format, spec.name)

    def runs(self, spec: ToolSpec, call: ToolCall) -> bool:
        """An offered tool runs; so does the write tool of an edit written as text, in every edit format
        (a SEARCH/REPLACE block is a replace_string call even where its schema is not sent)."""
        if self.offers(spec):
            return True
        return call.written_edit and self.allowed(spec) and spec.group == CORE


class Decision(Enum):
    YES = "y"
    NO = "n"
    ALWAYS = "a"  # yes, and do not ask again for this tool in this session
    DENY = "d"  # no, with a reason for the model


@dataclass
class Answer:
    decision: Decision
    reason: str = ""


@dataclass
class ConfirmRequest:
    tool: str
    permission: str  # "r", "w" or "x"
    summary: str  # the call on one line, e.g. write_file(file_path="a.py", content="...")
    preview: Preview | None  # for file changes: what would change


class EditWatch(Protocol):
    """Looks at the files a write tool changes: before() what they hold, after() adds to its result."""

    def before(self, paths: list[str]) -> dict[str, str | None]: ...

    def after(self, held: dict[str, str | None], result: ToolResult) -> None: ...

    def describe(self) -> str:
        """One line for /status and --doctor: what looks."""

    def close(self) -> None: ...


class Confirmer(Protocol):
    def confirm(self, request: ConfirmRequest) -> Answer | None:
        """Ask the user; None when there is no terminal to ask on."""


class NoTerminal:
    """The confirmer of a run with nobody to ask: every call outside the granted set is denied."""

    def confirm(self, request: ConfirmRequest) -> Answer | None:
        return None


# --- the stages


def normalize(spec: ToolSpec, arguments: dict[str, Any], root: Path) -> dict[str, Any]:
    """Aliases to parameter names; project paths made relative to the root where they point inside it."""
    normalized: dict[str, Any] = {}
    aliases = aliases_of(spec.parameters, spec.aliases)
    for name, value in arguments.items():
        canonical = aliases.get(name, name)
        if canonical in normalized and canonical != name:
            continue  # the real name wins over an alias given too
        normalized[canonical] = value
    for name in spec.path_args:
        value = normalized.get(name)
        if isinstance(value, str) and value.strip():
            normalized[name] = relative_to_root(value.strip(), root)
    return normalized


def relative_to_root(path: str, root: Path) -> str:
    """An absolute path inside the root becomes relative; anything else is left for the tool to refuse."""
    candidate = Path(path).expanduser()
    if candidate.is_absolute():
        try:
            return candidate.relative_to(root).as_posix() or "."
        except ValueError:
            return path
    return path


def validate(spec: ToolSpec, call: ToolCall, arguments: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The arguments checked against the schema; an error message for the model if they do not fit."""
    expects = f"expected {spec.signature(types=True)}"
    if call.error:
        return {}, f"{spec.name}: the arguments could not be read ({call.error}); {expects}"
    checked, problems = check_arguments(spec.parameters, arguments)
    if problems:
        return {}, f"{spec.name}: {'; '.join(problems)}; {expects}"
    return checked, None


def execute(spec: ToolSpec, context: ToolContext, arguments: dict[str, Any]) -> ToolResult:
    """Run the tool; its errors and exceptions become the result, its output is capped."""
    try:
        result = spec.run(context, arguments)
    except ToolError as exc:
        return ToolResult.failure(str(exc))
    except Exception as exc:  # a tool's bug must not end the session; the model gets one line
        detail = first_line(str(exc)) or "no details"
        return ToolResult.failure(f"{spec.name} failed: {type(exc).__name__}: {detail}")
    result.output = cap_output(result.output, context.max_output_chars)
    return result


class ToolExecutor:
    """Runs calls through every stage, remembering per-session answers and per-message counts."""

    def __init__(
        self,
        registry: ToolRegistry,
        context: ToolContext,
        permissions: Permissions | None = None,
        confirmer: Confirmer | None = None,
        policy: ToolPolicy | None = None,
        warn=lambda message: None,
        before_confirm=lambda: None,
        edits: EditWatch | None = None,
    ) -> None:
        self.registry = registry
        self.context = context
        self.permissions = permissions or Permissions()
        self.confirmer = confirmer or NoTerminal()
        self.policy = policy or ToolPolicy()
        self.warn = warn
        self.before_confirm = before_confirm  # e.g. end the half-printed activity line
        self.edits = edits  # what a write introduced, added to its result (the language servers')
        self.always: set[str] = set()  # tools the user said [a]lways to
        self.calls_this_message: dict[str, int] = {}
        self.denials = 0  # calls denied in this run, by policy (no terminal) or by the user
        self._said_no_terminal = False  # the policy denial is said to the user once per run

    def new_message(self) -> None:
        """A new user message: the per-message call caps start again."""
        self.calls_this_message.clear()

    def offered(self) -> list[ToolSpec]:
        """The tools the model is told about, and the only ones it can call: its groups', less the disabled."""
        return [spec for spec in self.registry.specs() if self.policy.offers(spec)]

    def offer(self, *groups: str) -> None:
        """Offer more tool groups from now on (a mode that needs them: --implement offers tasks); with an
        allowlist, their tools join it (core's not: the groups checked always name it, the list narrows it)."""
        if self.policy.groups is not None:
            self.policy.groups = self.policy.groups | frozenset(groups)
        if self.policy.enabled is not None:
            self.policy.enabled = self.policy.enabled | frozenset(tools_of(set(groups) - {CORE}))

    def schemas(self) -> list[dict[str, Any]]:
        return [spec.schema() for spec in self.offered()]

    def callable_schemas(self) -> list[dict[str, Any]]:
        """The offered tools' schemas and those of tools callable by name though not offered yet (for
        reading calls written as text)."""
        return [spec.schema() for spec in self.registry.callable_specs() if self.policy.offers(spec)]

    def run(self, call: ToolCall) -> ToolResult:
        prepared = self.prepare(call)
        if isinstance(prepared, ToolResult):
            return prepared
        spec, arguments = prepared
        if self.edits is None or spec.permission != "w" or not spec.path_args:
            return execute(spec, self.context, arguments)
        held = self.edits.before([arguments[name] for name in spec.path_args if isinstance(arguments.get(name), str)])
        result = execute(spec, self.context, arguments)
        if result.ok and held:
            self.edits.after(held, result)
        return result

    def reads_unasked(self, call: ToolCall) -> bool:
        """The call only reads (its tool's permission letter is r) and runs without a question: it may
        run side by side with other such calls of the same reply (agent/side_by_side.py)."""
        spec = self.registry.get(call.name)
        if call.error is not None or spec is None or spec.permission != "r" or not self.policy.runs(spec, call):
            return False
        return self.permissions.allows(spec.permission) or spec.name in self.always

    def prepare(self, call: ToolCall) -> tuple[ToolSpec, dict[str, Any]] | ToolResult:
        """Every stage but execute -> (spec, arguments) to run, or the result that ends the call here.
        On the caller's thread, in call order: the counters and the questions are not shared with threads."""
        spec = self.registry.get(call.name)
        if spec is None or not self.policy.runs(spec, call):
            return ToolResult.failure(self._unknown(call.name))
        arguments = normalize(spec, call.arguments if isinstance(call.arguments, dict) else {}, self.context.root)
        arguments, problem = validate(spec, call, arguments if isinstance(call.arguments, dict) else call.arguments)
        if problem:
            return ToolResult.failure(problem)
        refusal = self._over_cap(spec)
        if refusal:
            return ToolResult.failure(refusal)
        denials = self.denials
        refusal = self._permission(spec, arguments)
        if refusal and self.denials > denials:  # the user sees a short mark; the model reads why and what next
            return ToolResult(ok=False, error=refusal, summary="denied")
        if refusal:
            return ToolResult.failure(refusal)
        return spec, arguments

    def _unknown(self, name: str) -> str:
        names = [spec.name for spec in self.offered()]
        spec = self.registry.get(str(name))
        if spec is not None and self.policy.hidden_by_format(spec):
            return (f"unknown tool {name!r}: not offered with edit_format {self.policy.edit_format!r}; "
                    f"tools: {', '.join(names) or 'none'}")
        if spec is not None and self.policy.not_enabled(spec):
            return (f"refused: {name!r} is not among the tools enabled in this session (tools.enabled or --tools); "
                    f"tools: {', '.join(names) or 'none'}")
        if spec is not None and not spec.names() & self.policy.disabled:  # in a group not offered
            return (f"unknown tool {name!r}: not offered in this session (the user can add it with "
                    f"--tools {spec.group}); tools: {', '.join(names) or 'none'}")
        close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.6)
        nearest = f"; did you mean {close[0]}?" if close else ""
        return f"unknown tool {name!r}{nearest} (tools: {', '.join(names) or 'none'})"

    def _over_cap(self, spec: ToolSpec) -> str | None:
        cap = self.policy.max_calls_per_message.get(spec.name)
        used = self.calls_this_message.get(spec.name, 0)
        if cap is not None and used >= cap:
            return (f"not run: {spec.name} may be called at most {counted(cap, 'time')} per message "
                    "(tools.max_calls_per_message in the config)")
        self.calls_this_message[spec.name] = used + 1
        return None

    def _permission(self, spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
        """None if the call may run; otherwise why not, for the model."""
        letter = spec.permission
        if self.permissions.allows(letter) or spec.name in self.always:
            return None
        preview = None
        if spec.preview is not None:
            try:
                preview = spec.preview(self.context, arguments)
            except ToolError as exc:
                return str(exc)  # the write could not happen anyway: say why, ask nothing
        self.before_confirm()
        # Without a diff to show, the summary is all the user sees: it must not hide the end of a command.
        summary = describe(spec.name, arguments, width=60 if preview is not None else 10_000)
        answer = self.confirmer.confirm(ConfirmRequest(spec.name, letter, summary, preview))
        if answer is None or answer.decision not in (Decision.YES, Decision.ALWAYS):
            self.denials += 1
        if answer is None:
            flag = FLAG_FOR[letter]
            if not self._said_no_terminal:  # once per run: a script that keeps trying is not a wall of warnings
                self._said_no_terminal = True
                self.warn(f"{spec.name} needs {PERMISSION_NAMES[letter]} permission and there is no terminal to "
                          f"ask; denied by policy, as is every later call that needs asking (run with {flag} to allow)")
            return (f"denied: {spec.name} needs {PERMISSION_NAMES[letter]} permission, which was not granted "
                    f"(the user can allow it with {flag}); do not retry it")
        if answer.decision is Decision.ALWAYS:
            self.always.add(spec.name)
            return None
        if answer.decision is Decision.YES:
            return None
        if answer.decision is Decision.DENY and answer.reason:
            return f"denied by the user: {answer.reason}"
        return "denied by the user"
