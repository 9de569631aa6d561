"""`ayder --help` in sections, ending with the config files and the environment; click's usage errors
said as ayder says its own: `error: …`, a hint line, exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

SECTIONS = ["Prompt:", "Model and server:", "System prompt and tools:", "Permissions:", "Sessions:", "Tasks:",
            "Output:", "Other:", "Config files, later wins:", "Environment:"]


def section_of(help_text: str, title: str) -> str:
    start = help_text.index(f"\n{title}\n") + len(title) + 2
    end = help_text.find("\n\n", start)
    return help_text[start:] if end == -1 else help_text[start:end]


def test_help_is_in_sections_in_order(run_ayder):
    result = run_ayder("--help", env={"COLUMNS": "80"})
    assert result.returncode == 0 and result.stderr == ""
    positions = [result.stdout.index(f"\n{title}\n") for title in SECTIONS]
    assert positions == sorted(positions)
    assert "\nOptions:\n" not in result.stdout


@pytest.mark.parametrize("title, flags", [
    ("Model and server:", ["--model", "--base-url", "--provider", "--num-ctx", "--temperature", "--max-tokens"]),
    ("Permissions:", ["--allow-read", "--allow-write", "--allow-execute", "--root"]),
    ("Sessions:", ["--continue", "--resume", "--restore"]),
    ("Tasks:", ["--tasks", "--implement TASK", "--implement-all"]),
    ("Output:", ["--json", "--no-stream", "--show-thinking", "--verbose", "--debug"]),
])
def test_each_option_is_in_its_section(run_ayder, title, flags):
    section = section_of(run_ayder("--help", env={"COLUMNS": "80"}).stdout, title)
    for flag in flags:
        assert flag in section


def test_every_option_is_shown_once(run_ayder):
    from ayder_cli.cli import cli

    text = run_ayder("--help", env={"COLUMNS": "80"}).stdout
    for param in cli.params:
        for opt in getattr(param, "opts", []) if param.param_type_name == "option" else []:
            if opt.startswith("--"):
                assert len(re.findall(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text)) >= 1, opt


def test_help_ends_with_the_config_files_and_the_environment(run_ayder):
    text = run_ayder("--help", env={"COLUMNS": "80"}).stdout
    files = section_of(text, "Config files, later wins:")
    assert "~/.config/ayder/config.json" in files and ".ayder/config.json" in files and "--config FILE" in files
    environment = section_of(text, "Environment:")
    for name in ("AYDER_MODEL", "AYDER_BASE_URL", "AYDER_PROVIDER", "OLLAMA_HOST", "OPENAI_BASE_URL",
                 "OPENAI_API_KEY", "NO_COLOR"):
        assert name in environment
    assert text.rstrip("\n").endswith(environment.rstrip("\n"))
    assert all(len(line) <= 78 for line in text.splitlines())


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "error: no such option '--bogus'"),
    (["-I", "x"], "error: invalid value for '-I' / '--iterations'"),
    (["-p", "nope"], "error: invalid value for '-p' / '--provider'"),
    (["--resume"], "error: option '--resume' requires an argument"),
    (["--num-ctx", "10"], "error: invalid value for '--num-ctx'"),
])
def test_usage_errors_read_like_ayders_own(run_ayder, args, message):
    result = run_ayder(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith(message)
    assert lines[1] == "  ayder --help lists the options"
    assert "Usage:" not in result.stderr and "Try 'ayder --help'" not in result.stderr


def test_usage_error_of_the_real_process(run_ayder_process):
    result = run_ayder_process("--bogus")
    assert result.returncode == 2
    assert result.stderr.startswith("error: no such option '--bogus'")
    assert "Traceback" not in result.stderr



# ayder with a third provider added to the record before the command is built.
WITH_A_THIRD_PROVIDER = """
import sys
from ayder_cli.llm import providers
providers.PROVIDERS["third"] = providers.OPENAI
from ayder_cli.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_every_provider_of_the_record_is_offered_where_a_user_names_one(tmp_path):
    # -p and AYDER_PROVIDER's help line take their names from llm/providers.py: a third provider there is
    # offered with no other list to keep in step (the house test finds provider names written elsewhere).
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "COLUMNS": "100"}

    def ayder(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", WITH_A_THIRD_PROVIDER, *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=60)

    help_text = ayder("--help").stdout
    assert "--provider [ollama|openai|third]" in help_text
    assert "the provider: ollama or openai or third" in section_of(help_text, "Environment:")
    refused = ayder("-p", "fourth", "hi")
    assert refused.returncode == 2 and "'fourth' is not one of 'ollama', 'openai', 'third'" in refused.stderr
