"""The command policy's tables built afresh for every test here: RULES and WRAPPERS are built once, at
import, so without this a broken factory (deny.built_rules, what_runs.built_wrappers) would only be
seen by the few tests that call it, and a mutation run, which changes code after the import, by none."""

from __future__ import annotations

import pytest

from ayder_cli.command_policy import deny
from ayder_cli.command_policy import what_runs


@pytest.fixture(autouse=True)
def command_policy_built_afresh(monkeypatch):
    monkeypatch.setattr(deny, "RULES", deny.built_rules())
    monkeypatch.setattr(what_runs, "WRAPPERS", what_runs.built_wrappers())
