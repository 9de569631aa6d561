"""Which language server reads which files: the built-in table, and the `lsp` config table over it.

A built-in server is used when its program is on PATH (the first found of a language's list);
one the config names replaces the built-in ones of its language, and `null` turns a language
off. A program missing from PATH is never an error: its files get no diagnostics.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import PurePosixPath
from typing import Any, Mapping

DEFAULT_TIMEOUT_S = 5.0  # one request's limit: a slow or dead server is skipped for the session after it


@dataclass(frozen=True)
class ServerSpec:
    language: str
    command: tuple[str, ...]
    files: tuple[str, ...]  # patterns of the file names (or paths from the root, with a /) it reads
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def name(self) -> str:
        return PurePosixPath(self.command[0]).name

    def reads(self, path: str) -> bool:
        name = PurePosixPath(path).name
        return any(fnmatch(path if "/" in pattern else name, pattern) for pattern in self.files)


PYTHON = ("*.py", "*.pyi")
TYPESCRIPT = ("*.ts", "*.tsx", "*.js", "*.jsx", "*.mjs", "*.cjs", "*.mts", "*.cts")
C_FAMILY = ("*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx")
# language -> the servers tried in order, the first on PATH used: ruff first, it answers in milliseconds.
BUILT_IN: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "python": ((("ruff", "server"), PYTHON), (("basedpyright-langserver", "--stdio"), PYTHON), (("pylsp",), PYTHON)),
    "typescript": ((("typescript-language-server", "--stdio"), TYPESCRIPT),),
    "go": ((("gopls",), ("*.go",)),),
    "rust": ((("rust-analyzer",), ("*.rs",)),),
    "c": ((("clangd",), C_FAMILY),),
}
# What didOpen says the document is, by the file's suffix (else the server's language).
LANGUAGE_IDS = {".py": "python", ".pyi": "python", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
                ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
                ".jsx": "javascriptreact", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp",
                ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp"}


def language_id(path: str, spec: ServerSpec) -> str:
    return LANGUAGE_IDS.get(PurePosixPath(path).suffix.lower(), spec.language)


def servers_found(configured: Mapping[str, Any], env: Mapping[str, str]) -> list[ServerSpec]:
    """The servers of this run: the config's entries (checked already) over the built-in table,
    those whose program is on PATH."""
    path = env.get("PATH")
    found = []
    for language in dict.fromkeys([*BUILT_IN, *configured]):
        if language in configured:
            entry = configured[language]
            if entry is None:
                continue  # turned off
            choices = [(tuple(entry["command"]), tuple(entry.get("files") or _built_in_files(language)))]
            timeout_s = float(entry.get("timeout_s", DEFAULT_TIMEOUT_S))
        else:
            choices, timeout_s = list(BUILT_IN[language]), DEFAULT_TIMEOUT_S
        for command, files in choices:
            if files and shutil.which(command[0], path=path):
                found.append(ServerSpec(language, command, files, timeout_s))
                break
    return found


def _built_in_files(language: str) -> tuple[str, ...]:
    return BUILT_IN[language][0][1] if language in BUILT_IN else ()


def check_lsp(value: Any) -> dict[str, Any]:
    """The `lsp` config value: {language: {"command": [...], "files": [...], "timeout_s": N} | null}."""
    example = '{"python": {"command": ["pylsp"], "files": ["*.py"]}}'
    if not isinstance(value, dict):
        raise ValueError(f"must be an object of language: server, e.g. {example}")
    checked: dict[str, Any] = {}
    for language, entry in value.items():
        if entry is None:
            checked[language] = None
            continue
        if not isinstance(entry, dict) or set(entry) - {"command", "files", "timeout_s"}:
            raise ValueError(f"{language}: must be an object with command, files and timeout_s, or null, "
                             f"e.g. {example}")
        command = entry.get("command")
        if isinstance(command, str):
            command = command.split()
        if not isinstance(command, list) or not command or not all(isinstance(p, str) and p for p in command):
            raise ValueError(f"{language}.command: must be a list of words, e.g. [\"pylsp\"]")
        files = entry.get("files", list(_built_in_files(language)))
        if not isinstance(files, list) or not files or not all(isinstance(p, str) and p for p in files):
            raise ValueError(f"{language}.files: must be a list of file patterns, e.g. [\"*.py\"]")
        timeout = entry.get("timeout_s", DEFAULT_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 600:
            raise ValueError(f"{language}.timeout_s: must be a number of seconds above 0, at most 600")
        checked[language] = {"command": list(command), "files": list(files), "timeout_s": float(timeout)}
    return checked
