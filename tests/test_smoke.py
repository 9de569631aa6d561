from fakellm import Reply


def test_one_shot_streams_answer_to_stdout_and_usage_to_stderr(fake, run_ayder):
    fake.queue(Reply(text="Hello from the model."))
    result = run_ayder("--base-url", fake.url, "say hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the model.\n"
    assert "tokens: prompt 12 · completion 7 · total 19" in result.stderr
    body = fake.chat_requests()[0]["body"]
    assert body["messages"][-1] == {"role": "user", "content": "say hi"}
