"""Bytes that are not UTF-8 on stdin: replaced, said once, and the prompt still goes out."""

from __future__ import annotations

import pytest
from support.harness import server_args

BYTES = b"line one \xff\xfe caf\xe9\n"


@pytest.mark.parametrize("mode", ["--stdin", "prompt and piped context", "piped script"])
def test_undecodable_stdin_is_replaced_with_a_notice_and_sent(fake, run_ayder, mode):
    args = {"--stdin": ["--stdin"], "prompt and piped context": ["summarize"], "piped script": []}[mode]
    result = run_ayder(*server_args(fake, "ollama"), *args, input=BYTES)  # the bytes through a pipe
    stderr = result.stderr
    assert result.returncode == 0, stderr
    assert stderr.count("stdin held 3 bytes that are not UTF-8") == 1
    assert "internal error" not in stderr
    sent = fake.chat_requests()[0]["body"]["messages"][-1]["content"]
    assert "line one \ufffd\ufffd caf\ufffd" in sent
