"""`ayder acp` on the command line: a flag of a terminal run that means nothing to it is a usage error, said
in one line before anything starts; without it, it serves until the editor closes stdin."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("flag", [["--json"], ["--resume", "abc"], ["--system", "be brief"], ["--root", "."]])
def test_a_flag_acp_cannot_use_is_a_usage_error(run_ayder, flag):
    result = run_ayder("acp", *flag)
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"error: {flag[0]} is not for ayder acp" in result.stderr


def test_it_answers_initialize_and_ends_with_stdin(run_ayder):
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    result = run_ayder("acp", input=json.dumps(request) + "\n")
    assert result.returncode == 0
    [answer] = [json.loads(line) for line in result.stdout.splitlines()]
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == 1
    assert answer["result"]["agentCapabilities"]["loadSession"] is True and answer["result"]["authMethods"] == []
