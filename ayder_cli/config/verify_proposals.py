"""The check commands a project's own files suggest, for /init to propose as its `verify` config.

Pure: it reads a few files at the project root and never runs anything. Linters come before
tests (they are faster and their errors are shorter); a Makefile's `lint` or `test` target is the
project's own way and replaces what would be guessed for that kind. A linter that takes files gets
`{files}` (the files the turn changed, quoted), so the model is not asked to fix what it never touched.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

MAX_READ = 256 * 1024  # a build file bigger than this is not read
TOOL_TABLE = re.compile(r"^\s*\[+\s*tool\.(ruff|pytest)\b", re.MULTILINE)
RUFF_DEPENDENCY = re.compile(r"[\"']ruff\b")
NPM_PLACEHOLDER_TEST = "no test specified"  # `npm init`'s test script, which only fails


@dataclass(frozen=True)
class Proposal:
    command: str
    kind: str  # "lint" or "test"
    why: str  # the file that suggested it, shown to the user

    @property
    def program(self) -> str:
        return self.command.split()[0]


def propose_checks(root: Path) -> list[Proposal]:
    found = [*_python(root), *_node(root), *_rust(root), *_go(root)]
    made = _make(root)
    kinds = {proposal.kind for proposal in made}
    found = [proposal for proposal in found if proposal.kind not in kinds] + made
    return sorted(found, key=lambda proposal: proposal.kind != "lint")  # stable: lint first


def installed(proposals: list[Proposal], on_path: Callable[[str], bool]) -> tuple[list[Proposal], list[Proposal]]:
    """(those whose program is on PATH, those whose program is not): a check that cannot run would fail every
    turn, and the model would be asked to repair it. `python` missing where `python3` is found is python3."""
    found, missing = [], []
    for proposal in proposals:
        if proposal.program == "python" and not on_path("python") and on_path("python3"):
            proposal = replace(proposal, command="python3" + proposal.command.removeprefix("python"))
        (found if on_path(proposal.program) else missing).append(proposal)
    return found, missing


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_READ:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _python(root: Path) -> list[Proposal]:
    pyproject = _read(root / "pyproject.toml") or ""
    tools = set(TOOL_TABLE.findall(pyproject))  # by its table headers: tomllib is not in Python 3.10
    found = []
    ruff_files = [name for name in ("ruff.toml", ".ruff.toml") if (root / name).is_file()]
    if "ruff" in tools or ruff_files or RUFF_DEPENDENCY.search(pyproject):
        why = ruff_files[0] if ruff_files else "pyproject.toml [tool.ruff]" if "ruff" in tools else \
            "pyproject.toml (ruff among the dependencies)"
        found.append(Proposal("ruff check --force-exclude {files}", "lint", why))
    setup_cfg = _read(root / "setup.cfg") or ""
    pytest_config = ("pytest" in tools and "pyproject.toml [tool.pytest]") or \
        ("[tool:pytest]" in setup_cfg and "setup.cfg [tool:pytest]") or \
        ((root / "pytest.ini").is_file() and "pytest.ini") or \
        ((root / "conftest.py").is_file() and "conftest.py")
    tests = root / "tests"
    if not pytest_config and tests.is_dir() and (pyproject or setup_cfg or (root / "setup.py").is_file()):
        has_tests = any(tests.rglob("test_*.py")) or any(tests.rglob("*_test.py"))
        pytest_config = has_tests and "tests/ with test_*.py"
    if pytest_config:
        found.append(Proposal("python -m pytest -q -x", "test", pytest_config))
    return found


def _node(root: Path) -> list[Proposal]:
    try:
        scripts = json.loads(_read(root / "package.json") or "{}").get("scripts", {})
    except (ValueError, AttributeError):
        return []
    if not isinstance(scripts, dict):
        return []
    found = []
    if isinstance(scripts.get("lint"), str):
        found.append(Proposal("npm run lint --silent", "lint", "package.json scripts.lint"))
    test = scripts.get("test")
    if isinstance(test, str) and NPM_PLACEHOLDER_TEST not in test:
        found.append(Proposal("npm test --silent", "test", "package.json scripts.test"))
    return found


def _rust(root: Path) -> list[Proposal]:
    if not (root / "Cargo.toml").is_file():
        return []
    return [Proposal("cargo check --quiet", "lint", "Cargo.toml"), Proposal("cargo test --quiet", "test", "Cargo.toml")]


def _go(root: Path) -> list[Proposal]:
    if not (root / "go.mod").is_file():
        return []
    return [Proposal("go vet ./...", "lint", "go.mod"), Proposal("go test ./...", "test", "go.mod")]


def _make(root: Path) -> list[Proposal]:
    makefile = next((root / name for name in ("GNUmakefile", "makefile", "Makefile") if (root / name).is_file()),
                    None)
    text = _read(makefile) if makefile else None
    if not text:
        return []
    targets = set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", text, re.MULTILINE))
    return [Proposal(f"make {kind}", kind, f"{makefile.name} target {kind}") for kind in ("lint", "test")
            if kind in targets]
