"""Skills at the REPL on a terminal: looked for at the first entry, not before the first prompt, a skill
run as /NAME answered like a typed message, custom commands and skills completed once found; nothing of
skills/ is imported before it is used."""

from __future__ import annotations

import subprocess
import sys

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from skill_files import RELEASE_NOTES, command, skill
from support.fakellm import Reply
from support.harness import server_args
from support.pty_harness import expect_prompt, finish, wait_for_raw_mode
from support.requests_seen import sent_messages

from ayder_cli.repl.line_input import command_completer

pexpect = pytest.importorskip("pexpect")


def test_skills_are_looked_for_at_the_first_entry_and_slash_name_runs_one(fake, ayder_on_pty, project):
    skill(project / ".ayder" / "skills", "release-notes", RELEASE_NOTES)
    skill(project / ".ayder" / "skills", "broken", "no front matter\n")
    fake.queue(Reply(text="Release notes for v3 written."))
    child = ayder_on_pty(*server_args(fake, "openai"))
    expect_prompt(child)
    shown_before = child.before
    child.sendline("/release-notes v3")
    child.expect_exact("skill .ayder/skills/broken/SKILL.md: it has no front matter")
    child.expect_exact("Release notes for v3 written.")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    assert "SKILL.md" not in shown_before  # nothing was read before the first prompt
    prompt = sent_messages(fake.chat_requests()[0])[-1]["content"]
    assert prompt.startswith("Use the skill release-notes") and prompt.endswith("write them for: v3")


def test_the_repl_imports_nothing_of_skills_before_its_first_entry():
    code = ("import sys\nimport ayder_cli.cli, ayder_cli.modes.repl, ayder_cli.modes.entries, ayder_cli.repl.commands\n"
            "print(sorted(name for name in sys.modules if name.startswith('ayder_cli.skills')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_after_the_first_entry_the_prompt_completes_custom_commands_and_skills(fake, ayder_on_pty, project):
    skill(project / ".ayder" / "skills", "release-notes", RELEASE_NOTES)
    command(project / ".ayder" / "commands", "fix-issue", "---\ndescription: Fix a numbered issue\n---\nFix #$1.\n")
    fake.queue(Reply(text="Hello."), Reply(text="Fixing 7."))
    child = ayder_on_pty(*server_args(fake, "openai"), term="xterm")
    child.expect_exact("/help for commands")
    wait_for_raw_mode(child)
    child.send("hi\r")
    child.expect_exact("Hello.")
    wait_for_raw_mode(child)
    child.send("/fix")
    child.expect_exact("Fix a numbered issue")  # the menu, with the command's description
    child.send("\t")
    child.send(" 7\r")
    child.expect_exact("Fixing 7.")
    wait_for_raw_mode(child)
    child.send("/relea")
    child.expect_exact("skill: Write release notes")
    child.send("\x15")  # Ctrl-U: the line cleared
    child.sendcontrol("d")
    assert finish(child) == 0
    assert sent_messages(fake.chat_requests()[1])[-1]["content"] == "Fix #7."


def test_the_completer_offers_what_was_found_after_the_built_in_commands():
    completer = command_completer(lambda: {"/fix-issue": "Fix a numbered issue", "/help": "a clash"})
    offered = {c.text: c.display_meta_text for c in completer.get_completions(Document("/"), CompleteEvent())}
    assert offered["/fix-issue"] == "Fix a numbered issue"
    assert offered["/help"] == "list the commands"  # the built-in's own help: it wins
