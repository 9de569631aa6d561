"""A URL where something else answers (a proxy's error page, a web UI, a text body): one line naming
what came back, never the page itself, and never called a cut stream."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.pages import NGINX_502, WEB_UI

@pytest.fixture
def few_retries(project):
    return write_json(project / ".ayder" / "config.json", {"max_retries": 1})


def one_line_error(result) -> str:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_a_proxys_502_page_is_named_by_its_title_never_shown(fake, run_ayder, protocol, few_retries):
    fake.queue(*[Reply(status=502, page=NGINX_502)] * 2)
    line = one_line_error(run_ayder(*server_args(fake, protocol), "-m", "m", "q"))
    assert "got an HTML page, '502 Bad Gateway'" in line and "is this the API's URL?" in line
    assert "<" not in line and "nginx" not in line
    assert len(fake.chat_requests()) == 2  # a 502 may pass: retried as before


def test_a_web_page_answering_a_stream_is_not_a_cut_stream(fake, run_ayder, protocol):
    fake.queue(Reply(page=WEB_UI))
    result = run_ayder(*server_args(fake, protocol), "-m", "m", "q")
    line = one_line_error(result)
    assert "got an HTML page, 'Open WebUI'" in line and "(HTTP 200)" in line
    assert "cut off" not in result.stderr and "ended before" not in result.stderr
    assert "<" not in line and result.stdout == ""


def test_a_non_streamed_reply_that_is_not_json_is_asked_for_once_more(fake, run_ayder, protocol):
    fake.queue(Reply(page="upstream connect error or disconnect/reset before headers", content_type="text/plain"),
               Reply(text="the second answer"))
    result = run_ayder(*server_args(fake, protocol), "-m", "m", "--no-stream", "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the second answer\n"
    assert len(fake.chat_requests()) == 2


def test_a_non_streamed_reply_that_is_never_json_says_what_came_and_what_to_check(fake, run_ayder, protocol):
    fake.queue(Reply(page=WEB_UI), Reply(page=WEB_UI))
    line = one_line_error(run_ayder(*server_args(fake, protocol), "-m", "m", "--no-stream", "q"))
    assert "an HTML page, 'Open WebUI', not JSON" in line and "check base_url" in line
    assert len(fake.chat_requests()) == 2  # once more, not more


def test_an_empty_or_text_body_is_named_too(fake, run_ayder):
    fake.queue(Reply(page="", content_type="text/plain"), Reply(page="Bad Gateway", content_type="text/plain"))
    line = one_line_error(run_ayder(*server_args(fake, "openai"), "-m", "m", "--no-stream", "q"))
    assert "text/plain 'Bad Gateway', not JSON" in line
