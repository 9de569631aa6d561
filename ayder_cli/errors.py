"""Exit codes, the error type every user-facing failure is raised as, and ToolError."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0
    ERROR = 1  # runtime failure: server, network, tool
    USAGE = 2  # bad flags or bad configuration
    HANGUP = 129  # SIGHUP (the terminal closed), as a shell reports it
    INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT
    TERMINATED = 143  # SIGTERM, as a shell reports it


class AyderError(Exception):
    """A failure the user can act on: one line of what happened, one of what to do."""

    exit_status = ExitStatus.ERROR

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


class ConfigError(AyderError):
    exit_status = ExitStatus.USAGE


class UsageError(AyderError):
    exit_status = ExitStatus.USAGE


class ToolError(Exception):
    """A failure the model can act on; its message becomes the result's error as it is.

    Here, at the bottom, because storage (paths, atomic writes) raises it as well as the tools."""
