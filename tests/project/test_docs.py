"""The README, config.example.json and .ci/run tell the same story as the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.models_table import example_reply, models_table_rows

from ayder_cli.repl.commands import COMMANDS
from ayder_cli.config.schema import KEYS, Config
from ayder_cli.config.config_layers import read_config_file

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_help_block_is_the_real_help_output(run_ayder):
    result = run_ayder("--help", env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    help_text = result.stdout
    block = README.split("## Command line\n\n```\n", 1)[1].split("```", 1)[0]
    assert block == help_text


def test_config_example_lists_every_key_with_its_default():
    example = REPO / "config.example.json"
    assert list(json.loads(example.read_text())) == list(KEYS)
    assert Config(**read_config_file(example, warn=lambda message: None)) == Config()


def test_readme_documents_every_config_key_and_slash_command():
    configuration = README.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    table_keys = re.findall(r"^\| `(\w+)` \|", configuration, re.MULTILINE)
    assert sorted(table_keys) == sorted(KEYS)
    for name in COMMANDS:
        assert f"`/{name}" in README or f"/{name}`" in README, name


def test_ci_runs_the_readme_install_and_test_command():
    commands = re.findall(r"^```sh\n(python3 -m venv .*)\n```", README, re.MULTILINE)
    assert len(commands) == 2, "the README opens with an install+run and an install+test command"
    ci_script = (REPO / ".ci" / "run").read_text()
    assert commands[1] in ci_script.splitlines()


def test_every_example_in_the_models_table_is_read_as_the_call_it_shows():
    from support.intents_corpus import TOOLS

    from ayder_cli.intents import parse

    rows = models_table_rows()
    assert len(rows) >= 18
    for family, writes, example, how in rows:
        if how == "native":
            continue
        reply = parse(example_reply(writes, example), TOOLS)
        assert reply.errors == [], (family, reply.errors)
        assert [(c.name, c.arguments) for c in reply.calls][:1] == [("read_file", {"file_path": "a.py"})], family
        assert reply.display.strip() == "", (family, reply.display)
