"""The kernel sandbox every command the model runs lives in (Landlock, where the kernel has it).

In workspace-write, a command may read everywhere but write only the project, the temp
directory (TMPDIR of the run, else /tmp), the devices a command needs, the user's cache
directory, the package caches (npm's, cargo's and go's download caches, and pip's and uv's
when moved out of it) and the paths the user lists in sandbox_writable; in read-only only
those devices and the temp directory. With sandbox_network false, TCP connect and bind are
refused too (Landlock ABI 4 and later).

Nothing a command writes may run later outside the sandbox: the package managers' bin/,
env and config files stay read-only (only their download caches are writable), and so does
every terminal opened by path (/dev/pts/N, the user's shell's among them: no escape sequences
written to it, no TIOCSTI); a command has no controlling terminal (process_groups.spawn).

Only the command is restricted, never ayder: the child restricts itself between fork and
exec. There it first gets the project's .git bound read-only in a mount namespace of its own
(read_only_binds.py: Landlock rules can only add rights beneath a place, never take them back).
Where Landlock is missing, commands run as before and the deny list stands alone.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from ayder_cli.errors import ToolError
from ayder_cli.storage.xdg import xdg_cache_dir

READ_ONLY = "read-only"
KEY_HINT = "add it to sandbox_writable in your config, or set sandbox to off"
# The devices a command may write (and ioctl): never a terminal by path, /dev/pts/N, only one of its own.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/shm")
# Beneath npm's and cargo's homes, only what they download: not npx's programs, cargo's bin/, env or config.
NPM_CACHE = ("_cacache", "_logs")
CARGO_CACHE = ("registry", "git", ".package-cache", ".package-cache-mutate", ".global-cache")


@dataclass
class Sandbox:
    """The sandbox of one run: its mode and the run's environment, Landlock asked at first use."""

    mode: str
    root: Path
    env: Mapping[str, str]  # the run's, not ayder's process's: HOME, TMPDIR and the caches are read from it
    extra: tuple[str, ...] = ()  # sandbox_writable, as the user wrote them
    network: bool = True  # sandbox_network: false refuses TCP connect and bind
    abi_seam: int | None = None  # the ABI to assume instead of asking the kernel (tests: 0, missing)
    warn: Callable[[str], None] = lambda text: None  # once per run, for a sandbox_writable path not there
    _landlock: tuple[int, str] | None = field(default=None, init=False, repr=False)
    _warned: set[str] = field(default_factory=set, init=False, repr=False)
    _binds_work: bool = field(default=True, init=False, repr=False)  # False: no mount namespace for commands here

    def landlock(self) -> tuple[int, str]:
        """The kernel's Landlock ABI (0: none) and why not; asked once, when first needed."""
        if self._landlock is None:
            if self.abi_seam is not None:
                self._landlock = (self.abi_seam, "" if self.abi_seam else "Landlock is not available here")
            else:
                from ayder_cli.processes.landlock import probe  # ctypes only when a command runs or status asks

                self._landlock = probe()
        return self._landlock

    @property
    def active(self) -> bool:
        return self.mode != "off" and self.landlock()[0] > 0

    def describe(self) -> str:
        """One line for /status, --doctor and -v: the mode and the ABI, or why there is no sandbox."""
        if self.mode == "off":
            return "off (sandbox in the config): commands write wherever the user can; the deny list stands alone"
        abi, why = self.landlock()
        if not abi:
            return f"not available ({why}): commands write wherever the user can; the deny list stands alone"
        project = "the project but its .git" if self._binds_work else "the project (its .git too: no mount namespace)"
        places = "the temp directory" if self.mode == READ_ONLY else f"{project}, the temp directory and the caches"
        if self.mode != READ_ONLY and self.extra:
            places += " and sandbox_writable"
        return f"{self.mode} (Landlock ABI {abi}): commands write only {places}; network {self._network_words(abi)}"

    def _network_words(self, abi: int) -> str:
        from ayder_cli.processes.landlock import NETWORK_ABI

        if self.network:
            return "allowed"
        return "TCP refused" if abi >= NETWORK_ABI else f"not limited (needs Landlock ABI {NETWORK_ABI})"

    def writable(self) -> list[Path]:
        """The places a command may write, as given (missing ones left out when the rules are made)."""
        places = [*map(Path, DEVICES), self.temp_dir()]
        if self.mode == READ_ONLY:
            return places
        home = Path(self.env.get("HOME") or os.path.expanduser("~"))
        npm = [home / ".npm", *(Path(self.env[name]) for name in ("NPM_CONFIG_CACHE", "npm_config_cache")
                                if self.env.get(name))]
        cargo = Path(self.env.get("CARGO_HOME") or home / ".cargo")
        gopaths = [Path(part) for part in self.env.get("GOPATH", "").split(os.pathsep) if part] or [home / "go"]
        places += [self.root, xdg_cache_dir(self.env), *(cache / part for cache in npm for part in NPM_CACHE),
                   *(cargo / part for part in CARGO_CACHE), *(gopath / "pkg" / "mod" for gopath in gopaths)]
        places += [Path(self.env[name]) for name in ("GOCACHE", "GOMODCACHE", "PIP_CACHE_DIR", "UV_CACHE_DIR")
                   if self.env.get(name)]
        return places + [self.expand(path) for path in self.extra]

    def temp_dir(self) -> Path:
        return Path(self.env.get("TMPDIR") or "/tmp")

    def expand(self, given: str) -> Path:
        """A sandbox_writable entry: `~` is the run's HOME."""
        if (given == "~" or given.startswith("~/")) and self.env.get("HOME"):
            return Path(self.env["HOME"], given[2:])
        return Path(given).expanduser()

    def start(self, popen: Callable[[Callable[[], None] | None], object]):
        """popen(preexec_fn): the command started with preexec_fn run in the child before it execs,
        which restricts the child alone (ayder is never restricted); without the sandbox, popen(None).
        ToolError when the rules cannot be applied."""
        if not self.active:
            return popen(None)
        ruleset = self._ruleset()
        try:
            binds = self._binds()
            if binds is not None:
                try:
                    return popen(lambda: (binds.apply(), ruleset.restrict_this_thread()))
                except subprocess.SubprocessError:  # no mount namespace here: said once, and Landlock alone
                    self._binds_work = False
                    self.warn("sandbox: the project's .git stays writable to commands (this system lets ayder "
                              "make no mount namespace for them)")
            try:
                return popen(ruleset.restrict_this_thread)
            except subprocess.SubprocessError:
                raise ToolError("sandbox: Landlock refused to restrict the command; set sandbox to off in your "
                                "config to run commands without it") from None
        finally:
            ruleset.close()

    def read_only(self) -> list[Path]:
        """The places inside the writable ones that commands may not change: the project's .git, and
        each submodule's .git file (pointed elsewhere, a `git status` at the top would read that config)."""
        if self.mode == READ_ONLY or not self._binds_work:
            return []
        places = [self.root / ".git", *(self.root / path / ".git" for path in _submodule_paths(self.root))]
        return [place for place in places if _there(place)]

    def _binds(self):
        places = self.read_only()
        if not places:
            return None
        from ayder_cli.processes.read_only_binds import ReadOnlyBinds  # ctypes only when a command runs

        return ReadOnlyBinds(places)

    def _ruleset(self):
        from ayder_cli.processes.landlock import BIND_TCP, CONNECT_TCP, NETWORK_ABI, Ruleset, write_rights

        abi = self.landlock()[0]
        rights = write_rights(abi)
        handled_net = BIND_TCP | CONNECT_TCP if not self.network and abi >= NETWORK_ABI else 0
        try:
            ruleset = Ruleset(abi, rights, handled_net)
        except OSError as exc:
            raise ToolError(f"sandbox: Landlock refused the rules ({exc.strerror}); set sandbox to off in your "
                            "config to run commands without it") from None
        for path in self.writable():
            try:
                ruleset.allow_beneath(path, rights if path.is_dir() else rights & _file_rights())
            except OSError:
                self._missing(path)
        return ruleset

    def _missing(self, path: Path) -> None:
        """A place that is not there gets no rule; a sandbox_writable entry missing is said once."""
        for given in self.extra:
            if self.expand(given) == path and given not in self._warned:
                self._warned.add(given)
                self.warn(f"sandbox_writable: {given} does not exist (or cannot be opened); skipped")


def _file_rights() -> int:
    """The rights a rule on a single file may hold (those on directories are refused there)."""
    from ayder_cli.processes.landlock import IOCTL_DEV, TRUNCATE, WRITE_FILE

    return WRITE_FILE | TRUNCATE | IOCTL_DEV


SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


def _submodule_paths(root: Path) -> list[str]:
    """The paths .gitmodules names (its `path = ...` lines), those inside the project only."""
    try:
        text = (root / ".gitmodules").read_text(encoding="utf-8", errors="replace")[:100_000]
    except OSError:
        return []
    return [path for path in SUBMODULE_PATH.findall(text) if ".." not in Path(path).parts and not Path(path).is_absolute()]


def _there(path: Path) -> bool:
    try:
        return path.exists() or path.is_symlink()
    except OSError:
        return False
