"""The read-only calls of one reply run side by side: at most 4 at once, results and activity lines in
call order, writes and commands as barriers. Concurrency is measured by a counter of calls inside
their tool at the same moment, never by time."""

from __future__ import annotations

import threading

from ayder_cli.agent.side_by_side import MAX_AT_ONCE, groups, run_calls
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec
from ayder_cli.tools.deadline import Deadline
from ayder_cli.tools.executor import Permissions, ToolExecutor, ToolPolicy

WAIT = 10  # seconds a tool waits for the others at most: only a broken scheduler ever waits that long


class Recorder:
    def __init__(self) -> None:
        self.events = []

    def __getattr__(self, name):
        return lambda *args: self.events.append((name, *args))


class Inside:
    """How many calls are inside their tool now, the most there ever were, and what entered and left when."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.log: list[str] = []

    def enter(self, name: str) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.log.append(f"enter {name}")

    def leave(self, name: str) -> None:
        with self.lock:
            self.now -= 1
            self.log.append(f"leave {name}")


def spec(name: str, run, permission: str = "r") -> ToolSpec:
    return ToolSpec(name, "test tool", {"type": "object", "properties": {"n": {"type": "integer"}}}, permission, run)


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(f"id{n}", name, {"n": n}) for n, name in enumerate(names)]


def executor(tmp_path, *specs: ToolSpec, granted=("r",), **policy) -> ToolExecutor:
    return ToolExecutor(ToolRegistry(specs), ToolContext(tmp_path), Permissions(set(granted)),
                        policy=ToolPolicy(**policy))


def activity(recorder: Recorder) -> list[tuple[str, int]]:
    return [(event[0], event[1].arguments["n"]) for event in recorder.events]


def test_six_reads_run_four_at_once_and_never_more(tmp_path):
    inside, four_in = Inside(), threading.Event()

    def read(context, args):
        inside.enter(str(args["n"]))
        if inside.now >= MAX_AT_ONCE:
            four_in.set()
        four_in.wait(WAIT)  # the first four wait for each other: they are inside together
        inside.leave(str(args["n"]))
        return ToolResult(True, f"read {args['n']}")

    results, interrupted = run_calls(calls(*["read"] * 6), executor(tmp_path, spec("read", read)), Recorder())
    assert not interrupted
    assert inside.most == MAX_AT_ONCE == 4
    assert [result.output for result in results] == [f"read {n}" for n in range(6)]


def test_results_and_activity_lines_keep_call_order_when_later_calls_finish_first(tmp_path):
    finished = {n: threading.Event() for n in range(4)}

    def read(context, args):
        n = args["n"]
        if n < 3:
            finished[n + 1].wait(WAIT)  # call 0 ends after call 1, which ends after 2, ...: the reverse order
        finished[n].set()
        return ToolResult(True, f"read {n}")

    recorder = Recorder()
    results, _ = run_calls(calls(*["read"] * 4), executor(tmp_path, spec("read", read)), recorder)
    assert [result.output for result in results] == ["read 0", "read 1", "read 2", "read 3"]
    assert activity(recorder) == [(event, n) for n in range(4) for event in ("on_tool_start", "on_tool_done")]


def test_a_write_waits_for_the_reads_before_it_and_the_reads_after_it_wait_for_it(tmp_path):
    inside = Inside()

    def tool(context, args):
        inside.enter(str(args["n"]))
        inside.leave(str(args["n"]))
        return ToolResult(True, "ok")

    run = executor(tmp_path, spec("read", tool), spec("write", tool, "w"), granted=("r", "w"))
    names = ("read", "read", "write", "read", "read")
    assert [len(group) for group in groups(calls(*names), run)] == [2, 1, 2]
    results, _ = run_calls(calls(*names), run, Recorder())
    assert all(result.ok for result in results)
    log = inside.log
    assert log.index("enter 2") > max(log.index("leave 0"), log.index("leave 1"))
    assert log.index("leave 2") < min(log.index("enter 3"), log.index("enter 4"))


def test_a_read_that_would_ask_first_runs_alone(tmp_path):
    # Reads are not granted (a user who turned r off): each read asks, so none runs beside another.
    run = executor(tmp_path, spec("read", lambda context, args: ToolResult(True, "x")), granted=())
    assert [len(group) for group in groups(calls("read", "read", "read"), run)] == [1, 1, 1]
    run.always.add("read")  # answered [a]lways: no question any more
    assert [len(group) for group in groups(calls("read", "read", "read"), run)] == [3]


def test_the_call_caps_count_in_call_order(tmp_path):
    run = executor(tmp_path, spec("read", lambda context, args: ToolResult(True, f"read {args['n']}")),
                   max_calls_per_message={"read": 2})
    results, _ = run_calls(calls("read", "read", "read"), run, Recorder())
    assert [result.output for result in results[:2]] == ["read 0", "read 1"]
    assert "at most 2 times per message" in results[2].error


def test_ctrl_c_while_reads_run_keeps_what_finished_and_marks_the_rest_interrupted(tmp_path):
    released, later_done = threading.Event(), threading.Event()

    def read(context, args):
        n = args["n"]
        if n == 0:
            later_done.wait(WAIT)
            raise KeyboardInterrupt  # as Ctrl-C reaches the wait for the first result
        if n == 1:
            later_done.set()
            return ToolResult(True, "read 1")
        released.wait(WAIT)  # still running when Ctrl-C comes
        return ToolResult(True, "too late")

    recorder = Recorder()
    run = executor(tmp_path, spec("read", read), spec("write", read, "w"), granted=("r", "w"))
    results, interrupted = run_calls(calls("read", "read", "read", "write"), run, recorder)
    released.set()
    assert interrupted
    assert [result.error or result.output for result in results] == [
        "interrupted by the user", "read 1", "interrupted by the user"]  # the write after them never ran
    assert activity(recorder) == [(event, n) for n in range(3) for event in ("on_tool_start", "on_tool_done")]


def test_ctrl_c_makes_the_deadline_of_a_read_still_running_pass_so_it_stops(tmp_path):
    stopped, started = threading.Event(), threading.Event()

    def walk(context, args):  # a tree walk or search: looks at its deadline after each file
        deadline = Deadline(30, context.clock)
        started.set()
        while not deadline.passed():
            stopped.wait(0.01)
        stopped.set()
        return ToolResult(True, "stopped at the deadline")

    def interrupted(context, args):
        started.wait(WAIT)
        raise KeyboardInterrupt

    run = executor(tmp_path, spec("interrupted", interrupted), spec("walk", walk))
    results, interrupted_ = run_calls(calls("interrupted", "walk"), run, Recorder())
    assert interrupted_
    assert stopped.wait(WAIT)  # the walk stopped long before its 30 s
    assert [result.error for result in results] == ["interrupted by the user"] * 2
