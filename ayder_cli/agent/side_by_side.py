"""Side by side: the calls of one reply that only read and need no question run at the same time.

A call whose tool has the permission letter r, granted without asking, joins the reads next to it;
any other call (a write, a command, one that asks first) is a barrier: the calls before it finish,
it runs alone, then the next ones run. At most MAX_AT_ONCE run at once, in a pool made at the first
group of two. Everything the executor keeps per message (the call caps, the questions) is decided
on this thread, in call order; only the tools themselves run in the pool. Results and activity
lines come out in call order: a call finished before an earlier one waits to be shown.
"""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from typing import Callable

from ayder_cli.agent.callbacks import Callbacks
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.tools.executor import ToolExecutor, execute

MAX_AT_ONCE = 4
INTERRUPTED = "interrupted by the user"
SIGNAL_CHECK_S = 0.1  # how soon Ctrl-C is seen while reads run (see _wait_for)

_pool = None
_pool_lock = threading.Lock()


def pool() -> _ReadPool:
    """The read pool, made when first needed: a session that never reads two files at once has none."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = _ReadPool(MAX_AT_ONCE)
        return _pool


class _ReadPool:
    """At most `size` worker threads, started as work comes. They are daemons, unlike those of
    concurrent.futures' pool, which exit waits for: after Ctrl-C a read stuck on a slow disk or a
    silent server must not hold ayder open."""

    def __init__(self, size: int) -> None:
        import queue  # not on the start-up path

        self.size = size
        self.work = queue.SimpleQueue()
        self.workers: list[threading.Thread] = []

    def submit(self, function, *args):
        from concurrent.futures import Future

        future = Future()
        self.work.put((future, function, args))
        if len(self.workers) < self.size:
            worker = threading.Thread(target=self._serve, name=f"ayder-read-{len(self.workers) + 1}", daemon=True)
            self.workers.append(worker)
            worker.start()
        return future

    def _serve(self) -> None:
        while True:
            future, function, args = self.work.get()
            if not future.set_running_or_notify_cancel():
                continue  # cancelled after Ctrl-C before it started
            try:
                future.set_result(function(*args))
            except BaseException as exc:  # a tool's KeyboardInterrupt too: it goes to the thread that waits
                future.set_exception(exc)


def groups(calls: list[ToolCall], executor: ToolExecutor) -> list[list[ToolCall]]:
    """The calls in order, cut at every barrier: a run of unasked reads is one group, any other call
    a group of its own. A malformed call runs nothing, so it does not cut a run of reads."""
    cut: list[list[ToolCall]] = []
    together = False  # whether the last group takes more reads
    for call in calls:
        if call.error is not None or executor.reads_unasked(call):
            if not together:
                cut.append([])
                together = True
            cut[-1].append(call)
        else:
            cut.append([call])
            together = False
    return cut


def run_calls(calls: list[ToolCall], executor: ToolExecutor, callbacks: Callbacks) -> tuple[list[ToolResult], bool]:
    """Run the calls, reads side by side -> (results in call order, interrupted). After Ctrl-C the
    calls not reached get no result, as with one call at a time."""
    results: list[ToolResult] = []
    for group in groups(calls, executor):
        done, interrupted = _run_group(group, executor, callbacks)
        results.extend(done)
        if interrupted:
            return results, True
    return results, False


class _Stop:
    """The tools' clock, until Ctrl-C: then every deadline of a read still running has passed, so a
    search or tree walk stops at its next look at the time instead of running on unseen."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.base = clock
        self.stopped = False

    def clock(self) -> float:
        return math.inf if self.stopped else self.base()


def _run_group(group: list[ToolCall], executor: ToolExecutor,
               callbacks: Callbacks) -> tuple[list[ToolResult], bool]:
    if sum(call.error is None for call in group) < 2:  # nothing to overlap: here, as ayder always ran calls
        return _one_by_one(group, executor, callbacks)
    # Every stage before execute, here and in order (reads ask nothing); what ends early is the result already.
    outcomes: list = [ToolResult.failure(f"not run: {call.error}") if call.error is not None
                      else executor.prepare(call) for call in group]
    stop = _Stop(executor.context.clock)
    context = replace(executor.context, clock=stop.clock)
    outcomes = [outcome if isinstance(outcome, ToolResult) else pool().submit(execute, outcome[0], context, outcome[1])
                for outcome in outcomes]
    results: list[ToolResult] = []
    index, started = 0, False  # the call being shown, and whether its line has begun
    try:
        for index, call in enumerate(group):
            outcome = outcomes[index]
            if call.error is not None:  # malformed: no activity line, as before
                results.append(outcome)
                continue
            started = True  # set first: Ctrl-C often lands as the line is written, while the reads hold the GIL
            callbacks.on_tool_start(call)
            result = outcome if isinstance(outcome, ToolResult) else _wait_for(outcome)
            results.append(result)
            callbacks.on_tool_done(call, result)
            started = False
    except KeyboardInterrupt:
        finished = [isinstance(other, ToolResult) or other.done() for other in outcomes]  # before the stop
        stop.stopped = True
        for other in outcomes:
            if not isinstance(other, ToolResult):
                other.cancel()  # not started yet: never starts
        if len(results) == index:  # no result yet for the call shown: it is the one interrupted
            results.append(ToolResult.failure(INTERRUPTED))
            if group[index].error is None:
                if not started:
                    callbacks.on_tool_start(group[index])
                callbacks.on_tool_done(group[index], results[-1])
        results.extend(_close(group[index + 1:], outcomes[index + 1:], finished[index + 1:], callbacks))
        return results, True
    return results, False


def _wait_for(future) -> ToolResult:
    """The read's result. Waited for in short steps: the kernel may hand Ctrl-C's signal to a read's
    thread, and Python raises it in this one only when this one wakes; a wait without end would
    hold it until the read is over."""
    from concurrent.futures import TimeoutError

    while True:
        try:
            return future.result(timeout=SIGNAL_CHECK_S)
        except TimeoutError:
            continue


def _close(calls: list[ToolCall], outcomes: list, finished: list[bool], callbacks: Callbacks) -> list[ToolResult]:
    """After Ctrl-C: a read that had finished before it keeps its result, the others are marked
    interrupted (one the stop cut short too); each gets its activity line, so no line is left open."""
    results = []
    for call, outcome, done in zip(calls, outcomes, finished):
        if isinstance(outcome, ToolResult):
            result = outcome
        elif done:
            result = outcome.result()
        else:
            result = ToolResult.failure(INTERRUPTED)
        if call.error is None:
            callbacks.on_tool_start(call)
            callbacks.on_tool_done(call, result)
        results.append(result)
    return results


def _one_by_one(calls: list[ToolCall], executor: ToolExecutor,
                callbacks: Callbacks) -> tuple[list[ToolResult], bool]:
    """One call at a time on this thread; Ctrl-C stops the rest (they get no result here)."""
    results: list[ToolResult] = []
    for call in calls:
        if call.error is not None:
            results.append(ToolResult.failure(f"not run: {call.error}"))
            continue
        try:
            callbacks.on_tool_start(call)
            result = executor.run(call)
        except KeyboardInterrupt:
            result = ToolResult.failure(INTERRUPTED)
            callbacks.on_tool_done(call, result)
            results.append(result)
            return results, True
        callbacks.on_tool_done(call, result)
        results.append(result)
    return results, False
