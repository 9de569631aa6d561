"""How the suite runs on a machine with few cores (a pytest plugin, named in tests/conftest.py):
how many workers; what is compiled and noted once for all of them before they start; which files
run together on one worker and which are handed out first; the garbage collector; a worker's exit;
old runs' temporary directories. Each measure here only saves time: none changes what a test sees,
and where pytest's, xdist's or Hypothesis's internals move, it is skipped."""

from __future__ import annotations

import atexit
import collections
import gc
import hashlib
import importlib.util
import os
import py_compile
import subprocess
import sys
import time
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

TESTS = Path(__file__).resolve().parents[1]
Item = TypeVar("Item")
_OLD_RUNS_REMOVER = pytest.StashKey[subprocess.Popen]()

# Test files that load or build the same costly thing in the test process, scheduled as one unit so
# that one worker pays for it instead of each: the MCP SDK, the ACP SDK and the trajectory models are
# built on pydantic (about a CPU-second a process); the house and wording checks parse all of ayder's
# modules (support/source_trees.py, half a second). A file missing here only costs that again;
# `python -X importtime -m pytest -n0 FILE` shows whether a file loads pydantic.
RUN_TOGETHER = {
    "pydantic": (
        "tests/acp/test_e2e_acp.py", "tests/acp/test_readme_settings.py", "tests/support/test_acp_in_process.py",
        "tests/agent/test_e2e_side_by_side.py", "tests/agent/test_e2e_trajectory.py",
        "tests/mcp_servers/test_e2e_mcp.py", "tests/mcp_servers/test_e2e_mcp_budget.py",
        "tests/mcp_servers/test_e2e_mcp_enabled.py", "tests/mcp_servers/test_e2e_mcp_json.py",
        "tests/mcp_servers/test_e2e_mcp_names.py", "tests/modes/test_doctor.py", "tests/terminal/test_escapes.py",
    ),
    "parsed source": ("tests/project/test_house.py", "tests/project/test_words.py"),
}
# The files that take longest (seconds of waiting or of CPU), started first, longest first: the last
# files to start are then short ones, and no worker is left running alone at the end. The others
# follow, those with the most tests first (as xdist orders them). A file missing here only risks a
# longer end; `python -m pytest --durations=0` shows what each test takes.
STARTED_FIRST = (
    "pydantic", "tests/llm/test_prompt_progress.py", "tests/terminal/test_repl_pty.py",
    "tests/config/test_git_safety.py", "tests/agent/test_e2e_verify.py", "tests/project/test_wheel.py",
    "tests/lsp/test_e2e_diagnostics.py", "tests/tools/test_shell_tools.py", "tests/lsp/test_servers_after_edits.py",
    "tests/modes/test_e2e_oneshot.py", "tests/llm/test_stream_deadlines.py", "tests/modes/test_e2e_errors.py",
    "tests/project/test_benchmarks.py", "tests/storage/test_crash_safety.py", "tests/llm/test_bounded_reads.py",
)


def pytest_xdist_auto_num_workers(config) -> int | None:
    """-n auto (setup.cfg): two workers a core. Many tests spend their time waiting (an ayder process
    or an MCP server starting, a timeout running out, a reply held back), and the extra workers keep
    the cores busy meanwhile: on two cores 4 workers end the suite in 60 s where 3 took 64 s.
    PYTEST_XDIST_AUTO_NUM_WORKERS, when set, still decides (None: xdist's own count)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or not hasattr(os, "sched_getaffinity"):
        return None
    return 2 * len(os.sched_getaffinity(0))


def pytest_configure(config) -> None:
    """Before xdist starts its workers, do once, on every core, what each worker would otherwise do
    itself from a clean clone (about 5 CPU-seconds a worker): rewrite the asserts of every test module
    and cache them (pytest's own pyc), compile ayder's modules and the tests' others, and note the
    constants of each for Hypothesis (its .hypothesis/constants, read when the property tests start)."""
    if hasattr(config, "workerinput"):
        _leave_without_teardown_at_exit()
        return
    if not config.getoption("numprocesses", None):
        return
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc, assertstate_key, get_cache_dir
        state = config.stash[assertstate_key]
    except (ImportError, KeyError):
        return

    def rewritten(source: Path) -> Path:
        return get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)

    def rewrite(source: Path) -> None:
        source_hash, code = _rewrite_test(source, config)
        rewritten(source).parent.mkdir(exist_ok=True)
        _write_pyc(state, code, source_hash, rewritten(source))

    def compile_(source: Path) -> None:
        py_compile.compile(str(source), doraise=False, quiet=2)

    sources = [*(TESTS.parent / "ayder_cli").rglob("*.py"), *TESTS.rglob("*.py")]
    work: list[tuple[Callable[[Path], object], Path]] = [
        (rewrite, source) if _is_test_module(source) else (compile_, source) for source in sources
        if not (_cached(rewritten(source), source) if _is_test_module(source) else _compiled(source))]
    work += [(note, source) for note, source in _constants_to_note(sources)]
    on_every_core(work, lambda item: item[0](item[1]))


def _constants_to_note(sources: list[Path]) -> list[tuple[Callable[[Path], object], Path]]:
    """Each source whose constants Hypothesis has not noted yet, with how to note them (its own way,
    for a module of that file); none if Hypothesis has moved its notes."""
    try:
        from hypothesis.configuration import storage_directory
        from hypothesis.errors import HypothesisSideeffectWarning
        from hypothesis.internal.constants_ast import constants_from_module
    except ImportError:
        return []
    with warnings.catch_warnings():  # it warns a plugin that writes notes this early: here, that is the point
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        notes = storage_directory("constants").path

    def note(source: Path) -> object:
        module = types.ModuleType(source.stem)
        module.__file__ = str(source)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HypothesisSideeffectWarning)
            return constants_from_module(module)

    return [(note, source) for source in sources
            if not (notes / hashlib.sha1(source.read_bytes()).hexdigest()[:16]).exists()]


def _is_test_module(source: Path) -> bool:
    """A module pytest rewrites the asserts of (the others, the support modules, Python compiles)."""
    return source.is_relative_to(TESTS) and (source.name.startswith("test_") or source.name == "conftest.py")


def _cached(pyc: Path, source: Path) -> bool:
    """pyc holds source as it is now (pytest checks the magic number and flags when it reads it)."""
    try:
        with open(pyc, "rb") as cached:
            header = cached.read(16)
        return header[8:16] == importlib.util.source_hash(source.read_bytes())[:8]
    except OSError:
        return False


def _compiled(source: Path) -> bool:
    """Python's own pyc of source is there and was made from it as it is now (mtime and size)."""
    try:
        with open(importlib.util.cache_from_source(str(source)), "rb") as cached:
            header = cached.read(16)
        stat = source.stat()
    except OSError:
        return False
    return (header[4:8] == bytes(4) and int.from_bytes(header[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == stat.st_size & 0xFFFFFFFF)


def on_every_core(items: list[Item], work: Callable[[Item], object]) -> None:
    """work(item) for each item, shared among one forked process a core. Only for work whose result
    is a file: a child's error is lost, and whatever it did not write is written later by pytest."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    shares = max(1, min(cores, len(items) // 10)) if hasattr(os, "fork") else 1
    children = []
    for share in range(1, shares):
        pid = os.fork()
        if pid == 0:  # the child: its share, then gone without running the parent's exit handlers
            try:
                for item in items[share::shares]:
                    work(item)
            finally:
                os._exit(0)
        children.append(pid)
    for item in items[0::shares]:
        work(item)
    for pid in children:
        os.waitpid(pid, 0)


def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile (setup.cfg), with the files of RUN_TOGETHER each group on one worker."""
    if config.getvalue("dist") != "loadfile":
        return None
    try:
        from xdist.scheduler import LoadFileScheduling
    except ImportError:
        return None

    class FilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(super()._split_scope(nodeid))

    config.option.loadscopereorder = False  # the workers' order (pytest_collection_modifyitems) is kept
    return FilesTogether(config, log)


_GROUP_OF = {path: group for group, paths in RUN_TOGETHER.items() for path in paths}


def unit_of(path: str) -> str:
    """What a worker is given at once: a test file, or the group it runs with (RUN_TOGETHER)."""
    return _GROUP_OF.get(path, path)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items) -> None:
    """Under xdist, the tests in the order their units are handed out: STARTED_FIRST, then the units
    with the most tests. Every worker sorts the same collection the same way, as xdist requires."""
    if not hasattr(config, "workerinput"):  # (a worker's own "dist" option is "no")
        return
    items[:] = [items[n] for n in handed_out_order([item.nodeid for item in items])]


def handed_out_order(nodeids: list[str]) -> list[int]:
    """The indexes of nodeids, unit by unit: STARTED_FIRST in its order, then the units with the most
    tests; within a unit, the tests in the order they were collected."""
    units = [unit_of(nodeid.partition("::")[0]) for nodeid in nodeids]
    counts = collections.Counter(units)
    first = {unit: rank for rank, unit in enumerate(STARTED_FIRST)}
    return sorted(range(len(nodeids)), key=lambda n: (first.get(units[n], len(first)), -counts[units[n]], units[n], n))


def pytest_sessionstart(session) -> None:
    """pytest keeps the temporary directories of the last three runs and removes an older run's at the
    end of this one: tens of thousands of files, 2 seconds of one core after the last test. A process
    at the lowest priority removes them from the start instead, on what the workers leave of the cores;
    if it has not finished by the end (a short run, a busy machine), pytest removes the rest itself."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    try:
        from _pytest.pathlib import LOCK_TIMEOUT
        factory = config._tmp_path_factory
        if factory._given_basetemp is not None or factory._retention_count == 0:
            return
        runs = factory.getbasetemp().parent
        keep = factory._retention_count
    except (ImportError, AttributeError):
        return
    config.stash[_OLD_RUNS_REMOVER] = remove_old_runs(runs, keep, time.time() - LOCK_TIMEOUT)


def remove_old_runs(runs: Path, keep: int, locked_since: float) -> subprocess.Popen:
    """pytest's own removal of the runs in `runs` but the last `keep` (and of none locked since
    locked_since), in a process of the lowest priority."""
    remove = ("import os, sys; os.nice(19); from pathlib import Path; "
              "from _pytest.pathlib import cleanup_numbered_dir as clean; "
              "clean(Path(sys.argv[1]), 'pytest-', int(sys.argv[2]), float(sys.argv[3]))")
    return subprocess.Popen([sys.executable, "-c", remove, str(runs), str(keep), str(locked_since)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session) -> None:
    """Before pytest's own removal: a remover still at work is stopped (at the lowest priority on a busy
    machine it could take minutes), and pytest removes what is left at its own priority, as it would have."""
    remover = session.config.stash.get(_OLD_RUNS_REMOVER, None)
    if remover is not None and remover.poll() is None:
        remover.terminate()
        remover.wait()


def pytest_collection_finish(session) -> None:
    """What collection built (modules, test items, Hypothesis strategies) lives until the end: frozen,
    no full garbage collection walks it again, and collections come a thirtieth as often. The cyclic
    collector cost a test process about 7% of its CPU; a tenth of that is left."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def _leave_without_teardown_at_exit() -> None:
    """An xdist worker exits when the controller ends the session, after it has reported every test.
    Tearing down its heap (every collected test, every module) object by object then costs about a
    CPU-second, in all workers at once while the controller waits: the worker leaves without it, once
    the exit handlers registered while it ran have run (those of start-up, registered before this one,
    close what the exit closes anyway). Not when coverage is measured: it writes its data at exit."""

    def leave() -> None:
        if "coverage" in sys.modules:
            return
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(0)

    atexit.register(leave)
