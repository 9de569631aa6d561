"""How the suite is spread over the cores (support/suite_run.py): the shared work is all done, the
files named as running together exist, and old runs' temporary directories are removed as pytest would."""

from __future__ import annotations

from pathlib import Path

import time

from support.suite_run import RUN_TOGETHER, STARTED_FIRST, TESTS, on_every_core, remove_old_runs


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
