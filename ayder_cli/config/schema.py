"""The configuration's schema: every key ayder reads, with its default.

Where the values come from, and in what order: config_layers.py. How each is
checked: config_checks.py. The API key and the Endpoint a Config resolves to:
keys.py. What differs by provider (default URL and model): llm/providers.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from ayder_cli.edit_formats import DEFAULT as DEFAULT_EDIT_FORMAT
from ayder_cli.llm.providers import DEFAULT as DEFAULT_PROVIDER
from ayder_cli.llm.providers import provider_named
from ayder_cli.tool_groups import GROUPS

TOOL_GROUPS = tuple(GROUPS)  # in the order they are offered

# What a project's own .ayder/config.json sets only once the user trusts the project: what sends a
# key somewhere or runs code. "tools.shell_deny" is a part of `tools`; the sandbox keys arrive with
# the sandbox; mcp_servers starts programs. Each later key of that kind joins here.
NEEDS_TRUST = frozenset({
    "base_url", "provider", "api_key", "api_key_env", "api_key_file", "secret_env", "shell_timeout_s",
    "tools.shell_deny", "sandbox", "sandbox_writable", "sandbox_network", "verify", "root",
    "mcp_servers", "lsp", "auto_commit", "side_model",
})


@dataclass(frozen=True)
class ProjectTrust:
    """The NEEDS_TRUST settings a project's config asked for, and whether they apply (-v, /status)."""

    asked: tuple[str, ...]  # in the file's order
    trusted: bool
    why: str  # "approved at the terminal", "approved earlier", "you answered no", "no terminal to ask; ..."
    digest: str = ""  # the sha256 of the file the decision was made on

    def describe(self) -> str:
        verb = "apply" if self.trusted else "are ignored"
        return f"{'trusted' if self.trusted else 'not trusted'} ({self.why}): its {', '.join(self.asked)} {verb}"


@dataclass(frozen=True)
class Config:
    provider: str = DEFAULT_PROVIDER.name
    base_url: str | None = None  # None: the provider's default
    model: str | None = None  # None: the provider's default
    api_key_env: str = "OPENAI_API_KEY"
    api_key_file: str | None = None
    api_key: str | None = None
    timeout_s: float = 300.0
    connect_timeout_s: float = 10.0
    # Reply data (not keep-alives) once a stream has started: the longest gap; None: no limit.
    stream_idle_timeout_s: float | None = 120.0
    # One model call from request to finished reply; None: no limit. A CPU at 3 tokens/s needs
    # about 23 minutes for a 4096-token reply.
    request_timeout_s: float | None = 1800.0
    max_retries: int = 3
    stream: bool = True
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = 4096
    num_ctx: int | None = 8192
    keep_alive: str = "10m"  # Ollama keeps the model loaded this long after a request ("-1": for ever)
    iterations: int = 50
    # Corrective messages in a row for replies whose tool calls were all malformed; then the turn stops.
    max_malformed_retries: int = 2
    max_checkpoints: int = 3  # checkpoint cycles per message when the budget is spent; 0: just stop
    compact_at: float = 0.8  # compact the conversation when it fills this share of num_ctx
    auto_compact: bool = True
    prompts: tuple[str, ...] = ("system",)
    instructions: tuple[str, ...] = ()  # file names read beside AGENTS.md, e.g. ("CLAUDE.md",)
    show_thinking: bool = False
    native_tools: str = "auto"  # auto: native tool calling, text format if the server refuses it
    edit_format: str = DEFAULT_EDIT_FORMAT  # how the model edits files (edit_formats.py); auto: by the model
    max_tool_output_chars: int = 20000  # a tool's output sent back to the model is cut to this
    shell_timeout_s: float = 120.0  # default timeout of run_shell_command
    tool_timeout_s: float = 30.0  # time limit of the other tools (search, tree walks): they stop there with what they found
    tools: Mapping[str, Any] = field(default_factory=dict)  # disabled, max_calls_per_message, shell_deny
    tool_groups: tuple[str, ...] = ("core",)  # the tool groups offered (TOOL_GROUPS); core always is
    session_in_use: str = "new"  # --continue on a session another ayder writes: "new" session, or "fail"
    max_sessions: int = 100  # transcripts kept per project; older ones go when a new one gets its first reply
    secret_env: tuple[str, ...] = ()  # environment variables whose values are masked like the API key
    # The kernel sandbox of the commands the model runs (processes/sandbox.py): workspace-write, read-only, off.
    sandbox: str = "workspace-write"
    sandbox_writable: tuple[str, ...] = ()  # more places commands may write (absolute, or ~/...)
    sandbox_network: bool = True  # false: TCP connect and bind refused (Landlock ABI 4 and later)
    # The tools' root when --root is not given: a directory holding the working directory (relative:
    # to the repository root, so "." is the whole repository); None: the working directory.
    root: str | None = None
    # Commands run after a reply that changed files ({files}: those files, quoted); agent/verify.py.
    verify: tuple[str, ...] = ()
    # MCP servers whose tools are offered (mcp_servers/server_config.py): {NAME: {command, args, ...} | {url, ...}}.
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)
    # Above this share of the context window the MCP tools' schemas are not sent but found (mcp_servers/schema_room.py).
    mcp_schema_share: float = 0.10
    # Language servers asked for diagnostics after edits (lsp/servers.py): {LANGUAGE: {command, files, timeout_s} | null},
    # over the built-in table of those on PATH.
    lsp: Mapping[str, Any] = field(default_factory=dict)
    # After each turn that changed files, a git commit of those files (session/commit.py).
    auto_commit: bool = False
    # The model writing commit messages: {"model", "base_url"?, "provider"?} ("NAME" in a file); None: the main one.
    side_model: Mapping[str, Any] | None = None
    # Where each value came from ("default", a file path, "environment", "flag").
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    # None: the project's config asked for nothing that needs trust.
    project_trust: ProjectTrust | None = field(default=None, compare=False, repr=False)

    @property
    def resolved_base_url(self) -> str:
        return (self.base_url or provider_named(self.provider).default_base_url).rstrip("/")

    @property
    def resolved_model(self) -> str:
        return self.model or provider_named(self.provider).default_model


KEYS = tuple(f.name for f in fields(Config) if f.name not in ("sources", "project_trust"))
