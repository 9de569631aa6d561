"""One masking for every output and every file: an API key is never printed or saved by ayder."""

from __future__ import annotations

import io

import pytest
from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.masking import MaskedStream, Secrets, masked_within

KEY = "sk-live-SECRET-4242"


def every_file(project) -> str:
    """Everything ayder keeps under .ayder/, as text."""
    return "".join(path.read_text(errors="replace") for path in (project / ".ayder").rglob("*") if path.is_file())


def test_a_key_the_model_echoes_is_masked_on_stdout_even_split_across_deltas(fake, run_ayder, protocol):
    fake.queue(Reply(text=f"your key is {KEY}, keep it safe", chunks=["your key is sk-li", "ve-SECR", "ET-4242, keep it safe"]))
    result = run_ayder(*server_args(fake, protocol), "what is my key?", env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "your key is ***, keep it safe\n"
    assert KEY not in result.stderr


def test_a_key_in_a_tool_call_is_masked_in_the_activity_line_and_every_file_ayder_writes(fake, run_ayder, project):
    fake.queue(
        Reply(text="", tool_calls=[
            {"name": "save_memory", "arguments": {"content": f"the key is {KEY}"}},
            {"name": "create_task", "arguments": {"title": f"rotate {KEY}", "description": f"old key {KEY}"}},
        ]),
        Reply(text="done"),
        Reply(text=f"summary: the key was {KEY}"),  # the checkpoint summary, once -I 1 is spent
        Reply(text="continued"),
    )
    result = run_ayder(*server_args(fake, "openai"), "-w", "--tools", "memory,tasks", "-I", "1",
                       "note the key", env={"OPENAI_API_KEY": KEY})
    assert KEY not in result.stderr and KEY not in result.stdout
    assert "rotate ***" in result.stderr  # the create_task activity line
    saved = every_file(project)
    assert "the key is ***" in saved and "old key ***" in saved
    assert KEY not in saved
    assert not [path for path in (project / ".ayder").rglob("*") if KEY in path.name]


def test_a_checkpoint_summary_never_holds_the_key(fake, run_ayder, project):
    call = Reply(text="", tool_calls=[{"name": "list_files", "arguments": {}}])
    fake.queue(call, call, Reply(text=f"checkpoint: the key is {KEY}"), Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "-I", "1", "work", env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    checkpoint = (project / ".ayder" / "memory" / "current_memory.md").read_text()
    assert "the key is ***" in checkpoint


@pytest.mark.parametrize("pieces", [["abc sk-live-SECRET-4242 def"], ["abc sk-", "live-SECRET-4242 def"],
                                    ["abc s", "k", "-live-SECRET-", "4242 def"], ["abc sk-live-SECRET-424", "2 def"]])
def test_a_masked_stream_masks_a_key_however_it_is_split(pieces):
    out = io.StringIO()
    stream = MaskedStream(out, Secrets([KEY]))
    for piece in pieces:
        stream.write(piece)
    stream.settle()
    assert out.getvalue() == "abc *** def"


def test_a_held_back_start_that_is_not_a_key_is_written_when_the_reply_ends():
    out = io.StringIO()
    stream = MaskedStream(out, Secrets([KEY]))
    stream.write("ends with sk-")
    assert out.getvalue() == "ends with "  # it could still become the key
    stream.settle()
    assert out.getvalue() == "ends with sk-"


def test_keys_are_masked_in_dict_keys_and_two_keys_masked_alike_both_stay():
    secrets = Secrets(["sk-live-SECRET-4242"])
    value = {"sk-live-SECRET-4242": 1, "x-sk-live-SECRET-4242": [{"sk-live-SECRET-4242": "sk-live-SECRET-4242"}],
             "***": 3}
    assert masked_within(value, secrets.mask) == {"***": 1, "x-***": [{"***": "***"}], "***#2": 3}


def test_short_values_are_not_taken_for_secrets():
    assert Secrets(["abc", ""]).mask("abc abc") == "abc abc"


def test_old_content_holding_the_key_is_undone_from_memory_and_never_saved(fake, run_ayder, project):
    (project / "settings.env").write_text(f"API_KEY={KEY}\n")
    fake.queue(Reply(text="", tool_calls=[{"name": "write_file",
                                           "arguments": {"file_path": "settings.env", "content": "API_KEY=\n"}}]),
               Reply(text="cleared"))
    result = run_ayder(*server_args(fake, "openai"), "-w", input="clear the key\n/undo\n",
                       env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    assert (project / "settings.env").read_text() == f"API_KEY={KEY}\n"  # /undo in the same run restores it
    assert KEY not in every_file(project)  # ... but the undo journal on disk never held it


def test_values_of_the_variables_in_secret_env_are_masked_too(fake, run_ayder, project):
    token = "ghp_TOKEN_the_model_saw"
    config = project / "cfg.json"
    config.write_text('{"secret_env": ["GITHUB_TOKEN"]}')
    fake.queue(Reply(text=f"the token is {token}"))
    result = run_ayder(*server_args(fake, "ollama"), "-c", str(config), "token?", env={"GITHUB_TOKEN": token})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the token is ***\n"
    assert token not in every_file(project)
