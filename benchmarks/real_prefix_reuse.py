"""The prefix reuse loop replayed on a real llama.cpp server: what its prompt cache reuses after a trim.

Run:  python benchmarks/real_prefix_reuse.py [--base-url http://127.0.0.1:8765/v1] [--rounds 12]
      [--window 2048]

Needs a running llama-server (the project's shared real-llm/start-real-llm.sh starts one); without one
it says so and exits 0. A small model rarely calls tools on its own, so the tool loop of
benchmarks/prefix_reuse.py is run against the fake server (--rounds reads on a --window-token window,
the fake saying it is llama.cpp, so ayder sends what it sends llama.cpp) and each request ayder made is
sent again, as it was, to the real server (not streamed, max_tokens 1): the real server's own count of
what it took from its cache (timings.cache_n) and read anew (prompt_n) is printed per request, with
whether the request changed an earlier message. Last, `ayder --doctor` against the real server (a fresh
home) and its prompt cache lines. The server may serve others at the same time (one slot): a request
of theirs in between empties what this replay finds cached.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import urllib.request
from pathlib import Path

from prefix_reuse import _env, tool_loop  # benchmarks/ is this script's folder
from real_prompt_progress import server_up

from ayder_cli.cli import main


def post(base_url: str, body: dict) -> dict:
    request = urllib.request.Request(base_url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read())


def replay(base_url: str, bodies: list[dict]) -> None:
    print(f"{'#':>3} {'changed':>8} {'messages':>9} {'prompt':>7} {'cache_n':>8} {'prompt_n':>9}  n_cache_reuse sent")
    previous: list = []
    evaluated = total = 0
    for number, recorded in enumerate(bodies, 1):
        body = {**recorded, "stream": False, "max_tokens": 1}
        body.pop("stream_options", None)
        body.pop("return_progress", None)
        timings = post(base_url, body).get("timings") or {}
        cache_n, prompt_n = timings.get("cache_n"), timings.get("prompt_n")
        parts = [json.dumps(m) for m in body["messages"]]
        changed = bool(previous) and parts[:len(previous)] != previous
        previous = parts
        evaluated += prompt_n or 0
        total += (cache_n or 0) + (prompt_n or 0)
        print(f"{number:>3} {'yes' if changed else '':>8} {len(parts):>9} {(cache_n or 0) + (prompt_n or 0):>7} "
              f"{cache_n!s:>8} {prompt_n!s:>9}  {recorded.get('n_cache_reuse')}")
    print(f"prompt tokens evaluated: {evaluated:,} of {total:,} sent ({evaluated / max(total, 1):.0%})")


def doctor(base_url: str, home: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    main(["-p", "openai", "--base-url", base_url, "--doctor"], stdin=io.StringIO(""), stdout=out, stderr=err,
         env=_env(home), cwd=home)
    for line in err.getvalue().splitlines():
        if "prefix" in line or "first request" in line or "profile" in line:
            print(line)


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--window", type=int, default=2048)
    options = parser.parse_args()
    if not server_up(options.base_url):
        print(f"no llama.cpp server answers {options.base_url.removesuffix('/v1')}/props; nothing measured")
        return 0
    with tempfile.TemporaryDirectory() as temp:
        with contextlib.redirect_stderr(io.StringIO()):
            report, facts = tool_loop(Path(temp), options.rounds, options.window)
        print(f"the loop on the fake server: {report.requests} requests, {report.changed} changing an earlier "
              f"message; {len(facts['notices'])} window notices")
        replay(options.base_url, facts["bodies"])
        home = Path(temp) / "doctor-home"
        home.mkdir()
        doctor(options.base_url, home)
    return 0


if __name__ == "__main__":
    sys.exit(main_())
