"""storage/no_follow: what counts as a planted link under .ayder/, and what is left alone."""

from __future__ import annotations

import os

import pytest

from ayder_cli.storage.layout import make_directory
from ayder_cli.storage.no_follow import PlantedLink, check_no_links, open_no_follow

pytestmark = pytest.mark.skipif(os.name == "nt", reason="needs POSIX symlinks")


def test_real_folders_and_missing_parts_pass(tmp_path):
    (tmp_path / ".ayder" / "sessions").mkdir(parents=True)
    check_no_links(tmp_path / ".ayder" / "sessions" / "x.lock")
    check_no_links(tmp_path / ".ayder" / "memory" / "notes.jsonl")  # not made yet
    check_no_links(tmp_path / ".ayder" / "sessions", directory=True)


def test_links_outside_any_ayder_folder_are_the_users_choice(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    check_no_links(tmp_path / "linked" / "file.txt")
    (tmp_path / "linked" / ".ayder").mkdir()  # the root itself reached through a link: fine
    check_no_links(tmp_path / "linked" / ".ayder" / "sessions" / "x.lock")


def test_a_link_anywhere_from_ayder_down_is_refused_by_name(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    (project / ".ayder" / "sessions").mkdir(parents=True)
    (project / ".ayder" / "memory").symlink_to(outside)
    with pytest.raises(PlantedLink, match=r"\.ayder/memory is a symbolic link \(to .*outside\)") as caught:
        make_directory(project / ".ayder" / "memory")
    assert "remove the link" in caught.value.hint
    with pytest.raises(PlantedLink):
        open_no_follow(project / ".ayder" / "memory" / "memories.jsonl", os.O_WRONLY | os.O_CREAT)
    assert list(outside.iterdir()) == []


def test_a_file_where_a_folder_belongs_is_refused(tmp_path):
    (tmp_path / ".ayder").write_text("not a folder")
    with pytest.raises(PlantedLink, match=r"\.ayder is not a directory"):
        check_no_links(tmp_path / ".ayder" / "sessions" / "x.lock")


def test_the_file_itself_is_opened_without_following(tmp_path):
    (tmp_path / ".ayder").mkdir()
    target = tmp_path / "bashrc"
    target.write_text("keep\n")
    (tmp_path / ".ayder" / "x.lock").symlink_to(target)
    with pytest.raises(PlantedLink, match="x.lock is a symbolic link"):
        open_no_follow(tmp_path / ".ayder" / "x.lock", os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    assert target.read_text() == "keep\n"
