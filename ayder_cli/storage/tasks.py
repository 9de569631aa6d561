"""Task files under <root>/.ayder/tasks/: one Markdown file per task.

A task file is named `TASK-001-short-slug.md` and reads:

    # Title

    - **Status:** pending

    The free body: what to do, notes, anything.

The status is one of pending, in_progress, done. A file named like a task
whose status line is missing or unreadable is still loaded, with status
"unknown" and a `problem` saying what is wrong (task_warnings() lists them),
so it is never skipped silently. Other files in the directory (a README.md,
notes) are not tasks and are ignored.

Every write goes through atomic_write, so it is recorded in the undo journal
when one is given; set_status changes the status line and nothing else.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ayder_cli.errors import AyderError, ToolError, UsageError
from ayder_cli.storage.atomic import atomic_write
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.no_follow import check_no_links
from ayder_cli.storage.paths import display_path

TASKS_DIR = Layout(Path(".")).tasks  # as shown to the user: relative to the root
STATUSES = ("pending", "in_progress", "done")
UNKNOWN = "unknown"  # the status of a file whose status line is missing or not one of STATUSES
SLUG_MAX_CHARS = 40
CANDIDATES_SHOWN = 10  # tasks listed in an error message before "and N more"

_FILE_NAME = re.compile(r"TASK-(\d+)(?:-[^/\\]*)?\.md", re.IGNORECASE)
_STATUS_LINE = re.compile(
    r"^(?P<lead>[ \t]*[-*][ \t]*\*\*Status:?\*\*:?[ \t]*)(?P<value>[^\r\n]*?)[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
_TITLE_LINE = re.compile(r"^#[ \t]+(?P<title>[^\r\n]*?)[ \t]*\r?$", re.MULTILINE)
_ID_PREFIX = re.compile(r"TASK-\d+\s*[:\-\u2013\u2014]\s*", re.IGNORECASE)  # "# TASK-001: Title" -> "Title"
_NUMBER_FORMS = re.compile(r"(?:task[-_ ]?)?#?(\d+)", re.IGNORECASE)  # TASK-001, task-1, task1, #1, 1, 001


class TaskError(UsageError):
    """An unknown or ambiguous task, an invalid status or title."""


class TaskStorageError(AyderError):
    """A task file that cannot be read or written (permissions, disk, not UTF-8)."""


@dataclass
class Task:
    id: str  # "TASK-001"
    number: int
    title: str
    status: str  # one of STATUSES, or UNKNOWN (then problem says why)
    path: Path
    body: str  # the file without its title and status lines, blank lines around it removed
    problem: str | None = None  # set when the file could not be read as a task


def tasks_dir(root: Path) -> Path:
    """.ayder/tasks/; PlantedLink if it (or .ayder) is a link: tasks are neither read nor written through it."""
    directory = Layout(Path(root).resolve()).tasks
    check_no_links(directory, directory=True)
    return directory


def task_id(number: int) -> str:
    return f"TASK-{number:03d}"


def normalize_status(value: str) -> str:
    """'In Progress', 'in-progress' -> 'in_progress'; TaskError for anything that is not a status."""
    status = re.sub(r"[\s\-]+", "_", str(value).strip().lower())
    if status not in STATUSES:
        raise TaskError(f"invalid status {value!r}; use one of {', '.join(STATUSES)}")
    return status


def slugify(title: str, max_chars: int = SLUG_MAX_CHARS) -> str:
    """Lowercase ASCII words joined by '-', cut at a word boundary within max_chars; 'task' if none."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = ""
    for word in re.findall(r"[a-z0-9]+", ascii_text.lower()):
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > max_chars:
            if not slug:
                slug = word[:max_chars]  # one very long word: cut it
            break
        slug = candidate
    return slug or "task"


# --- reading


def load_tasks(root: Path) -> list[Task]:
    """Every task file under root/.ayder/tasks/, by number; [] when there is no such directory."""
    directory = tasks_dir(root)
    try:
        entries = sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise TaskStorageError(f"cannot list {TASKS_DIR.as_posix()}: {exc.strerror or exc}") from None
    tasks = []
    for path in entries:
        match = _FILE_NAME.fullmatch(path.name)
        if match and path.is_file():
            tasks.append(parse_task(path, int(match.group(1))))
    return sorted(tasks, key=lambda task: (task.number, task.path.name))


def parse_task(path: Path, number: int) -> Task:
    """One task file read; a missing title falls back to the slug, a missing status is UNKNOWN + problem."""
    fallback_title = _title_from_name(path.name)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return Task(task_id(number), number, fallback_title, UNKNOWN, path, "", "the file is not UTF-8 text")
    except OSError as exc:
        return Task(task_id(number), number, fallback_title, UNKNOWN, path, "",
                    f"cannot read the file: {exc.strerror or exc}")
    title_match = _TITLE_LINE.search(text)
    title = _ID_PREFIX.sub("", title_match.group("title"), count=1).strip() if title_match else ""
    status_match = _STATUS_LINE.search(text)
    problem = None
    if status_match is None:
        status, problem = UNKNOWN, "no status line (expected '- **Status:** pending|in_progress|done')"
    else:
        try:
            status = normalize_status(status_match.group("value"))
        except TaskError:
            status = UNKNOWN
            problem = f"status {status_match.group('value')!r} is not one of {', '.join(STATUSES)}"
    body = _without_lines(text, [m for m in (title_match, status_match) if m is not None])
    return Task(task_id(number), number, title or fallback_title, status, path, body, problem)


def _title_from_name(name: str) -> str:
    match = re.fullmatch(r"TASK-\d+-?(.*)\.md", name, re.IGNORECASE)
    words = match.group(1).replace("-", " ").strip() if match else ""
    return words or name


def _without_lines(text: str, matches: list[re.Match[str]]) -> str:
    for match in sorted(matches, key=lambda m: m.start(), reverse=True):
        end = match.end()
        if text.startswith("\n", end):
            end += 1
        text = text[: match.start()] + text[end:]
    return text.strip("\r\n")


def task_warnings(tasks: list[Task], root: Path | None = None) -> list[str]:
    """One line per task file that could not be read as a task: which file, and what is wrong."""
    warnings = []
    for task in tasks:
        if task.problem:
            shown = display_path(Path(root).resolve(), task.path) if root is not None else task.path.name
            warnings.append(f"{task.id} ({shown}): {task.problem}")
    return warnings


# --- finding one task


def resolve(tasks: list[Task], identifier: str) -> Task:
    """The task an identifier names: TASK-001, task-1, 1, 001, its file name, or a unique part of its title.

    A number names a task by number only (never a title containing it). TaskError, listing the
    candidates, when nothing or more than one task matches.
    """
    wanted = str(identifier).strip()
    if not wanted:
        raise _no_match(tasks, "no task given")
    number_match = _NUMBER_FORMS.fullmatch(wanted)
    if number_match:
        number = int(number_match.group(1))
        found = [task for task in tasks if task.number == number]
        if not found:
            raise _no_match(tasks, f"no task {task_id(number)}")
        return _one(found, wanted)
    folded = wanted.casefold()
    by_name = [task for task in tasks if folded in (task.path.name.casefold(), task.path.stem.casefold())]
    if by_name:
        return _one(by_name, wanted)
    found = [task for task in tasks if folded in task.title.casefold()]
    if not found:
        raise _no_match(tasks, f"no task matches {wanted!r}")
    exact = [task for task in found if task.title.casefold() == folded]
    return _one(exact if len(exact) == 1 else found, wanted)


def _one(found: list[Task], wanted: str) -> Task:
    if len(found) == 1:
        return found[0]
    raise TaskError(
        f"{wanted!r} matches {len(found)} tasks: {_candidates(found)}",
        "give the task's id, e.g. " + found[0].id,
    )


def _no_match(tasks: list[Task], what: str) -> TaskError:
    if not tasks:
        return TaskError(f"{what}: there are no tasks in {TASKS_DIR.as_posix()}/", "create one first")
    return TaskError(f"{what}; tasks: {_candidates(tasks)}",
                     "give an id (TASK-001, 1) or a unique part of a title")


def _candidates(tasks: list[Task]) -> str:
    listed = ", ".join(f"{task.id} {task.title!r}" for task in tasks[:CANDIDATES_SHOWN])
    more = len(tasks) - CANDIDATES_SHOWN
    return listed + (f", and {more} more" if more > 0 else "")


def find_task(root: Path, identifier: str) -> Task:
    """resolve() over the tasks now on disk."""
    return resolve(load_tasks(root), identifier)


# --- writing


def plan_new_task(root: Path, title: str, description: str) -> tuple[Path, str]:
    """Where create_task would write, and the file's text (nothing is written)."""
    clean_title = " ".join(str(title).split())
    if not clean_title:
        raise TaskError("the task title is empty", "give a short title, e.g. 'Add a --version flag'")
    directory = tasks_dir(root)
    number = max((task.number for task in load_tasks(root)), default=0) + 1
    slug = slugify(clean_title)
    while True:  # a hand-made file may hold the number under another name pattern: never overwrite it
        path = directory / f"{task_id(number)}-{slug}.md"
        if not path.exists():
            break
        number += 1
    body = str(description).strip("\r\n")
    text = f"# {clean_title}\n\n- **Status:** pending\n"
    if body.strip():
        text += f"\n{body}\n"
    return path, text


def create_task(root: Path, title: str, description: str, journal=None) -> Task:
    """Write a new pending task with the next free number (after the highest there is); return it."""
    root = Path(root).resolve()
    path, text = plan_new_task(root, title, description)
    _write(path, text, root, journal, "create_task")
    return parse_task(path, int(_FILE_NAME.fullmatch(path.name).group(1)))


def plan_status_change(root: Path, identifier: str, status: str) -> tuple[Task, str, str]:
    """(the task, its text now, its text with the new status) -- nothing is written."""
    new_status = normalize_status(status)
    task = find_task(root, identifier)
    try:
        old = task.path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise TaskStorageError(f"{task.id} ({task.path.name}) is not UTF-8 text; fix it by hand") from None
    except OSError as exc:
        raise TaskStorageError(f"cannot read {task.path.name}: {exc.strerror or exc}") from None
    match = _STATUS_LINE.search(old)
    if match is not None:
        new = old[: match.start("value")] + new_status + old[match.end("value"):]
    else:  # no status line yet: add one under the title (or at the top)
        newline = "\r\n" if "\r\n" in old else "\n"
        line = f"- **Status:** {new_status}{newline}"
        title = _TITLE_LINE.search(old)
        if title is None:
            new = line + newline + old
        else:
            at = title.end() + 1 if old.startswith("\n", title.end()) else title.end()
            if at == title.end():  # the title is the last line and has no ending
                line = newline + line
            new = old[:at] + newline + line + old[at:]
    return task, old, new


def set_status(root: Path, identifier: str, status: str, journal=None) -> Task:
    """Change one task's status line (nothing else in the file); return the task as it is now."""
    root = Path(root).resolve()
    task, old, new = plan_status_change(root, identifier, status)
    if new != old:
        _write(task.path, new, root, journal, "update_task_status")
    return parse_task(task.path, task.number)


def _write(path: Path, text: str, root: Path, journal, tool_name: str) -> None:
    try:
        atomic_write(path, text, root, journal, tool_name)
    except ToolError as exc:
        raise TaskStorageError(str(exc)) from None


# --- showing


def format_table(tasks: list[Task]) -> str:
    """ID, STATUS and TITLE columns, one task a line; 'no tasks' when there are none."""
    if not tasks:
        return "no tasks"
    rows = [("ID", "STATUS", "TITLE")] + [(task.id, task.status, task.title) for task in tasks]
    id_width = max(len(row[0]) for row in rows)
    status_width = max(len(row[1]) for row in rows)
    return "\n".join(f"{a:<{id_width}}  {b:<{status_width}}  {c}".rstrip() for a, b, c in rows)
