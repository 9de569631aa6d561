"""A wheel built from the source, installed (not editable) into a fresh venv, finds its prompts."""

from __future__ import annotations

import os
import shutil
import importlib.metadata
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from support.fakellm import Reply

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("pyproject.toml", "setup.cfg", "README.md", "ayder_cli", "prompts")


@pytest.fixture(scope="session")  # built once, however the tests are ordered
def installed_ayder(tmp_path_factory) -> Path:
    """`ayder` from a fresh venv holding only the wheel; run-time deps come from this env, read-only."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SHIPPED:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    # The test extra's setuptools builds it, as the isolated build would, without fetching a copy (a venv
    # made before the extra asked for 70.1 builds it the isolated way still).
    isolation = ["--no-build-isolation"] if _setuptools_builds_wheels() else []
    subprocess.run([*pip, "wheel", "--no-deps", *isolation, "-w", str(work / "dist"), str(source)], check=True)
    wheel = next((work / "dist").glob("ayder_cli-*.whl"))

    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], check=True)
    # requests, click and prompt_toolkit are found in this environment's site-packages,
    # added as a plain path (its .pth files, such as an editable ayder, are not run).
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "outer_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin" / "ayder"


def _setuptools_builds_wheels() -> bool:
    """This environment's setuptools builds a wheel by itself (70.1 and later; before, it needs `wheel`)."""
    try:
        release = tuple(int(part) for part in importlib.metadata.version("setuptools").split(".")[:2])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return release >= (70, 1)


def run(ayder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(ayder), *args], capture_output=True, text=True, cwd=cwd,
                          stdin=subprocess.DEVNULL, env=os.environ.copy(), timeout=60)


def test_installed_wheel_runs_from_its_own_files(installed_ayder, tmp_path):
    result = run(installed_ayder, "--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("ayder ")
    where = subprocess.run([str(installed_ayder.parent / "python"), "-c", "import ayder_cli; print(ayder_cli.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert str(installed_ayder.parent.parent) in where  # not the source checkout


def test_installed_wheel_sends_its_shipped_prompts(installed_ayder, tmp_path, fake):
    fake.queue(Reply(text="fine"))
    result = run(installed_ayder, "--base-url", fake.url, "--prompts", "plain,system", "hi", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fine\n"
    expected = "\n".join((REPO / "prompts" / f"{name}.txt").read_text().strip("\n") for name in ("plain", "system"))
    system = fake.chat_requests()[0]["body"]["messages"][0]
    assert system == {"role": "system", "content": expected}


def test_installed_wheel_lists_shipped_prompts_for_an_unknown_name(installed_ayder, tmp_path):
    result = run(installed_ayder, "--prompts", "nope", "hi", cwd=tmp_path)
    assert result.returncode == 2
    assert "available: plain, system" in result.stderr


def test_installed_wheel_has_the_key_list_its_config_errors_point_at(installed_ayder, tmp_path):
    (tmp_path / ".ayder").mkdir()
    (tmp_path / ".ayder" / "config.json").write_text('{"colour_scheme": "dark"}')
    error = run(installed_ayder, "hi", cwd=tmp_path)
    assert error.returncode == 2 and "ayder --help-config lists every key" in error.stderr
    listed = run(installed_ayder, "--help-config", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "  num_ctx" in listed.stdout and "  verify" in listed.stdout


def test_every_package_of_the_source_is_shipped():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(path.parent.relative_to(REPO).parts) for path in (REPO / "ayder_cli").rglob("__init__.py")}
    assert found <= listed, f"not in pyproject's packages: {sorted(found - listed)}"


def test_installed_wheel_says_to_add_the_mcp_extra_from_the_checkout(installed_ayder, tmp_path):
    """A wheel records no directory to point at: the hint says where to run it."""
    python = installed_ayder.parent / "python"
    hint = subprocess.run([str(python), "-c", "from ayder_cli.mcp_servers.install_hint import extra_command; "
                                              "print(extra_command('mcp'))"],
                          capture_output=True, text=True, cwd=tmp_path, check=True).stdout.strip()
    assert hint.endswith(" install '.[mcp]' in ayder's checkout"), hint
    assert str(python) in hint  # that environment's own Python, whatever `pip` is first on PATH
