"""Started in a subdirectory of a git work tree: AGENTS.md read from the top of the work tree down,
.ayder/ and the project config kept at the top, the tools' root still the directory ayder starts in
unless --root or the config's `root` widens it; outside git, or at the top, nothing changes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json, write_user_config
from support.harness import server_args
from support.pty_harness import expect_prompt, finish

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(project) -> Path:
    """A git work tree (the project) with a rule at each level and a file at the top; src/api below it."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project / "AGENTS.md", "TOP-RULE\n")
    write(project / "src" / "AGENTS.md", "SRC-RULE\n")
    write(project / "src" / "api" / "AGENTS.md", "API-RULE\n")
    write(project / "src" / "api" / "handler.py", "HANDLER-TEXT\n")
    write(project / "top.txt", "TOP-TEXT\n")
    return project


def system_of(request: dict) -> str:
    return request["body"]["messages"][0]["content"]


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


def reads(*paths: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": p}} for p in paths])


def test_agents_md_is_read_from_the_top_of_the_work_tree_down(fake, run_ayder, repo):
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    system = system_of(fake.chat_requests()[0])
    positions = [system.index(rule) for rule in ("TOP-RULE", "SRC-RULE", "API-RULE")]
    assert positions == sorted(positions)  # the top first, the nearest last
    assert "--- AGENTS.md ---" in system and "--- src/api/AGENTS.md ---" in system


def test_ayder_keeps_its_state_and_reads_its_config_at_the_top(fake, run_ayder, repo):
    write_json(repo / ".ayder" / "config.json", {"max_tokens": 77})
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["max_tokens"] == 77
    assert list((repo / ".ayder" / "sessions").iterdir())  # the transcript of this run
    assert not (repo / "src" / "api" / ".ayder").exists() and not (repo / "src" / ".ayder").exists()


def test_the_tools_stay_in_the_directory_ayder_starts_in(fake, run_ayder, repo):
    fake.queue(reads("handler.py", "../../top.txt"), Reply(text="Read."))
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    handler, top = tool_results(fake.chat_requests()[1])
    assert "HANDLER-TEXT" in handler
    assert "outside the project root" in top and "TOP-TEXT" not in top
    note = [m["content"] for m in fake.chat_requests()[0]["body"]["messages"] if m["role"] == "user"][0]
    assert f"Project root: {repo / 'src' / 'api'}" in note
    assert f"Repository root: {repo} (the project root is src/api in it" in note


def test_a_path_refused_above_the_root_says_how_to_widen_it(fake, run_ayder, repo):
    fake.queue(reads("../../top.txt"), Reply(text="I cannot read it."))
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    widen = f"start ayder with --root {repo}, or set root in the config"
    (refusal,) = tool_results(fake.chat_requests()[1])
    assert "outside the project root" in refusal and widen in refusal  # the model can tell the user
    assert widen in result.stderr  # and the user sees it on the call's line


def test_root_widens_the_tools_to_a_directory_holding_the_working_directory(fake, run_ayder, repo):
    fake.queue(reads("top.txt", "src/api/handler.py"), Reply(text="Read."))
    result = run_ayder(*server_args(fake, "openai"), "--root", str(repo), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    top, handler = tool_results(fake.chat_requests()[1])
    assert "TOP-TEXT" in top and "HANDLER-TEXT" in handler


def test_the_users_config_root_dot_is_the_whole_work_tree(fake, run_ayder, repo, isolated_env):
    write_user_config(isolated_env, {"root": "."})
    fake.queue(reads("top.txt"), Reply(text="Read."))
    result = run_ayder(*server_args(fake, "openai"), "q", input="/status\n", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    assert "TOP-TEXT" in tool_results(fake.chat_requests()[1])[0]


def test_a_projects_config_root_needs_trust(fake, run_ayder, repo):
    write_json(repo / ".ayder" / "config.json", {"root": "/"})
    fake.queue(reads("../../top.txt"), Reply(text="Read."))
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    assert "root ignored, the project is not trusted" in result.stderr
    assert "outside the project root" in tool_results(fake.chat_requests()[1])[0]
    fake.queue(reads("top.txt"), Reply(text="Read."))
    write_json(repo / ".ayder" / "config.json", {"root": "."})
    trusted = run_ayder(*server_args(fake, "openai"), "--trust-project", "q", cwd=repo / "src" / "api")
    assert trusted.returncode == 0, trusted.stderr
    assert "TOP-TEXT" in tool_results(fake.chat_requests()[-1])[0]


@pytest.mark.parametrize("value, says", [
    ("/no/such/dir", "not a directory"),
    ("src/other", "does not hold the current directory"),
])
def test_a_config_root_that_cannot_be_used_is_one_line_and_exit_2(fake, run_ayder, repo, isolated_env, value, says):
    (repo / "src" / "other").mkdir()
    write_user_config(isolated_env, {"root": value})
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 2
    assert result.stderr.startswith(f'error: "root" {value} (') and says in result.stderr.splitlines()[0]
    assert fake.chat_requests() == []


def test_outside_git_a_subdirectory_is_its_own_project(fake, run_ayder, project):
    write(project / "AGENTS.md", "PARENT-RULE\n")
    write(project / "sub" / "AGENTS.md", "SUB-RULE\n")
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=project / "sub")
    assert result.returncode == 0, result.stderr
    system = system_of(fake.chat_requests()[0])
    assert "SUB-RULE" in system and "PARENT-RULE" not in system
    assert (project / "sub" / ".ayder").is_dir() and not (project / ".ayder").exists()


def test_at_the_top_of_a_work_tree_nothing_changes(fake, run_ayder, repo):
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert "Repository root" not in str(fake.chat_requests()[0]["body"]["messages"])
    assert (repo / ".ayder").is_dir()


def test_a_work_tree_at_the_home_directory_is_not_the_project(fake, run_ayder, project, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # a dotfiles repository at ~
    write(tmp_path / "AGENTS.md", "DOTFILES-RULE\n")
    result = run_ayder(*server_args(fake, "openai"), "q", env={"HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert "DOTFILES-RULE" not in system_of(fake.chat_requests()[0])
    assert (project / ".ayder").is_dir() and not (tmp_path / ".ayder").exists()


def test_the_banner_and_status_say_which_root_is_in_use(fake, ayder_on_pty, project, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # the REPL starts in its subdirectory
    child = ayder_on_pty("--base-url", fake.url)
    expect_prompt(child)
    banner = child.before  # all it wrote before its first prompt
    child.sendline("/status")
    child.expect_exact("instructions:")
    status = child.before
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    said = " ".join(banner.split())
    assert f"{project.name} (in the git work tree" in said and "which holds .ayder/" in said
    assert f"root:         {project}\r\n" in status and f"repository:   {tmp_path}: .ayder/" in status


def test_tasks_go_to_the_top_and_undo_takes_them_back(fake, run_ayder, repo):
    fake.queue(Reply(text="", tool_calls=[{"name": "create_task", "arguments": {"title": "add login",
                                                                                 "description": "a form"}}]),
               Reply(text="Planned."))
    result = run_ayder(*server_args(fake, "openai"), "-w", input="/plan a login page\n/tasks\n/undo\n/tasks\n",
                       cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    assert "TASK-001" in result.stderr and "add login" in result.stderr
    assert "created TASK-001 'add login' (.ayder/tasks/TASK-001-add-login.md)" in str(fake.chat_requests()[1]["body"])
    assert not list((repo / ".ayder").glob("tasks/*"))  # undone
    assert not (repo / "src" / "api" / ".ayder").exists()


def test_an_ayder_folder_left_in_the_subdirectory_is_said_to_be_unused(fake, run_ayder, repo):
    write_json(repo / "src" / "api" / ".ayder" / "config.json", {"max_tokens": 55})  # an older ayder's
    result = run_ayder(*server_args(fake, "openai"), "q", cwd=repo / "src" / "api")
    assert result.returncode == 0, result.stderr
    assert f"{repo / 'src' / 'api' / '.ayder'} is not used: in the git work tree {repo}" in result.stderr
    assert fake.chat_requests()[0]["body"]["max_tokens"] != 55
