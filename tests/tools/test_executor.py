"""The ToolExecutor pipeline, stage by stage: normalize, validate, policy, permission, confirm, execute."""

from __future__ import annotations

import pytest

from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.tools.spec import Preview, ToolContext, ToolRegistry, ToolSpec
from ayder_cli.tools.executor import (
    Answer,
    Decision,
    Permissions,
    ToolExecutor,
    ToolPolicy,
    normalize,
    validate,
)

SCHEMA = {"type": "object", "properties": {"file_path": {"type": "string"}, "count": {"type": "integer"}},
          "required": ["file_path"], "additionalProperties": False}


def spec(name="touch", permission="w", run=None, preview=None) -> ToolSpec:
    def default_run(context, args):
        ran.append((name, args))
        return ToolResult(True, "done", summary="done")

    return ToolSpec(name, "test", SCHEMA, permission, run or default_run,
                    aliases={"path": "file_path", "n": "count"}, path_args=("file_path",), preview=preview)


ran: list = []


@pytest.fixture(autouse=True)
def clear_runs():
    ran.clear()


class Asker:
    """A confirmer that answers from a script and remembers what it was asked."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = []

    def confirm(self, request):
        self.asked.append(request)
        return self.answers.pop(0)


def executor(tmp_path, *specs, granted=("r",), answers=(), policy=None, warnings=None):
    asker = Asker(*answers)
    tool_executor = ToolExecutor(ToolRegistry(specs or [spec()]), ToolContext(tmp_path), Permissions(set(granted)),
                                 asker, policy, warn=(warnings.append if warnings is not None else lambda m: None))
    return tool_executor, asker


def call(name="touch", **arguments) -> ToolCall:
    return ToolCall("c1", name, arguments)


def test_normalize_maps_aliases_and_makes_paths_inside_the_root_relative(tmp_path):
    args = normalize(spec(), {"path": str(tmp_path / "src" / "a.py"), "n": "3"}, tmp_path)
    assert args == {"file_path": "src/a.py", "count": "3"}
    assert normalize(spec(), {"path": "/etc/passwd"}, tmp_path) == {"file_path": "/etc/passwd"}  # left to refuse
    assert normalize(spec(), {"file_path": "a", "path": "b"}, tmp_path) == {"file_path": "a"}  # the real name wins


def test_validate_types_and_reports_what_is_wrong(tmp_path):
    assert validate(spec(), call(), {"file_path": "a", "count": "12"}) == ({"file_path": "a", "count": 12}, None)
    _, problem = validate(spec(), call(), {"count": 1, "extra": True})
    assert "missing required argument 'file_path'" in problem and "unknown argument 'extra'" in problem
    assert "expected touch(file_path: string, count?: integer)" in problem


def test_granted_permission_runs_without_asking(tmp_path):
    tool_executor, asker = executor(tmp_path, granted=("r", "w"))
    assert tool_executor.run(call(path="a.txt")).ok
    assert ran == [("touch", {"file_path": "a.txt"})] and asker.asked == []


@pytest.mark.parametrize("answer, runs, error", [
    (Answer(Decision.YES), True, None),
    (Answer(Decision.NO), False, "denied by the user"),
    (Answer(Decision.DENY, "use the other file"), False, "denied by the user: use the other file"),
])
def test_confirmation_answers(tmp_path, answer, runs, error):
    tool_executor, asker = executor(tmp_path, answers=[answer])
    result = tool_executor.run(call(file_path="a.txt"))
    assert result.ok is runs and bool(ran) is runs
    assert result.error == error
    assert asker.asked[0].permission == "w" and 'touch(file_path="a.txt")' in asker.asked[0].summary


def test_always_is_remembered_for_that_tool_only(tmp_path):
    tool_executor, asker = executor(tmp_path, spec("touch"), spec("other"),
                                    answers=[Answer(Decision.ALWAYS), Answer(Decision.NO)])
    assert tool_executor.run(call(file_path="a")).ok
    assert tool_executor.run(call(file_path="b")).ok
    assert not tool_executor.run(call("other", file_path="c")).ok
    assert [request.tool for request in asker.asked] == ["touch", "other"]


def test_no_terminal_denies_with_a_hint_for_the_model_and_a_warning(tmp_path):
    warnings = []
    tool_executor, _ = executor(tmp_path, spec(permission="x"), answers=[None], warnings=warnings)
    result = tool_executor.run(call(file_path="a"))
    assert not result.ok and ran == []
    assert "-x" in result.error and "execute" in result.error
    assert warnings and "-x" in warnings[0]


def test_the_preview_is_shown_and_a_preview_error_asks_nothing(tmp_path):
    def preview(context, args):
        if args["file_path"] == "bad":
            raise ToolError("bad is a directory")
        return Preview(args["file_path"], "old\n", "new\n")

    tool_executor, asker = executor(tmp_path, spec(preview=preview), answers=[Answer(Decision.YES)])
    assert tool_executor.run(call(file_path="good")).ok
    assert asker.asked[0].preview == Preview("good", "old\n", "new\n")
    result = tool_executor.run(call(file_path="bad"))
    assert result.error == "bad is a directory" and len(asker.asked) == 1


def test_disabled_tools_are_not_offered_and_not_run(tmp_path):
    tool_executor, _ = executor(tmp_path, spec("touch"), spec("other"), granted="rwx",
                                policy=ToolPolicy(disabled=frozenset({"other"})))
    assert [s.name for s in tool_executor.offered()] == ["touch"]
    assert [s["function"]["name"] for s in tool_executor.schemas()] == ["touch"]
    result = tool_executor.run(call("other", file_path="a"))
    assert not result.ok and "unknown tool 'other'" in result.error and ran == []


def test_only_the_offered_groups_are_sent_and_callable_and_a_mode_can_offer_more(tmp_path):
    from dataclasses import replace

    specs = [spec("touch"), replace(spec("plan"), group="tasks"), replace(spec("note"), group="memory")]
    tool_executor, _ = executor(tmp_path, *specs, granted="rwx", policy=ToolPolicy(groups=frozenset({"core"})))
    assert [s["function"]["name"] for s in tool_executor.schemas()] == ["touch"]
    result = tool_executor.run(call("plan", file_path="a"))
    assert not result.ok and ran == []
    assert result.error == ("unknown tool 'plan': not offered in this session "
                            "(the user can add it with --tools tasks); tools: touch")

    tool_executor.offer("tasks")  # --implement, /plan
    assert [s.name for s in tool_executor.offered()] == ["touch", "plan"]
    assert tool_executor.run(call("plan", file_path="a")).ok

    every, _ = executor(tmp_path, *specs)  # no groups in the policy: a bare executor offers every tool
    assert [s.name for s in every.offered()] == ["touch", "plan", "note"]
    disabled, _ = executor(tmp_path, *specs, policy=ToolPolicy(disabled=frozenset({"plan"}), groups=None))
    assert [s.name for s in disabled.offered()] == ["touch", "note"]
    assert "not offered" not in disabled.run(call("plan", file_path="a")).error  # disabled by the user: just unknown


def test_calls_per_message_are_capped_and_the_cap_resets(tmp_path):
    tool_executor, _ = executor(tmp_path, granted="rw", policy=ToolPolicy(max_calls_per_message={"touch": 2}))
    results = [tool_executor.run(call(file_path=str(n))) for n in range(3)]
    assert [r.ok for r in results] == [True, True, False]
    assert "at most 2 times per message" in results[2].error
    tool_executor.new_message()
    assert tool_executor.run(call(file_path="again")).ok


def test_a_failing_tool_is_one_line_and_output_is_capped(tmp_path):
    def boom(context, args):
        raise RuntimeError("disk on fire\nsecond line")

    def chatty(context, args):
        return ToolResult(True, "x" * 50_000)

    tool_executor, _ = executor(tmp_path, spec("boom", run=boom), spec("chatty", run=chatty), granted="rw")
    assert tool_executor.run(call("boom", file_path="a")).error == "boom failed: RuntimeError: disk on fire"
    output = tool_executor.run(call("chatty", file_path="a")).output
    assert len(output) < 21_000 and "characters cut from the middle" in output


def test_permissions_toggle_and_show():
    permissions = Permissions({"r"})
    assert str(permissions) == "r--"
    assert permissions.toggle("x") is True and str(permissions) == "r-x"
    assert permissions.toggle("r") is False and str(permissions) == "--x"


def test_a_call_without_a_diff_is_shown_whole_at_the_question(tmp_path):
    command = "echo a rather long and harmless looking prefix of a command && rm -rf build"
    tool_executor, asker = executor(tmp_path, spec(permission="x"), answers=[Answer(Decision.NO)])
    tool_executor.run(call(file_path=command))
    assert "rm -rf build" in asker.asked[0].summary


def test_quoted_booleans_are_read_as_booleans(tmp_path):
    flag = ToolSpec("flag", "test", {"type": "object", "properties": {"on": {"type": "boolean"}},
                                      "additionalProperties": False}, "r",
                    lambda context, args: ToolResult(True, repr(args["on"])))
    tool_executor, _ = executor(tmp_path, flag)
    assert tool_executor.run(call("flag", on="false")).output == "False"
    assert tool_executor.run(call("flag", on="TRUE")).output == "True"
    assert not tool_executor.run(call("flag", on="maybe")).ok
