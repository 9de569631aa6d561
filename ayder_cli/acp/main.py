"""`ayder acp`: the process as an ACP agent. stdout carries the protocol and nothing else: the real
stdout is kept for it, and file descriptor 1 is pointed at stderr, so neither a stray print nor a
command ayder starts can write into it."""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Callable

from ayder_cli.acp.agent import AcpStart, Agent
from ayder_cli.acp.wire import INTERNAL_ERROR, Connection
from ayder_cli.errors import ExitStatus
from ayder_cli.terminal.environment import Environment


def run_acp(environment: Environment, start: AcpStart) -> int:
    """Serve ACP on stdin and stdout until the client closes stdin; the exit status."""
    reader, writer = _protocol_streams(environment)
    log = _logger(environment)
    agent: Agent | None = None

    def arrived(message: dict) -> bool:
        return agent.arrived(message) if agent is not None else False

    connection = Connection(reader, writer, arrived=arrived, log=log)
    agent = Agent(connection, environment, start, log, _interrupter())
    if threading.current_thread() is threading.main_thread():
        # session/cancel is Ctrl-C, even for a process started with SIGINT ignored
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from ayder_cli.terminal.signals import adopt_orphans

        adopt_orphans()  # what commands detach stops with ayder too
    connection.start()
    try:
        while True:
            try:
                message = connection.incoming.get()
            except KeyboardInterrupt:  # a cancel that came as its prompt ended
                continue
            if message is None:
                return ExitStatus.OK
            try:
                agent.handle(message)
            except KeyboardInterrupt:
                continue
            except Exception as exc:  # a bug: the request fails, the agent goes on
                log(f"internal error: {type(exc).__name__}: {exc}")
                if message.get("id") is not None:
                    connection.fail(message["id"], INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")
    finally:
        agent.close()


def _interrupter() -> Callable[[], None]:
    """Ctrl-C for the thread that serves the requests (this one). In the process's main thread, SIGINT: it
    also ends a wait in the kernel at once, as at the terminal. In a thread of a program that runs ayder
    in-process (the tests), SIGINT would reach that program's main thread instead: a KeyboardInterrupt is
    raised in this thread, taken at its next step (a running command's pipe is polled every 50 ms)."""
    thread = threading.get_ident()
    if threading.current_thread() is threading.main_thread():
        return lambda: signal.pthread_kill(thread, signal.SIGINT)

    def raise_here() -> None:
        import ctypes  # a cancel of a run in a thread only

        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(KeyboardInterrupt))

    return raise_here


def _protocol_streams(environment: Environment):
    """(reader, writer) in bytes. With the process's own stdout, fd 1 then goes to stderr."""
    reader = getattr(environment.stdin, "buffer", environment.stdin)
    stdout = environment.stdout
    if stdout is sys.stdout:
        try:
            writer = os.fdopen(os.dup(stdout.fileno()), "wb", buffering=0)
            stdout.flush()
            os.dup2(sys.stderr.fileno(), stdout.fileno())
            return reader, writer
        except (AttributeError, ValueError, OSError):
            pass
    return reader, getattr(stdout, "buffer", None) or _TextWriter(stdout)


class _TextWriter:
    """A text stream a caller gave for stdout (no bytes underneath), written as a binary one."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        return self._stream.write(data.decode("utf-8"))

    def flush(self) -> None:
        self._stream.flush()


def _logger(environment: Environment):
    def log(message: str) -> None:
        try:
            environment.stderr.write(message + "\n")
            environment.stderr.flush()
        except (OSError, ValueError):
            pass

    return log
