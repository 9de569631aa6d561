"""How the suite is spread over the cores (support/suite_run.py): the shared work is all done, the
longest files are handed out first and a group's files together, the files named exist, and old
runs' temporary directories are removed as pytest would."""

from __future__ import annotations

import time
from pathlib import Path

from support.suite_run import RUN_TOGETHER, STARTED_FIRST, TESTS, handed_out_order, on_every_core, remove_old_runs


def test_work_shared_among_the_cores_is_all_done(tmp_path):
    sources = [tmp_path / f"m{n}.py" for n in range(45)]
    for source in sources:
        source.write_text(f"VALUE = {source.stem!r}\n")

    on_every_core(sources, lambda source: source.with_suffix(".done").write_text(source.read_text()))

    assert sorted(done.name for done in tmp_path.glob("*.done")) == sorted(f"m{n}.done" for n in range(45))
    assert (tmp_path / "m44.done").read_text() == "VALUE = 'm44'\n"


def test_the_files_run_together_or_first_are_test_files_of_this_suite():
    named = [Path(path) for paths in RUN_TOGETHER.values() for path in paths]
    assert len(set(named)) == len(named)
    for path in named:
        assert (TESTS.parent / path).is_file(), f"{path} is gone: take it out of RUN_TOGETHER"
    assert len(set(STARTED_FIRST)) == len(STARTED_FIRST)
    for unit in STARTED_FIRST:
        assert unit in RUN_TOGETHER or (TESTS.parent / unit).is_file(), f"{unit} is gone: take it out of STARTED_FIRST"


def test_old_runs_are_removed_but_the_last_three_and_a_locked_one(tmp_path):
    for number in range(1, 7):
        (tmp_path / f"pytest-{number}" / "home0").mkdir(parents=True)
        (tmp_path / f"pytest-{number}" / "home0" / "notes.txt").write_text("kept?\n")
    (tmp_path / "pytest-2" / ".lock").write_text("4242")  # a run still going on

    remover = remove_old_runs(tmp_path, 3, locked_since=time.time() - 3600)

    assert remover.wait(timeout=60) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pytest-2", "pytest-4", "pytest-5", "pytest-6"]


def test_the_longest_files_are_handed_out_first_a_groups_files_together_then_the_largest():
    mcp, house = RUN_TOGETHER["pydantic"][0], RUN_TOGETHER["parsed source"][0]
    collected = ["tests/a/test_few.py::test_one", f"{house}::test_a", "tests/a/test_many.py::test_one",
                 f"{STARTED_FIRST[1]}::test_slow", "tests/a/test_many.py::test_two", f"{mcp}::test_sdk",
                 "tests/a/test_many.py::test_three", f"{house}::test_b", f"{STARTED_FIRST[1]}::test_slower"]

    handed_out = [collected[n] for n in handed_out_order(collected)]

    assert handed_out == [f"{mcp}::test_sdk",  # the pydantic group is the first of STARTED_FIRST
                          f"{STARTED_FIRST[1]}::test_slow", f"{STARTED_FIRST[1]}::test_slower",
                          "tests/a/test_many.py::test_one", "tests/a/test_many.py::test_two",
                          "tests/a/test_many.py::test_three",
                          f"{house}::test_a", f"{house}::test_b", "tests/a/test_few.py::test_one"]
