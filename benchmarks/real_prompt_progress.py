"""A long prompt read by a real llama.cpp server, watched on a terminal: does the server send
prompt_progress, what line ayder shows, the prompt speed it measured and the deadline it chose.

Run:  python benchmarks/real_prompt_progress.py [--base-url http://127.0.0.1:8765/v1] [--tokens 6000]
      [--timeout-s 5]

Needs a running llama-server (the project's shared real-llm/start-real-llm.sh starts one); without
one it says so and exits 0. ayder runs twice, as a process on a pseudo-terminal, with a fresh HOME
and a prompt of about --tokens tokens (a different one each time, so the server's cache holds only
the system prompt): the first run reads with nothing known of the server's speed (timeout_s
300, the default), the second with `timeout_s` set to --timeout-s, so that only the progress reports
and the speed measured by the first run keep it waiting. Both must end with an answer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WORDS = ("river", "stone", "lantern", "orchard", "copper", "meadow", "signal", "harbor", "ember", "willow",
         "quartz", "falcon", "thistle", "cobalt", "juniper", "tundra", "saffron", "glacier", "marble", "cedar")


def server_up(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/props", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def prompt_file(folder: Path, tokens: int, seed: int) -> Path:
    """About `tokens` tokens of plain words (a word and its space are about two tokens), then a question."""
    rng = random.Random(seed)
    lines = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(tokens // 24)]
    path = folder / f"prompt-{seed}.txt"
    path.write_text("Here is a list of lines:\n" + "\n".join(lines)
                    + "\n\nIn one short sentence: which word comes first in the list?\n", encoding="utf-8")
    return path


def ayder(args: list[str], home: Path, cwd: Path, limit_s: float):
    """The real ayder process on a terminal; everything it wrote, and how long it took."""
    import pexpect

    script = shutil.which("ayder", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "ayder_cli"]
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / ".state"), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "NO_COLOR"):
        env.pop(name, None)
    started = time.monotonic()
    child = pexpect.spawn(command[0], [*command[1:], *args], env=env, cwd=str(cwd), encoding="utf-8",
                          timeout=limit_s, dimensions=(24, 200))
    child.expect(pexpect.EOF)
    child.close()
    return child.before, child.exitstatus, time.monotonic() - started


def progress_lines(output: str) -> list[str]:
    """Each state of the updating line, escape sequences removed."""
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", output)
    found = []
    for piece in re.split(r"[\r\n]", plain):
        match = re.search(r"reading prompt .*", piece)
        if match:
            line = match.group(0).rstrip("…").strip()
            if not found or found[-1] != line:
                found.append(line)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--tokens", type=int, default=6000)
    parser.add_argument("--timeout-s", type=float, default=5.0)
    options = parser.parse_args()
    if not server_up(options.base_url):
        print(f"no llama.cpp server answers /props at {options.base_url}: skipped "
              "(start one with the shared real-llm/start-real-llm.sh)")
        return 0
    with tempfile.TemporaryDirectory() as temp:
        home, project = Path(temp) / "home", Path(temp) / "project"
        home.mkdir()
        project.mkdir()
        common = ["-p", "openai", "--base-url", options.base_url, "-m", "served", "-v", "--max-tokens", "24"]
        for run, timeout_s in ((1, None), (2, options.timeout_s)):
            if timeout_s is not None:
                (project / ".ayder").mkdir(exist_ok=True)
                (project / ".ayder" / "config.json").write_text(json.dumps({"timeout_s": timeout_s}))
            prompt = prompt_file(Path(temp), options.tokens, seed=run)
            output, status, took = ayder([*common, "-f", str(prompt)], home, project, limit_s=900)
            lines = progress_lines(output)
            chosen = re.search(r"first reply data (within .*?\))\s*$", re.sub(r"\x1b\[[0-9;]*m", "", output), re.M)
            usage = re.search(r"tokens: in [^\n]*", re.sub(r"\x1b\[[0-9;]*m", "", output))
            profile_path = home / ".state" / "ayder" / "servers.json"
            profile = json.loads(profile_path.read_text()) if profile_path.exists() else {}
            speeds = [entry.get("prompt_per_second") for entry in profile.values()]
            print(f"run {run}: timeout_s {timeout_s or 'default (300)'}, exit {status}, {took:.1f} s")
            ends = f"; first {lines[0]!r}, last {lines[-1]!r}" if lines else ""
            print(f"  progress reports seen: {len(lines)}{ends}")
            print(f"  deadline ayder chose: {chosen.group(1) if chosen else 'timeout_s (no speed known yet)'}")
            print(f"  {usage.group(0) if usage else 'no usage line'}")
            print(f"  prompt speed kept in the profile: {speeds[0] if speeds else None} tok/s")
            if status != 0:
                print(output[-2000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
