"""Batch: the tool calls of one reply, found in it together, run in order (reads side by side) and answered together.

A reply's calls are its native tool_calls if it has any, else the calls written
in its text. Every call gets exactly one result (or all of them one refusal),
and what was wrong with the malformed ones goes back with the results.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ayder_cli.agent.callbacks import Callbacks
from ayder_cli.agent.conversation import Conversation
from ayder_cli.agent.repeats import RepeatGuard
from ayder_cli.agent.side_by_side import run_calls
from ayder_cli.calls import ToolCall, ToolResult, describe
from ayder_cli.edit_formats import SEARCH_REPLACE
from ayder_cli.intents import parse
from ayder_cli.intents.cut_calls import calls_before_the_cut
from ayder_cli.intents.in_reasoning import calls_ending_reasoning
from ayder_cli.llm.wire_types import Reply
from ayder_cli.tools.executor import ToolExecutor
from ayder_cli.wording import counted

# The calls one reply may make: the rest are not run and each answer fits the window (a flood of
# 10,000 calls in one reply, answered one by one, would not fit any window).
MAX_CALLS_PER_REPLY = 20


def within_call_limit(reply: Reply) -> Reply:
    """The reply with at most MAX_CALLS_PER_REPLY native calls, before it is kept in the conversation."""
    over = len(reply.tool_calls) - MAX_CALLS_PER_REPLY
    if over <= 0:
        return reply
    return replace(reply, tool_calls=reply.tool_calls[:MAX_CALLS_PER_REPLY], calls_cut=over)


@dataclass
class Batch:
    calls: list[ToolCall]  # malformed ones included: a native call needs its result even when broken
    errors: list[str]  # what was wrong with the malformed calls, one line each
    native: bool  # native tool_calls (answered as role=tool messages) or written in the text
    cut: int = 0  # calls past MAX_CALLS_PER_REPLY: not run, and not kept beside the others
    in_reasoning: bool = False  # written at the end of the reasoning of a reply with no answer
    inside_call_cut: bool = False  # max_tokens ended the reply inside a call: it is among the errors, not run

    @classmethod
    def of(cls, reply: Reply, executor: ToolExecutor | None, whole_files: bool = False) -> Batch:
        """Native calls if the reply has any, else the calls written in its text (none without tools),
        edits written as text among them (whole_files: a fence under a path is a whole file)."""
        if reply.tool_calls:
            batch = cls.native_calls(reply)
            batch.inside_call_cut = reply.finish_reason == "length" and bool(batch.errors)
            # Edits written in the text beside native calls are not run: the model is told.
            if executor is not None and SEARCH_REPLACE.opener in reply.text:
                edits = [call for call in parse(reply.text).calls if call.name == "replace_string"]
                if edits:
                    batch.errors.append(f"not applied: {counted(len(edits), 'SEARCH/REPLACE block')} in the reply's "
                                        "text (a reply with tool calls runs only those); send the edits again")
            return batch
        if executor is None:
            return cls.none()
        return cls.written_in(reply, executor.callable_schemas(), whole_files)

    @classmethod
    def native_calls(cls, reply: Reply) -> Batch:
        # Every native call needs a result: a broken one is not run and gets its error as the result.
        errors = [f"{call.name}: {call.error}" for call in reply.tool_calls if call.error is not None]
        return cls(reply.tool_calls, errors, True, reply.calls_cut)

    @classmethod
    def written_in(cls, reply: Reply, schemas: list[dict] | None, whole_files: bool = False) -> Batch:
        # Nothing before a lone </think> is run, nor a call that a max_tokens cut left without its end;
        # but a reply with no call and no answer runs the calls that end its reasoning.
        cut = reply.finish_reason == "length"
        parsed = parse(reply.text, schemas, hit_max_tokens=cut, whole_files=whole_files)
        if cut:  # the calls before the cut one, also where one container held them all
            parsed = calls_before_the_cut(reply.text, parsed, schemas, whole_files)
        ending = calls_ending_reasoning(reply.text, parsed, reply.thinking, schemas, hit_max_tokens=cut)
        found = ending if ending is not None else parsed
        calls = found.calls[:MAX_CALLS_PER_REPLY]
        return cls(calls, found.errors, False, len(found.calls) - len(calls), in_reasoning=ending is not None,
                   inside_call_cut=cut and bool(found.errors))

    @classmethod
    def none(cls) -> Batch:
        return cls([], [], False)

    @property
    def empty(self) -> bool:
        """No call at all, not even a malformed one: the reply is an answer."""
        return not self.calls and not self.errors

    @property
    def runnable(self) -> list[ToolCall]:
        return [call for call in self.calls if call.error is None]

    @property
    def only_malformed(self) -> bool:
        """Calls were meant, and not one of them can run."""
        return bool(self.errors) and not self.runnable

    def described(self) -> str:
        """read_file(file_path="a.py"), list_files() -- as the activity lines show them."""
        return ", ".join(describe(call.name, call.arguments) for call in self.calls)

    def run(self, executor: ToolExecutor, callbacks: Callbacks, repeats: RepeatGuard) -> tuple[list[ToolResult], bool]:
        """Run the calls, or answer a repeat with the earlier results -> (results, interrupted)."""
        if self.cut:
            callbacks.on_notice(f"the reply held {self.cut + len(self.calls):,} tool calls: the first "
                                f"{len(self.calls)} are taken, the other {self.cut:,} refused without running")
        if self.inside_call_cut:
            complete = len(self.runnable)
            callbacks.on_notice("the reply hit max_tokens inside a tool call, which was not run (the model is told)"
                                + (f"; {counted(complete, 'complete call')} before it ran" if complete else ""))
        if self.in_reasoning:
            callbacks.on_aside(f"{counted(len(self.calls), 'call')} found at the end of the model's reasoning "
                               "(no answer followed)")
        if repeats.repeating:  # the previous reply made these calls already: not run again
            callbacks.on_notice(f"the model repeated {self.described()}; not run again, it gets the earlier result")
            results, interrupted = repeats.replay(self.calls), False
        else:
            results, interrupted = run_calls(self.calls, executor, callbacks)  # reads side by side
        repeats.remember(self.calls, results)
        return results, interrupted

    def refuse(self, conversation: Conversation, error: str) -> None:
        """Answer every call with the same failure: none of them ran."""
        conversation.add_results(self.calls, [ToolResult.failure(error)] * len(self.calls), self.native,
                                 [self._cut_note()] * bool(self.cut))

    def answer(self, conversation: Conversation, results: list[ToolResult], checks: list[str] = ()) -> None:
        """Send the results back, and with them what was wrong with the malformed calls and what the checks
        after them found."""
        notes = ([correction(self.errors)] if self.errors else []) + [self._cut_note()] * bool(self.cut) + list(checks)
        conversation.add_results(self.calls, results, self.native, notes)

    def _cut_note(self) -> str:
        return (f"not run: the other {counted(self.cut, 'call')} of your reply; at most {MAX_CALLS_PER_REPLY} calls "
                "of one reply are run. Make the ones still needed in your next reply.")


def correction(errors: list[str]) -> str:
    """What was wrong with the calls, and the one format that always works."""
    listed = "\n".join(f"- {error}" for error in errors)
    return (
        f"These tool calls could not be run:\n{listed}\n"
        'Call a tool by writing a line on its own: [CALL] tool_name {"argument": "value"} '
        "with the arguments as one JSON object on that line."
    )
