"""Start-up benchmark: how long `ayder --version`, `--help` and the REPL take to be ready.

Run:  python benchmarks/startup.py [--runs N] [--strict]

Every command runs as a subprocess of the same interpreter (the `ayder` script
beside sys.executable). The floor of --version and --help is `python -c "import
click"`: the least any Click program can cost. The REPL's floor is `python -c
"import click, prompt_toolkit"`, both run in a pty: the least a prompt_toolkit
prompt can cost. Targets are ratios to a floor measured in the same run, so the
numbers mean the same thing on a slow and a fast machine.
Exit status is 0 whatever the result, unless --strict is given.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.5
REPL_TARGET_RATIO = 1.25  # the REPL ready to type, against importing what it cannot do without
HEAVY_MODULES = ("requests", "urllib3", "prompt_toolkit", "http.client", "ssl", "json", "ayder_cli.lsp")
MUST_NOT_IMPORT = ("requests", "prompt_toolkit", "ayder_cli.lsp")
PROMPT_TIMEOUT_S = 20.0
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]|\r")


def ayder_script() -> list[str]:
    script = shutil.which("ayder", path=str(Path(sys.executable).parent))
    if script:
        return [script]
    print("note: no `ayder` script beside this Python; timing `python -m ayder_cli` instead",
          file=sys.stderr)
    return [sys.executable, "-m", "ayder_cli"]


def isolated_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    # PYTHONDONTWRITEBYTECODE: an installed ayder has its bytecode cached; without the cache every
    # run would compile ayder from source and time the compiler.
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "AYDER_MODEL",
                 "AYDER_PROVIDER", "AYDER_BASE_URL", "PYTHONPROFILEIMPORTTIME", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
    )
    return env


def time_command(argv: list[str], runs: int, env: dict[str, str], cwd: Path) -> list[float]:
    """Wall times in seconds of `runs` runs, after one untimed warm-up run."""
    times = []
    for attempt in range(runs + 1):
        started = time.perf_counter()
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=env, cwd=cwd)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                             f"{done.stderr.decode()[-500:]}")
        if attempt:
            times.append(elapsed)
    return times


def time_in_pty(argv: list[str], env: dict[str, str], cwd: Path, until_prompt: bool) -> float:
    """Seconds from spawning `argv` in a fresh pty until the REPL prompt `> ` is drawn
    (until_prompt), or until the process exits (the floor, which draws nothing)."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                               start_new_session=True, close_fds=True)
    os.close(slave)
    seen = b""
    try:
        deadline = started + PROMPT_TIMEOUT_S
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SystemExit(f"no prompt within {PROMPT_TIMEOUT_S:g} s; "
                                 f"the pty showed: {seen[-400:]!r}")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                data = b""
            if not data:
                if until_prompt:
                    raise SystemExit(f"ayder exited before its prompt; the pty showed: {seen[-400:]!r}")
                process.wait()
                return time.perf_counter() - started
            seen += data
            # prompt_toolkit draws ">" and moves the cursor past the space instead of printing it.
            visible = ANSI.sub(b"", seen).replace(b"\x08", b"")
            if until_prompt and any(line.rstrip(b" ") == b">" for line in visible.split(b"\n")):
                elapsed = time.perf_counter() - started
                break
        os.write(master, b"\x04")  # Ctrl-D: leave the REPL
        _drain_until_exit(master, process)
        return elapsed
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)


def _drain_until_exit(master: int, process: subprocess.Popen, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                if not os.read(master, 65536):
                    break
            except OSError:
                break
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass


def server_contacted_before_prompt(ayder: list[str], env: dict[str, str], cwd: Path) -> bool:
    """Start the REPL against a listening socket; True if anything connected before the prompt."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        time_in_pty([*ayder, "--base-url", f"http://127.0.0.1:{port}"], env, cwd, until_prompt=True)
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return False
        connection.close()
        return True


IMPORT_CHECK = """
import sys
from ayder_cli import cli
try:
    cli.main(ARGS)
except SystemExit:
    pass
loaded = {name: name in sys.modules for name in HEAVY}
import json  # only after the check, so it does not count
sys.stderr.write("\\nMODULES " + json.dumps(loaded) + "\\n")
"""


def loaded_modules(args: list[str], env: dict[str, str], cwd: Path) -> dict[str, bool]:
    code = IMPORT_CHECK.replace("ARGS", repr(args)).replace("HEAVY", repr(HEAVY_MODULES))
    done = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd,
                          text=True, check=False)
    for line in done.stderr.splitlines():
        if line.startswith("MODULES "):
            return json.loads(line[len("MODULES "):])
    raise SystemExit(f"import check for {args} failed: {done.stderr[-500:]}")


def slowest_imports(args: list[str], env: dict[str, str], cwd: Path,
                    count: int = 8) -> list[tuple[int, str]]:
    """Imports at the top two levels with the largest cumulative time (-X importtime), in µs."""
    code = f"from ayder_cli import cli\ntry:\n    cli.main({args!r})\nexcept SystemExit:\n    pass"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, cwd=cwd, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        # "import time: self [us] | cumulative | imported package"; top level has no leading spaces.
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        if depth <= 1 and name.strip():
            rows.append((int(cumulative), "  " * depth + name.strip()))
    return sorted(rows, reverse=True)[:count]


def print_table(rows: list[tuple[str, list[float], float | None]], floor: float, width: int,
                spread: bool = False) -> bool:
    """Each row's median and its ratio to `floor`, against its target (None: no target). True if
    a target was missed."""
    missed = False
    print(f"{'command':<{width}}  {'median ms':>9}  {'ratio':>6}  {'target':>7}  result")
    print("-" * (width + 38))
    for label, times, target in rows:
        median = statistics.median(times)
        ratio = median / floor
        verdict, target_text = "", ""
        if target is not None:
            missed |= ratio > target
            verdict, target_text = ("PASS" if ratio <= target else "FAIL"), f"<= {target:g}"
        extra = f"  (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})" if spread else ""
        print(f"{label:<{width}}  {median * 1000:9.1f}  {ratio:6.2f}  {target_text:>7}  {verdict}{extra}")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=17, help="timed runs per command (default 17)")
    parser.add_argument("--prompt-runs", type=int, default=9, help="timed REPL starts (default 9)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    options = parser.parse_args()

    ayder = ayder_script()
    python = sys.executable
    failed = False
    with tempfile.TemporaryDirectory(prefix="ayder-bench-") as tmp:
        home = Path(tmp) / "home"
        cwd = Path(tmp) / "project"
        home.mkdir()
        cwd.mkdir()
        env = isolated_env(home)

        print(f"python {sys.version.split()[0]} at {python}")
        print(f"ayder  {' '.join(ayder)}")
        print(f"{options.runs} timed runs per command after one warm-up; median wall time\n")

        floor_argv = [python, "-c", "import click"]
        rows = [
            ("python -c 'import click'  (floor)", floor_argv, None),
            ("ayder --version", [*ayder, "--version"], TARGET_RATIO),
            ("ayder --help", [*ayder, "--help"], TARGET_RATIO),
            ("python -c 'import requests, click, prompt_toolkit'  (reference)",
             [python, "-c", "import requests, click, prompt_toolkit"], None),
        ]
        medians = {}
        for label, argv, _ in rows:
            medians[label] = statistics.median(time_command(argv, options.runs, env, cwd))
        floor = medians[rows[0][0]]

        width = max(len(label) for label, _, _ in rows)
        failed |= print_table([(label, [medians[label]], target) for label, _, target in rows], floor, width)

        print("\nREPL: from spawn to the first `> ` prompt in a pty (PROMPT_TOOLKIT_NO_CPR=1, "
              "--base-url http://127.0.0.1:9),\nbeside the floor spawned in a pty until it exits; "
              f"{options.prompt_runs} runs each, interleaved, after one warm-up:")
        pty_env = dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM=env.get("TERM") or "xterm-256color")
        repl_floor_label = "python -c 'import click, prompt_toolkit'  (floor)"
        repl_rows = [
            (repl_floor_label, [python, "-c", "import click, prompt_toolkit"], False, None),
            ("ayder  (REPL ready to type)", [*ayder, "--base-url", "http://127.0.0.1:9"], True,
             REPL_TARGET_RATIO),
        ]
        pty_times: dict[str, list[float]] = {label: [] for label, _, _, _ in repl_rows}
        for attempt in range(options.prompt_runs + 1):
            for label, argv, until_prompt, _ in repl_rows:
                elapsed = time_in_pty(argv, pty_env, cwd, until_prompt)
                if attempt:
                    pty_times[label].append(elapsed)
        repl_floor = statistics.median(pty_times[repl_floor_label])
        failed |= print_table([(label, pty_times[label], target) for label, _, _, target in repl_rows],
                              repl_floor, width, spread=True)
        contacted = server_contacted_before_prompt(ayder, pty_env, cwd)
        failed |= contacted
        print("  server contacted before the first prompt: "
              + ("YES (FAIL)" if contacted
                 else "no (PASS; checked with a listening socket as --base-url)"))

        print("\nModules loaded by cli.main([...]) (a sys.exit caught in-process):")
        print(f"  {'args':<12}  " + "  ".join(f"{name:>14}" for name in HEAVY_MODULES) + "  result")
        for args in (["--version"], ["--help"]):
            loaded = loaded_modules(args, env, cwd)
            bad = [name for name in MUST_NOT_IMPORT if loaded.get(name)]
            failed |= bool(bad)
            cells = "  ".join(f"{('loaded' if loaded[name] else '-'):>14}"
                              for name in HEAVY_MODULES)
            verdict = "FAIL (imports " + ", ".join(bad) + ")" if bad else "PASS"
            print(f"  {' '.join(args):<12}  {cells}  {verdict}")

        print("\nSlowest imports of `ayder --version`, top two levels "
              "(python -X importtime, cumulative):")
        for micros, name in slowest_imports(["--version"], env, cwd):
            print(f"  {micros / 1000:7.1f} ms  {name}")

    if failed:
        print("\nat least one target missed"
              + ("" if options.strict else " (exit 0; use --strict to fail)"))
    return 1 if failed and options.strict else 0


if __name__ == "__main__":
    sys.exit(main())
