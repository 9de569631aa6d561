"""The Landlock binding and the sandbox policy, below ayder: the ABI is read, a command started in the
sandbox cannot write outside its places but can inside them, ayder's own threads stay free, a
missing sandbox_writable entry is skipped with a notice, and a refused write is named."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from ayder_cli.processes import landlock
from ayder_cli.processes.sandbox import Sandbox
from ayder_cli.processes.sandbox_refusals import refused_line

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
    process = box.start(lambda preexec_fn: subprocess.Popen(["/bin/sh", "-c", command], cwd=cwd, env=box.env,
                                                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                            preexec_fn=preexec_fn))
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


@pytest.mark.parametrize("output", [
    "/bin/sh: 1: cannot create ../outside/f: Permission denied",  # dash
    "/bin/sh: line 1: ../outside/f: Permission denied",  # bash as sh
    "sh: 1: cannot create ../outside/f: Permission denied",
])
def test_the_shells_own_refusal_names_the_redirected_path_from_the_root_not_the_shell(places, output):
    box = sandbox(places, abi_seam=max(ABI, 1))
    assert refused_line(box, output) == (f"sandbox: writing {places['outside']}/f was refused (outside the project; "
                                         "add it to sandbox_writable in your config, or set sandbox to off)")


def test_a_refusal_in_the_projects_git_says_it_is_read_only_there(places):
    (places["project"] / ".git" / "hooks").mkdir(parents=True)
    box = sandbox(places, abi_seam=max(ABI, 1))
    tail = ("was refused (the project's .git is read-only to commands, so that nothing they write there runs later; "
            "run git commands that change it yourself, or set sandbox to off)")
    assert refused_line(box, "error: could not lock config file .git/config: Read-only file system") == (
        f"sandbox: writing {places['project']}/.git/config {tail}")
    assert refused_line(box, "touch: cannot touch '.git/hooks/pre-commit': Read-only file system") == (
        f"sandbox: writing {places['project']}/.git/hooks/pre-commit {tail}")


# --- the project's .git, read-only in a mount namespace of the command's own


@needs_landlock
def test_where_no_mount_namespace_can_be_made_landlock_stands_alone_and_says_so_once(places, monkeypatch):
    from ayder_cli.processes import read_only_binds

    def refused(self):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(read_only_binds.ReadOnlyBinds, "apply", refused)
    (places["project"] / ".git").mkdir()
    notices: list[str] = []
    box = sandbox(places, warn=notices.append)
    for _ in range(2):
        result = run_in(box, f"echo a > .git/x; echo b > {places['outside']}/o", places["project"])
    assert (places["project"] / ".git" / "x").read_text() == "a\n"
    assert not (places["outside"] / "o").exists() and "Permission denied" in result.stderr
    assert notices == ["sandbox: the project's .git stays writable to commands (this system lets ayder make no "
                       "mount namespace for them)"]
    assert box.read_only() == []
    assert "commands write only the project (its .git too: no mount namespace), the temp" in box.describe()


SANDBOX_AS = """\
import subprocess, sys
from pathlib import Path
from ayder_cli.processes.sandbox import Sandbox
base = Path(sys.argv[1])
env = {"HOME": str(base / "home"), "TMPDIR": str(base / "tmp"), "PATH": "/usr/bin:/bin"}
box = Sandbox("workspace-write", base / "project", env, warn=print)
process = box.start(lambda preexec_fn: subprocess.Popen(
    ["/bin/sh", "-c", "id -u; echo x >> .git/config; echo made > b.txt"], cwd=base / "project", env=env,
    text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=preexec_fn))
print(process.communicate()[0])
"""


@pytest.fixture
def open_places():
    """A project, temp directory and home any user may enter (pytest's own tmp is its owner's only)."""
    base = Path(tempfile.mkdtemp(prefix="ayder-other-user-"))
    made = {name: base / name for name in ("project", "tmp", "home")}
    for path in (base, *made.values()):
        path.mkdir(exist_ok=True)
        path.chmod(0o777)
    yield made
    shutil.rmtree(base)


@needs_landlock
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv to be another user")
def test_a_user_other_than_root_gets_the_git_read_only_too(open_places):
    """Not root: the command enters a user namespace of its own to make the mount (where the system lets it)."""
    project = open_places["project"]
    (project / ".git").mkdir(mode=0o777)
    (project / ".git").chmod(0o777)
    (project / ".git" / "config").write_text("[core]\n")
    (project / ".git" / "config").chmod(0o666)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    if subprocess.run([*as_nobody, "import ayder_cli.processes.sandbox"], capture_output=True, env=env,
                      timeout=60, check=False).returncode:
        pytest.skip("the other user cannot run this Python or read this checkout")
    done = subprocess.run([*as_nobody, SANDBOX_AS, str(project.parent)], capture_output=True, text=True, timeout=60,
                          env=env, check=False)
    if "mount namespace" in done.stdout:
        pytest.skip("this system lets no user namespace be made")
    assert done.stdout.startswith("65534\n"), done.stdout + done.stderr
    assert "cannot create .git/config: Read-only file system" in done.stdout
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert (project / "b.txt").read_text() == "made\n"
