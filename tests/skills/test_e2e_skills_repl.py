"""Skills at the REPL on a terminal: looked for at the first entry, not before the first prompt, and a
skill run as /NAME answered like a typed message; nothing of skills/ is imported before it is used."""

from __future__ import annotations

import subprocess
import sys

import pytest
from skill_files import RELEASE_NOTES, skill
from support.fakellm import Reply
from support.harness import server_args
from support.pty_harness import expect_prompt, finish
from support.requests_seen import sent_messages

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
