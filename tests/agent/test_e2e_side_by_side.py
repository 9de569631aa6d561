"""Read-only calls side by side, end to end through the real `ayder`: the reads of one reply run
together, and still the model gets their results, and the user sees their activity lines, in the
order of the calls; a write among them waits for the reads before it, and the reads after it see
what it wrote. (That they overlap is shown by tests/agent/test_side_by_side.py's counter, and how
much time it saves by benchmarks/side_by_side.py.)"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_user_config
from support.harness import read_until, server_args
from support.requests_seen import activity_lines, messages, of_role
from support.stdio_mcp import GENEROUS_START_S

FILES = {"a.txt": "alpha\n", "b.txt": "bravo\nbravo\n", "c.txt": "charlie\n" * 3, "d.txt": "delta\n" * 4}


def reply_with(form: str, *calls: tuple[str, dict]) -> Reply:
    """One reply making all the calls, as native tool calls or as [CALL] lines in its text."""
    if form == "native":
        return Reply(text="", tool_calls=[{"name": name, "arguments": arguments, "id": f"call_{n}"}
                                          for n, (name, arguments) in enumerate(calls)])
    return Reply(text="\n".join(f"[CALL] {name} {json.dumps(arguments)}" for name, arguments in calls))


def results_sent(request: dict, form: str) -> list[str]:
    """What the model was told about its last reply's calls, one text per call, in the order sent."""
    if form == "native":
        return [message["content"] for message in of_role(request, "tool")]
    content = messages(request)[-1]["content"]
    return content.split("\n\n[")[1:] if content.startswith("Tool results:") else []


@pytest.mark.parametrize("form", ["native", "text"])
def test_four_reads_in_one_reply_answer_in_call_order(fake, run_ayder, project, form):
    for name, text in FILES.items():
        (project / name).write_text(text)
    reads = [("read_file", {"file_path": name}) for name in FILES]
    fake.queue(reply_with(form, *reads), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "read the four files")
    assert result.returncode == 0, result.stderr

    assert activity_lines(result.stderr) == [
        '→ read_file(file_path="a.txt")  ✓ 1 line', '→ read_file(file_path="b.txt")  ✓ 2 lines',
        '→ read_file(file_path="c.txt")  ✓ 3 lines', '→ read_file(file_path="d.txt")  ✓ 4 lines']
    sent = results_sent(fake.chat_requests()[1], form)
    assert len(sent) == 4
    for text, word in zip(sent, ("alpha", "bravo", "charlie", "delta")):
        assert word in text and all(other not in text for other in {"alpha", "bravo", "charlie", "delta"} - {word})
    if form == "native":
        assert [m["tool_call_id"] for m in of_role(fake.chat_requests()[1], "tool")] == [f"call_{n}" for n in range(4)]


@pytest.mark.parametrize("form", ["native", "text"])
def test_a_write_between_reads_runs_after_the_reads_before_it_and_before_the_reads_after_it(
        fake, run_ayder, project, form):
    (project / "a.txt").write_text("old text\n")
    (project / "b.txt").write_text("bravo\n")
    fake.queue(reply_with(form, ("read_file", {"file_path": "a.txt"}), ("read_file", {"file_path": "b.txt"}),
                          ("write_file", {"file_path": "a.txt", "content": "new text\n"}),
                          ("read_file", {"file_path": "a.txt"}), ("read_file", {"file_path": "b.txt"})),
               Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "-w", "rewrite a.txt")
    assert result.returncode == 0, result.stderr

    lines = activity_lines(result.stderr)
    assert [line.split("  ")[0] for line in lines] == [
        '→ read_file(file_path="a.txt")', '→ read_file(file_path="b.txt")',
        '→ write_file(file_path="a.txt", content="new text\\n")',
        '→ read_file(file_path="a.txt")', '→ read_file(file_path="b.txt")']
    sent = results_sent(fake.chat_requests()[1], form)
    assert len(sent) == 5
    assert "old text" in sent[0] and "new text" not in sent[0]  # read before the write ran
    assert "new text" in sent[3] and "old text" not in sent[3]  # read after it: sees what it wrote
    assert (project / "a.txt").read_text() == "new text\n"


SLOW = "(a+)+b"  # Python's re backtracks about 20 ms on each line below (more on a busy machine): 20 s a search


def test_ctrl_c_while_four_searches_run_stops_them_all_and_leaves_every_line_ended(fake, spawn_ayder, project,
                                                                                    isolated_env):
    # The searches' own limit (tool_timeout_s, 30 s) is not the point: on a busy machine it could end one first.
    write_user_config(isolated_env, {"tool_timeout_s": 600})
    for directory in range(4):
        (project / f"d{directory}").mkdir()
        # Many short lines rather than few long ones: Python's re holds the GIL for the whole of a line, so
        # the console, which names the calls, waits for each line to end before it can say a word.
        for n in range(1000):
            (project / f"d{directory}" / f"f{n}.txt").write_text("a" * 18 + "!\n")
    searches = [("search_codebase", {"pattern": SLOW, "directory": f"d{n}"}) for n in range(4)]
    fake.queue(reply_with("native", *searches), Reply(text="never requested"))
    # Without rg on PATH, search_codebase searches in Python, where this pattern is slow.
    path = os.pathsep.join(entry for entry in os.environ["PATH"].split(os.pathsep)
                           if not (Path(entry) / "rg").exists())
    process = spawn_ayder(*server_args(fake, "openai"), "find it", env={"PATH": path})
    # the first call's line: the searches run (a generous guard: a busy machine starts a process slowly)
    seen = read_until(process.stderr, b"search_codebase(", timeout_s=120)
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=30)
    err = (seen + rest).decode()

    assert process.returncode == 130, err
    assert "Traceback" not in err and err.endswith("\n")
    assert activity_lines(err) == [
        f'→ search_codebase(pattern="{SLOW}", directory="d{n}")  ✗ interrupted by the user' for n in range(4)]
    assert len(fake.chat_requests()) == 1


MEETING = str(Path(__file__).with_name("meeting_server.py"))


@pytest.mark.parametrize("permission", ["r", "x"])
def test_the_tools_of_a_read_only_mcp_server_run_side_by_side(fake, run_ayder, isolated_env, permission):
    pytest.importorskip("mcp")
    write_user_config(isolated_env, {"mcp_servers": {
        "meeting": {"command": sys.executable, "args": [MEETING], "permission": permission,
                    "startup_timeout_s": GENEROUS_START_S,
                    "env": {"MEET_WAIT_S": "10" if permission == "r" else "0.2"}}}})  # r: never waits it out
    fake.queue(reply_with("native", *[("meeting__meet", {"n": n}) for n in range(4)]), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "-x", "meet")
    assert result.returncode == 0, result.stderr

    sent = results_sent(fake.chat_requests()[1], "native")
    # A server the user lets read runs its calls side by side; one with x (the default) one by one.
    together = 4 if permission == "r" else 1
    assert [text.splitlines()[-1] for text in sent] == [f"call {n}: {together} inside at once" for n in range(4)]
    assert [line.split("  ")[0] for line in activity_lines(result.stderr)] == [
        f'→ meeting__meet(n={n})' for n in range(4)]
