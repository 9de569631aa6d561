"""One language server: started in the kernel sandbox as commands are, asked for a document's
diagnostics, shut down and reaped.

Diagnostics are pulled (textDocument/diagnostic) where the server offers it, which answers for
exactly the text sent; else the publishDiagnostics it pushes for that version are waited for.
Every request has the server's time limit: rpc.Silent past it, and the caller stops asking.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any, Mapping

from ayder_cli.lsp.rpc import Connection, Gone, Silent
from ayder_cli.lsp.servers import ServerSpec, language_id
from ayder_cli.processes.own_process import before_a_command
from ayder_cli.processes.process_groups import kill_group

SHUTDOWN_S = 1.0  # what a polite shutdown may take before the group is killed

CAPABILITIES = {
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": False},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
        "diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False},
    },
    "workspace": {"configuration": True, "workspaceFolders": False},
    "general": {"positionEncodings": ["utf-16"]},
}


class LanguageServer:
    """A started server process and the documents it has open (uri -> version)."""

    def __init__(self, spec: ServerSpec, root: Path, env: Mapping[str, str] | None = None, sandbox=None) -> None:
        self.spec = spec
        self.root = root
        self.versions: dict[str, int] = {}
        self.pull = False
        before_a_command()
        self.process = _start(spec.command, root, env, sandbox)
        assert self.process.stdin is not None and self.process.stdout is not None  # both piped
        self.rpc = Connection(self.process.stdin, self.process.stdout)

    def initialize(self) -> None:
        uri = self.root.as_uri()
        answer = self.rpc.request("initialize", {
            "processId": os.getpid(), "rootUri": uri, "rootPath": str(self.root), "capabilities": CAPABILITIES,
            "workspaceFolders": [{"uri": uri, "name": self.root.name}], "clientInfo": {"name": "ayder"},
        }, self.spec.timeout_s)
        capabilities = answer.get("capabilities", {}) if isinstance(answer, dict) else {}
        self.pull = bool(capabilities.get("diagnosticProvider"))
        self.rpc.notify("initialized", {}, self.spec.timeout_s)

    def diagnostics(self, path: Path, relative: str, text: str) -> list[dict[str, Any]]:
        """The server's diagnostics of `text` as the content of `path` (sent as the document's next version)."""
        deadline = time.monotonic() + self.spec.timeout_s
        uri = path.as_uri()
        arrival = self.rpc.arrivals
        version = self.versions.get(uri, 0) + 1
        self.versions[uri] = version
        if version == 1:
            self.rpc.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": language_id(relative, self.spec), "version": version, "text": text}},
                self.spec.timeout_s)
        else:
            self.rpc.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                       "contentChanges": [{"text": text}]}, self.spec.timeout_s)
        if self.pull:
            report = self.rpc.request("textDocument/diagnostic", {"textDocument": {"uri": uri}},
                                      max(deadline - time.monotonic(), 0.001))
            items = report.get("items") if isinstance(report, dict) else None
        else:
            items = self.rpc.published_after(uri, arrival, version, deadline).get("diagnostics")
        return [item for item in items or () if isinstance(item, dict)]

    def close(self, polite: bool = True) -> None:
        """shutdown and exit asked politely (not of a server gone silent), then the process group
        stopped and reaped whatever it did."""
        if polite and self.process.poll() is None and not self.rpc.closed:
            try:
                self.rpc.request("shutdown", None, SHUTDOWN_S)
                self.rpc.notify("exit", None, SHUTDOWN_S)
                self.process.wait(timeout=SHUTDOWN_S)
            except (Silent, Gone, subprocess.TimeoutExpired):
                pass
        kill_group(self.process, grace_s=SHUTDOWN_S)  # what it started too; reaps it
        self.rpc.reader.join(timeout=SHUTDOWN_S)  # at the pipe's end now: closing it under the reader would wait
        streams = [self.process.stdin] + [self.process.stdout] * (not self.rpc.reader.is_alive())
        for stream in streams:
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def _start(command: tuple[str, ...], root: Path, env: Mapping[str, str] | None, sandbox) -> subprocess.Popen:
    """The server in a session of its own (its group stopped whole), stderr dropped, in the sandbox."""

    def popen(preexec_fn=None) -> subprocess.Popen:
        return subprocess.Popen(list(command), cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True, env=env, preexec_fn=preexec_fn)

    return sandbox.start(popen) if sandbox is not None else popen()
