"""What the families' chat templates read back, checked on a real llama.cpp server: the history ayder
sends in a tool loop, rendered by each family's official template through the server's /apply-template.

Run:  python benchmarks/real_templates.py --llama-server PATH --model GGUF --templates DIR [--port N]

DIR is llama.cpp's models/templates (the official templates of each family, as llama.cpp's own tests
use them). ayder runs in this process against the tests' fake server (tests/support/fakellm.py), told
it serves a model of the family, through one tool loop: a reply with two native calls (no reasoning
in its text, the reasoning in `reasoning_content`), an answer, then a second user message. The three
requests it sent are rendered by a llama-server started with the family's template, and the table
says, per template: whether it rendered (Mistral's raise on a call id that is not 9 alphanumerics),
the ids it shows, and in how many of the requests the tool loop's reasoning is shown (it should be
in the loop's second request only: the next turn drops it). Without --llama-server it says so and
exits 0. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.fakellm import FakeLLM, Reply  # noqa: E402
from support.harness import run_in_process, server_args  # noqa: E402

REASONING = "I must read a.txt twice."
# (template file, the model name ayder is told: its family is read from the name)
CASES = [
    ("Mistral-Small-3.2-24B-Instruct-2506.jinja", "mistral-small-3.2"),
    ("Mistral-Small-3.2-24B-Instruct-2506.jinja", "served-model"),  # a name ayder cannot place: ids as given
    ("mistralai-Mistral-Nemo-Instruct-2407.jinja", "mistral-nemo"),
    ("unsloth-mistral-Devstral-Small-2507.jinja", "devstral-small-2507"),
    ("mistralai-Ministral-3-14B-Reasoning-2512.jinja", "ministral-3-14b-reasoning"),
    ("moonshotai-Kimi-K2.jinja", "kimi-k2-instruct"),
    ("Kimi-K2-Thinking.jinja", "kimi-k2-thinking"),
    ("deepseek-ai-DeepSeek-V3.2.jinja", "deepseek-v3.2"),
    ("GLM-4.7-Flash.jinja", "glm-4.7-flash"),
    ("Qwen3.5-4B.jinja", "qwen3.5-4b"),
    ("MiniMax-M2.jinja", "minimax-m2"),
]


def requests_of_a_tool_loop(model: str, folder: Path) -> list[dict]:
    """The chat requests ayder sends for one tool loop and a second user message."""
    project, home = folder / "project", folder / "home"
    project.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".data")}
    with FakeLLM(models=(model,)) as fake:
        read = {"name": "read_file", "arguments": {"file_path": "a.txt"}}
        fake.queue(Reply(text="", thinking=REASONING, tool_calls=[read, read]),
                   Reply(text="It says alpha.", thinking="It holds alpha."), Reply(text="Yes.", thinking="Sure."))
        result = run_in_process([*server_args(fake, "openai"), "-m", model], input="read a.txt\nsure?\n",
                                cwd=project, env=env)
        if result.returncode != 0:
            raise RuntimeError(result.stderr)
        return [request["body"] for request in fake.chat_requests()]


def start_server(binary: str, model: str, template: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen([binary, "-m", model, "--jinja", "--chat-template-file", str(template),
                               "--port", str(port), "--host", "127.0.0.1", "-c", "2048", "-t", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"llama-server ended: {server.stderr.read()[-600:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            time.sleep(0.3)
    server.kill()
    raise RuntimeError("llama-server did not answer /health within 60 s")


def rendered(port: int, body: dict) -> str:
    """The prompt the server's template makes of the request, or 'ERROR: ...'."""
    data = json.dumps({"messages": body["messages"], "tools": body.get("tools")}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/apply-template", data=data,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())["prompt"]
    except urllib.error.HTTPError as exc:
        return "ERROR: " + exc.read().decode(errors="replace")[:200]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama-server", help="the llama-server binary")
    parser.add_argument("--model", help="any small GGUF the server can load (the templates are what is checked)")
    parser.add_argument("--templates", help="llama.cpp's models/templates directory")
    parser.add_argument("--port", type=int, default=8799)
    options = parser.parse_args()
    if not (options.llama_server and options.model and options.templates):
        print("needs --llama-server, --model and --templates: skipped")
        return 0
    print(f"{'template / model name':62} {'renders':8} {'call ids sent (shown)':42} reasoning in requests 1-3")
    with tempfile.TemporaryDirectory() as temp:
        for name, model in CASES:
            template = Path(options.templates) / name
            if not template.exists():
                print(f"{name:48} (not in {options.templates})")
                continue
            bodies = requests_of_a_tool_loop(model, Path(temp) / model)
            server = start_server(options.llama_server, options.model, template, options.port)
            try:
                prompts = [rendered(options.port, body) for body in bodies]
            finally:
                server.terminate()
                server.wait(10)
            errors = [prompt for prompt in prompts if prompt.startswith("ERROR")]
            sent = [call["id"] for message in bodies[1]["messages"] if message["role"] == "assistant"
                    for call in message.get("tool_calls") or ()]
            ids = f"{', '.join(sent)} ({sum(i in prompts[1] for i in sent)} shown)"
            shown = [REASONING in prompt for prompt in prompts]
            outcome = shown if not errors else errors[0][:80]
            print(f"{name[:34] + ' / ' + model:62} {'yes' if not errors else 'NO':8} {ids:42} {outcome}")
    return 0


if __name__ == "__main__":
    os.environ.pop("OPENAI_BASE_URL", None)
    sys.exit(main())
