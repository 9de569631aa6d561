"""EditDiagnostics against real language servers from PyPI (`ruff server`, `pylsp` with pyflakes) and a
silent one: what an edit introduced is reported with its line, what was there before is not, a fix
clears it; a server that never answers costs at most its limit; none outlives close()."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from ayder_cli.calls import ToolResult
from ayder_cli.lsp.after_edit import EditDiagnostics
from ayder_cli.processes.process_groups import descendants

SILENT = str(Path(__file__).resolve().parents[1] / "support" / "silent_lsp.py")
CLEAN = "def total(prices):\n    return sum(prices)\n"
BROKEN = "def total(prices)\n    return sum(prices)\n"  # the colon gone: a syntax error on line 1
SERVERS = {"ruff": ["ruff", "server"], "pylsp": ["pylsp"]}


def edit(hub: EditDiagnostics, root: Path, name: str, text: str) -> ToolResult:
    """What the executor does around a write tool: the file read before, written, its result added to."""
    held = hub.before([name])
    (root / name).write_text(text)
    result = ToolResult(ok=True, output=f"wrote {name}", summary="wrote")
    hub.after(held, result)
    return result


def servers_running() -> list[int]:
    """This process's children that are still running (zombies do not count)."""
    return descendants(os.getpid()) or []


@pytest.fixture(params=sorted(SERVERS))
def hub(request, tmp_path):
    command = SERVERS[request.param]
    if shutil.which(command[0]) is None:
        pytest.fail(f"{command[0]} is in the test extras: pip install -e '.[test]'")
    diagnostics = EditDiagnostics(tmp_path, {"python": {"command": command, "files": ["*.py"], "timeout_s": 30}})
    yield diagnostics
    diagnostics.close()


def test_a_syntax_error_an_edit_introduces_is_reported_with_its_line(hub, tmp_path):
    (tmp_path / "prices.py").write_text(CLEAN)
    result = edit(hub, tmp_path, "prices.py", BROKEN)
    name = hub.specs()[0].name
    assert result.output.startswith(f"wrote prices.py\n\nnew in prices.py after this edit ({name}): 1 error\n"
                                    "prices.py:1: error: ")
    assert result.summary == f"wrote; {name}: 1 new error"


def test_an_error_already_there_is_not_reported_and_a_fix_clears_it(hub, tmp_path):
    (tmp_path / "prices.py").write_text(BROKEN)
    # A clean edit elsewhere in a file whose old error stays: nothing added.
    untouched = edit(hub, tmp_path, "prices.py", BROKEN + "\n\nRATE = 2\n")
    assert untouched.output == "wrote prices.py"
    assert untouched.summary == "wrote"
    fixed = edit(hub, tmp_path, "prices.py", CLEAN + "\n\nRATE = 2\n")
    assert fixed.output == "wrote prices.py"


def test_an_undefined_name_introduced_is_reported_and_its_fix_clears_it(hub, tmp_path):
    (tmp_path / "prices.py").write_text(CLEAN)
    broke = edit(hub, tmp_path, "prices.py", CLEAN.replace("sum(prices)", "sum(prices) * rate"))
    assert "prices.py:2: error: " in broke.output and "rate" in broke.output.split("prices.py:2: error: ")[1]
    fixed = edit(hub, tmp_path, "prices.py", CLEAN.replace("(prices)", "(prices, rate)", 1)
                 .replace("sum(prices)", "sum(prices) * rate"))
    assert fixed.output == "wrote prices.py"


def test_a_file_no_server_reads_starts_none(tmp_path):
    hub = EditDiagnostics(tmp_path, {"python": {"command": SERVERS["ruff"], "files": ["*.py"]}})
    (tmp_path / "notes.txt").write_text("a\n")
    result = edit(hub, tmp_path, "notes.txt", "a)\n")
    assert result.output == "wrote notes.txt" and hub.running == {}


def test_a_server_that_never_answers_costs_at_most_its_limit_once_and_is_stopped(tmp_path):
    lines: list[str] = []
    hub = EditDiagnostics(tmp_path, {"python": {"command": [sys.executable, SILENT], "files": ["*.py"],
                                                "timeout_s": 0.5}}, log=lines.append)
    (tmp_path / "prices.py").write_text(CLEAN)
    started = time.monotonic()
    first = edit(hub, tmp_path, "prices.py", BROKEN)
    first_took = time.monotonic() - started
    started = time.monotonic()
    second = edit(hub, tmp_path, "prices.py", CLEAN)
    second_took = time.monotonic() - started
    assert first.output == second.output == "wrote prices.py"
    assert first_took < 0.5 + 1.5  # its limit, and the SIGTERM it obeys at once (never the 1 s grace in full)
    assert second_took < 0.2  # skipped: not asked again
    assert [line for line in lines if "did not answer" in line] == [
        f"lsp: {sys.executable} {SILENT} did not answer within 0.5s; its diagnostics are skipped for this session"]
    assert hub.running == {} and servers_running() == []
    assert "(skipped)" in hub.describe()


def test_no_server_outlives_close(tmp_path):
    hub = EditDiagnostics(tmp_path, {"python": {"command": SERVERS["ruff"], "files": ["*.py"], "timeout_s": 30}})
    (tmp_path / "prices.py").write_text(CLEAN)
    edit(hub, tmp_path, "prices.py", BROKEN)
    assert len(servers_running()) >= 1
    hub.close()
    assert servers_running() == []


def test_a_server_missing_from_path_is_no_error(tmp_path):
    hub = EditDiagnostics(tmp_path, {"python": {"command": ["no-such-language-server"], "files": ["*.py"]}},
                          env={"PATH": str(tmp_path)})
    (tmp_path / "prices.py").write_text(CLEAN)
    assert edit(hub, tmp_path, "prices.py", BROKEN).output == "wrote prices.py"
    assert hub.describe().startswith("none found on PATH")
