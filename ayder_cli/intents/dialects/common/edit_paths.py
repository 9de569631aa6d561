"""Which lines name the file an edit written as text is for: a path line, or a fence's info string.

Conservative on purpose: an ordinary answer shows file names and code fences
all the time. A path line holds nothing but the path, bare or dressed as
markdown (`src/app.py`, **src/app.py**, ### src/app.py, src/app.py:). A path
has no spaces and looks like a file: a folder in it, an extension, a dotfile,
or a well-known name (Makefile); "Change:" before a block is a word.
"""

from __future__ import annotations

import re

_TOKEN = r"[\w.+@~/\\-]+"
# heading hashes, then bold and/or inline code around the path, and a colon inside or after them
_PATH_LINE = re.compile(
    rf"[ \t]*(?:#{{1,6}}[ \t]+)?(\*\*|__)?(`)?(?P<path>{_TOKEN})(?(2)`):?(?(1)\1):?[ \t]*")
# ```python src/app.py, ```python:src/app.py, ```src/app.py
_INFO = re.compile(rf"(?:[\w+#.-]+(?:[ \t]+|:))?(?P<path>{_TOKEN})")
_FILE_LIKE = re.compile(r"[A-Za-z_][\w+@~-]*\.[A-Za-z0-9]+$|^\.[A-Za-z]\w*$|/")
MAX_PATH = 200


def _valid(path: str) -> bool:
    return (0 < len(path) <= MAX_PATH and not path.endswith(("/", "\\", ".")) and not path.startswith("-")
            and "//" not in path and re.search(r"[A-Za-z]", path) is not None)


# Files known by a name without an extension ("Change:" before a block is a word, "Makefile" is a file).
_KNOWN_NAMES = frozenset({"makefile", "gnumakefile", "dockerfile", "containerfile", "jenkinsfile", "procfile",
                          "gemfile", "rakefile", "vagrantfile", "justfile", "license", "readme", "codeowners",
                          "build", "workspace", "brewfile", "pipfile"})


def looks_like_file(path: str) -> bool:
    """A path an edit may be for: it has a folder, an extension, is a dotfile or a well-known name."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not _valid(path) or not name.strip("."):
        return False
    return bool(_FILE_LIKE.search(path)) or name.lower() in _KNOWN_NAMES


def path_of_line(line: str | None) -> str | None:
    """The path a line names, when the line holds nothing else and it looks like a file (None otherwise)."""
    if line is None or len(line) > MAX_PATH + 20:
        return None
    found = _PATH_LINE.fullmatch(line.rstrip("\r"))
    if found is None or not looks_like_file(found.group("path")):
        return None
    return found.group("path")


# A fence in one of these is a command or its output shown to the user, not the file above it
# (setup.py, then ```bash python setup.py install), unless the file is of that kind itself.
_SHOWN_NOT_FILED = {"bash": (".sh", ".bash"), "sh": (".sh",), "shell": (".sh",), "zsh": (".zsh", ".sh"),
                    "console": (), "terminal": (), "shell-session": (), "powershell": (".ps1",), "ps1": (".ps1",),
                    "cmd": (".cmd", ".bat"), "bat": (".bat", ".cmd"), "text": (".txt",), "txt": (".txt",),
                    "output": (), "log": (".log",), "diff": (".diff", ".patch"), "patch": (".patch", ".diff")}


def fits_fence(path: str, info: str) -> bool:
    """A fence with this info string may hold the file at `path` (not a command or output shown above it)."""
    language = info.strip().split(":", 1)[0].split(None, 1)[0].lower() if info.strip() else ""
    endings = _SHOWN_NOT_FILED.get(language)
    return endings is None or path.lower().endswith(endings)


def path_of_info(info: str) -> str | None:
    """The path a fence's info string names after its language ("python src/app.py"), if it looks like a file."""
    found = _INFO.fullmatch(info.strip())
    path = found.group("path") if found else None
    return path if path is not None and looks_like_file(path) else None
