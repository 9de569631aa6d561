"""Every tool has a deadline (tool_timeout_s): a Python-side search or a tree walk over a huge
directory stops at it, keeping what it found and saying so. A clock that jumps stands in for time."""

from __future__ import annotations

import json
import shutil

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.tool_calls import call_tool

from ayder_cli.errors import ConfigError
from ayder_cli.config.config_checks import check_value
from ayder_cli.tools import search
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.deadline import Deadline
from ayder_cli.tools.gitignore import IgnoreRules
from ayder_cli.tools.walk import walk_entries

HAS_RG = shutil.which("rg") is not None
NOTE = "stopped after 10 s (tool_timeout_s): results so far"


class JumpingClock:
    """Each reading is `step` seconds after the one before."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def jumping_context(project, search_backend: str = "auto") -> ToolContext:
    """The tools' context with a 10 s tool_timeout_s and a clock that jumps 4 s a reading: the limit
    passes at the third reading after a deadline was set (4 + 10 = 14 <= 16)."""
    return ToolContext(project, tool_timeout_s=10, clock=JumpingClock(4), search_backend=search_backend)


@pytest.fixture
def tools_clock_jumps(seams):
    """The tools of ayder run in-process get the jumping clock of `jumping_context` (the run's Environment's)."""
    seams["clock"] = JumpingClock(4)


def many_files(root, count: int = 8):
    for index in range(count):
        folder = root / f"d{index}"
        folder.mkdir()
        (folder / f"f{index}.py").write_text(f"needle {index}\n")
    return root


# --- the clock


def test_a_deadline_passes_once_its_seconds_have_gone_and_stays_passed():
    clock = JumpingClock(4)
    deadline = Deadline(10, clock)  # set at 4: passes at 14
    assert [deadline.passed() for _ in range(3)] == [False, False, True]
    clock.step = -100
    assert deadline.passed() and deadline.hit


def test_no_deadline_never_passes():
    deadline = Deadline(None, JumpingClock(1e9))
    assert not deadline.passed() and deadline.remaining() is None


# --- search_codebase


def test_python_search_stops_at_the_deadline_with_the_lines_so_far(project):
    many_files(project)
    # set at 4, passes at 24: the walk reads the clock before d0 (8), the search after f0 (12),
    # the walk before d1 (16), the search after f1 (20), the walk before d2 (24): stop.
    result = search.search(project, "needle", backend="python", deadline=Deadline(20, JumpingClock(4)))
    assert result.ok
    lines = result.output.splitlines()
    assert lines[:-1] == ["d0/f0.py:1: needle 0", "d1/f1.py:1: needle 1"]
    assert lines[-1] == ("[stopped after 20 s (tool_timeout_s): results so far, 2 matching lines in 2 files; "
                         "narrow the directory or pattern, or raise tool_timeout_s]")
    assert result.summary == "stopped after 20 s: 2 matching lines in 2 files"


def test_search_through_the_pipeline_uses_tool_timeout_s(project):
    many_files(project)
    result = call_tool(jumping_context(project, search_backend="python"), "search_codebase", pattern="needle")
    assert result.ok and NOTE in result.output
    assert "d0/f0.py:1: needle 0" in result.output and "d1/" not in result.output


def test_search_that_found_nothing_before_the_deadline_says_so(project):
    many_files(project)
    result = search.search(project, "absent", backend="python", deadline=Deadline(10, JumpingClock(4)))
    assert result.output.splitlines() == ["[no matches so far]", f"[{NOTE}, no matches so far; "
                                          "narrow the directory or pattern, or raise tool_timeout_s]"]


def test_search_within_its_deadline_is_unchanged(project):
    many_files(project, 3)
    late = search.search(project, "needle", backend="python", deadline=Deadline(1000, JumpingClock(1)))
    assert late.output == search.search(project, "needle", backend="python").output
    assert "stopped" not in late.output


@pytest.mark.skipif(not HAS_RG, reason="ripgrep not installed")
def test_ripgrep_search_stops_at_the_deadline_too(project):
    many_files(project)
    result = search.search(project, "needle", backend="rg", deadline=Deadline(10, JumpingClock(4)))
    matches = [line for line in result.output.splitlines() if ": needle" in line]
    assert 0 < len(matches) < 8
    assert NOTE in result.output


# --- tree walks


def test_walk_reads_no_directory_past_the_deadline(project):
    many_files(project)
    seen = [entry.rel for entry in walk_entries(IgnoreRules.for_root(project), deadline=Deadline(10, JumpingClock(4)))]
    # the top level always comes; d0 and d1 are read, then the limit passes before d2
    assert seen == ["d0", "d0/f0.py", "d1", "d1/f1.py", "d2"]


def test_recursive_list_files_stops_at_the_deadline(project):
    many_files(project)
    result = call_tool(jumping_context(project), "list_files", pattern="**/*.py")
    assert result.ok
    assert result.output.splitlines() == [
        "d0/f0.py", "d1/f1.py",
        f"[{NOTE}, 2 entries; narrow the directory or pattern, or raise tool_timeout_s]"]


def test_project_structure_stops_at_the_deadline(project):
    many_files(project)
    result = call_tool(jumping_context(project), "get_project_structure")
    assert result.ok
    lines = result.output.splitlines()
    assert lines[-1].startswith(f"[{NOTE}, ")
    assert "d0/" in lines and "  f0.py" in lines  # what was read is shown
    assert "  f7.py" not in lines  # what was not, is not


# --- the config key, and through the real entry point


def test_tool_timeout_s_must_be_a_positive_number():
    assert check_value("config.json", "tool_timeout_s", 5) == 5.0
    with pytest.raises(ConfigError, match="tool_timeout_s"):
        check_value("config.json", "tool_timeout_s", 0)


def test_a_search_that_hits_tool_timeout_s_gives_the_model_what_it_found(fake, run_ayder, project, protocol,
                                                                       tools_clock_jumps):
    many_files(project)
    write_json(project / ".ayder" / "config.json", {"tool_timeout_s": 10})
    fake.queue(Reply(text="", tool_calls=[{"name": "search_codebase", "arguments": {"pattern": "needle"},
                                           "id": "call_s"}]),
               Reply(text="Found some."))
    result = run_ayder(*server_args(fake, protocol), "find the needles")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Found some.\n"
    assert "stopped after 10 s" in result.stderr  # the activity line's summary
    sent = json.dumps(fake.chat_requests()[1]["body"]["messages"])
    assert NOTE in sent and "needle 0" in sent and "needle 7" not in sent
