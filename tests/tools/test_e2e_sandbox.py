"""The kernel sandbox end to end: `ayder -x` with a model that asks for a command the deny list
cannot judge, a private HOME planted with files, and the temp directory of the run (TMPDIR) apart
from pytest's own tmp, so only it and the project are writable. Everyday work (pytest, npm test,
git commit, the temp directory) still works; sandbox: off and sandbox_writable open what they say;
where Landlock is missing, the deny list stands alone and -v, /status and --doctor say so."""

from __future__ import annotations

import json
import shutil

import pytest

from support.files import write_user_config
from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.processes.landlock import probe

ABI, WHY_NOT = probe()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"Landlock is not available here: {WHY_NOT}")
REFUSED_TAIL = "was refused (outside the project; add it to sandbox_writable in your config, or set sandbox to off)"


@pytest.fixture
def run_env(tmp_path):
    """The run's environment: its own temp directory, git's identity, npm quiet."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    return {"TMPDIR": str(temp), "GIT_AUTHOR_NAME": "Ayder Test", "GIT_AUTHOR_EMAIL": "test@example.com",
            "GIT_COMMITTER_NAME": "Ayder Test", "GIT_COMMITTER_EMAIL": "test@example.com",
            "npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}


@pytest.fixture
def planted_home(isolated_env):
    (isolated_env / "marker").write_text("keep")
    (isolated_env / ".ssh").mkdir()
    (isolated_env / ".ssh" / "id_test").write_text("secret key")
    return isolated_env


def user_config(home, **values) -> None:
    """The user's own config (a project's file may not loosen the sandbox without trust)."""
    write_user_config(home, values)


def ask_to_run(fake, run_ayder, run_env, command, *args, tool="run_shell_command"):
    """`ayder -x` with a model that asks for one command; what the tool answered the model, and the run."""
    fake.queue(Reply(text="", tool_calls=[{"name": tool, "arguments": {"command": command}}]), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-x", *args, "go", env=run_env)
    assert result.returncode == 0, result.stderr
    answer = [m for m in fake.chat_requests()[-1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    return answer, result


def assert_home_intact(home) -> None:
    assert (home / "marker").read_text() == "keep"
    assert (home / ".ssh" / "id_test").read_text() == "secret key"


# --- what the deny list cannot judge, the kernel refuses


@needs_landlock
@pytest.mark.parametrize(("command", "named"), [
    # rmtree walks by directory fd, so its error names the entry alone ('id_test' or 'marker')
    ("python3 -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~'))\"", ""),
    ("find ~ -delete", "{home}/"),
    ("perl -e 'for (glob(\"$ENV{HOME}/* $ENV{HOME}/.ssh/*\")) { unlink or print STDERR \"cannot remove $_: $!\\n\" }'",
     "{home}/"),
])
def test_a_command_the_deny_list_cannot_judge_leaves_home_intact_and_says_why(fake, run_ayder, run_env,
                                                                             planted_home, command, named):
    answer, _ = ask_to_run(fake, run_ayder, run_env, command)
    assert_home_intact(planted_home)
    assert f"sandbox: writing {named.format(home=planted_home)}" in answer, answer
    assert answer.count(REFUSED_TAIL) == 1, answer


@needs_landlock
def test_a_background_process_is_sandboxed_too(fake, run_ayder, run_env, planted_home):
    answer, _ = ask_to_run(fake, run_ayder, run_env, "rm -f ~/marker; echo done", "--tools", "processes",
                           tool="run_background_process")
    assert_home_intact(planted_home)
    assert f"sandbox: writing {planted_home}/marker {REFUSED_TAIL}" in answer, answer


# --- everyday work keeps working


@needs_landlock
def test_writing_in_the_project_and_the_temp_directory_works(fake, run_ayder, run_env, project, tmp_path):
    answer, _ = ask_to_run(fake, run_ayder, run_env, 'mkdir -p build && echo made > build/out.txt && '
                                                     'echo temp > "$TMPDIR/scratch.txt" && echo /dev/null-ok > /dev/null')
    assert answer.startswith("ok:\nexit code 0"), answer
    assert (project / "build" / "out.txt").read_text() == "made\n"
    assert (tmp_path / "tmp" / "scratch.txt").read_text() == "temp\n"
    assert "sandbox:" not in answer


@needs_landlock
def test_pytest_runs_in_the_project(fake, run_ayder, run_env, project):
    (project / "test_tiny.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
    answer, _ = ask_to_run(fake, run_ayder, run_env, "python3 -m pytest -q test_tiny.py")
    assert answer.startswith("ok:\nexit code 0") and "1 passed" in answer, answer


@needs_landlock
def test_npm_test_runs_in_the_project(fake, run_ayder, run_env, project):
    if shutil.which("npm") is None:
        pytest.skip("no npm")
    (project / "package.json").write_text(json.dumps({"name": "tiny", "version": "1.0.0", "scripts": {
        "test": "node -e \"require('fs').writeFileSync('out.txt','ok')\""}}))
    answer, _ = ask_to_run(fake, run_ayder, run_env, "npm test")
    assert answer.startswith("ok:\nexit code 0"), answer
    assert (project / "out.txt").read_text() == "ok"


@needs_landlock
def test_git_init_add_and_commit_work_in_the_project(fake, run_ayder, run_env, project):
    if shutil.which("git") is None:
        pytest.skip("no git")
    (project / "main.py").write_text("print('hi')\n")
    answer, _ = ask_to_run(fake, run_ayder, run_env,
                           "git init -q && git add main.py && git commit -q -m first && git log --format=%s")
    assert answer.startswith("ok:\nexit code 0") and "first" in answer, answer


# --- the keys


@needs_landlock
def test_sandbox_off_lets_a_write_outside_through(fake, run_ayder, run_env, isolated_env, outside):
    user_config(isolated_env, sandbox="off")
    answer, _ = ask_to_run(fake, run_ayder, run_env, f"echo through > {outside}/written.txt")
    assert answer.startswith("ok:\nexit code 0"), answer
    assert (outside / "written.txt").read_text() == "through\n"


@needs_landlock
def test_without_the_key_the_same_write_is_refused(fake, run_ayder, run_env, outside):
    answer, _ = ask_to_run(fake, run_ayder, run_env, f"echo through > {outside}/written.txt")
    assert not (outside / "written.txt").exists()
    assert f"sandbox: writing {outside}/written.txt {REFUSED_TAIL}" in answer


@needs_landlock
def test_sandbox_writable_makes_a_directory_writable(fake, run_ayder, run_env, isolated_env, outside):
    user_config(isolated_env, sandbox_writable=[str(outside), "~/nowhere"])
    answer, result = ask_to_run(fake, run_ayder, run_env, f"echo listed > {outside}/written.txt")
    assert answer.startswith("ok:\nexit code 0"), answer
    assert (outside / "written.txt").read_text() == "listed\n"
    assert "sandbox_writable: ~/nowhere does not exist (or cannot be opened); skipped" in result.stderr


@needs_landlock
def test_read_only_keeps_the_project_as_it_is(fake, run_ayder, run_env, isolated_env, project):
    user_config(isolated_env, sandbox="read-only")
    answer, _ = ask_to_run(fake, run_ayder, run_env, 'echo x > new.txt; echo y > "$TMPDIR/t"; cat "$TMPDIR/t"')
    assert not (project / "new.txt").exists() and "y" in answer
    assert "sandbox: writing" in answer and "the sandbox is read-only" in answer, answer


def test_a_bad_sandbox_value_is_one_clear_line(fake, run_ayder, isolated_env):
    user_config(isolated_env, sandbox="sometimes")
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode != 0
    assert '"sandbox" must be one of workspace-write, read-only, off, got string "sometimes"' in result.stderr
    user_config(isolated_env, sandbox_writable=["relative/dir"])
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert '"sandbox_writable" must be a list of absolute paths or paths starting with ~/' in result.stderr


# --- where it is said


@needs_landlock
def test_verbose_status_and_doctor_say_the_mode_and_the_abi(fake, run_ayder, run_env):
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "-v", "hi", env=run_env)
    assert f"· sandbox: workspace-write (Landlock ABI {ABI}): commands write only the project but its .git, the temp directory" in result.stderr
    result = run_ayder(*server_args(fake, "openai"), input="/status\n", env=run_env)
    assert f"sandbox:      workspace-write (Landlock ABI {ABI})" in result.stderr
    result = run_ayder(*server_args(fake, "openai"), "--doctor", env=run_env)
    assert f"\nsandbox: workspace-write (Landlock ABI {ABI})" in result.stderr


@pytest.fixture
def no_landlock(seams):
    seams["landlock_abi"] = 0  # the seam: as on macOS or an old kernel


def test_where_landlock_is_missing_the_deny_list_stands_alone_and_says_so(fake, run_ayder, run_env, no_landlock,
                                                                         outside):
    missing = ("sandbox: not available (Landlock is not available here): commands write wherever the user can; "
               "the deny list stands alone")
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "-v", "hi", env=run_env)
    assert result.stderr.count(missing) == 1
    result = run_ayder(*server_args(fake, "openai"), input="/status\n", env=run_env)
    assert "sandbox:      not available (Landlock is not available here)" in result.stderr
    result = run_ayder(*server_args(fake, "openai"), "--doctor", env=run_env)
    assert f"\n{missing}\n" in result.stderr
    answer, _ = ask_to_run(fake, run_ayder, run_env, f"echo through > {outside}/written.txt")
    assert answer.startswith("ok:\nexit code 0") and (outside / "written.txt").exists()
    answer, _ = ask_to_run(fake, run_ayder, run_env, "rm -rf ~")
    assert "refused: `rm -rf ~` is on the shell deny list" in answer


@needs_landlock
@pytest.mark.parametrize("loosening", [{"sandbox": "off"}, {"sandbox_writable": ["{outside}"]}])
def test_a_cloned_project_cannot_loosen_its_own_sandbox(fake, run_ayder, run_env, project, outside, loosening):
    key, value = next(iter(loosening.items()))
    value = [entry.format(outside=outside) for entry in value] if isinstance(value, list) else value
    (project / ".ayder").mkdir(exist_ok=True)
    (project / ".ayder" / "config.json").write_text(json.dumps({key: value}))

    answer, result = ask_to_run(fake, run_ayder, run_env, f"echo through > {outside}/written.txt")

    assert not (outside / "written.txt").exists()
    assert f"sandbox: writing {outside}/written.txt {REFUSED_TAIL}" in answer
    assert f"{key} ignored, the project is not trusted" in result.stderr

    fake.requests.clear()
    answer, _ = ask_to_run(fake, run_ayder, run_env, f"echo through > {outside}/written.txt", "--trust-project")
    assert (outside / "written.txt").read_text() == "through\n"  # trusted, the project's setting applies
