"""Prefix reuse benchmark: how much of the prompt a server must read again because ayder changed it.

Run:  python benchmarks/prefix_reuse.py [--rounds 30] [--window 8192] [--strict]

The real `ayder` (in-process, ayder_cli.cli.main) against the fake LLM server of tests/support, in a
temp project and home. Two cases:

- a tool loop under window pressure: one message, the model reads --rounds modules of about 4.6 KB
  one per round and then answers, on a --window-token window (the fake serves and enforces it, and
  says so as llama.cpp's /props does);
- a session that fits: three piped messages with reads, edits and a command.

From the requests the fake server recorded it prints: requests, requests that changed an earlier
message (not an extension of the request before), the new content (what no earlier request had
sent), and what a server with a prefix cache and a hybrid-model server (no partial state: any change
reads the whole prompt) read, with their ratio to the new content (tests/support/prefix_cache.py).
Targets: the loop <= 10 changing requests and <= 1.8x for the hybrid model, and it ends with the
model's answer with no request over the window; the session that fits, 0 changing requests.
Exit status is 0 whatever the figures, unless --strict is given.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.fakellm import FakeLLM, Reply  # noqa: E402
from support.prefix_cache import CacheReport, cache_report  # noqa: E402

from ayder_cli.cli import main  # noqa: E402

ANSWER = "Every module defines numbered constants."
MAX_CHANGED, MAX_HYBRID = 10, 1.8


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".state"), "NO_COLOR": "1"}


def _run(server: FakeLLM, project: Path, home: Path, args: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["-p", "openai", "--base-url", server.openai_url, "-m", "m", *args], stdin=io.StringIO(stdin),
                stdout=out, stderr=err, env=_env(home), cwd=project)
    return code, out.getvalue(), err.getvalue()


def _reader(count: int):
    """The model: read module 0, 1, ... one per round, then answer; a summary request (no tools) is summarized."""
    read: list[str] = []

    def respond(body: dict) -> Reply:
        if not body.get("tools"):
            return Reply(text="The user asked what the modules define; read so far: " + ", ".join(read) + ".")
        if len(read) < count:
            read.append(f"m{len(read)}.py")
            return Reply.calling("read_file", {"file_path": read[-1]})
        return Reply(text=ANSWER)

    return respond


def tool_loop(temp: Path, rounds: int, window: int) -> tuple[CacheReport, dict]:
    project, home = temp / "loop", temp / "loop-home"
    project.mkdir()
    home.mkdir()
    for n in range(rounds):  # about 4.6 KB of read_file result each
        (project / f"m{n}.py").write_text("".join(f"VALUE_{n}_{i} = {i * 7}  # constant {i} of module {n}\n"
                                                  for i in range(88)))
    with FakeLLM(models=("m",)) as server:
        server.window = window
        server.props = {"default_generation_settings": {"n_ctx": window}}
        server.respond = _reader(rounds)
        code, out, err = _run(server, project, home, [f"Read m0.py to m{rounds - 1}.py and say what they define."])
        bodies = [r["body"] for r in server.chat_requests()]
        facts = {"exit": code, "answered": out.strip().endswith(ANSWER), "refused": len(server.refused),
                 "notices": [line for line in err.splitlines() if "context window" in line or "compacted" in line],
                 "result_chars": _result_chars(bodies), "bodies": bodies}
    return cache_report(bodies), facts


def _result_chars(bodies: list[dict]) -> int:
    """The longest read_file result sent: what one round adds."""
    return max((len(m.get("content") or "") for body in bodies for m in body["messages"] if m["role"] == "tool"),
               default=0)


def session_that_fits(temp: Path) -> tuple[CacheReport, dict]:
    project, home = temp / "session", temp / "session-home"
    project.mkdir()
    home.mkdir()
    (project / "app.py").write_text("".join(f"def f{i}():\n    return {i}\n\n" for i in range(40)))
    with FakeLLM(models=("m",)) as server:
        server.props = {"default_generation_settings": {"n_ctx": 32768}}
        server.window = 32768
        server.queue(
            Reply.calling("read_file", {"file_path": "app.py"}), Reply(text="app.py defines f0 to f39."),
            Reply.calling("replace_string", {"file_path": "app.py", "old_string": "return 3\n",
                                             "new_string": "return 33\n"}),
            Reply.calling("run_shell_command", {"command": "python3 -c 'import app; print(app.f3())'"}),
            Reply(text="f3 now returns 33."),
            Reply.calling("write_file", {"file_path": "notes.txt", "content": "f3 returns 33\n"}),
            Reply.calling("read_file", {"file_path": "notes.txt"}),
            Reply.calling("list_files", {}),
            Reply(text="Noted in notes.txt."),
        )
        stdin = "What does app.py define?\nMake f3 return 33 and run it.\nWrite that down in notes.txt.\n"
        code, out, _ = _run(server, project, home, ["-w", "-x"], stdin)
        bodies = [r["body"] for r in server.chat_requests()]
        facts = {"exit": code, "answered": out.rstrip().endswith("Noted in notes.txt."), "refused": len(server.refused),
                 "notices": [], "result_chars": _result_chars(bodies)}
    return cache_report(bodies), facts


def row(label: str, report: CacheReport) -> str:
    return (f"{label:<34} {report.requests:>8} {report.changed:>8} {report.new_tokens:>8} "
            f"{report.prefix_read:>8} {report.prefix_ratio:>5.2f}x "
            f"{report.hybrid_read:>8} {report.hybrid_ratio:>5.2f}x")


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--window", type=int, default=8192)
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--notices", action="store_true", help="print the loop's window notices too")
    options = parser.parse_args()
    # The fake server reports each keep-alive connection the client closes; that is not news here.
    with tempfile.TemporaryDirectory() as temp, contextlib.redirect_stderr(io.StringIO()):
        loop, loop_facts = tool_loop(Path(temp), options.rounds, options.window)
        fits, fits_facts = session_that_fits(Path(temp))
    print(f"{'case':<34} {'requests':>8} {'changed':>8} {'new':>8} {'prefix-cache read':>15} "
          f"{'hybrid read':>15}")
    print(row(f"{options.rounds}-round read_file loop, {options.window // 1024}k", loop))
    print(row("3-message session that fits", fits))
    print()
    loop_ok = (loop.changed <= MAX_CHANGED and loop.hybrid_ratio <= MAX_HYBRID and loop_facts["answered"]
               and loop_facts["exit"] == 0 and loop_facts["refused"] == 0 and loop.largest <= options.window)
    fits_ok = fits.changed == 0 and fits_facts["answered"] and fits_facts["exit"] == 0
    print(f"loop: read_file results of {loop_facts['result_chars']:,} characters; largest prompt "
          f"{loop.largest:,} of {options.window:,} tokens; ended with the answer: "
          f"{'yes' if loop_facts['answered'] else 'NO'} (exit {loop_facts['exit']}); "
          f"{len(loop_facts['notices'])} window notices")
    print(f"targets: loop <= {MAX_CHANGED} changing requests and <= {MAX_HYBRID}x hybrid: "
          f"{'met' if loop_ok else 'NOT MET'}; session that fits 0 changing: {'met' if fits_ok else 'NOT MET'}")
    if options.notices:
        print(json.dumps(loop_facts["notices"], indent=1))
    return 1 if options.strict and not (loop_ok and fits_ok) else 0


if __name__ == "__main__":
    sys.exit(main_())
