"""Transcripts under .ayder/sessions/: written at once, read back after a crash, found by id, prefix or name."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ayder_cli.errors import AyderError
from ayder_cli.storage.sessions import Session, SessionStore
from ayder_cli.storage.transcript import SessionError, SessionNotFound, load, usage_of

CONVERSATION = [
    {"role": "user", "content": "Lies bitte die Datei grüße.txt — 日本語 too 🙂"},
    {"role": "assistant", "content": "",
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "read_file", "arguments": json.dumps({"file_path": "grüße.txt"})}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "ok:\nHallo Welt ✓"},
    {"role": "assistant", "content": "The file says „Hallo Welt“."},
]


def session_files(root: Path) -> list[Path]:
    return sorted((root / ".ayder" / "sessions").glob("*.jsonl"))


def test_messages_round_trip_with_tool_calls_and_unicode(tmp_path):
    store = SessionStore(tmp_path)
    session = store.start()
    for message in CONVERSATION:
        session.append(message)

    [path] = session_files(tmp_path)
    assert path == session.path
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{6}\.jsonl", path.name)
    assert path.name.endswith(f"-{session.id}.jsonl")
    messages, warnings = load(path)
    assert messages == CONVERSATION
    assert warnings == []
    assert "grüße" in path.read_text(encoding="utf-8")  # readable, not \u-escaped


def test_nothing_is_written_before_the_first_message(tmp_path):
    store = SessionStore(tmp_path)
    store.start()
    assert session_files(tmp_path) == []
    assert store.latest() is None
    assert store.list_sessions() == []


def test_each_message_is_on_disk_as_soon_as_it_is_appended(tmp_path):
    session = SessionStore(tmp_path).start()
    session.append(CONVERSATION[0])
    assert load(session.path)[0] == CONVERSATION[:1]
    session.append(CONVERSATION[1])
    assert load(session.path)[0] == CONVERSATION[:2]


def test_a_key_is_never_written(tmp_path):
    key = "sk-live-0123456789abcdef"

    def redact(text: str) -> str:
        return text.replace(key, "[REDACTED]")

    store = SessionStore(tmp_path, redact=redact)
    session = store.start()
    session.append({"role": "user", "content": f"my key is {key}, use it"})
    session.append({"role": "assistant", "content": "",
                    "tool_calls": [{"id": "c1", "type": "function",
                                    "function": {"name": "run_shell_command",
                                                 "arguments": json.dumps({"command": f"export KEY={key}"})}}]})
    session.append({"role": "tool", "tool_call_id": "c1", "content": f"ok:\n{key}"})
    session.name("with-key")

    for file in (tmp_path / ".ayder").rglob("*"):
        if file.is_file():
            assert key.encode() not in file.read_bytes(), file
    messages, _ = load(session.path)
    assert messages[0]["content"] == "my key is [REDACTED], use it"
    assert "[REDACTED]" in messages[1]["tool_calls"][0]["function"]["arguments"]
    assert messages[2]["content"] == "ok:\n[REDACTED]"


def test_a_torn_last_line_is_skipped_with_a_warning_and_every_complete_message_kept(tmp_path):
    session = SessionStore(tmp_path).start()
    for message in CONVERSATION:
        session.append(message)
    lines_before = session.path.read_bytes().count(b"\n")
    with open(session.path, "ab") as file:  # a write cut off half way
        file.write(json.dumps({"role": "assistant", "content": "half of a long reply"}).encode()[:25])

    messages, warnings = load(session.path)
    assert messages == CONVERSATION
    assert len(warnings) == 1
    assert str(session.path) in warnings[0]
    assert f"line {lines_before + 1}" in warnings[0]


def test_a_broken_line_in_the_middle_is_skipped_with_a_warning(tmp_path):
    session = SessionStore(tmp_path).start()
    session.append(CONVERSATION[0])
    with open(session.path, "ab") as file:
        file.write(b'{"role": "assistant", "cont\n')
    session.append(CONVERSATION[3])

    messages, warnings = load(session.path)
    assert messages == [CONVERSATION[0], CONVERSATION[3]]
    assert len(warnings) == 1
    assert session.path.name in warnings[0] and "line 3" in warnings[0]


def test_resuming_after_a_torn_line_keeps_the_new_messages_whole(tmp_path):
    store = SessionStore(tmp_path)
    session = store.start()
    session.append(CONVERSATION[0])
    with open(session.path, "ab") as file:
        file.write(b'{"role": "assistant", "content": "cut')
    session.close()  # that run ends: the next one may write

    resumed = Session.resume(store.find(session.id))
    assert resumed.path == session.path
    resumed.append(CONVERSATION[3])
    resumed.close()
    Session.resume(session.path).append({"role": "user", "content": "and again"})

    messages, warnings = load(session.path)
    assert messages == [CONVERSATION[0], CONVERSATION[3], {"role": "user", "content": "and again"}]
    assert len(warnings) == 1  # only the torn line is lost
    assert len(session_files(tmp_path)) == 1


CHILD = textwrap.dedent("""
    import sys
    from ayder_cli.storage.sessions import SessionStore
    session = SessionStore(sys.argv[1]).start()
    print(session.path, flush=True)
    filler = "x" * 20000
    number = 0
    while True:
        session.append({"role": "user", "content": f"message {number} " + filler})
        print(number, flush=True)
        number += 1
""")


def test_a_killed_process_loses_at_most_the_message_in_flight(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)],
                             stdout=subprocess.PIPE, text=True)
    try:
        path = Path(child.stdout.readline().strip())
        acknowledged = -1
        while acknowledged < 30:  # appends that returned before the kill
            acknowledged = int(child.stdout.readline())
        child.send_signal(signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL

    messages, warnings = load(path)
    numbers = [int(message["content"].split()[1]) for message in messages]
    assert numbers == list(range(len(numbers)))  # nothing out of order, nothing lost in between
    assert len(numbers) >= acknowledged + 1  # every append that returned is there
    assert all(message["content"].endswith("x" * 20000) for message in messages)
    lines = path.read_bytes().split(b"\n")
    assert len(warnings) <= 1
    if warnings:
        assert lines[-1] != b""  # the only loss is a torn last line
        assert f"line {len(lines)}" in warnings[0]


def test_latest_picks_the_session_written_most_recently(tmp_path):
    store = SessionStore(tmp_path)
    assert store.latest() is None
    older, newer = store.start(), store.start()
    older.append({"role": "user", "content": "old"})
    newer.append({"role": "user", "content": "new"})
    os.utime(older.path, ns=(1_700_000_000 * 10**9,) * 2)
    os.utime(newer.path, ns=(1_800_000_000 * 10**9,) * 2)
    assert store.latest() == newer.path

    os.utime(older.path, ns=(1_900_000_000 * 10**9,) * 2)  # resumed and written to since
    assert store.latest() == older.path


def test_latest_is_per_project(tmp_path):
    one, two = SessionStore(tmp_path / "one"), SessionStore(tmp_path / "two")
    one.start().append({"role": "user", "content": "in one"})
    assert two.latest() is None
    assert one.latest() is not None


def two_sessions(tmp_path) -> tuple[SessionStore, Session, Session]:
    store = SessionStore(tmp_path)
    first, second = store.start(), store.start()
    first.append({"role": "user", "content": "first"})
    second.append({"role": "user", "content": "second"})
    return store, first, second


def test_find_by_id_prefix_and_path(tmp_path):
    store, first, second = two_sessions(tmp_path)
    assert store.find(first.id) == first.path
    assert store.find(second.id) == second.path
    assert store.find(first.path.name) == first.path
    assert store.find(first.path.stem) == first.path
    assert store.find(str(second.path)) == second.path
    # the shortest file-name prefix that tells them apart
    prefix_length = next(n for n in range(1, 30) if first.path.name[:n] != second.path.name[:n])
    assert store.find(first.path.name[:prefix_length]) == first.path
    assert store.find(first.id[:5]) == first.path  # a prefix of the id


def test_find_by_name_given_with_save(tmp_path):
    store, first, second = two_sessions(tmp_path)
    first.name("refactor-parser")
    first.name("refactor-parser")  # saving again under the same name is fine
    assert store.find("refactor-parser") == first.path
    assert SessionStore(tmp_path).find("refactor-parser") == first.path  # survives a restart
    assert Session.resume(store.find("refactor-parser")).path == first.path
    assert [info.names for info in store.list_sessions() if info.path == first.path] == [("refactor-parser",)]

    with pytest.raises(SessionError) as taken:
        second.name("refactor-parser")
    assert first.path.name in taken.value.message
    assert store.find("refactor-parser") == first.path
    with pytest.raises(SessionError):
        second.name("../escape")


def test_naming_a_session_before_its_first_message_makes_it_findable(tmp_path):
    store = SessionStore(tmp_path)
    session = store.start()
    session.name("early")
    assert store.find("early") == session.path
    session.append({"role": "user", "content": "hello"})
    assert load(store.find("early"))[0] == [{"role": "user", "content": "hello"}]


def test_an_ambiguous_prefix_lists_the_candidates(tmp_path):
    store, first, second = two_sessions(tmp_path)
    with pytest.raises(SessionNotFound) as error:
        store.find("20")  # both file names start with the year
    assert isinstance(error.value, AyderError)
    assert first.id in error.value.message and second.id in error.value.message  # short ids
    assert first.path.name not in error.value.message


def test_an_unknown_session_names_the_ones_there_are(tmp_path):
    store, first, second = two_sessions(tmp_path)
    with pytest.raises(SessionNotFound) as error:
        store.find("no-such-session")
    assert "no-such-session" in error.value.message
    assert first.id in error.value.hint and second.id in error.value.hint  # short ids, newest first
    assert first.path.name not in error.value.hint
    with pytest.raises(SessionNotFound):
        SessionStore(tmp_path / "elsewhere").find("anything")
    with pytest.raises(SessionNotFound):
        store.find("")


def test_list_sessions_fields(tmp_path):
    store = SessionStore(tmp_path)
    before = datetime.now(timezone.utc).replace(microsecond=0)
    long_prompt = "Please   refactor\nthe parser so that " + "every intent format is handled " * 5
    session = store.start()
    session.append({"role": "user", "content": long_prompt})
    session.append(CONVERSATION[1])
    session.append(CONVERSATION[2])
    after = datetime.now(timezone.utc)
    quiet = store.start()
    quiet.append({"role": "assistant", "content": "no user message here"})
    os.utime(session.path, ns=(1_700_000_000 * 10**9,) * 2)

    infos = store.list_sessions()
    assert [info.path for info in infos] == [quiet.path, session.path]  # newest first
    info = infos[1]
    assert info.id == session.id
    assert before <= info.started <= after
    assert info.started.tzinfo is not None
    assert info.first_prompt.startswith("Please refactor the parser so that every")
    assert "\n" not in info.first_prompt
    assert len(info.first_prompt) <= 60
    assert info.messages == 3
    assert info.size == session.path.stat().st_size
    assert info.names == ()
    assert infos[0].first_prompt == ""
    assert session.id in info.describe() and "3 msgs" in info.describe()


def test_transcripts_are_private_to_the_user(tmp_path):
    session = SessionStore(tmp_path).start()
    session.append({"role": "user", "content": "hi"})
    assert session.path.stat().st_mode & 0o077 == 0


# --- pruning, unanswered sessions, usage records


def test_prune_keeps_the_newest_and_any_session_another_ayder_writes(tmp_path):
    store = SessionStore(tmp_path, keep=2)
    sessions = []
    for number in range(4):
        session = store.start()
        session.append({"role": "user", "content": f"q{number}"})
        os.utime(session.path, ns=((1_700_000_000 + number) * 10**9,) * 2)
        sessions.append(session)
    sessions[0].close()
    sessions[2].close()
    sessions[3].close()  # sessions[1] is still held by this (live) process: kept
    deleted = store.prune()
    assert deleted == [sessions[0].path]
    assert {path for path, _ in store._files()} == {s.path for s in sessions[1:]}


def test_an_unanswered_new_session_is_removed_at_close_and_an_answered_one_kept(tmp_path):
    store = SessionStore(tmp_path)
    unanswered = store.start()
    unanswered.append({"role": "user", "content": "hello?"})
    unanswered.close(keep_unanswered=False)
    assert not unanswered.path.exists() and not unanswered.path.with_suffix(".lock").exists()
    answered = store.start()
    answered.append({"role": "user", "content": "hello?"})
    answered.append({"role": "assistant", "content": "hi"})
    answered.append_usage({"prompt_tokens": 5, "completion_tokens": 2, "requests": 1})
    answered.close(keep_unanswered=False)
    assert [m["role"] for m in load(answered.path)[0]] == ["user", "assistant"]
    assert usage_of(answered.path) == {"prompt_tokens": 5, "completion_tokens": 2, "cached_tokens": 0, "requests": 1,
                                        "reread_tokens": 0}
    resumed = Session.resume(store.find(answered.id))  # an earlier run's session is never removed
    resumed.append({"role": "user", "content": "again"})
    resumed.close(keep_unanswered=False)
    assert answered.path.exists()
