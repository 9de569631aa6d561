"""CONTRIBUTING.md's recipes name files and tests that exist: a recipe that points at a moved module or a
renamed test is caught here, not by the next contributor following it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GUIDE = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
RECIPES = dict(re.findall(r"^### ([^\n]+)\n(.*?)(?=^##|\Z)", GUIDE.split("\n## Recipes\n", 1)[1].split("\n## ", 1)[0],
                          re.M | re.S))
EXTENSION_POINTS = ["A tool", "A dialect", "A provider", "A slash command", "An edit format", "A config key"]


def named_paths(text: str) -> list[str]:
    return [path for path in re.findall(r"`([\w./-]+\.(?:py|md|json))`", text) if "/" in path or "." in path]


def test_there_is_one_recipe_per_extension_point():
    assert [title.split(" (")[0] for title in RECIPES] == EXTENSION_POINTS


@pytest.mark.parametrize("title", list(RECIPES))
def test_every_file_a_recipe_names_exists(title):
    paths = [path.split("::")[0] for path in named_paths(RECIPES[title])]
    candidates = {path: [REPO / path, REPO / "ayder_cli" / path] for path in paths}
    assert paths, f"{title}: names no file"
    assert [path for path, places in candidates.items() if not any(place.is_file() for place in places)] == []


@pytest.mark.parametrize("title", list(RECIPES))
def test_every_test_a_recipe_is_guarded_by_exists(title):
    guards = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", RECIPES[title])
    assert guards, f"{title}: names no test that guards it"
    missing = [f"{path}::{name}" for path, name in guards
               if not re.search(rf"^def {name}\(", (REPO / path).read_text(encoding="utf-8"), re.M)]
    assert missing == []
