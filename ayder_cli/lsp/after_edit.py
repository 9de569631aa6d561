"""EditDiagnostics: after a write tool changed a file, the errors and warnings the edit introduced.

The executor calls before() with the paths a write tool is about to change (what they hold is
read then) and after() once it succeeded: the language server of each file's language (started
at its first file, one per language for the session) is sent the text before the edit, then the
text after it, and the diagnostics that are new go into the tool's result, bounded as a failed
check's excerpt is. A server that does not answer within its limit, or fails, is stopped and
skipped for the rest of the session (said once, with -v); nothing new adds nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.lsp.compare import Diagnostic, excerpt, introduced, read_diagnostics
from ayder_cli.lsp.rpc import Gone, Silent
from ayder_cli.lsp.language_server import LanguageServer
from ayder_cli.lsp.servers import ServerSpec, servers_found
from ayder_cli.wording import counted

MAX_FILE_BYTES = 2 * 1024 * 1024  # a bigger file is not sent: a server would take seconds over it


@dataclass
class Found:
    """One edit's new diagnostics, for the --json event."""

    path: str
    server: str
    new: list[Diagnostic]
    excerpt: str


@dataclass
class EditDiagnostics:
    """The language servers of one session, started when first needed; close() stops them all."""

    root: Path
    configured: Mapping[str, Any]  # the `lsp` config value, checked
    env: Mapping[str, str] | None = None  # the commands' environment (None: ayder's own)
    sandbox: Any = None  # tools.sandbox.Sandbox the servers start in, as commands do
    limit: Callable[[], int] = lambda: 1200  # the excerpt's characters now (smaller for a small window)
    log: Callable[[str], None] = lambda text: None  # -v lines
    report: Callable[[Found], None] = lambda found: None  # the --json event
    running: dict[str, LanguageServer] = field(default_factory=dict)  # language -> its server
    skipped: set[str] = field(default_factory=set)  # languages whose server failed or went silent
    # path -> what the file had when first sent: a complaint a broken line hid comes back after the fix, not new
    first: dict[str, set[tuple[int, str, str]]] = field(default_factory=dict)
    last: dict[str, tuple[str, list[Diagnostic]]] = field(default_factory=dict)  # path -> the text sent, its findings
    _specs: list[ServerSpec] | None = None

    def specs(self) -> list[ServerSpec]:
        """The servers found on PATH (looked for once)."""
        if self._specs is None:
            self._specs = servers_found(self.configured, self.env if self.env is not None else os.environ)
        return self._specs

    def describe(self) -> str:
        """One line for /status and --doctor."""
        specs = self.specs()
        if not specs:
            return "none found on PATH (built in: ruff server, basedpyright, pylsp, typescript-language-server, " \
                   "gopls, rust-analyzer, clangd; or the lsp config)"
        return "; ".join(f"{spec.language}: {' '.join(spec.command)}" + (" (skipped)" if spec.language in self.skipped
                         else "") for spec in specs)

    def before(self, paths: list[str]) -> dict[str, str | None]:
        """What each file a server reads holds now (None: not there yet), read before the write."""
        return {path: _text(self.root, path) for path in paths if self._spec_for(path) is not None}

    def after(self, held: dict[str, str | None], result: ToolResult) -> None:
        """The new diagnostics of each file, added to the write's successful result."""
        for path, old in held.items():
            new = _text(self.root, path)
            spec = self._spec_for(path)
            if new is None or new == old or spec is None:
                continue
            found = self._introduced(spec, path, old, new)
            if not found:
                continue
            text = excerpt(path, spec.name, found, self.limit())
            result.output = f"{result.output.rstrip()}\n\n{text}" if result.output.strip() else text
            errors = sum(d.severity == 1 for d in found)
            result.summary = (result.summary or "ok") + f"; {spec.name}: " + (
                counted(errors, "new error") if errors else counted(len(found), "new warning"))
            self.report(Found(path, spec.name, found, text))

    def close(self) -> None:
        servers, self.running = list(self.running.values()), {}
        for server in servers:
            server.close()

    def _spec_for(self, path: str) -> ServerSpec | None:
        return next((spec for spec in self.specs() if spec.reads(path) and spec.language not in self.skipped), None)

    def _introduced(self, spec: ServerSpec, path: str, old: str | None, new: str) -> list[Diagnostic]:
        try:
            server = self._server(spec)
            full = (self.root / path).resolve()
            known = self.last.get(path)
            if old is None:
                before = []
            elif known is not None and known[0] == old:  # as the last edit left it: asked already
                before = known[1]
            else:
                before = read_diagnostics(server.diagnostics(full, path, old))
            after = read_diagnostics(server.diagnostics(full, path, new))
            self.last[path] = (new, after)
            known_first = self.first.setdefault(path, {d.key for d in before})
        except Silent:
            self._skip(spec, f"did not answer within {spec.timeout_s:g}s")
            return []
        except (Gone, OSError, ToolError) as exc:  # ToolError: the sandbox refused to start it
            self._skip(spec, f"failed ({exc or type(exc).__name__})")
            return []
        return [d for d in introduced(before, after, old or "", new) if d.key not in known_first]

    def _server(self, spec: ServerSpec) -> LanguageServer:
        server = self.running.get(spec.language)
        if server is None:
            server = LanguageServer(spec, self.root, self.env, self.sandbox)
            self.running[spec.language] = server  # stopped by close() even if it never answers
            server.initialize()
            self.log(f"lsp: {' '.join(spec.command)} started for {spec.language} files")
        return server

    def _skip(self, spec: ServerSpec, why: str) -> None:
        self.skipped.add(spec.language)
        self.log(f"lsp: {' '.join(spec.command)} {why}; its diagnostics are skipped for this session")
        server = self.running.pop(spec.language, None)
        if server is not None:
            server.close(polite=False)


def _text(root: Path, path: str) -> str | None:
    """The file's text, if it is a regular UTF-8 file inside the root and not too big."""
    try:
        full = (root / path).resolve()
        if not full.is_relative_to(root.resolve()) or not full.is_file() or full.stat().st_size > MAX_FILE_BYTES:
            return None
        return full.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
