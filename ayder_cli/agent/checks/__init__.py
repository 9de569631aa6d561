"""The verify loop's machinery (agent/verify.py is its one user): a check command run, and the part of a failure the
model is shown.

May import: the leaves, tools.
(The layers, bottom to top: tests/project/test_house.py.)

    excerpt_compilers.py The first error of a compiler's, linter's or interpreter's output: rustc/cargo and ruff's
                         blocks (`--> file:line:col`), tsc, gcc/clang and mypy (`file:line[:col]: error:`), eslint,
                         ruff/flake8/pylint one-liners, go build and vet, Python and JavaScript tracebacks, and make
                         as the last resort
    excerpt_runners.py   The first failure of a test runner's output: pytest, unittest, jest/vitest, go test
    failure_excerpt.py   a failed check's output -> its first error block, at most a limit
    run_checks.py        one verify command, run through run_shell_command; {files} filled in; git status compared
"""
