"""failure_excerpt(): a failed check's 20 KB of output -> the first error block, at most the limit.

The table holds realistic outputs of each tool family after 20 KB of noise (pip lines, passing
tests' dots, warnings); two cases run pytest and ruff for real on a small package with a bug.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ayder_cli.agent.checks.failure_excerpt import failure_excerpt

NOISE_MARK = "noise-pkg"


def noise(size: int = 20_000) -> str:
    lines, n = [], 0
    while sum(len(line) + 1 for line in lines) < size:
        lines += [f"Requirement already satisfied: {NOISE_MARK}-{n} in ./venv/lib/python3.12/site-packages (1.{n})",
                  f"tests/test_{NOISE_MARK}_{n}.py ........................................ [ {n % 100:2d}%]",
                  f"venv/lib/{NOISE_MARK}/compat.py:{n}: DeprecationWarning: {NOISE_MARK} is deprecated"]
        n += 1
    return "\n".join(lines) + "\n"


def framed(stdout: str, stderr: str = "", code: int = 1) -> str:
    """As run_shell_command renders a command's result (tools/shell.py _result)."""
    written = "\n".join(part.rstrip() for part in (stdout, stderr) if part)  # one pipe: stderr after stdout here
    return f"exit code {code}\n--- output ---\n{written}"


PYTEST = """\
=================================== FAILURES ===================================
_________________________________ test_totals __________________________________

    def test_totals():
        items = [1, 2, 3]
        expected = 7
        assert isinstance(items, list)
>       assert total(items) == expected
E       assert 6 == 7
E        +  where 6 = total([1, 2, 3])

tests/test_shop.py:14: AssertionError
----------------------------- Captured stdout call -----------------------------
computing totals for the captured-noise-line
_________________________________ test_refund __________________________________

    def test_refund():
>       assert refund(5) == -5
E       assert 5 == -5

tests/test_shop.py:20: AssertionError
=========================== short test summary info ============================
FAILED tests/test_shop.py::test_totals - assert 6 == 7
FAILED tests/test_shop.py::test_refund - assert 5 == -5
========================= 2 failed, 412 passed in 3.10s =========================
"""

PYTEST_COLLECTION = """\
==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_parser.py _____________________
ImportError while importing test module '/src/proj/tests/test_parser.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/usr/lib/python3.12/importlib/__init__.py:90: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_parser.py:3: in <module>
    from proj.parsr import parse
E   ModuleNotFoundError: No module named 'proj.parsr'
=========================== short test summary info ============================
ERROR tests/test_parser.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
"""

PYTEST_SUMMARY_ONLY = """\
=========================== short test summary info ============================
FAILED tests/test_math.py::test_div - ZeroDivisionError: division by zero
1 failed, 300 passed in 1.02s
"""

UNITTEST = """\
======================================================================
FAIL: test_add (test_calc.TestCalc.test_add)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/src/proj/test_calc.py", line 9, in test_add
    self.assertEqual(add(1, 2), 4)
AssertionError: 3 != 4

----------------------------------------------------------------------
Ran 212 tests in 0.031s

FAILED (failures=1)
"""

TRACEBACK = """\
Traceback (most recent call last):
  File "/src/proj/run.py", line 40, in <module>
    main()
  File "/src/proj/run.py", line 35, in main
    load(config)
  File "/src/proj/loader.py", line 12, in load
    return parse(read(path))
  File "/src/proj/loader.py", line 7, in parse
    return int(text)
ValueError: invalid literal for int() with base 10: 'abc'
"""

RUFF_CONCISE = """\
src/proj/cli.py:3:8: F401 [*] `os` imported but unused
src/proj/cli.py:17:5: F841 Local variable `result` is assigned to but never used
Found 2 errors.
[*] 1 fixable with the `--fix` option.
"""

RUFF_FULL = """\
F401 [*] `os` imported but unused
 --> src/proj/cli.py:3:8
  |
1 | import sys
3 | import os
  |        ^^
  |
help: Remove unused import: `os`

Found 1 error.
"""

FLAKE8 = "./src/proj/util.py:22:80: E501 line too long (97 > 79 characters)\n"

PYLINT = """\
************* Module proj.util
src/proj/util.py:31:4: W0612: Unused variable 'tmp' (unused-variable)

------------------------------------------------------------------
Your code has been rated at 9.80/10
"""

MYPY = """\
src/proj/models.py:48: error: Incompatible return value type (got "str", expected "int")  [return-value]
Found 1 error in 1 file (checked 30 source files)
"""

TSC = """\
src/app.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.
src/app.ts:12:7 - error TS2322: Type 'string' is not assignable to type 'number'.

12 const count: number = "a";
         ~~~~~

Found 1 error in src/app.ts:12
"""

ESLINT = """\
/src/web/src/cart.js
  14:9  error  'total' is assigned a value but never used  no-unused-vars

✖ 1 problem (1 error, 0 warnings)
"""

GCC = """\
main.c: In function 'main':
main.c:4:12: error: 'y' undeclared (first use in this function)
    4 |     return y;
      |            ^
main.c:4:12: note: each undeclared identifier is reported only once for each function it appears in
make: *** [Makefile:3: main.o] Error 1
"""

RUSTC = """\
   Compiling shop v0.1.0 (/src/shop)
error[E0308]: mismatched types
 --> src/main.rs:2:18
  |
2 |     let x: i32 = "a";
  |            ---   ^^^ expected `i32`, found `&str`
  |            |
  |            expected due to this

For more information about this error, try `rustc --explain E0308`.
error: could not compile `shop` (bin "shop") due to 1 previous error
"""

GO_TEST = """\
=== RUN   TestAdd
--- FAIL: TestAdd (0.00s)
    calc_test.go:8: Add(1, 2) = 4, want 3
FAIL
exit status 1
FAIL\texample.com/calc\t0.002s
"""

GO_BUILD = """\
# example.com/calc
./calc.go:5:9: undefined: sum
"""

JEST = """\
 FAIL  src/sum.test.js
  ● sum › adds 1 + 2 to equal 3

    expect(received).toBe(expected) // Object.is equality

    Expected: 4
    Received: 3

      3 | test('adds 1 + 2 to equal 3', () => {
    > 4 |   expect(sum(1, 2)).toBe(4);
        |                     ^
      5 | });

      at Object.toBe (src/sum.test.js:4:21)
      at Promise.then.completed (node_modules/jest-circus/build/utils.js:298:28)

Test Suites: 1 failed, 9 passed, 10 total
"""

VITEST = """\
 ❯ src/sum.test.ts (3 tests | 1 failed) 4ms
   × sum > adds 1 + 2 3ms
     → expected 3 to be 4 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/sum.test.ts > sum > adds 1 + 2
AssertionError: expected 3 to be 4 // Object.is equality

- Expected
+ Received

- 4
+ 3

 ❯ src/sum.test.ts:5:22
      3| describe('sum', () => {
      4|   it('adds 1 + 2', () => {
      5|     expect(sum(1, 2)).toBe(4)
       |                      ^
      6|   })

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 2 passed (3)
"""

NODE = """\
/src/web/u.js:1
function f() { throw new Error("boom"); }
               ^

Error: boom
    at f (/src/web/u.js:1:22)
    at Object.<anonymous> (/src/web/u.js:2:1)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)

Node.js v20.20.2
"""

MAKE = """\
./check-links.sh docs
docs/intro.md: broken link to setup.md
make: *** [Makefile:12: lint] Error 1
"""

OTHER = "checking docs\nthe link checker found 1 broken link: docs/intro.md -> setup.md (Error)\ndone\n"

CASES = [
    ("pytest", PYTEST, ["test_totals", "tests/test_shop.py:14", "assert 6 == 7", "> ", "AssertionError",
                        "FAILED tests/test_shop.py::test_totals"], ["test_refund", "captured-noise-line"]),
    ("pytest collection", PYTEST_COLLECTION, ["ERROR collecting tests/test_parser.py", "tests/test_parser.py:3", "from proj.parsr import",
                                              "ModuleNotFoundError: No module named 'proj.parsr'"], []),
    ("pytest summary", PYTEST_SUMMARY_ONLY, ["FAILED tests/test_math.py::test_div - ZeroDivisionError"], []),
    ("unittest", UNITTEST, ["FAIL: test_add", "test_calc.py\", line 9", "AssertionError: 3 != 4"], []),
    ("traceback", TRACEBACK, ["loader.py\", line 7", "ValueError: invalid literal", "2 earlier frames"],
     ["line 40"]),
    ("ruff", RUFF_CONCISE, ["src/proj/cli.py:3:8: F401", "src/proj/cli.py:17:5: F841"], []),
    ("ruff full", RUFF_FULL, ["F401", "--> src/proj/cli.py:3:8", "import os"], []),
    ("flake8", FLAKE8, ["./src/proj/util.py:22:80: E501"], []),
    ("pylint", PYLINT, ["src/proj/util.py:31:4: W0612"], ["rated"]),
    ("mypy", MYPY, ["src/proj/models.py:48: error: Incompatible return value"], []),
    ("tsc", TSC, ["src/app.ts(12,7): error TS2322", "12 const count", "~~~~~"], []),
    ("eslint", ESLINT, ["/src/web/src/cart.js", "14:9  error  'total'"], []),
    ("gcc", GCC, ["main.c:4:12: error: 'y' undeclared", "return y;", "^"], []),
    ("rustc", RUSTC, ["error[E0308]: mismatched types", "--> src/main.rs:2:18", "expected `i32`"],
     ["Compiling shop"]),
    ("go test", GO_TEST, ["--- FAIL: TestAdd", "calc_test.go:8: Add(1, 2) = 4, want 3"], []),
    ("go build", GO_BUILD, ["./calc.go:5:9: undefined: sum"], []),
    ("jest", JEST, ["FAIL  src/sum.test.js", "● sum › adds 1 + 2", "Expected: 4", "src/sum.test.js:4:21"],
     ["jest-circus"]),
    ("vitest", VITEST, ["FAIL  src/sum.test.ts > sum > adds 1 + 2", "AssertionError: expected 3 to be 4",
                        "src/sum.test.ts:5:22", "expect(sum(1, 2)).toBe(4)"], ["Test Files", "[1/1]"]),
    ("node", NODE, ["/src/web/u.js:1", "Error: boom", "at f (/src/web/u.js:1:22)"], ["Module._compile"]),
    ("make", MAKE, ["docs/intro.md: broken link", "make: *** [Makefile:12: lint] Error 1"], []),
    ("fallback", OTHER, ["1 broken link: docs/intro.md -> setup.md (Error)"], []),
]


NOISE_LINES_ABOVE = {"make": 2, "fallback": 2}


def excerpt_kind(found: list[str]) -> str:
    return next((case[0] for case in CASES if case[2] is found), "")


@pytest.mark.parametrize("stdout,found,absent", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_first_error_block_without_the_noise(stdout, found, absent):
    output = framed(noise() + stdout + noise(2000).replace(NOISE_MARK, "after"))
    excerpt = failure_excerpt(output)
    assert len(output) > 20_000 and len(excerpt) <= 1200, excerpt
    for text in found:
        assert text in excerpt, f"{text!r} missing from:\n{excerpt}"
    for text in (*absent, "exit code 1", "--- output ---"):
        assert text not in excerpt, f"{text!r} in:\n{excerpt}"
    # make and the fallback keep a few lines above the error: there, the noise's last lines
    assert sum(NOISE_MARK in line for line in excerpt.splitlines()) <= NOISE_LINES_ABOVE.get(excerpt_kind(found), 0), excerpt


@pytest.mark.parametrize("limit", [10, 60, 150, 300, 600])
def test_never_over_the_limit(limit):
    for name, stdout, _, _ in CASES:
        excerpt = failure_excerpt(framed(noise() + stdout), limit=limit)
        assert len(excerpt) <= limit, (name, excerpt)


def deep_pytest_failure(frames: int) -> str:
    text = "=================================== FAILURES ===================================\n"
    text += "_______________________________ test_deep_parse ________________________________\n\n"
    for n in range(frames):
        text += (f"    def parse_level_{n}(text, depth):\n        checked = validate(text)\n"
                 f"        rest = checked[{n}:]\n>       return parse_level_{n + 1}(rest, depth + 1)\n\n"
                 f"src/parser.py:{10 + n * 4}: \n" + "_ " * 40 + "\n\n")
    text += ">       raise ValueError(f'bad token {text[0]!r}')\nE       ValueError: bad token '}'\n\n"
    text += "src/parser.py:99: ValueError\n"
    text += "=========================== short test summary info ============================\n"
    text += "FAILED tests/test_parser.py::test_deep_parse - ValueError: bad token '}'\n"
    return text


def test_a_deep_pytest_traceback_keeps_the_test_and_its_end():
    excerpt = failure_excerpt(framed(noise() + deep_pytest_failure(30)))
    assert len(excerpt) <= 1200
    lines = excerpt.splitlines()
    assert "test_deep_parse" in lines[0] and "cut]" in lines[1]
    assert "E       ValueError: bad token '}'" in lines and "src/parser.py:99: ValueError" in lines
    assert lines[-1] == "FAILED tests/test_parser.py::test_deep_parse - ValueError: bad token '}'"


def test_the_commands_own_note_lines_are_kept():
    output = "exit code 1\nnote: processes it left running were stopped\n--- output ---\nnote: mine\nFAILED x"
    assert failure_excerpt(output) == "note: mine\nFAILED x"


def test_an_error_on_stderr_after_noise_on_stdout():
    excerpt = failure_excerpt(framed(noise(), stderr=RUSTC))
    assert "error[E0308]" in excerpt and NOISE_MARK not in excerpt


def test_cut_at_whole_lines_with_a_marker():
    lines = "\n".join(f"src/m.py:{n}:1: F821 Undefined name `thing_number_{n}` in this rather long line"
                      for n in range(1, 40))
    excerpt = failure_excerpt(framed(noise() + lines), limit=200)
    assert len(excerpt) <= 200
    assert excerpt.splitlines()[0] == "src/m.py:1:1: F821 Undefined name `thing_number_1` in this rather long line"
    assert excerpt.splitlines()[-1].startswith("[... ") and "cut]" in excerpt


def test_one_line_too_long_for_the_limit_is_shortened():
    excerpt = failure_excerpt(framed(noise() + "E" * 5000 + " error\n"), limit=300)
    assert len(excerpt) <= 300 and "cut]" in excerpt


def test_nothing_recognised_keeps_the_tail():
    output = framed(noise().replace("Deprecation", "Note") + "the last line says what happened\n")
    excerpt = failure_excerpt(output, limit=400)
    assert excerpt.endswith("the last line says what happened") and len(excerpt) <= 400


def test_a_short_output_is_kept_whole_without_the_frame():
    assert failure_excerpt(framed("1 broken link", stderr="see above")) == "1 broken link\nsee above"


def test_colours_are_taken_off():
    assert failure_excerpt("\x1b[31mFAILED\x1b[0m x") == "FAILED x"


# --- real runs on a small package with a bug

def make_package(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "prices.py").write_text(textwrap.dedent("""\
        import os


        def total(items):
            return sum(items) - 1
        """))
    (tmp_path / "tests").mkdir()
    passing = "".join(f"\n\ndef test_passing_{n}():\n    assert total([{n}]) == {n} - 1\n" for n in range(200))
    (tmp_path / "tests" / "test_prices.py").write_text(textwrap.dedent("""\
        from shop.prices import total


        def test_total_of_three_items():
            items = [1, 2, 3]
            assert total(items) == 6
        """) + passing)
    return tmp_path


def test_a_real_pytest_failure_names_the_test_the_line_and_the_assertion(tmp_path):
    project = make_package(tmp_path)
    # Pytest alone, as a project without plugins runs it: loading this environment's (xdist, anyio,
    # hypothesis) would cost more than the run, and a failure reads the same without them.
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # PYTEST_ADDOPTS: left out by isolated_env
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "tests"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    output = framed(run.stdout, run.stderr)
    assert len(output) > 5000  # 200 passing tests listed before the failure
    excerpt = failure_excerpt(output)
    assert len(excerpt) <= 1200
    assert "test_total_of_three_items" in excerpt
    assert "tests/test_prices.py:6" in excerpt
    assert "assert 5 == 6" in excerpt
    assert "test_passing_" not in excerpt


RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (the test extras install it)")
def test_a_real_ruff_finding_names_the_file_line_and_code(tmp_path):
    project = make_package(tmp_path)
    (project / "ruff.toml").write_text("")  # the defaults, not a config found above the temp dir
    run = subprocess.run([RUFF, "check", "--no-cache", "shop"], cwd=project, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1
    excerpt = failure_excerpt(framed(noise() + run.stdout, run.stderr))
    assert len(excerpt) <= 1200 and NOISE_MARK not in excerpt
    assert "F401" in excerpt and "shop/prices.py:1:8" in excerpt
