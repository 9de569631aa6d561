"""max_malformed_retries: how many corrective messages a model whose calls are all malformed gets
before the turn stops, through the real ayder against the fake server."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import messages

BROKEN = '[CALL] read_file {"file_path": "a.txt'


def run_with_retries(fake, run_ayder, project, retries: int):
    write_json(project / "retries.json", {"max_malformed_retries": retries})
    fake.queue(*[Reply(text=BROKEN) for _ in range(retries + 1)], Reply(text="never requested"))
    return run_ayder(*server_args(fake, "ollama"), "-c", "retries.json", "q")


def test_with_0_the_first_malformed_reply_stops_the_turn_without_a_correction(fake, run_ayder, project):
    result = run_with_retries(fake, run_ayder, project, 0)
    assert len(fake.chat_requests()) == 1
    assert "malformed tool calls 1 time" in result.stderr
    assert result.returncode == 1
    assert "never requested" not in result.stdout


def test_with_3_the_malformed_call_is_corrected_3_times_then_stopped(fake, run_ayder, project):
    result = run_with_retries(fake, run_ayder, project, 3)
    requests = fake.chat_requests()
    assert len(requests) == 4  # the first reply and three corrections
    for request in requests[1:]:
        assert "not valid JSON" in messages(request)[-1]["content"]
    assert "malformed tool calls 4 times in a row" in result.stderr
    assert result.returncode == 1


@pytest.mark.parametrize("value", [-1, 1.5, "2"])
def test_a_bad_value_is_a_one_line_usage_error(run_ayder, project, value):
    write_json(project / "retries.json", {"max_malformed_retries": value})
    result = run_ayder("-c", "retries.json", "q")
    assert result.returncode == 2
    assert '"max_malformed_retries" must be an integer >= 0' in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2
