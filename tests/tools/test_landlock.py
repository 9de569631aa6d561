"""The Landlock binding and the sandbox policy, below ayder: the ABI is read, a command started in the
sandbox cannot write outside its places but can inside them, ayder's own threads stay free, a
missing sandbox_writable entry is skipped with a notice, and a refused write is named."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from ayder_cli.tools import landlock
from ayder_cli.tools.sandbox import Sandbox
from ayder_cli.tools.sandbox_refusals import refused_line

ABI, WHY_NOT = landlock.probe()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"Landlock is not available here: {WHY_NOT}")


@pytest.fixture
def places(tmp_path):
    """A project, a temp directory and an outside directory, each empty; HOME inside tmp_path."""
    made = {name: tmp_path / name for name in ("project", "tmp", "outside", "home")}
    for path in made.values():
        path.mkdir()
    return made


def sandbox(places, mode="workspace-write", **given) -> Sandbox:
    env = {"HOME": str(places["home"]), "TMPDIR": str(places["tmp"]), "PATH": os.environ["PATH"]}
    return Sandbox(mode, places["project"], env, **given)


def run_in(box: Sandbox, command: str, cwd: Path) -> subprocess.CompletedProcess:
    process = box.start(lambda: subprocess.Popen(["/bin/sh", "-c", command], cwd=cwd, env=box.env, text=True,
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


# --- the binding


def test_the_abi_is_read_from_the_kernel():
    if not os.uname().sysname == "Linux":
        assert ABI == 0 and WHY_NOT
        return
    assert (ABI == 0) == bool(WHY_NOT)
    if ABI:  # the version the kernel answered is one whose every write right it accepts
        assert type(ABI) is int and ABI >= 1
        with landlock.Ruleset(ABI, landlock.write_rights(ABI)):
            pass
    else:
        assert "Landlock" in WHY_NOT


def test_only_the_rights_an_abi_has_are_asked_for():
    assert landlock.write_rights(1) & (landlock.REFER | landlock.TRUNCATE | landlock.IOCTL_DEV) == 0
    assert landlock.write_rights(2) & landlock.REFER and not landlock.write_rights(2) & landlock.TRUNCATE
    assert landlock.write_rights(3) & landlock.TRUNCATE and not landlock.write_rights(4) & landlock.IOCTL_DEV
    assert landlock.write_rights(5) & landlock.IOCTL_DEV
    for abi in range(1, 8):
        assert not landlock.write_rights(abi) & (landlock.READ_FILE | landlock.READ_DIR | landlock.EXECUTE)


def test_network_rights_need_abi_4():
    with pytest.raises(ValueError, match="ABI 4"):
        landlock.Ruleset(3, landlock.write_rights(3), landlock.CONNECT_TCP)


@needs_landlock
def test_a_restricted_thread_starts_a_child_that_writes_only_where_allowed(places):
    inside, outside = places["project"], places["outside"]
    with landlock.Ruleset(ABI, landlock.write_rights(ABI)) as ruleset:
        ruleset.allow_beneath(inside, landlock.write_rights(ABI))
        ruleset.allow_beneath("/dev", landlock.write_rights(ABI))
        done = {}

        def child() -> None:
            ruleset.restrict_this_thread()
            done["run"] = subprocess.run(["/bin/sh", "-c", f"echo in > {inside}/a; echo out > {outside}/b; "
                                          "echo x > /dev/null && echo null-ok"], capture_output=True, text=True)

        thread = threading.Thread(target=child)
        thread.start()
        thread.join()
    assert (inside / "a").read_text() == "in\n"
    assert not (outside / "b").exists() and "Permission denied" in done["run"].stderr
    assert "null-ok" in done["run"].stdout
    (outside / "mine").write_text("ayder itself is never restricted")  # this thread, after that one


# --- the sandbox of a run


@needs_landlock
def test_a_sandboxed_command_writes_the_project_and_the_temp_directory_only(places):
    box = sandbox(places)
    result = run_in(box, f'echo a > in.txt && echo b > "$TMPDIR/t" && rm in.txt && mkdir d && mv d e; '
                         f'echo c > {places["outside"]}/o; touch {places["home"]}/h', places["project"])
    assert not (places["project"] / "in.txt").exists() and (places["project"] / "e").is_dir()
    assert (places["tmp"] / "t").read_text() == "b\n"
    assert not (places["outside"] / "o").exists() and not (places["home"] / "h").exists()
    assert result.stderr.count("Permission denied") == 2
    (places["outside"] / "after").write_text("ayder itself is never restricted")


@needs_landlock
def test_the_caches_are_writable_in_workspace_write_but_not_in_read_only(places):
    cache = places["home"] / ".cache"
    cache.mkdir()
    assert run_in(sandbox(places), "echo ok > ~/.cache/pip-like", places["project"]).returncode == 0
    result = run_in(sandbox(places, "read-only"), "echo no > ~/.cache/x; echo no > p; echo yes > $TMPDIR/y",
                    places["project"])
    assert not (cache / "x").exists() and not (places["project"] / "p").exists()
    assert (places["tmp"] / "y").exists()
    assert refused_line(sandbox(places, "read-only"), result.stderr).endswith(
        "(the sandbox is read-only; set sandbox to workspace-write, or to off)")


@needs_landlock
def test_a_listed_path_is_writable_and_a_missing_one_is_skipped_with_a_notice(places):
    notices = []
    box = sandbox(places, extra=(str(places["outside"]), "~/not-there"), warn=notices.append)
    result = run_in(box, f"echo ok > {places['outside']}/listed", places["project"])
    assert result.returncode == 0 and (places["outside"] / "listed").read_text() == "ok\n"
    run_in(box, "true", places["project"])
    assert notices == ["sandbox_writable: ~/not-there does not exist (or cannot be opened); skipped"]


@needs_landlock
def test_an_older_abi_still_makes_a_working_sandbox(places):
    box = sandbox(places, abi_seam=1)
    result = run_in(box, f"echo a > in.txt; echo b > {places['outside']}/o", places["project"])
    assert (places["project"] / "in.txt").exists() and not (places["outside"] / "o").exists()
    assert "Landlock ABI 1" in box.describe() and result.returncode != 0


@needs_landlock
@pytest.mark.parametrize("network", [True, False])
def test_sandbox_network_false_refuses_tcp(places, network):
    if ABI < landlock.NETWORK_ABI:
        pytest.skip(f"Landlock ABI {ABI} cannot limit the network")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        script = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')"
        result = run_in(sandbox(places, network=network), f'python3 -c "{script}"', places["project"])
    assert ("connected" in result.stdout) is network
    assert sandbox(places, network=network).describe().endswith("network allowed" if network else "network TCP refused")


def test_where_landlock_is_missing_commands_run_as_before_and_the_status_says_so(places):
    box = sandbox(places, abi_seam=0)
    result = run_in(box, f"echo out > {places['outside']}/o", places["project"])
    assert result.returncode == 0 and (places["outside"] / "o").exists()
    assert box.describe() == ("not available (Landlock is not available here): commands write wherever the user "
                              "can; the deny list stands alone")
    assert refused_line(box, "rm: cannot remove '/x': Permission denied") is None


def test_sandbox_off_says_so():
    assert Sandbox("off", Path("/p"), {}).describe().startswith("off (sandbox in the config)")


# --- a refused write, named


@pytest.mark.parametrize("output", [
    "PermissionError: [Errno 13] Permission denied: '{home}/.ssh/id_test'",
    "find: cannot delete ‘{home}/.ssh/id_test’: Permission denied",
    "rm: cannot remove '{home}/.ssh/id_test': Operation not permitted",
    "/bin/sh: 1: cannot create {home}/.ssh/id_test: Permission denied",
    "cannot remove {home}/.ssh/id_test: Permission denied",
    "npm ERR! Error: EACCES: permission denied, mkdir '{home}/.ssh/id_test'",
    "OSError: [Errno 30] Read-only file system: '~/.ssh/id_test'",
])
def test_a_refused_write_is_named_with_the_key(places, output):
    box = sandbox(places, abi_seam=max(ABI, 1))
    line = refused_line(box, "some output\n" + output.format(home=places["home"]) + "\nmore")
    assert line == (f"sandbox: writing {places['home']}/.ssh/id_test was refused (outside the project; add it to "
                    "sandbox_writable in your config, or set sandbox to off)")


def test_a_refusal_inside_the_writable_places_or_with_no_denial_is_not_blamed_on_the_sandbox(places):
    box = sandbox(places, abi_seam=max(ABI, 1))
    (places["project"] / "build").mkdir()
    (places["project"] / "build" / "x").write_text("x")
    assert refused_line(box, "rm: cannot remove 'build/x': Permission denied") is None  # in the project
    assert refused_line(box, f"touch: cannot touch '{places['tmp']}/x': Permission denied") is None
    assert refused_line(box, "all good") is None
    several = "\n".join(f"find: cannot delete '{places['home']}/{name}': Permission denied" for name in "abc")
    assert refused_line(box, several).startswith(f"sandbox: writing {places['home']}/a (and 2 more) was refused")


def test_a_denial_with_no_path_gets_the_general_line(places):
    box = sandbox(places, abi_seam=max(ABI, 1))
    assert refused_line(box, "Permission denied at -e line 1.") == (
        "sandbox: a write may have been refused (outside the project; if so, add it to sandbox_writable in your "
        "config, or set sandbox to off)")


def test_a_name_relative_to_another_directory_is_named_as_printed(places):
    """shutil.rmtree walks by directory fd: its error names the entry alone, not in the project."""
    box = sandbox(places, abi_seam=max(ABI, 1))
    assert refused_line(box, "PermissionError: [Errno 13] Permission denied: 'id_test'").startswith(
        "sandbox: writing id_test was refused (outside the project;")
