"""ayder --completion bash|zsh|fish: click's own completion script, and the answers the installed `ayder`
gives it at each Tab (checked in a real bash; in zsh and fish where they are installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.harness import ayder_command

SCRIPT_NAMED = pytest.mark.skipif(len(ayder_command()) != 1, reason="needs the installed `ayder` console script")


def completions(shell: str, script: Path, words: str, cwd: Path) -> str:
    """What `shell`, with `script` sourced, offers for `words` (the last one being completed)."""
    if shell == "bash":
        body = (f"source {script}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}}-1)); "
                'COMPREPLY=(); _ayder_completion ayder; printf "%s\\n" "${COMPREPLY[@]}"')
        command = ["bash", "--norc", "-c", body]
    else:  # fish: `complete --do-complete` asks the completions a Tab would
        command = ["fish", "--no-config", "-c", f"source {script}; complete --do-complete '{words}'"]
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(ayder_command()[0]).parent), os.environ["PATH"]])}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


@SCRIPT_NAMED
@pytest.mark.parametrize("shell", ["bash", pytest.param("fish", marks=pytest.mark.skipif(
    shutil.which("fish") is None, reason="fish is not installed"))])
def test_the_script_completes_options_and_their_values_in_the_shell(run_ayder, project, tmp_path, shell):
    result = run_ayder("--completion", shell)
    assert result.returncode == 0 and result.stderr == ""
    script = tmp_path / f"ayder.{shell}"
    script.write_text(result.stdout)
    assert "--trajectory" in completions(shell, script, "ayder --traj", project).split()
    assert completions(shell, script, "ayder -p o", project).split()[:2] == ["ollama", "openai"]
    offered = completions(shell, script, "ayder --completion z", project).split()
    assert offered[:1] == ["zsh"]


@SCRIPT_NAMED
def test_an_option_taking_a_file_leaves_the_path_to_the_shell(project):
    """The protocol the scripts speak: each answer is `type,value`; `file` and `dir` let the shell
    complete a path itself."""
    env = {**os.environ, "_AYDER_COMPLETE": "bash_complete", "COMP_CWORD": "2"}
    for option, kind in (("--trajectory", "file"), ("-f", "file"), ("--config", "file"), ("--root", "dir")):
        result = subprocess.run(ayder_command(), cwd=project, env={**env, "COMP_WORDS": f"ayder {option} "},
                                capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == [f"{kind},"], option


def test_zsh_gets_clicks_script_for_ayder(run_ayder):
    result = run_ayder("--completion", "zsh")
    assert result.returncode == 0
    assert result.stdout.startswith("#compdef ayder")
    assert "_AYDER_COMPLETE=zsh_complete ayder" in result.stdout


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_script_loads_in_zsh(run_ayder, tmp_path):
    script = tmp_path / "_ayder"
    script.write_text(run_ayder("--completion", "zsh").stdout)
    result = subprocess.run(["zsh", "-f", "-c", f"autoload -U compinit && compinit -u && source {script} "
                                                "&& print -r -- ${_comps[ayder]}"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "_ayder_completion"


def test_a_shell_click_has_no_script_for_is_a_usage_error(fake, run_ayder):
    result = run_ayder("--completion", "tcsh")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines()[0].startswith("error: invalid value for '--completion': 'tcsh'")
