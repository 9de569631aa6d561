"""The git safety net end to end, in a real temporary repository: /commit commits exactly the files
the session changed (a dirty file it did not touch stays out), with the message given or one the
model (or the side model, on a second server) writes from the diff; --auto-commit commits each
turn's files; a detached HEAD or a merge in progress is refused in one line; /undo after a commit
leaves git history alone and says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.fakellm import FakeLLM, Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import messages

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}).stdout


@pytest.fixture(scope="module")
def first_commit(tmp_path_factory) -> Path:
    """A repository with one commit (app.py, notes.txt), and an identity to commit with: made once,
    copied for each test (five git processes a test fewer; a copied repository is the same repository)."""
    made = tmp_path_factory.mktemp("first-commit")
    git(made, "init", "-q", "-b", "main")
    git(made, "config", "user.name", "Tester")
    git(made, "config", "user.email", "tester@example.invalid")
    (made / "app.py").write_text("greeting = 'hi'\n", encoding="utf-8")
    (made / "notes.txt").write_text("mine\n", encoding="utf-8")
    git(made, "add", "app.py", "notes.txt")
    git(made, "commit", "-q", "-m", "start")
    return made


@pytest.fixture
def repo(project: Path, first_commit: Path) -> Path:
    """The project, a copy of first_commit's repository."""
    shutil.copytree(first_commit, project, dirs_exist_ok=True)
    return project


def write_call(path: str, content: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": path, "content": content}}])


def head_files(repo: Path) -> list[str]:
    """The files the last commit changed."""
    return sorted(git(repo, "show", "--name-only", "--format=", "HEAD").split())


def subjects(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def test_commit_holds_exactly_the_sessions_files_with_the_message_given(fake, run_ayder, repo):
    (repo / "notes.txt").write_text("mine, edited by hand\n", encoding="utf-8")  # dirty, not the session's
    (repo / "scratch.txt").write_text("untracked\n", encoding="utf-8")
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), write_call("docs/new.md", "# New\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change the greeting\n/commit Say hello\n")

    assert result.returncode == 0, result.stderr
    assert subjects(repo) == ["Say hello", "start"]
    assert head_files(repo) == ["app.py", "docs/new.md"]
    assert git(repo, "status", "--porcelain").splitlines() == [" M notes.txt", "?? scratch.txt"]
    head = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert f"committed 2 files to main as {head}: Say hello" in result.stderr
    assert len(fake.chat_requests()) == 3  # a message given: the model is not asked for one


def test_a_file_the_user_staged_stays_out_of_the_commit_and_staged(fake, run_ayder, repo):
    (repo / "notes.txt").write_text("staged by the user\n", encoding="utf-8")
    git(repo, "add", "notes.txt")
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change it\n/commit Say hello\n")

    assert result.returncode == 0, result.stderr
    assert head_files(repo) == ["app.py"]
    assert git(repo, "status", "--porcelain").splitlines() == ["M  notes.txt"]


def test_without_a_message_the_model_writes_one_from_the_diff_in_one_request_without_tools(fake, run_ayder, repo):
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."),
               Reply(text="<think>a greeting change</think>\n`Greet with hello`\n"))

    result = run_ayder(*server_args(fake, "openai"), "-w", input="change the greeting\n/commit\n")

    assert result.returncode == 0, result.stderr
    asked = fake.chat_requests()[-1]["body"]
    assert len(fake.chat_requests()) == 3 and not asked.get("tools")
    assert "+greeting = 'hello'" in messages(fake.chat_requests()[-1])[-1]["content"]
    assert subjects(repo) == ["Greet with hello", "start"]
    assert head_files(repo) == ["app.py"]


def test_the_side_model_on_a_second_server_writes_the_message(fake, run_ayder, repo, isolated_env):
    with FakeLLM() as side:
        side.queue(Reply(text="Say hello instead of hi"))
        write_json(isolated_env / ".config" / "ayder" / "config.json",
                   {"side_model": {"model": "tiny-committer", "base_url": side.openai_url, "provider": "openai"}})
        fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

        result = run_ayder(*server_args(fake, "ollama"), "-w", input="change the greeting\n/commit\n")

        assert result.returncode == 0, result.stderr
        assert len(fake.chat_requests()) == 2  # the main model only did the work
        assert [request["body"]["model"] for request in side.chat_requests()] == ["tiny-committer"]
        assert "+greeting = 'hello'" in messages(side.chat_requests()[0])[-1]["content"]
    assert subjects(repo) == ["Say hello instead of hi", "start"]
    assert "asking tiny-committer for a commit message" in result.stderr


def test_auto_commit_commits_each_turns_files_with_a_message_naming_the_request(fake, run_ayder, repo):
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."),
               Reply(text="Nothing to change."),
               write_call("notes.txt", "mine\nmore\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", "--auto-commit",
                       input="change the greeting\nexplain the code\nadd a line to the notes\n")

    assert result.returncode == 0, result.stderr
    assert subjects(repo) == ["ayder: add a line to the notes", "ayder: change the greeting", "start"]
    assert head_files(repo) == ["notes.txt"]
    assert sorted(git(repo, "show", "--name-only", "--format=", "HEAD~1").split()) == ["app.py"]
    assert result.stderr.count("auto_commit: committed 1 file to main") == 2


def test_undo_after_an_auto_commit_restores_the_file_and_leaves_history_alone(fake, run_ayder, repo):
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", "--auto-commit", input="change the greeting\n/undo\n")

    assert result.returncode == 0, result.stderr
    assert subjects(repo) == ["ayder: change the greeting", "start"]  # the commit stays
    assert (repo / "app.py").read_text(encoding="utf-8") == "greeting = 'hi'\n"
    assert git(repo, "status", "--porcelain").splitlines() == [" M app.py"]
    commit = git(repo, "log", "-1", "--format=%h").strip()
    assert (f"git: commit {commit} (ayder: change the greeting) still holds the change; the file is restored "
            "in the work tree only (ayder never rewrites git history): /commit records the undo") in result.stderr


def test_commit_after_an_undo_of_a_committed_change_records_the_undo(fake, run_ayder, repo):
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", "--auto-commit",
                       input="change the greeting\n/undo\n/commit Take back the greeting\n")

    assert result.returncode == 0, result.stderr
    assert subjects(repo) == ["Take back the greeting", "ayder: change the greeting", "start"]
    assert git(repo, "show", "HEAD:app.py") == "greeting = 'hi'\n"
    assert git(repo, "status", "--porcelain") == ""


def test_a_detached_head_is_refused_in_one_line(fake, run_ayder, repo):
    git(repo, "checkout", "-q", "--detach")
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change it\n/commit Say hello\n")

    head = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert f"error: HEAD is detached at {head}: nothing committed\n" in result.stderr
    assert subjects(repo) == ["start"]


def test_a_merge_in_progress_is_refused_in_one_line_and_auto_commit_goes_on(fake, run_ayder, repo):
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "notes.txt").write_text("theirs\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("ours\n", encoding="utf-8")
    git(repo, "commit", "-q", "-am", "ours")
    merge = subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True, text=True)
    assert merge.returncode != 0 and (repo / ".git" / "MERGE_HEAD").exists()
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", "--auto-commit", input="change it\n/commit Say hello\n")

    assert result.stderr.count("a merge is in progress: nothing committed") == 2  # the turn's, then /commit's
    assert "auto_commit: a merge is in progress: nothing committed\n" in result.stderr
    assert subjects(repo) == ["ours", "start"]


def test_outside_a_git_work_tree_commit_says_so(fake, run_ayder, project):
    fake.queue(write_call("app.py", "x = 1\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="write it\n/commit Add app\n")
    assert f"error: {project.resolve()} is not in a git work tree: nothing committed" in result.stderr


def test_nothing_the_session_changed_is_said_and_nothing_is_committed(fake, run_ayder, repo):
    result = run_ayder(*server_args(fake, "ollama"), input="/commit Nothing\n")
    assert "error: nothing to commit: no file this session changed differs from the last commit" in result.stderr
    assert subjects(repo) == ["start"]


def test_the_users_hooks_decide(fake, run_ayder, repo):
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint says no' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change it\n/commit Say hello\n")

    assert "error: git commit failed: lint says no" in result.stderr
    assert subjects(repo) == ["start"]


def test_a_projects_config_cannot_turn_auto_commit_on_without_trust(fake, run_ayder, repo):
    write_json(repo / ".ayder" / "config.json", {"auto_commit": True})
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", "change it")

    assert result.returncode == 0, result.stderr
    assert "auto_commit ignored, the project is not trusted" in result.stderr
    assert subjects(repo) == ["start"]

    fake.queue(write_call("app.py", "greeting = 'hey'\n"), Reply(text="Done."))
    trusted = run_ayder(*server_args(fake, "ollama"), "-w", "--trust-project", "greet with hey")
    assert trusted.returncode == 0, trusted.stderr
    assert subjects(repo) == ["ayder: greet with hey", "start"]
    assert head_files(repo) == ["app.py"]


def test_a_bad_side_model_is_a_one_line_config_error(fake, run_ayder, isolated_env):
    write_json(isolated_env / ".config" / "ayder" / "config.json", {"side_model": {"name": "tiny"}})
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 2
    assert '"side_model" must be a model name, or an object like {"model": ' in result.stderr


GIT_MODULES = ("ayder_cli.session.commit", "ayder_cli.session.auto_commit", "ayder_cli.session.side_model")
LOADED_CHECK = """
import sys
from ayder_cli.cli import main
main(ARGS)
sys.stderr.write("LOADED " + ",".join(name for name in NAMES if name in sys.modules) + "\\n")
"""


def test_a_session_that_commits_nothing_loads_nothing_of_it(fake, repo):
    """A REPL line with an edit, without auto_commit or /commit: the commit modules stay unloaded."""
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))
    code = LOADED_CHECK.replace("ARGS", repr([*server_args(fake, "ollama"), "-w"])).replace("NAMES", repr(GIT_MODULES))
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, input="change it\n", capture_output=True, text=True,
                          timeout=60)
    assert "wrote 1 line" in done.stderr and "LOADED \n" in done.stderr, done.stderr
    assert subjects(repo) == ["start"]


def test_a_side_model_that_fails_is_one_line_and_the_files_stay_staged(fake, run_ayder, repo):
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."),
               *[Reply(status=500, error="model crashed")] * 4)

    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change it\n/commit\n")

    assert "wrote no commit message (" in result.stderr and "model crashed" in result.stderr
    assert "the files are staged; /commit MESSAGE commits them with yours" in result.stderr
    assert subjects(repo) == ["start"]
    assert git(repo, "status", "--porcelain").splitlines() == ["M  app.py"]


def test_messages_are_one_line():
    from ayder_cli.session.auto_commit import turn_message
    from ayder_cli.session.commit_message import one_line

    long = "rename   the --limit option to --max-items everywhere, and update the docs and the changelog too"
    assert turn_message(f"\n{long}\n@app.py attached") == \
        "ayder: rename the --limit option to --max-items everywhere, and updat..."
    assert len(turn_message(long)) == 72
    answer = '\n**"Rename --limit to --max-items"**\n\nA body the model added.'
    assert one_line(answer) == "Rename --limit to --max-items"



def test_a_session_that_wrote_a_hook_commits_nothing(fake, run_ayder, repo):
    """The project keeps its hooks in the work tree (core.hooksPath, as husky does): a hook the model wrote
    there would run outside the sandbox at the next commit, so none is made."""
    git(repo, "config", "core.hooksPath", ".githooks")
    fake.queue(write_call(".githooks/pre-commit", "#!/bin/sh\ntouch ran\n"), Reply(text="Done."),
               write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", "--auto-commit", input="add a hook\nchange it\n/commit\n")

    refusal = "this session wrote .githooks/pre-commit, in the hooks directory: nothing committed"
    assert f"auto_commit: {refusal}\n" in result.stderr and f"error: {refusal}\n" in result.stderr
    assert result.stderr.count(refusal) == 3  # each turn's auto-commit, then /commit
    assert subjects(repo) == ["start"] and not (repo / "ran").exists()


def test_status_names_the_side_model_and_auto_commit(fake, run_ayder, isolated_env):
    write_json(isolated_env / ".config" / "ayder" / "config.json",
               {"side_model": {"model": "tiny", "base_url": "http://127.0.0.1:9/v1"}})
    result = run_ayder(*server_args(fake, "ollama"), "--auto-commit", input="/status\n")
    assert "side model:   tiny at http://127.0.0.1:9/v1 (commit messages, compaction summaries)\n" in result.stderr
    assert "auto_commit:  on: each turn that changes files ends with a commit of them\n" in result.stderr


def test_a_file_named_like_a_glob_commits_that_file_alone(fake, run_ayder, repo):
    (repo / "a.txt").write_text("a\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "a")
    (repo / "a.txt").write_text("a, edited by hand\n", encoding="utf-8")  # `[ab].txt` as a glob would take it
    fake.queue(write_call("[ab].txt", "literally\n"), Reply(text="Done."))

    result = run_ayder(*server_args(fake, "ollama"), "-w", input="write it\n/commit Add [ab].txt\n")

    assert result.returncode == 0, result.stderr
    assert head_files(repo) == ["[ab].txt"]
    assert git(repo, "status", "--porcelain").splitlines() == [" M a.txt"]


def test_a_turn_the_server_failed_after_an_edit_still_commits_the_edit(fake, run_ayder, repo):
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), *[Reply(status=500, error="server gone")] * 4)

    result = run_ayder(*server_args(fake, "ollama"), "-w", "--auto-commit", "change the greeting")

    assert result.returncode == 1 and "server gone" in result.stderr
    assert subjects(repo) == ["ayder: change the greeting", "start"]


def test_a_side_model_named_alone_is_asked_on_the_main_server(fake, run_ayder, repo, isolated_env):
    write_json(isolated_env / ".config" / "ayder" / "config.json", {"side_model": "tiny"})
    fake.queue(write_call("app.py", "greeting = 'hello'\n"), Reply(text="Done."), Reply(text="Say hello"))

    result = run_ayder(*server_args(fake, "openai"), "-w", input="change the greeting\n/commit\n")

    assert result.returncode == 0, result.stderr
    assert [request["body"]["model"] for request in fake.chat_requests()][-1] == "tiny"
    assert fake.chat_requests()[0]["body"]["model"] != "tiny"
    assert subjects(repo) == ["Say hello", "start"]
