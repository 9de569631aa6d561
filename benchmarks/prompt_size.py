"""Prompt-size benchmark: how many tokens the first request of a session costs, and where they go.

Run:  python benchmarks/prompt_size.py [--base-url URL [--model M] [--provider openai|ollama]]
                                       [--tools LIST] [--edit-format F] [--strict]

The first request is the one ayder sends for "Say hello." in an empty project, built by
the same wiring as the CLI (build_session, with a temporary HOME so no user config or
instructions file is read), once with native tools and once with the tools taught as
text ([CALL] lines). Its size in tokens is read from a server when --base-url is given
(the request is sent with max_tokens 1 and the reply's usage.prompt_tokens, or Ollama's
prompt_eval_count, is taken), and is otherwise estimated from its characters with the
constants below. The budget (README, "Tool groups") is 1,200 tokens with native tools
and 600 with text-format tools; the table shows each mode's figure, the budget and their
ratio. A second table lists every part of the request -- the system prompt, the user
message (with the environment note), and each tool's schema or [CALL] signature line --
by its characters and its share of the request, largest first.
A last table shows what 64 MCP tools (generated in process: no server, no SDK, no network)
add to the native first request in an 8k window: their schemas sent, and deferred behind
find_tools (mcp_servers/schema_room.py), the default there.
Exit status is 0 whatever the result, unless --strict is given (then 1 over a budget).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

BUDGETS = {"native": 1_200, "text": 600}  # tokens of the first request (README, "Tool groups")
PROMPT = "Say hello."

# Characters per token, calibrated on llama.cpp's llama-server with SmolLM2 (a 49k-token vocabulary,
# more tokens per character than Qwen's or Llama 3's) and a Qwen2.5/Hermes tool template, where
# /apply-template + /tokenize counted exactly the usage.prompt_tokens of the same request. Measured
# (this script with --base-url): native, core tools 910 tokens (estimated 962); every group 2,104
# (2,255); text format 340 (353); every group as text 500 (508): the estimate runs 2-7 % over, never under.
MESSAGE_CHARS_PER_TOKEN = 3.2  # prose with paths and punctuation (the environment note)
SCHEMA_CHARS_PER_TOKEN = 3.4  # JSON: quotes, braces, snake_case names
TOOLS_TEMPLATE_TOKENS = 120  # what a chat template wraps around the tool list (Hermes/Qwen: about 110)
MESSAGE_TOKENS = 5  # role markers around each message


def estimate_tokens(messages: list[dict], tools: list[dict] | None) -> int:
    """The request's prompt tokens, estimated from its characters (see the constants above)."""
    text = sum(len(message.get("content") or "") for message in messages)
    tokens = math.ceil(text / MESSAGE_CHARS_PER_TOKEN) + MESSAGE_TOKENS * len(messages)
    if tools:
        tokens += math.ceil(len(json.dumps(tools)) / SCHEMA_CHARS_PER_TOKEN) + TOOLS_TEMPLATE_TOKENS
    return tokens


def isolated_env(home: Path) -> dict[str, str]:
    """No user config, no user-wide instructions, no keys: only what a fresh install sends."""
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local" / "state"), "PATH": os.environ.get("PATH", ""),
            "SHELL": os.environ.get("SHELL", "/bin/sh")}


def first_request(root: Path, env: dict[str, str], flags: dict, native: bool, wire=None):
    """(services, the ChatRequest ayder sends first for PROMPT) in one mode; `wire(services)` may change
    the services before the request is built."""
    from ayder_cli.config.config_layers import load_config
    from ayder_cli.session.services import build_session
    from ayder_cli.terminal.console import Console
    from ayder_cli.terminal.environment import Environment

    config = load_config(env=env, root=root, flags=flags)
    config = replace(config, native_tools="on" if native else "off")
    quiet = Environment(stdout=io.StringIO(), stderr=io.StringIO(), env=env, cwd=root, no_color=True)
    services = build_session(config, quiet, root=root, console=Console(quiet))
    if wire is not None:
        wire(services)
    services.conversation.add_user(PROMPT)
    return services, services.loop.request()


MCP_WINDOW = 8192
MCP_SUBJECTS = ["invoice", "customer", "shipment", "warehouse", "ticket", "calendar", "payroll", "contract",
                "forecast", "inventory", "supplier", "refund", "campaign", "survey", "budget", "timesheet"]


def mcp_wiring(share: float):
    """A wire() that gives the services 64 MCP tools of one server, listed by a hub that starts nothing."""
    from types import SimpleNamespace

    from ayder_cli.mcp_servers.server_config import servers_of
    from ayder_cli.mcp_servers.tools import McpTools

    configs = servers_of({"records": {"command": "records-server", "permission": "r"}})
    schema = {"type": "object", "required": ["record_id"], "properties": {
        "record_id": {"type": "string"}, "note": {"type": "string", "default": ""},
        "limit": {"type": "integer", "default": 10}}}
    tools = [SimpleNamespace(name=f"{action}_{subject}", input_schema=schema,
                             description=f"{action.capitalize()} {subject} records of the company's {subject} "
                                         "ledger, by record id, with an optional note kept in the audit log.")
             for subject in MCP_SUBJECTS for action in ("list", "get", "create", "archive")]
    server = SimpleNamespace(config=configs["records"], tools=tools, gone="", instructions="business records")
    hub = SimpleNamespace(servers={"records": server}, start=lambda configs, say: None, close=lambda: None)

    def wire(services) -> None:
        mcp = McpTools(configs, lambda: hub, say=lambda line: None, log=lambda line: None,
                       window=lambda: MCP_WINDOW, share=share)
        services.executor.registry = mcp.registry(services.executor.registry)

    return wire


def server_tokens(services, request) -> int | None:
    """The prompt tokens the server counts for `request` (it answers one token), or None if it does not say."""
    from ayder_cli.llm.accumulate import Accumulator

    accumulator = Accumulator()
    for delta in services.loop.client.stream(replace(request, max_tokens=1, stream=False)):
        accumulator.add(delta)
    usage = accumulator.reply().usage
    return usage.prompt_tokens if usage else None


def parts(services, request, native: bool) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(label, characters) of each part of the request, largest first; and, for the text format,
    of each tool's signature line inside the system prompt (counted there, not twice)."""
    rows = [("system prompt" + ("" if native else " with the [CALL] teaching"), len(request.messages[0]["content"]))]
    rows += [(f"{message['role']} message", len(message.get("content") or "")) for message in request.messages[1:]]
    inner = []
    if native:
        rows += [(f"tool {tool['function']['name']}", len(json.dumps(tool))) for tool in request.tools or ()]
    else:
        inner = [(f"  of which {spec.name}", len(f"- {spec.signature()}\n")) for spec in services.executor.offered()]
    return sorted(rows, key=lambda row: -row[1]), sorted(inner, key=lambda row: -row[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="count tokens on this server (OpenAI-compatible .../v1, or Ollama)")
    parser.add_argument("--model", help="model name on that server (default: the provider's default)")
    parser.add_argument("--provider", choices=("openai", "ollama"),
                        help="server type (default: openai if the URL ends with /v1, else ollama)")
    parser.add_argument("--tools", help="tool groups offered besides core, as ayder --tools takes them")
    parser.add_argument("--edit-format",
                        help="the edit format, as ayder --edit-format takes it (its tools and teaching)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a request is over its budget")
    options = parser.parse_args()

    provider = options.provider or ("openai" if (options.base_url or "/v1").rstrip("/").endswith("/v1") else "ollama")
    # Without a server the URL is a closed port: the window probe fails at once and nothing is sent.
    flags = {"provider": provider, "base_url": options.base_url or "http://127.0.0.1:9/v1",
             "model": options.model, "tool_groups": options.tools, "edit_format": options.edit_format}
    failed = False
    with tempfile.TemporaryDirectory(prefix="ayder-bench-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        root.mkdir()
        env = isolated_env(home)
        print(f'first request for "{PROMPT}" in an empty project; tool groups: {options.tools or "core (default)"}'
              f'; edit format: {options.edit_format or "replace (default)"}')
        source = f"from {options.base_url} ({provider})" if options.base_url else "estimated from characters"
        print(f"tokens: {source}\n")

        results = []
        for mode, native in (("native", True), ("text", False)):
            services, request = first_request(root, env, flags, native)
            estimate = estimate_tokens(request.messages, request.tools)
            tokens, source = estimate, "estimate"
            if options.base_url:
                counted = server_tokens(services, request)
                if counted:
                    tokens, source = counted, "server"
                else:
                    source = "estimate (the server reported no usage)"
            services.close()
            results.append((mode, native, services, request, tokens, source, estimate))

        print(f"{'mode':<7} {'tokens':>7}  {'source':<9} {'estimate':>8}  {'budget':>6}  {'ratio':>5}  result")
        print("-" * 62)
        for mode, _, _, _, tokens, source, estimate in results:
            ratio = tokens / BUDGETS[mode]
            ok = ratio <= 1
            failed |= not ok
            print(f"{mode:<7} {tokens:>7,}  {source.split(' ')[0]:<9} {estimate:>8,}  {BUDGETS[mode]:>6,}  "
                  f"{ratio:>5.2f}  {'PASS' if ok else 'OVER'}")
        for mode, _, _, _, _, source, _ in results:
            if "(" in source:
                print(f"note: {mode}: {source}")
        if provider == "ollama" and options.base_url:
            print("note: Ollama counts only the prompt tokens it did not have cached; "
                  "load the model afresh for the whole figure")

        for mode, native, services, request, _, _, _ in results:
            rows, inner = parts(services, request, native)
            total = sum(chars for _, chars in rows)
            print(f"\n{mode}: {total:,} characters, {len(services.executor.offered())} tools"
                  f"{'' if native else ' (as [CALL] signature lines in the system prompt)'}")
            width = max(len(label) for label, _ in rows + inner)
            print(f"{'part':<{width}}  {'chars':>6}  {'share':>6}")
            print("-" * (width + 16))
            for label, chars in rows:
                print(f"{label:<{width}}  {chars:>6,}  {chars / total:>6.1%}")
                if label.startswith("system prompt"):
                    for inner_label, inner_chars in inner:
                        print(f"{inner_label:<{width}}  {inner_chars:>6,}  {inner_chars / total:>6.1%}")

        print(f"\nMCP: 64 tools of one server, native, window {MCP_WINDOW:,} (estimated from characters)")
        print(f"{'schemas':<9} {'tokens':>7}  {'added':>6}  {'of window':>9}")
        print("-" * 37)
        base = next(estimate for mode, *_, estimate in results if mode == "native")
        for label, share in (("none", None), ("sent", float("inf")), ("deferred", 0.10)):
            if share is None:
                tokens = base
            else:
                services, request = first_request(root, env, flags, True, mcp_wiring(share))
                tokens = estimate_tokens(request.messages, request.tools)
                services.close()
            print(f"{label:<9} {tokens:>7,}  {tokens - base:>+6,}  {tokens / MCP_WINDOW:>9.1%}")
    return 1 if failed and options.strict else 0


if __name__ == "__main__":
    from ayder_cli.errors import AyderError

    try:
        sys.exit(main())
    except AyderError as exc:  # a bad --tools, a server that cannot be reached: one line, not a traceback
        print(f"error: {exc.message}" + (f"\n{exc.hint}" if exc.hint else ""), file=sys.stderr)
        sys.exit(exc.exit_status)
