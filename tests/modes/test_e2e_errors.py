"""Failures end to end: one clear line (and a hint), no traceback, the right exit code."""

from __future__ import annotations

import threading

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args

SECRET = "sk-test-ZQX9-very-secret-4242"


def assert_clean_error(result, code: int = 1) -> str:
    """The run failed with `code`, said so on stderr, printed no traceback; returns stderr."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "error:" in result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


@pytest.fixture
def few_retries(project):
    """One retry, so the tests of retried statuses stay quick."""
    return write_json(project / ".ayder" / "config.json", {"max_retries": 1})


# --- the server is not there


def test_ollama_not_reachable_names_the_url_and_suggests_ollama_serve(run_ayder, closed_url):
    err = assert_clean_error(run_ayder("--base-url", closed_url, "q"))
    assert closed_url in err
    assert "ollama serve" in err
    assert len(err.strip().splitlines()) <= 2


def test_openai_server_not_reachable_names_the_url(run_ayder, closed_url, few_retries):
    err = assert_clean_error(run_ayder("-p", "openai", "--base-url", closed_url + "/v1", "q"))
    assert f"{closed_url}/v1" in err
    assert "ollama" not in err.lower()


def test_debug_shows_the_traceback_and_keeps_the_exit_code(run_ayder, closed_url, few_retries):
    plain = run_ayder("--base-url", closed_url, "q")
    debug = run_ayder("--base-url", closed_url, "--debug", "q")
    assert "Traceback" not in plain.stderr
    assert "Traceback" in debug.stderr
    assert plain.returncode == debug.returncode == 1
    assert "ollama serve" in debug.stderr


# --- the server says no


def test_ollama_model_not_found_suggests_ollama_pull(fake, run_ayder):
    fake.queue(Reply(status=404, error='model "nosuch:1b" not found, try pulling it first'))
    err = assert_clean_error(run_ayder("--base-url", fake.url, "-m", "nosuch:1b", "q"))
    assert "ollama pull nosuch:1b" in err


def test_openai_model_not_found_says_so(fake, run_ayder):
    fake.queue(Reply(status=404, error="The model `nosuch` does not exist or you do not have access to it."))
    err = assert_clean_error(run_ayder(*server_args(fake, "openai"), "-m", "nosuch", "q"))
    assert "model not found" in err
    assert "nosuch" in err
    assert "-m NAME (in a session: /model NAME)" in err  # a REPL user is not sent to a flag


@pytest.mark.parametrize("verbose", [False, True], ids=["quiet", "verbose"])
def test_401_names_the_env_var_and_never_shows_the_key(fake, run_ayder, verbose):
    fake.queue(Reply(status=401, error="Incorrect API key provided", echo_auth=True))
    flags = ["-v"] if verbose else []
    result = run_ayder(*server_args(fake, "openai"), *flags, "q", env={"OPENAI_API_KEY": SECRET})
    err = assert_clean_error(result)
    assert "OPENAI_API_KEY" in err
    assert "401" in err
    assert fake.chat_requests()[0]["headers"]["Authorization"] == f"Bearer {SECRET}"  # the key was sent ...
    assert SECRET not in result.stdout + result.stderr  # ... and never shown
    assert SECRET[-8:] not in result.stdout + result.stderr


def test_ollama_key_from_the_config_is_sent_but_never_shown(fake, run_ayder, isolated_env):
    config = write_json(isolated_env / ".config" / "ayder" / "config.json", {"api_key": SECRET})
    config.chmod(0o600)
    fake.queue(Reply(status=401, error="unauthorized", echo_auth=True))
    result = run_ayder("--base-url", fake.url, "-v", "q")
    assert_clean_error(result)
    assert fake.chat_requests()[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert "unauthorized" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_401_without_a_key_says_none_is_set(fake, run_ayder):
    fake.queue(Reply(status=401, error="Missing API key"))
    err = assert_clean_error(run_ayder(*server_args(fake, "openai"), "q"))
    assert "no API key is set" in err and "OPENAI_API_KEY" in err
    assert "Authorization" not in fake.chat_requests()[0]["headers"]


def test_mid_stream_error_echoing_the_key_does_not_show_it(fake, run_ayder):
    fake.queue(Reply(text="some text", error_mid_stream=f"upstream rejected key {SECRET}"))
    result = run_ayder(*server_args(fake, "openai"), "-v", "q", env={"OPENAI_API_KEY": SECRET})
    assert_clean_error(result)
    assert "upstream rejected key" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_verbose_shows_request_metadata_but_not_the_key(fake, run_ayder):
    result = run_ayder(*server_args(fake, "openai"), "-v", "q", env={"OPENAI_API_KEY": SECRET})
    assert result.returncode == 0, result.stderr
    assert f"POST {fake.openai_url}/chat/completions" in result.stderr
    assert "HTTP 200" in result.stderr
    assert "API key set" in result.stderr
    assert "model=gpt-4.1-mini" in result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert result.stdout == "ok\n"


def test_without_verbose_no_request_metadata(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "q")
    assert "POST" not in result.stderr and "HTTP 200" not in result.stderr


def test_400_shows_the_server_message(fake, run_ayder, protocol):
    # Twice: an OpenAI client may ask once more without stream_options before it gives up.
    rejected = Reply(status=400, error="context length exceeded: 9000 > 8192")
    fake.queue(rejected, rejected)
    err = assert_clean_error(run_ayder(*server_args(fake, protocol), "q"))
    assert "context length exceeded: 9000 > 8192" in err


def test_500_is_retried_then_succeeds(fake, run_ayder, protocol, few_retries, retry_pauses):
    fake.queue(Reply(status=500, error="boom"), Reply(text="recovered"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "recovered\n"
    assert len(fake.chat_requests()) == 2
    assert retry_pauses == [0.25]  # the backoff before the second try (recorded, not waited)


def test_500_is_retried_then_reported(fake, run_ayder, protocol, few_retries, retry_pauses):
    fake.queue(Reply(status=500, error="boom inside"), Reply(status=500, error="boom inside"))
    err = assert_clean_error(run_ayder(*server_args(fake, protocol), "q"))
    assert "500" in err and "boom inside" in err
    assert len(fake.chat_requests()) == 2
    assert retry_pauses == [0.25]  # after the last try, no pause


def test_429_with_retry_after_is_retried(fake, run_ayder, protocol, retry_pauses):
    fake.queue(Reply(status=429, error="slow down", headers={"Retry-After": "3"}), Reply(text="finally"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "finally\n"
    assert len(fake.chat_requests()) == 2
    assert retry_pauses == [3.0]  # as long as the server asked


# --- the stream breaks


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
def test_cut_mid_stream_keeps_the_partial_text_and_says_so(fake, run_ayder, protocol, chunked):
    fake.queue(Reply(chunks=["partial ", "answer ", "never sent"], cut_after=2, chunked=chunked))
    result = run_ayder(*server_args(fake, protocol), "q")
    err = assert_clean_error(result)
    assert result.stdout == "partial answer \n"
    assert "cut off" in err or "ended before" in err
    assert "kept in the conversation" in err  # the next step, not just the failure


def test_mid_stream_error_object_is_reported_after_the_partial_text(fake, run_ayder, protocol):
    fake.queue(Reply(chunks=["Half ", "a reply"], error_mid_stream="the model crashed"))
    result = run_ayder(*server_args(fake, protocol), "q")
    err = assert_clean_error(result)
    assert result.stdout == "Half a reply\n"
    assert "the model crashed" in err


def test_slow_first_token_still_works(fake, run_ayder, protocol):
    fake.queue(Reply(text="late but fine", first_delay_s=0.3))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "late but fine\n"


def test_a_stalled_stream_is_reported_after_timeout_s(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"timeout_s": 0.3})
    fake.queue(Reply(chunks=["started ", "then silence"], hold_after=1, release=threading.Event()))
    result = run_ayder("--base-url", fake.url, "q")
    err = assert_clean_error(result)
    assert result.stdout == "started \n"
    assert "stalled" in err


def test_sse_keepalive_comments_and_multiline_data(fake, run_ayder):
    fake.queue(Reply(text="kept alive", keepalive_comments=True, multiline_data=True))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "kept alive\n"


def test_server_rejecting_stream_options_is_asked_again_without_them(fake, run_ayder):
    fake.queue(Reply(reject_stream_options=True), Reply(text="fine without"))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fine without\n"
    first, second = (r["body"] for r in fake.chat_requests())
    assert "stream_options" in first and "stream_options" not in second


# --- configuration errors: exit 2, naming the file and the key


def test_invalid_json_config_names_file_line_and_column(fake, run_ayder, project):
    path = project / ".ayder" / "config.json"
    path.parent.mkdir()
    path.write_text('{\n  "model": "x",\n  "num_ctx": ,\n}\n')
    err = assert_clean_error(run_ayder("--base-url", fake.url, "q"), code=2)
    assert str(path) in err
    assert "line 3" in err and "column 14" in err
    assert fake.chat_requests() == []


def test_wrong_type_in_config_names_file_and_key(fake, run_ayder, isolated_env):
    path = write_json(isolated_env / ".config" / "ayder" / "config.json", {"num_ctx": "big"})
    err = assert_clean_error(run_ayder("--base-url", fake.url, "q"), code=2)
    assert str(path) in err and '"num_ctx"' in err and "integer" in err


def test_unknown_key_in_config_suggests_the_nearest(fake, run_ayder, project):
    write_json(project / "mine.json", {"modle": "x"})
    err = assert_clean_error(run_ayder("--base-url", fake.url, "-c", "mine.json", "q"), code=2)
    assert "mine.json" in err and '"modle"' in err
    assert 'did you mean "model"' in err


def test_missing_config_file_given_with_c(fake, run_ayder, project):
    err = assert_clean_error(run_ayder("--base-url", fake.url, "-c", "absent.json", "q"), code=2)
    assert "absent.json" in err and "not found" in err


def test_bad_flag_value_is_a_usage_error(fake, run_ayder):
    result = run_ayder("--base-url", "localhost:11434", "q")
    err = assert_clean_error(result, code=2)
    assert "--base-url" in err and "http://" in err


def test_config_error_with_debug_shows_the_traceback(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"stream": "yes"})
    result = run_ayder("--base-url", fake.url, "--debug", "q")
    assert result.returncode == 2
    assert "Traceback" in result.stderr and '"stream"' in result.stderr


def test_unknown_flag_is_exit_2(run_ayder):
    result = run_ayder("--no-such-flag")
    assert result.returncode == 2
    assert "no-such-flag" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_working_directory_that_is_gone_is_a_usage_error(run_ayder, tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    gone.rmdir()  # as when the directory ayder was started in is removed
    result = run_ayder("q", cwd=gone)
    assert result.returncode == 2, result.stderr
    assert "the current directory no longer exists" in result.stderr and "--root" in result.stderr
    assert "internal error" not in result.stderr


def test_the_ayder_command_exits_with_the_status_of_the_run(fake, run_ayder_process, closed_url):
    """The console script (a real process) exits with what the run returned: 0, 2 for usage, 1 for a failure."""
    ok = run_ayder_process(*server_args(fake, "ollama"), "q")
    assert (ok.returncode, ok.stdout) == (0, "ok\n"), ok.stderr
    usage = run_ayder_process("--no-such-flag")
    assert usage.returncode == 2 and "no-such-flag" in usage.stderr
    failed = run_ayder_process("--base-url", closed_url, "q")
    assert failed.returncode == 1 and "ollama serve" in failed.stderr and "Traceback" not in failed.stderr


def test_error_lines_are_plain_text_when_not_a_terminal(fake, run_ayder):
    fake.queue(Reply(status=400, error="nope"))
    result = run_ayder("--base-url", fake.url, "q")
    assert "\033[" not in result.stderr
    assert result.stdout == ""
