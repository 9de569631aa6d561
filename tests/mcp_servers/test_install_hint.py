"""The command the missing-SDK error gives: the `mcp` extra from the checkout ayder was installed from, for
the installer that made ayder's environment (pip with this Python, pipx, uv). Tried by hand as printed:
pip, `pipx install --force` and `uv tool install --force` each brought the SDK (see the README)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ayder_cli.mcp_servers.install_hint import PIPX_METADATA, UV_RECEIPT, extra_command, installed_from

REPO = Path(__file__).resolve().parents[2]  # the checkout these tests run from, installed editable


def test_this_install_is_known_as_an_editable_one_from_this_checkout():
    checkout, editable = installed_from()
    assert Path(checkout).resolve() == REPO and editable


def test_a_pip_install_gets_this_pythons_pip_and_the_checkout(tmp_path):
    words = shlex.split(extra_command("mcp", prefix=tmp_path))
    assert words == [sys.executable, "-m", "pip", "install", "-e", f"{REPO}[mcp]"]


def test_a_python_path_with_a_space_is_quoted_for_the_shell(tmp_path):
    python = str(tmp_path / "my envs" / "bin" / "python")
    assert shlex.split(extra_command("mcp", prefix=tmp_path, python=python))[0] == python


def test_a_uv_tool_is_installed_again_with_the_extra(tmp_path):
    (tmp_path / UV_RECEIPT).write_text("[tool]\n")
    assert extra_command("mcp", prefix=tmp_path) == f"uv tool install --force {shlex.quote(f'{REPO}[mcp]')}"


def test_a_pipx_app_is_installed_again_with_the_extra(tmp_path):
    (tmp_path / PIPX_METADATA).write_text("{}")
    assert extra_command("mcp", prefix=tmp_path) == f"pipx install --force {shlex.quote(f'{REPO}[mcp]')}"
