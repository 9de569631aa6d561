"""No tool reads, writes or lists outside the project root, whatever path the model gives."""

from __future__ import annotations

import pytest

from ayder_cli.calls import ToolCall
from ayder_cli.tools import default_registry
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.executor import Permissions, ToolExecutor
from ayder_cli.storage.undo import UndoJournal

SECRET = "outside-secret-7731"
EXAMPLES = {"string": "x", "integer": 1, "boolean": False}


def path_tools():
    for spec in default_registry().specs():
        for name in spec.path_args:
            yield pytest.param(spec, name, id=f"{spec.name}.{name}")


def arguments_for(spec, path_arg: str, path: str) -> dict:
    properties = spec.parameters["properties"]
    args = {name: EXAMPLES[properties[name]["type"]] for name in spec.parameters.get("required", [])}
    if "pattern" in args:
        args["pattern"] = "outside"
    if "old_string" in args:
        args["old_string"] = SECRET
    args[path_arg] = path
    return args


@pytest.fixture
def world(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    root = tmp_path / "project"
    root.mkdir()
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "link_dir").symlink_to(outside)
    return root, outside


@pytest.mark.parametrize("spec, path_arg", list(path_tools()))
@pytest.mark.parametrize("escape", ["../outside/secret.txt", "{outside}/secret.txt", "link_file",
                                    "link_dir/secret.txt", "../outside", "link_dir"])
def test_every_path_escape_is_refused(world, spec, path_arg, escape):
    root, outside = world
    path = escape.format(outside=outside)
    executor = ToolExecutor(default_registry(), ToolContext(root, journal=UndoJournal()), Permissions({"r", "w", "x"}))
    result = executor.run(ToolCall("c", spec.name, arguments_for(spec, path_arg, path)))
    assert not result.ok, result.output
    assert "outside the project root" in result.error
    assert SECRET not in (result.output or "") + (result.error or "")
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
