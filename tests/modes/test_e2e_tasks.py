"""Task files end to end: --tasks, --implement, --implement-all."""

from __future__ import annotations

from support.fakellm import Reply
from support.harness import server_args


def write_task(project, number: int, title: str, status: str = "pending") -> None:
    folder = project / ".ayder" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    slug = title.lower().replace(" ", "-")
    (folder / f"TASK-{number:03d}-{slug}.md").write_text(f"# {title}\n\n- **Status:** {status}\n\nDo {title}.\n")


def mark_done(task_id: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "update_task_status",
                                       "arguments": {"identifier": task_id, "status": "done"}}])


def test_tasks_lists_them_without_a_server(run_ayder, project):
    write_task(project, 1, "add login")
    write_task(project, 2, "fix logout", "done")
    result = run_ayder("--base-url", "http://127.0.0.1:9", "--tasks")
    assert result.returncode == 0, result.stderr
    assert "TASK-001" in result.stdout and "pending" in result.stdout and "add login" in result.stdout
    assert "TASK-002" in result.stdout and "done" in result.stdout


def test_implement_all_stops_at_the_task_that_fails(fake, run_ayder, project):
    for number, title in enumerate(("first", "second", "third"), 1):
        write_task(project, number, title)
    fake.queue(mark_done("TASK-001"), Reply(text="First is done."),
               Reply(status=500, error="the model crashed"), Reply(status=500, error="the model crashed"),
               Reply(status=500, error="the model crashed"), Reply(status=500, error="the model crashed"))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--implement-all")
    assert result.returncode == 1
    assert "TASK-001 done" in result.stderr
    assert "TASK-002 failed" in result.stderr and "TASK-003 not run" in result.stderr
    statuses = {path.name[:8]: path.read_text().split("**Status:** ")[1].split("\n")[0]
                for path in (project / ".ayder" / "tasks").iterdir()}
    assert statuses == {"TASK-001": "done", "TASK-002": "in_progress", "TASK-003": "pending"}
    # Each task starts a fresh conversation: the second's first request holds only its own prompt.
    second = [r for r in fake.chat_requests() if "TASK-002" in str(r["body"]["messages"])][0]
    assert "TASK-001" not in str(second["body"]["messages"][1:])


def test_implement_an_unknown_task_lists_the_candidates(fake, run_ayder, project):
    write_task(project, 1, "add login")
    result = run_ayder(*server_args(fake, "ollama"), "--implement", "nothing like it")
    assert result.returncode == 2
    assert "TASK-001" in result.stderr


def test_a_checkpoint_is_announced_and_restored_on_request(fake, run_ayder, project):
    memory = project / ".ayder" / "memory"
    memory.mkdir(parents=True)
    (memory / "current_memory.md").write_text("# Checkpoint 2\n\nGoal: port the parser. Next step: tests.\n")
    plain = run_ayder(*server_args(fake, "ollama"), "hello")
    assert "ayder --restore continues from it" in plain.stderr
    assert "port the parser" not in str(fake.chat_requests()[-1]["body"]["messages"])
    restored = run_ayder(*server_args(fake, "ollama"), "--restore", "go on")
    assert restored.returncode == 0, restored.stderr
    sent = fake.chat_requests()[-1]["body"]["messages"]
    assert "Goal: port the parser. Next step: tests." in sent[1]["content"]
    assert sent[-1] == {"role": "user", "content": "go on"}


def test_memory_commands_show_write_and_clear(fake, run_ayder, project):
    fake.queue(Reply(text="A1"), Reply(text="Goal: greet. Next step: none."))
    result = run_ayder(*server_args(fake, "ollama"), input="hi\n/checkpoint\n/memory\n/memory clear\n/memory\n")
    assert result.returncode == 0, result.stderr
    assert "checkpoint written to .ayder/memory/current_memory.md" in result.stderr
    assert "# Checkpoint 1" in result.stderr and "Goal: greet." in result.stderr
    assert "checkpoint removed" in result.stderr and result.stderr.rstrip().endswith("there is no checkpoint")
    assert not (project / ".ayder" / "memory" / "current_memory.md").exists()


def test_checkpoint_commands_write_show_and_clear(fake, run_ayder, project):
    """/checkpoint writes one now, /checkpoint show shows it, /checkpoint clear removes it (/memory: the old name)."""
    fake.queue(Reply(text="A1"), Reply(text="Goal: greet. Next step: none."))
    result = run_ayder(*server_args(fake, "ollama"),
                       input="hi\n/checkpoint\n/checkpoint show\n/checkpoint clear\n/checkpoint show\n")
    assert result.returncode == 0, result.stderr
    assert "checkpoint written to .ayder/memory/current_memory.md" in result.stderr
    assert "# Checkpoint 1" in result.stderr
    assert "checkpoint removed" in result.stderr and result.stderr.rstrip().endswith("there is no checkpoint")
    assert not (project / ".ayder" / "memory" / "current_memory.md").exists()


def test_auto_compaction_fires_at_the_threshold_and_the_next_request_is_smaller(fake, run_ayder, project):
    import json

    (project / ".ayder").mkdir(exist_ok=True)
    # a window that holds the second request once its long messages lose their middles (no request goes over it)
    (project / ".ayder" / "config.json").write_text(json.dumps({"num_ctx": 1400, "compact_at": 0.5}))
    big = "lorem ipsum " * 150  # about 450 tokens a message
    fake.queue(Reply(text="A1 " + big, usage=None), Reply(text="A2", usage=None),
               Reply(text="Summary: the user sent two long notes.", usage=None), Reply(text="A3", usage=None))
    result = run_ayder(*server_args(fake, "ollama"), input=f"Q1 {big}\nQ2\nQ3\n")
    assert result.returncode == 0, result.stderr
    requests = fake.chat_requests()
    assert len(requests) == 4
    summary_request = requests[2]["body"]
    assert "tools" not in summary_request and "Summarize everything above" in summary_request["messages"][-1]["content"]
    last = requests[3]["body"]["messages"]
    assert len(json.dumps(last)) < len(json.dumps(requests[1]["body"]["messages"]))
    assert "the user sent two long notes" in last[1]["content"]
    assert [m["content"] for m in last[-3:]] == ["Q2", "A2", "Q3"]
    assert "compacted the conversation" in result.stderr


def test_a_compaction_that_would_not_shrink_is_not_applied(fake, run_ayder):
    fake.queue(Reply(text="A1"), Reply(text="A2"), Reply(text="x" * 5000))
    result = run_ayder(*server_args(fake, "ollama"), input="Q1\nQ2\n/compact\n")
    assert "would not shrink" in result.stderr


def test_plan_asks_the_model_to_write_task_files(fake, run_ayder, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "create_task",
                                           "arguments": {"title": "add login", "description": "a form"}}]),
               Reply(text="Planned one task."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="/plan a login page\n")
    assert result.returncode == 0, result.stderr
    assert "create_task" in fake.chat_requests()[0]["body"]["messages"][-1]["content"]
    assert [p.name for p in (project / ".ayder" / "tasks").iterdir()] == ["TASK-001-add-login.md"]
