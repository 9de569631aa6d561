"""Config values and paths that are not what they seem: NaN, Infinity, a directory where a file goes."""

from __future__ import annotations

import pytest
from support.harness import server_args


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_config_errors(fake, run_ayder, project, literal):
    config = project / "cfg.json"
    config.write_text('{"timeout_s": %s}' % literal)  # Python's json reads these; they are no setting
    result = run_ayder(*server_args(fake, "ollama"), "--config", str(config), "hi")
    assert result.returncode == 2
    assert "timeout_s" in result.stderr and "internal error" not in result.stderr
    assert fake.chat_requests() == []


def test_a_project_config_that_is_a_directory_is_an_error_naming_it(fake, run_ayder, project):
    (project / ".ayder" / "config.json").mkdir(parents=True)
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 2
    assert "config.json: is a directory, not a config file" in result.stderr


def test_a_user_config_that_is_a_directory_is_an_error_naming_it(fake, run_ayder, isolated_env):
    (isolated_env / ".config" / "ayder" / "config.json").mkdir(parents=True)
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 2
    assert "is a directory, not a config file" in result.stderr


def test_a_config_flag_naming_a_directory_is_an_error(fake, run_ayder, project):
    result = run_ayder(*server_args(fake, "ollama"), "--config", str(project), "hi")
    assert result.returncode == 2
    assert "is a directory, not a config file" in result.stderr
