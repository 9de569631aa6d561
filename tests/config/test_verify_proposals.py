"""/init proposes the project's check commands (verify): found from its files, shown, written to
.ayder/config.json only when the user says yes at the terminal, and then remembered as approved so
the project's config is not asked about again; a piped run only prints the proposal."""

from __future__ import annotations

import json
import sys

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args

from ayder_cli.config.verify_proposals import propose_checks
from ayder_cli.storage.project_config import ProjectConfigError, set_project_value


def commands(root) -> list[str]:
    return [proposal.command for proposal in propose_checks(root)]


def write(root, name: str, text: str = "") -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# --- what the files suggest


def test_pytest_config_and_ruff_in_pyproject(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n\n[tool.ruff.lint]\nselect = ['F']\n\n"
                                      "[tool.pytest.ini_options]\naddopts = '-q'\n")
    assert commands(tmp_path) == ["ruff check --force-exclude {files}", "python -m pytest -q -x"]


def test_a_tests_folder_with_test_files_means_pytest(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")
    write(tmp_path, "tests/test_x.py")
    assert commands(tmp_path) == ["python -m pytest -q -x"]


def test_an_empty_tests_folder_or_no_python_project_means_nothing(tmp_path):
    (tmp_path / "tests").mkdir()
    write(tmp_path, "tests/data.txt")
    assert commands(tmp_path) == []
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")
    assert commands(tmp_path) == []


def test_ruff_toml_setup_cfg_and_ruff_as_a_dependency(tmp_path):
    write(tmp_path, "ruff.toml", "line-length = 100\n")
    write(tmp_path, "setup.cfg", "[tool:pytest]\ntestpaths = tests\n")
    proposals = propose_checks(tmp_path)
    assert [(p.command, p.why) for p in proposals] == [
        ("ruff check --force-exclude {files}", "ruff.toml"), ("python -m pytest -q -x", "setup.cfg [tool:pytest]")]
    other = tmp_path / "other"
    write(other, "pyproject.toml", "[project.optional-dependencies]\ndev = ['ruff>=0.4']\n")
    assert commands(other) == ["ruff check --force-exclude {files}"]


def test_package_json_scripts(tmp_path):
    write(tmp_path, "package.json", json.dumps({"scripts": {"test": "jest", "lint": "eslint .", "build": "tsc"}}))
    assert commands(tmp_path) == ["npm run lint --silent", "npm test --silent"]


def test_npm_inits_placeholder_test_script_is_not_proposed(tmp_path):
    write(tmp_path, "package.json", json.dumps(
        {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}))
    assert commands(tmp_path) == []
    write(tmp_path, "package.json", "{not json")
    assert commands(tmp_path) == []


def test_cargo(tmp_path):
    write(tmp_path, "Cargo.toml", "[package]\nname = 'x'\n")
    assert commands(tmp_path) == ["cargo check --quiet", "cargo test --quiet"]


def test_go(tmp_path):
    write(tmp_path, "go.mod", "module example.com/x\n")
    assert commands(tmp_path) == ["go vet ./...", "go test ./..."]


def test_makefile_targets_replace_what_would_be_guessed_for_their_kind(tmp_path):
    write(tmp_path, "Makefile", "VAR := 1\n.PHONY: test\ntest: build\n\tpytest\n\nbuild:\n\ttrue\n")
    write(tmp_path, "pyproject.toml", "[tool.ruff]\n[tool.pytest.ini_options]\n")
    assert commands(tmp_path) == ["ruff check --force-exclude {files}", "make test"]
    write(tmp_path, "Makefile", "lint:\n\truff check .\ntest:\n\tpytest\n")
    assert commands(tmp_path) == ["make lint", "make test"]


def test_nothing_found(tmp_path):
    write(tmp_path, "README.md", "# x\n")
    assert commands(tmp_path) == []


# --- writing into the project's config


def test_the_value_is_merged_into_the_existing_config(tmp_path):
    write_json(tmp_path / ".ayder" / "config.json", {"model": "m", "iterations": 7})
    before, after = set_project_value(tmp_path, "verify", ["make test"])
    assert json.loads(before) == {"model": "m", "iterations": 7}
    assert json.loads((tmp_path / ".ayder" / "config.json").read_bytes()) == {
        "model": "m", "iterations": 7, "verify": ["make test"]} == json.loads(after)


def test_a_config_that_is_not_a_json_object_is_never_replaced(tmp_path):
    write(tmp_path, ".ayder/config.json", '{"model": "m",')
    with pytest.raises(ProjectConfigError, match="not valid JSON"):
        set_project_value(tmp_path, "verify", ["make test"])
    assert (tmp_path / ".ayder" / "config.json").read_text() == '{"model": "m",'


# --- /init end to end


def python_project(project) -> None:
    write(project, "pyproject.toml", "[project]\nname = 'shop'\n\n[tool.pytest.ini_options]\naddopts = '-q'\n")
    write(project, "tests/test_shop.py", "def test_x():\n    assert True\n")


def approvals(isolated_env) -> dict:
    path = isolated_env / ".local" / "state" / "ayder" / "trusted_projects.json"
    return json.loads(path.read_text()) if path.exists() else {}


def init_on_a_terminal(fake, ayder_on_pty, answer: str, trust: str | None = None, then: str = ""):
    """/init in the REPL on a terminal, `answer` typed at its question (and `trust` at the start's)."""
    pytest.importorskip("pexpect")
    from support.pty_harness import expect_prompt, finish, wait_for_raw_mode

    fake.queue(Reply(text="AGENTS.md looks fine."))
    child = ayder_on_pty(*server_args(fake, "ollama"))
    if trust is not None:
        child.expect_exact("Trust this project? [y/N] ")
        wait_for_raw_mode(child)
        child.send(trust)
    expect_prompt(child)
    child.sendline("/init")
    child.expect_exact("checks ayder can run after each turn that changes files")
    child.expect_exact("python -m pytest -q -x  (from pyproject.toml [tool.pytest])")
    child.expect_exact("Write them to .ayder/config.json as verify? [y/N] ")
    wait_for_raw_mode(child)
    child.send(answer)
    child.expect_exact("wrote verify to .ayder/config.json" if answer == "y" else "nothing written")
    child.expect_exact(then)
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0


def test_init_writes_the_proposal_when_the_user_says_yes(fake, ayder_on_pty, run_ayder, project, isolated_env):
    python_project(project)
    write_json(project / ".ayder" / "config.json", {"iterations": 9})
    init_on_a_terminal(fake, ayder_on_pty, "y", then="remembered as approved: they apply from the next start")
    written = json.loads((project / ".ayder" / "config.json").read_text())
    assert written == {"iterations": 9, "verify": ["python -m pytest -q -x"]}
    # The user just approved these commands: the project's config is not asked about at the next start.
    assert list(approvals(isolated_env)) == [str(project.resolve())]
    result = run_ayder(*server_args(fake, "ollama"), input="/status\n")
    assert result.returncode == 0, result.stderr
    assert "not trusted" not in result.stderr and "ignored" not in result.stderr
    assert "trusted (approved earlier): its verify apply" in result.stderr


def test_init_writes_nothing_when_the_user_says_no(fake, ayder_on_pty, project, isolated_env):
    python_project(project)
    init_on_a_terminal(fake, ayder_on_pty, "n")
    assert not (project / ".ayder" / "config.json").exists()
    assert approvals(isolated_env) == {}


def test_an_unapproved_setting_already_there_is_not_approved_with_the_checks(fake, ayder_on_pty, project,
                                                                            isolated_env):
    python_project(project)
    write_json(project / ".ayder" / "config.json", {"shell_timeout_s": 999})  # needs trust, never approved
    init_on_a_terminal(fake, ayder_on_pty, "y", trust="n",
                       then="also asks for shell_timeout_s, which you have not approved")
    assert json.loads((project / ".ayder" / "config.json").read_text())["verify"] == ["python -m pytest -q -x"]
    assert approvals(isolated_env) == {}


def test_piped_init_only_prints_the_proposal(fake, run_ayder, project):
    python_project(project)
    fake.queue(Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), input="/init\n")
    assert result.returncode == 0, result.stderr
    assert "python -m pytest -q -x  (from pyproject.toml [tool.pytest])" in result.stderr
    assert 'no terminal to ask; to use them, add to .ayder/config.json: "verify": ["python -m pytest -q -x"]' \
        in result.stderr
    assert not (project / ".ayder" / "config.json").exists()


def test_init_leaves_a_verify_already_set(fake, run_ayder, project):
    python_project(project)
    write_json(project / ".ayder" / "config.json", {"verify": ["make check"]})
    fake.queue(Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "--trust-project", input="/init\n")
    assert result.returncode == 0, result.stderr
    assert ".ayder/config.json already sets verify: make check (left as it is)" in result.stderr
    assert json.loads((project / ".ayder" / "config.json").read_text()) == {"verify": ["make check"]}


@pytest.mark.parametrize("python", ["python", "python3"])
def test_init_proposes_only_checks_whose_program_is_installed(fake, run_ayder, project, tmp_path, python):
    # ruff proposed but not installed failed every turn with exit 127, and the model spent repair rounds on it
    write(project, "pyproject.toml", "[project]\nname = 'shop'\n\n[tool.ruff]\nline-length = 100\n\n"
                                     "[tool.pytest.ini_options]\naddopts = '-q'\n")
    bin_dir = tmp_path / "bin"  # a PATH with Python (by the name given) and nothing else
    bin_dir.mkdir()
    (bin_dir / python).symlink_to(sys.executable)
    fake.queue(Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), input="/init\n", env={"PATH": str(bin_dir)})
    assert result.returncode == 0, result.stderr
    assert ("not proposed: ruff check --force-exclude {files} (from pyproject.toml [tool.ruff]): "
            "ruff is not installed here (not on PATH)") in result.stderr
    assert f'add to .ayder/config.json: "verify": ["{python} -m pytest -q -x"]' in result.stderr
