"""Task files under .ayder/tasks/: creating, reading, finding, changing status, and the task tools."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tool_calls import call_tool

from ayder_cli.errors import ExitStatus
from ayder_cli.storage.tasks import (
    Task,
    TaskError,
    create_task,
    format_table,
    load_tasks,
    resolve,
    set_status,
    slugify,
    task_warnings,
)
from ayder_cli.tools.spec import ToolContext, ToolRegistry
from ayder_cli.tools.executor import Permissions, ToolExecutor
from ayder_cli.tools.task_tools import TASK_TOOLS
from ayder_cli.storage.undo import UndoJournal


def tasks_dir(root: Path) -> Path:
    return root / ".ayder" / "tasks"


def write_task(root: Path, name: str, text: str) -> Path:
    path = tasks_dir(root) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture
def three(root) -> list[Task]:
    create_task(root, "Add login page", "A form with user and password.")
    create_task(root, "Fix login redirect", "After login, go back where the user was.")
    create_task(root, "Write the README", "")
    return load_tasks(root)


# --- create


def test_create_writes_a_pending_task_file_with_title_status_and_body(root):
    task = create_task(root, "Add a --version flag", "Print the version and exit.\n\nUse importlib.metadata.")
    assert task.id == "TASK-001" and task.number == 1
    assert task.path == tasks_dir(root).resolve() / "TASK-001-add-a-version-flag.md"
    assert task.path.read_text() == (
        "# Add a --version flag\n\n- **Status:** pending\n\nPrint the version and exit.\n\nUse importlib.metadata.\n"
    )
    assert (task.title, task.status) == ("Add a --version flag", "pending")
    assert task.body == "Print the version and exit.\n\nUse importlib.metadata."


def test_numbering_continues_after_the_highest_existing_number_gaps_included(root):
    write_task(root, "TASK-001-first.md", "# First\n\n- **Status:** done\n")
    write_task(root, "TASK-007-seventh.md", "# Seventh\n\n- **Status:** pending\n")
    write_task(root, "TASK-003-broken.md", "# Broken, no status line\n")
    assert create_task(root, "Next one", "").id == "TASK-008"
    assert create_task(root, "And another", "").id == "TASK-009"
    assert [t.number for t in load_tasks(root)] == [1, 3, 7, 8, 9]


def test_slug_is_lowercase_ascii_words_and_short(root):
    task = create_task(root, "Café: résumé ÜBER alles!! (v2) & the rest of a very long title here", "")
    assert task.path.name.startswith("TASK-001-cafe-resume-uber-alles-v2-")
    slug = task.path.name[len("TASK-001-"):-len(".md")]
    assert len(slug) <= 40 and not slug.endswith("-")
    assert slugify("日本語") == "task"
    assert slugify("   ") == "task"


def test_empty_title_is_refused_and_nothing_is_written(root):
    with pytest.raises(TaskError, match="title is empty"):
        create_task(root, "  \n ", "body")
    assert load_tasks(root) == []


def test_multiline_title_becomes_one_line(root):
    task = create_task(root, "Fix\nthe   parser", "")
    assert task.title == "Fix the parser"
    assert task.path.read_text().startswith("# Fix the parser\n")


# --- load and parse


def test_no_tasks_directory_means_no_tasks(root):
    assert load_tasks(root) == []
    assert format_table([]) == "no tasks"


def test_load_orders_by_number_not_by_name_and_ignores_other_files(root):
    write_task(root, "TASK-010-ten.md", "# Ten\n\n- **Status:** pending\n")
    write_task(root, "TASK-002-two.md", "# Two\n\n- **Status:** done\n")
    write_task(root, "TASK-1000-big.md", "# Big\n\n- **Status:** pending\n")
    write_task(root, "README.md", "# Not a task\n\n- **Status:** pending\n")
    write_task(root, "notes.txt", "scratch")
    tasks = load_tasks(root)
    assert [(t.id, t.title) for t in tasks] == [("TASK-002", "Two"), ("TASK-010", "Ten"), ("TASK-1000", "Big")]


def test_hand_written_variants_are_parsed(root):
    write_task(root, "TASK-001-a.md",
               "# TASK-001: Spaced title  \r\n\r\n* **Status**: In Progress\r\n\r\nCRLF body\r\n")
    write_task(root, "TASK-002-b.md", "Some preamble\n\n# Second\n- **Status:**   DONE  \nline one\nline two\n")
    write_task(root, "TASK-003-no-title-here.md", "- **Status:** pending\n\njust a body\n")
    one, two, three = load_tasks(root)
    assert (one.title, one.status, one.body, one.problem) == ("Spaced title", "in_progress", "CRLF body", None)
    assert (two.title, two.status, two.problem) == ("Second", "done", None)
    assert two.body == "Some preamble\n\nline one\nline two"
    assert (three.title, three.status) == ("no title here", "pending")  # the title falls back to the slug


def test_missing_or_invalid_status_is_loaded_as_unknown_with_a_warning(root):
    write_task(root, "TASK-001-ok.md", "# Fine\n\n- **Status:** done\n")
    write_task(root, "TASK-002-missing.md", "# No status\n\nbody only\n")
    write_task(root, "TASK-003-odd.md", "# Odd status\n\n- **Status:** blocked\n")
    (tasks_dir(root) / "TASK-004-binary.md").write_bytes(b"# \xff\xfe bad\n")
    tasks = load_tasks(root)
    assert [t.status for t in tasks] == ["done", "unknown", "unknown", "unknown"]
    warnings = task_warnings(tasks, root)
    assert len(warnings) == 3
    assert warnings[0].startswith("TASK-002 (.ayder/tasks/TASK-002-missing.md): no status line")
    assert "'blocked' is not one of pending, in_progress, done" in warnings[1]
    assert "not UTF-8" in warnings[2]
    assert "unknown" in format_table(tasks)


def test_format_table_aligns_id_status_and_title_columns(three):
    set_status(three[0].path.parents[2], "2", "in_progress")
    table = format_table(load_tasks(three[0].path.parents[2]))
    assert table.splitlines() == [
        "ID        STATUS       TITLE",
        "TASK-001  pending      Add login page",
        "TASK-002  in_progress  Fix login redirect",
        "TASK-003  pending      Write the README",
    ]


# --- resolve


@pytest.mark.parametrize("identifier", ["TASK-002", "task-002", "task-2", "TASK2", "2", "002", " 2 ", "#2",
                                        "redirect", "FIX LOGIN", "TASK-002-fix-login-redirect.md",
                                        "task-002-fix-login-redirect"])
def test_resolve_accepts_every_identifier_form(three, identifier):
    assert resolve(three, identifier).id == "TASK-002"


def test_an_exact_title_wins_over_a_longer_title_containing_it(root):
    create_task(root, "Login", "")
    create_task(root, "Login redirect", "")
    assert resolve(load_tasks(root), "login").id == "TASK-001"


def test_ambiguous_identifier_lists_only_the_matching_candidates(three):
    with pytest.raises(TaskError) as caught:
        resolve(three, "login")
    message = caught.value.message
    assert "matches 2 tasks" in message
    assert "TASK-001 'Add login page'" in message and "TASK-002 'Fix login redirect'" in message
    assert "README" not in message
    assert caught.value.exit_status == ExitStatus.USAGE


@pytest.mark.parametrize("identifier", ["deploy", "TASK-009", "9", ""])
def test_unknown_identifier_lists_every_task(three, identifier):
    with pytest.raises(TaskError) as caught:
        resolve(three, identifier)
    message = caught.value.message
    for task in three:
        assert f"{task.id} {task.title!r}" in message


def test_a_number_never_matches_a_title_containing_it(root):
    create_task(root, "Support Python 3", "")
    with pytest.raises(TaskError, match="no task TASK-003"):
        resolve(load_tasks(root), "3")


def test_unknown_identifier_with_no_tasks_says_there_are_none(root):
    with pytest.raises(TaskError, match="there are no tasks"):
        resolve([], "1")


def test_duplicate_numbers_are_ambiguous_not_silently_the_first(root):
    write_task(root, "TASK-001-a.md", "# Alpha\n\n- **Status:** pending\n")
    write_task(root, "TASK-001-b.md", "# Beta\n\n- **Status:** pending\n")
    with pytest.raises(TaskError, match="matches 2 tasks.*Alpha.*Beta"):
        resolve(load_tasks(root), "TASK-001")
    assert resolve(load_tasks(root), "beta").path.name == "TASK-001-b.md"


# --- set_status


def test_set_status_rewrites_only_the_status_line(root):
    text = ("# My task\r\n\r\n- **Status:** pending   \r\n\r\nBody with - **Status:** done in it\r\n"
            "* trailing list\r\n\tindented\r\n\r\n\r\n")
    path = write_task(root, "TASK-004-mine.md", text)
    task = set_status(root, "my TASK", "in-progress")
    assert task.status == "in_progress"
    assert path.read_bytes() == text.replace("pending", "in_progress", 1).encode()
    set_status(root, "4", "done")
    assert path.read_bytes() == text.replace("pending", "done", 1).encode()
    assert load_tasks(root)[0].status == "done"


def test_set_status_keeps_the_body_byte_for_byte(root):
    task = create_task(root, "Keep body", "  indented first line\n\n```\ncode\t block\n```\n\n\n  ")
    before = task.path.read_bytes()
    set_status(root, task.id, "done")
    after = task.path.read_bytes()
    assert after == before.replace(b"- **Status:** pending", b"- **Status:** done")
    assert len(after.splitlines()) == len(before.splitlines())


def test_set_status_adds_a_status_line_to_a_file_without_one(root):
    path = write_task(root, "TASK-001-bare.md", "# Bare\nbody\n")
    assert set_status(root, "1", "done").status == "done"
    assert path.read_text() == "# Bare\n\n- **Status:** done\nbody\n"
    assert load_tasks(root)[0].problem is None


@pytest.mark.parametrize("status", ["blocked", "", "finished", "pending!"])
def test_an_invalid_status_is_refused_and_the_file_is_unchanged(root, status):
    task = create_task(root, "Stay pending", "")
    before = task.path.read_bytes()
    with pytest.raises(TaskError, match="use one of pending, in_progress, done"):
        set_status(root, task.id, status)
    assert task.path.read_bytes() == before


def test_set_status_on_an_unknown_task_lists_the_tasks(three):
    root = three[0].path.parents[2]
    with pytest.raises(TaskError, match="TASK-001 'Add login page'"):
        set_status(root, "TASK-042", "done")


# --- the tools, through the executor


@pytest.fixture
def executor(root) -> ToolExecutor:
    return ToolExecutor(ToolRegistry(TASK_TOOLS), ToolContext(root, journal=UndoJournal()), Permissions({"r", "w"}))


def test_tools_create_list_show_and_update(root, executor):
    created = call_tool(executor, "create_task", title="Add caching", description="Cache the HTTP replies.")
    assert created.ok, created.error
    assert "TASK-001" in created.output and ".ayder/tasks/TASK-001-add-caching.md" in created.output
    call_tool(executor, "create_task", title="Remove dead code", description="")

    listed = call_tool(executor, "list_tasks")
    assert listed.ok and "TASK-001  pending  Add caching" in listed.output
    assert "TASK-002  pending  Remove dead code" in listed.output

    shown = call_tool(executor, "show_task", identifier="caching")
    assert shown.ok and "TASK-001 [pending] Add caching" in shown.output
    assert "Cache the HTTP replies." in shown.output

    updated = call_tool(executor, "update_task_status", identifier="1", status="in_progress")
    assert updated.ok and "pending -> in_progress" in updated.output
    assert "- **Status:** in_progress" in (tasks_dir(root) / "TASK-001-add-caching.md").read_text()

    only_pending = call_tool(executor, "list_tasks", status="pending")
    assert "Remove dead code" in only_pending.output and "Add caching" not in only_pending.output
    none_done = call_tool(executor, "list_tasks", status="done")
    assert none_done.ok and "no done tasks" in none_done.output


def test_tool_errors_are_clear_for_the_model(root, executor):
    call_tool(executor, "create_task", title="Add login page", description="")
    call_tool(executor, "create_task", title="Fix login redirect", description="")

    ambiguous = call_tool(executor, "show_task", identifier="login")
    assert not ambiguous.ok
    assert "TASK-001 'Add login page'" in ambiguous.error and "TASK-002 'Fix login redirect'" in ambiguous.error

    unknown = call_tool(executor, "update_task_status", identifier="TASK-009", status="done")
    assert not unknown.ok and "no task TASK-009" in unknown.error

    bad_status = call_tool(executor, "update_task_status", identifier="1", status="blocked")
    assert not bad_status.ok and "use one of pending, in_progress, done" in bad_status.error
    assert "pending" in (tasks_dir(root) / "TASK-001-add-login-page.md").read_text()

    bad_filter = call_tool(executor, "list_tasks", status="closed")
    assert not bad_filter.ok and "invalid status 'closed'" in bad_filter.error

    empty = call_tool(executor, "create_task", title=" ", description="x")
    assert not empty.ok and "title is empty" in empty.error


def test_list_tasks_reports_broken_files(root, executor):
    write_task(root, "TASK-001-broken.md", "# Broken\n\nno status here\n")
    listed = call_tool(executor, "list_tasks")
    assert listed.ok
    assert "TASK-001  unknown  Broken" in listed.output
    assert "warning: TASK-001 (.ayder/tasks/TASK-001-broken.md): no status line" in listed.output


def test_tool_schemas_are_short_and_offer_the_statuses(executor):
    schemas = {s["function"]["name"]: s["function"] for s in executor.schemas()}
    assert set(schemas) == {"create_task", "list_tasks", "show_task", "update_task_status"}
    for schema in schemas.values():
        assert "\n" not in schema["description"] and len(schema["description"]) <= 60
    assert schemas["update_task_status"]["parameters"]["properties"]["status"]["enum"] == [
        "pending", "in_progress", "done"]
    assert schemas["list_tasks"]["parameters"].get("required", []) == []


def test_write_tools_need_write_permission(root):
    executor = ToolExecutor(ToolRegistry(TASK_TOOLS), ToolContext(root, journal=UndoJournal()), Permissions({"r"}))
    refused = call_tool(executor, "create_task", title="Sneaky", description="")
    assert not refused.ok and "write permission" in refused.error
    assert load_tasks(root) == []
    assert call_tool(executor, "list_tasks").ok


def test_task_writes_are_undone_through_the_journal(root, executor):
    call_tool(executor, "create_task", title="Undo me", description="body")
    path = tasks_dir(root) / "TASK-001-undo-me.md"
    original = path.read_bytes()
    call_tool(executor, "update_task_status", identifier="1", status="done")
    assert b"done" in path.read_bytes()

    journal = executor.context.journal
    assert [entry.tool for entry in journal.entries()] == ["create_task", "update_task_status"]
    assert "restored" in journal.undo()
    assert path.read_bytes() == original
    assert "removed" in journal.undo()
    assert not path.exists()
    assert load_tasks(root) == []


def test_an_unchanged_status_writes_nothing_and_records_nothing(root, executor):
    call_tool(executor, "create_task", title="Already", description="")
    result = call_tool(executor, "update_task_status", identifier="1", status="pending")
    assert result.ok and "already pending" in result.output
    assert len(executor.context.journal) == 1


def test_library_writes_record_in_a_given_journal(root):
    journal = UndoJournal()
    task = create_task(root, "Journaled", "", journal=journal)
    set_status(root, task.id, "done", journal=journal)
    assert len(journal) == 2
    journal.undo()
    assert load_tasks(root)[0].status == "pending"
