"""Which diagnostics an edit introduced, and the excerpt the model gets of them; the lsp config value
checked in one line; the package not imported by a run that edits nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args

from ayder_cli.lsp.compare import Diagnostic, excerpt, introduced, read_diagnostics


def lsp(line: int, message: str, severity: int | None = 1, code: str | None = "F821") -> dict:
    item = {"range": {"start": {"line": line - 1, "character": 0}, "end": {"line": line - 1, "character": 1}},
            "message": message, "code": code}
    if severity is not None:
        item["severity"] = severity
    return item


def test_only_errors_and_warnings_are_read_and_a_missing_severity_is_an_error():
    found = read_diagnostics([lsp(3, "hint", 4), lsp(2, "info", 3), lsp(5, "unused", 2), lsp(1, "bad", None)])
    assert [(d.line, d.severity, d.message) for d in found] == [(1, 1, "bad"), (5, 2, "unused")]


def test_an_old_complaint_moved_by_an_edit_above_it_is_not_new():
    old = "import os\nx = y\n"
    new = "import os\nimport sys\nx = y\n"
    before = read_diagnostics([lsp(2, "Undefined name `y`")])
    after = read_diagnostics([lsp(3, "Undefined name `y`"), lsp(2, "`sys` imported but unused", 2, "F401")])
    assert [(d.line, d.message) for d in introduced(before, after, old, new)] == [(2, "`sys` imported but unused")]


def test_a_second_use_of_an_undefined_name_is_new_on_its_own_line():
    old = "a = y\n"
    new = "a = y\nb = y\n"
    before = read_diagnostics([lsp(1, "Undefined name `y`")])
    after = read_diagnostics([lsp(1, "Undefined name `y`"), lsp(2, "Undefined name `y`")])
    assert [d.line for d in introduced(before, after, old, new)] == [2]


def test_the_excerpt_keeps_whole_lines_within_the_limit_and_says_how_many_were_left_out():
    found = [Diagnostic(n, 1, f"Undefined name `name_{n}`", "F821") for n in range(1, 61)]
    text = excerpt("app.py", "ruff", found, 300)
    assert len(text) <= 300
    lines = text.splitlines()
    assert lines[0] == "new in app.py after this edit (ruff): 60 errors"
    assert lines[1] == "app.py:1: error: Undefined name `name_1` [F821]"
    kept = len(lines) - 2
    assert lines[-1] == f"[... {60 - kept} more]"
    assert excerpt("app.py", "ruff", found[:1], 1200) == ("new in app.py after this edit (ruff): 1 error\n"
                                                          "app.py:1: error: Undefined name `name_1` [F821]")


@pytest.mark.parametrize(("value", "said"), [
    ([], '"lsp" must be an object of language: server'),
    ({"python": {"command": []}}, '"lsp" python.command: must be a list of words'),
    ({"python": {"command": ["pylsp"], "files": "*.py"}}, '"lsp" python.files: must be a list of file patterns'),
    ({"python": {"command": ["pylsp"], "timeout_s": 0}}, '"lsp" python.timeout_s: must be a number of seconds'),
    ({"python": {"cmd": ["pylsp"]}}, '"lsp" python: must be an object with command, files and timeout_s'),
])
def test_a_bad_lsp_value_is_one_clear_error(fake, run_ayder, isolated_env, value, said):
    write_json(isolated_env / ".config" / "ayder" / "config.json", {"lsp": value})
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 2
    assert said in result.stderr and "Traceback" not in result.stderr


# Two runs in one process (a process costs a third of a CPU-second): after the first, which edits
# nothing, the package is not imported; after the second, which writes a file, it is.
IMPORTED = """
import io, sys
from ayder_cli.cli import main
for prompt in sys.argv[1:3]:
    code = main([*sys.argv[3:], prompt], stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO())
    print(code, "ayder_cli.lsp" in sys.modules)
"""


def test_a_run_that_edits_nothing_never_imports_the_lsp_package(fake, project):
    write = {"name": "write_file", "id": "c", "arguments": {"file_path": "a.py", "content": "x = 1\n"}}
    fake.queue(Reply(text="hi"), Reply(text="", tool_calls=[write]), Reply(text="done"))
    ran = subprocess.run([sys.executable, "-c", IMPORTED, "hi", "write it", *server_args(fake, "openai"), "-w"],
                         capture_output=True, text=True, cwd=project, timeout=60)
    assert ran.stdout.splitlines() == ["0 False", "0 True"], ran.stderr
    assert (project / "a.py").read_text() == "x = 1\n"
