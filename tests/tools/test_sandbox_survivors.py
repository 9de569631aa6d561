"""The sandbox's mutation survivors (`benchmarks/mutation.py sandbox`), each killed by what a user
would meet: why Landlock is missing, in words; the status line in each mode; the caches a command
may write wherever the run's environment puts them; the submodules whose .git stays read-only.

The kernel is asked inside each test: a value read when the test module was imported is read
by code a mutation run cannot see changed.
"""

from __future__ import annotations

import errno
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ayder_cli.errors import ToolError
from ayder_cli.processes import landlock
from ayder_cli.processes.sandbox import Sandbox

ABI, WHY_NOT = landlock.probe()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"Landlock is not available here: {WHY_NOT}")


@pytest.fixture
def home(tmp_path) -> Path:
    for name in ("project", "tmp", "home"):
        (tmp_path / name).mkdir()
    return tmp_path / "home"


def sandbox(home: Path, mode: str = "workspace-write", env: dict | None = None, **given) -> Sandbox:
    run_env = {"HOME": str(home), "TMPDIR": str(home.parent / "tmp"), "PATH": os.environ["PATH"], **(env or {})}
    return Sandbox(mode, home.parent / "project", run_env, **given)


def run_in(box: Sandbox, command: str) -> subprocess.CompletedProcess:
    process = box.start(lambda preexec_fn: subprocess.Popen(["/bin/sh", "-c", command], cwd=box.root, env=dict(box.env),
                                                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                            preexec_fn=preexec_fn))
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


# --- why there is no sandbox, in words (the status line and --doctor show them)


def test_the_kernel_answers_the_same_each_time_it_is_asked(monkeypatch):
    monkeypatch.setattr(landlock, "_libc", None)  # the C library loaded afresh
    assert landlock.probe() == (ABI, WHY_NOT)
    assert (ABI > 0) == (WHY_NOT == "")


@needs_landlock
def test_a_command_started_with_the_c_library_loaded_afresh_is_restricted_without_new_privileges(home, monkeypatch):
    monkeypatch.setattr(landlock, "_libc", None)
    outside = home.parent / "outside"
    outside.mkdir()
    result = run_in(sandbox(home), f"grep NoNewPrivs /proc/self/status; echo no > '{outside}/f'")
    assert result.stdout.split() == ["NoNewPrivs:", "1"]  # no setuid program can lift the sandbox
    assert not (outside / "f").exists()


@pytest.mark.parametrize("number, why", [
    (errno.ENOSYS, "the kernel has no Landlock (Linux 5.13 or later built with it is needed)"),
    (errno.EOPNOTSUPP, "Landlock is turned off in this kernel (the lsm= boot option)"),
    (errno.EPERM, "a seccomp filter or the container forbids Landlock"),
    (errno.EINVAL, "Landlock cannot be asked: [Errno 22] Invalid argument"),
])
def test_why_the_kernel_refused_to_say_is_named(monkeypatch, number, why):
    def refused(*args):
        raise landlock.LandlockError(number, os.strerror(number))

    monkeypatch.setattr(landlock, "_syscall", refused)
    assert landlock.probe() == (0, why)


def test_a_c_library_without_syscall_is_named(monkeypatch):
    def missing(*args):
        raise AttributeError("syscall")

    monkeypatch.setattr(landlock, "_syscall", missing)
    assert landlock.probe() == (0, "Landlock cannot be asked: syscall")


@pytest.mark.parametrize("machine", ["alpha", "MIPS64", "mipsel"])
def test_architectures_with_other_call_numbers_are_not_asked(monkeypatch, machine):
    monkeypatch.setattr(platform, "machine", lambda: machine)
    monkeypatch.setattr(landlock, "_syscall", lambda *args: pytest.fail("asked the kernel"))
    assert landlock.probe() == (0, "Landlock's system calls are not known here for this architecture")


@pytest.mark.parametrize("system, named", [("Darwin", "Darwin"), ("", "darwin")])
def test_a_system_other_than_linux_is_named(monkeypatch, system, named):
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(platform, "system", lambda: system)
    assert landlock.probe() == (0, f"Landlock is a Linux feature (this is {named})")


@needs_landlock
def test_rules_the_kernel_refuses_are_named_with_its_words(home, monkeypatch):
    monkeypatch.setattr(landlock, "_libc", None)  # loaded afresh: errno read as the kernel set it
    with pytest.raises(OSError) as refused:
        landlock.Ruleset(ABI, 1 << 60)
    assert refused.value.errno == errno.EINVAL and refused.value.strerror == "Invalid argument"
    monkeypatch.setattr(landlock, "write_rights", lambda abi: 1 << 60)
    with pytest.raises(ToolError) as error:
        run_in(sandbox(home), "true")
    assert str(error.value) == ("sandbox: Landlock refused the rules (Invalid argument); set sandbox to off in "
                                "your config to run commands without it")


@needs_landlock
def test_a_command_the_kernel_will_not_restrict_is_refused_not_run_free(home, monkeypatch):
    def refused(self):
        raise landlock.LandlockError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(landlock.Ruleset, "restrict_this_thread", refused)
    outside = home.parent / "outside"
    outside.mkdir()
    with pytest.raises(ToolError) as error:
        run_in(sandbox(home), f"echo no > '{outside}/f'")
    assert str(error.value) == ("sandbox: Landlock refused to restrict the command; set sandbox to off in your "
                                "config to run commands without it")
    assert not (outside / "f").exists()


@needs_landlock
def test_at_the_first_abi_that_knows_the_network_tcp_is_refused(home):
    if ABI < landlock.NETWORK_ABI:
        pytest.skip(f"Landlock ABI {ABI} cannot limit the network")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        script = f"import socket; socket.create_connection(('127.0.0.1', {server.getsockname()[1]}), timeout=5)"
        result = run_in(sandbox(home, network=False, abi_seam=landlock.NETWORK_ABI), f'python3 -c "{script}"')
    assert result.returncode != 0 and "PermissionError" in result.stderr


# --- the status line


@pytest.mark.parametrize("mode, extra, network, abi, line", [
    ("read-only", (), True, 4, "read-only (Landlock ABI 4): commands write only the temp directory; network allowed"),
    ("read-only", ("/srv",), True, 4,
     "read-only (Landlock ABI 4): commands write only the temp directory; network allowed"),
    ("workspace-write", ("/srv",), True, 4, "workspace-write (Landlock ABI 4): commands write only the project but "
     "its .git, the temp directory and the caches and sandbox_writable; network allowed"),
    ("workspace-write", (), False, 4, "workspace-write (Landlock ABI 4): commands write only the project but its "
     ".git, the temp directory and the caches; network TCP refused"),
    ("workspace-write", (), False, 3, "workspace-write (Landlock ABI 3): commands write only the project but its "
     ".git, the temp directory and the caches; network not limited (needs Landlock ABI 4)"),
])
def test_the_status_line_says_where_commands_write_and_what_the_network_allows(home, mode, extra, network, abi,
                                                                               line):
    assert sandbox(home, mode, extra=extra, network=network, abi_seam=abi).describe() == line


# --- the caches, wherever the run's environment puts them


@needs_landlock
def test_the_download_caches_are_writable_where_the_environment_puts_them(home):
    where = home.parent / "elsewhere"
    caches = {"NPM_CONFIG_CACHE": where / "npm-a", "npm_config_cache": where / "npm-b", "CARGO_HOME": where / "cargo",
              "GOCACHE": where / "gocache", "GOMODCACHE": where / "gomod", "PIP_CACHE_DIR": where / "pip",
              "UV_CACHE_DIR": where / "uv"}
    gopaths = [where / "go-a", where / "go-b"]
    wanted = [caches["NPM_CONFIG_CACHE"] / "_cacache", caches["npm_config_cache"] / "_cacache",
              caches["CARGO_HOME"] / "registry", *(caches[name] for name in ("GOCACHE", "GOMODCACHE", "PIP_CACHE_DIR",
                                                                              "UV_CACHE_DIR")),
              *(gopath / "pkg" / "mod" for gopath in gopaths)]
    planted = [caches["CARGO_HOME"] / "bin", where / "go-a" / "bin"]
    for place in wanted + planted:
        place.mkdir(parents=True)
    env = {name: str(path) for name, path in caches.items()} | {"GOPATH": os.pathsep.join(map(str, gopaths))}
    result = run_in(sandbox(home, env=env), "; ".join(f"echo ok > '{place}/f'" for place in wanted + planted))
    assert [place for place in wanted if not (place / "f").exists()] == []
    assert [place for place in planted if (place / "f").exists()] == []  # what a shell runs later: not writable
    assert result.stderr.count("Permission denied") == len(planted)


@needs_landlock
def test_the_caches_default_to_the_runs_home_and_a_listed_tilde_is_that_home(home):
    wanted = [home / ".npm" / "_cacache", home / ".cargo" / "registry", home / "go" / "pkg" / "mod"]
    for place in wanted:
        place.mkdir(parents=True)
    result = run_in(sandbox(home), "; ".join(f"echo ok > '{place}/f'" for place in wanted) + f"; echo no > '{home}/f'")
    assert [place for place in wanted if not (place / "f").exists()] == []
    assert not (home / "f").exists() and result.returncode != 0
    assert run_in(sandbox(home, extra=("~",)), f"echo ok > '{home}/f'").returncode == 0


@needs_landlock
def test_without_home_in_the_runs_environment_the_caches_are_under_the_users_home(home, monkeypatch):
    monkeypatch.setenv("HOME", str(home))  # the user's, where the run's environment names none
    (home / ".cargo" / "registry").mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "TMPDIR": str(home.parent / "tmp")}
    box = Sandbox("workspace-write", home.parent / "project", env)
    assert run_in(box, f"echo ok > '{home}/.cargo/registry/f'").returncode == 0
    assert (home / ".cargo" / "registry" / "f").read_text() == "ok\n"


@needs_landlock
def test_without_tmpdir_the_temp_directory_is_tmp(home):
    box = Sandbox("read-only", home.parent / "project", {"HOME": str(home), "PATH": os.environ["PATH"]})
    name = f"/tmp/ayder-sandbox-test-{os.getpid()}"
    try:
        assert run_in(box, f"echo ok > {name}").returncode == 0
        assert Path(name).read_text() == "ok\n"
    finally:
        Path(name).unlink(missing_ok=True)


# --- the submodules whose .git stays read-only


def test_each_submodule_inside_the_project_keeps_its_git_read_only(home):
    project = home.parent / "project"
    for name in ("sub", "deep/er", "outside", "gone"):
        (project / name).mkdir(parents=True)
    for name in (".git", "sub/.git", "deep/er/.git"):
        (project / name).write_text("gitdir: somewhere\n")
    (home.parent / "escape").mkdir()
    (home.parent / "escape" / ".git").write_text("gitdir: x\n")
    (project / ".gitmodules").write_bytes(
        b'[submodule "a"]\n\tpath = sub\n[submodule "\xff"]\n  path=deep/er  \n'
        b"\tpath = ../escape\n\tpath = /etc\n\tpath = gone\n")
    box = sandbox(home)
    assert box.read_only() == [project / ".git", project / "sub" / ".git", project / "deep" / "er" / ".git"]
    assert sandbox(home, "read-only").read_only() == []
