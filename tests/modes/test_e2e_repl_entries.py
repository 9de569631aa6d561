"""What a REPL line can be besides a prompt and a slash command, and the REPL's session commands:
/clear, /diff, `!command`, `!!command` and `@path` (a piped script's lines are handled as typed ones)."""

from __future__ import annotations

from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import messages


def test_clear_starts_a_fresh_conversation_and_session_keeping_the_system_prompt(fake, run_ayder, project):
    fake.queue(Reply(text="A1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, "ollama"), "--system", "Be terse.", input="Q1\n/clear\nQ2\n")
    assert result.returncode == 0, result.stderr
    second = messages(fake.chat_requests()[1])
    assert second[0] == {"role": "system", "content": "Be terse."}
    assert [m["role"] for m in second] == ["system", "user"] and second[1]["content"].endswith("Q2")
    line = next(line for line in result.stderr.splitlines() if line.startswith("new conversation"))
    assert "the last one is kept: ayder --resume " in line
    assert len(list((project / ".ayder" / "sessions").glob("*.jsonl"))) == 2  # the first one stays


def test_clear_on_a_fresh_conversation_says_so_in_one_line(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="/clear\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "new conversation"


def write_call(path: str, content: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": path, "content": content}}])


def test_diff_shows_each_changed_file_against_how_it_was_before_the_session(fake, run_ayder, project):
    (project / "app.py").write_text("a = 1\nb = 2\n")
    fake.queue(write_call("app.py", "a = 1\nb = 3\n"), write_call("app.py", "a = 1\nb = 4\n"),
               write_call("new.txt", "hello\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change things\n/diff\n")
    assert result.returncode == 0, result.stderr
    shown = result.stderr[result.stderr.index("--- a/app.py"):].splitlines()
    # against the file before the session's first change, not before the last one; plain when not a tty
    assert shown[:5] == ["--- a/app.py", "+++ b/app.py", "@@ -1,2 +1,2 @@", " a = 1", "-b = 2"]
    assert shown[5:10] == ["+b = 4", "--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1 @@", "+hello"]
    assert shown[10] == "2 files changed in this session (/undo takes changes back)"
    assert "\033[" not in result.stderr


def test_diff_says_no_changes_when_there_are_none(fake, run_ayder, project):
    (project / "app.py").write_text("a = 1\n")
    fake.queue(write_call("app.py", "a = 2\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="/diff\nchange it\n/undo\n/diff\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("no changes: no file ayder changed in this session differs from before it") == 2


def test_a_long_diff_is_cut_in_its_middle(fake, run_ayder, project):
    fake.queue(write_call("big.txt", "".join(f"line {n}\n" for n in range(500))), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="write it\n/diff\n")
    assert result.returncode == 0, result.stderr
    assert "+line 30\n" in result.stderr and "+line 499\n" in result.stderr and "+line 250\n" not in result.stderr
    assert "lines of the diff not shown ...]" in result.stderr


def test_a_bang_line_runs_the_users_command_in_the_project_and_the_model_sees_nothing(fake, run_ayder, project):
    (project / "here.txt").write_text("")
    fake.queue(Reply(text="A1"))
    result = run_ayder(*server_args(fake, "ollama"), input="!ls; echo to-stderr >&2; exit 3\nQ1\n")
    assert result.returncode == 1, result.stderr  # a script line that failed: exit 1 at the end
    assert "here.txt\nto-stderr\nexit status 3\n" in result.stderr
    assert result.stdout == "A1\n"  # stdout keeps the model's answers only
    sent = messages(fake.chat_requests()[0])
    assert "here.txt" not in str(sent) and sent[-1]["content"].endswith("Q1")


def test_a_double_bang_line_adds_the_command_and_its_output_to_the_conversation(fake, run_ayder, project):
    fake.queue(Reply(text="It printed hello."))
    result = run_ayder(*server_args(fake, "ollama"), input="!!printf 'hello\\nworld'\nwhat did it print?\n")
    assert result.returncode == 0, result.stderr
    assert "hello\nworld\nexit status 0\n" in result.stderr  # an output without a final newline still ends its line
    assert "added to the conversation" in result.stderr
    sent = messages(fake.chat_requests()[0])
    shared, asked = sent[-2], sent[-1]
    assert shared["role"] == "user" and "$ printf 'hello\\nworld'" in shared["content"]
    assert shared["content"].endswith("It ended: exit status 0. Its output:\nhello\nworld")
    assert asked == {"role": "user", "content": "what did it print?"}


def test_a_double_bang_output_is_cut_in_its_middle_for_the_model(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="!!seq 1 100000\nQ\n")
    assert result.returncode == 0, result.stderr
    assert "\n100000\nexit status 0" in result.stderr  # the user sees it all
    shared = messages(fake.chat_requests()[0])[-2]["content"]
    shared = shared[shared.index("I ran this command"):]  # after the environment note of a first message
    assert len(shared) <= 20_000 and "bytes cut from the middle" in shared and shared.endswith("\n100000")


def test_a_bang_without_a_command_is_a_one_line_error(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="!!\n")
    assert result.returncode == 1
    assert "error: ! needs a command after it" in result.stderr
    assert fake.chat_requests() == []


def test_an_at_path_attaches_the_files_text_to_the_message(fake, run_ayder, project):
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\nx = 1\n")
    fake.queue(Reply(text="It prints hi."))
    result = run_ayder(*server_args(fake, "ollama"), input="what does @src/app.py do? Mail me at a@b.c\n")
    assert result.returncode == 0, result.stderr
    assert "attached src/app.py (2 lines)" in result.stderr
    sent = messages(fake.chat_requests()[0])[-1]["content"]
    assert sent.endswith("what does @src/app.py do? Mail me at a@b.c\n\n[src/app.py, attached by the user]\n"
                         "     1\tprint('hi')\n     2\tx = 1")


def test_an_at_path_after_which_a_sentence_goes_on_and_an_escaped_at(fake, run_ayder, project):
    (project / "notes.md").write_text("note\n")
    result = run_ayder(*server_args(fake, "ollama"), input="read @notes.md, then @@decorators please\n")
    assert result.returncode == 0, result.stderr
    sent = messages(fake.chat_requests()[0])[-1]["content"]
    assert "read @notes.md, then @decorators please\n\n[notes.md, attached by the user]\n     1\tnote" in sent


def test_a_missing_or_outside_file_is_a_one_line_error_and_nothing_is_sent(fake, run_ayder, project):
    (project.parent / "secret.txt").write_text("outside\n")
    result = run_ayder(*server_args(fake, "ollama"), input="look at @nope.py\nand @../secret.txt\n")
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors[0] == "error: cannot attach @nope.py: no such file: nope.py"
    assert errors[1].startswith("error: cannot attach @../secret.txt: ")
    assert errors[2:] == ["error: script lines 1 and 2 failed"]
    assert fake.chat_requests() == []


def test_help_lists_clear_and_diff_and_says_what_bang_and_at_do(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="/help\n")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    clear = result.stderr[result.stderr.index("  /clear "):result.stderr.index("  /compact ")]
    assert "(also /reset)" in " ".join(clear.split())  # the entry may wrap at 80 columns
    assert any(line.lstrip().startswith("/diff") for line in lines)
    assert any(line.lstrip().startswith("!CMD") for line in lines)
    assert any(line.lstrip().startswith("@PATH") for line in lines)


def test_in_a_block_a_decorator_stays_as_it_is_and_a_file_is_still_attached(fake, run_ayder, project):
    (project / "app.py").write_text("x = 1\n")
    block = '"""\nwhy does this fail, next to @app.py?\n@property\n@functools.cache\ndef f(self): ...\n"""\n'
    result = run_ayder(*server_args(fake, "ollama"), input=block)
    assert result.returncode == 0, result.stderr
    sent = messages(fake.chat_requests()[0])[-1]["content"]
    assert "@property\n@functools.cache\ndef f(self): ...\n\n[app.py, attached by the user]\n     1\tx = 1" in sent


def test_a_bang_command_in_a_script_does_not_read_the_rest_of_the_script(fake, run_ayder):
    fake.queue(Reply(text="A1"))
    result = run_ayder(*server_args(fake, "ollama"), input="!cat\nQ1\n")
    assert result.returncode == 0, result.stderr
    assert messages(fake.chat_requests()[0])[-1]["content"].endswith("Q1")  # stdin closed for the command
