"""A git commit of the files the session changed (/commit, auto_commit): those files only, never `git add -A`.

Which files: the undo journal's, what the session's tools and edit blocks wrote (what /diff
shows), among them those git sees changed; a file the session did not write stays out, staged or
not (`git commit -- PATHS` commits those paths only). Refused in one line outside a git work tree,
on a detached HEAD, and while a merge, cherry-pick, revert or rebase is in progress. git runs as
ayder's other git calls do (tools/git_command.py), except that the repository's hooks and filters
run for the add and the commit, as in the user's own `git commit`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ayder_cli.errors import AyderError
from ayder_cli.tools.git_command import GitDone, run_git
from ayder_cli.wording import counted

GIT_TIMEOUT_S = 10.0  # the questions asked of git; the add and commit get the hook's time (commit_timeout_s)
MAX_DIFF_CHARS = 6000  # of the diff the model reads to write a message: a small window holds it
# What a half-done operation leaves in the git directory, and how to end it.
IN_PROGRESS = (("MERGE_HEAD", "a merge", "git merge --continue or --abort"),
               ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"),
               ("REVERT_HEAD", "a revert", "git revert --continue or --abort"),
               ("rebase-merge", "a rebase", "git rebase --continue or --abort"),
               ("rebase-apply", "a rebase or git am", "git rebase --continue or --abort"))


class CommitRefused(AyderError):
    """Nothing was committed: why, in one line."""


@dataclass(frozen=True)
class Committed:
    commit: str  # its short hash
    branch: str
    files: tuple[str, ...]  # as git names them, from the top of the work tree
    message: str

    def describe(self) -> str:
        subject = self.message.splitlines()[0] if self.message else ""
        return f"committed {counted(len(self.files), 'file')} to {self.branch} as {self.commit}: {subject}"


class WorkTree:
    """The git work tree holding `root`, asked through git with the environment `env`."""

    def __init__(self, root: Path, env: Mapping[str, str] | None, commit_timeout_s: float = 120.0) -> None:
        self.root, self.commit_timeout_s = root, commit_timeout_s
        self.env = env
        self._top: Path | None = None
        self._git_dir: Path | None = None

    def git(self, *args: str, as_commit: bool = False) -> GitDone:
        try:
            return run_git(args, self.top or self.root, self.commit_timeout_s if as_commit else GIT_TIMEOUT_S,
                           self.env, as_commit=as_commit)
        except FileNotFoundError:
            raise CommitRefused("git is not installed: nothing committed") from None
        except subprocess.TimeoutExpired as exc:
            raise CommitRefused(f"git {args[0]} did not end within {exc.timeout:g} s: nothing committed") from None
        except OSError as exc:
            raise CommitRefused(f"cannot run git: {exc.strerror or exc}") from None

    @property
    def top(self) -> Path | None:
        return self._top

    def locate(self) -> bool:
        """Find the work tree holding root; False: there is none."""
        if self._top is None:
            done = self.git("rev-parse", "--show-toplevel", "--absolute-git-dir")
            lines = done.stdout.splitlines()
            if done.returncode != 0 or len(lines) != 2:
                return False
            self._top, self._git_dir = Path(lines[0]).resolve(), Path(lines[1])
        return True

    def open(self) -> str:
        """Find the work tree and check it can take a commit; -> the branch. CommitRefused otherwise."""
        if not self.locate():
            raise CommitRefused(f"{self.root} is not in a git work tree: nothing committed",
                                hint="git init, or run ayder in a repository")
        assert self._git_dir is not None
        for name, operation, how in IN_PROGRESS:
            if (self._git_dir / name).exists():
                raise CommitRefused(f"{operation} is in progress: nothing committed", hint=f"finish it first ({how})")
        branch = self.git("symbolic-ref", "-q", "--short", "HEAD")
        if branch.returncode != 0:
            at = self.git("rev-parse", "--short", "HEAD").stdout.strip()
            raise CommitRefused(f"HEAD is detached{f' at {at}' if at else ''}: nothing committed",
                                hint="switch to a branch first (git switch -c NAME)")
        return branch.stdout.strip()

    def check_written(self, paths: Iterable[Path]) -> None:
        """CommitRefused when the session wrote inside the git directory or the hooks directory: a commit
        would run, outside the sandbox, a hook the model may have written."""
        assert self._top is not None and self._git_dir is not None, "open() first"
        hooks = self.git("rev-parse", "--git-path", "hooks", as_commit=True).stdout.strip()  # core.hooksPath too
        places = [(self._git_dir.resolve(), "the git directory")]
        if hooks:
            places.append(((self._top / hooks).resolve(), "the hooks directory"))
        for path in map(Path, paths):
            for place, what in places:
                if path.is_relative_to(place):
                    shown = path.relative_to(self._top) if path.is_relative_to(self._top) else path
                    raise CommitRefused(f"this session wrote {shown}, in {what}: nothing committed",
                                        hint="a commit runs the hooks there; look at it, then commit yourself")

    def changed(self, paths: Iterable[Path]) -> list[str]:
        """Those of `paths` git sees changed (new, modified or removed; not ignored), from the top."""
        assert self._top is not None, "open() first"
        inside = sorted({path.relative_to(self._top).as_posix() for path in map(Path, paths)
                         if path.is_relative_to(self._top)})
        if not inside:
            return []
        done = self.git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *literal(inside))
        if done.returncode != 0:
            raise CommitRefused(f"git status failed: {_first_line(done)}")
        fields, found = done.stdout.split("\0"), []
        while fields:
            record = fields.pop(0)
            if len(record) > 3:
                found.append(record[3:])
                if record[0] in "RC" and fields:  # a rename's or copy's other path follows
                    fields.pop(0)
        return sorted(set(found) & set(inside))

    def stage(self, files: list[str]) -> str:
        """git add the files; -> their diff against HEAD, cut to MAX_DIFF_CHARS (what a message is written from)."""
        done = self.git("add", "--", *literal(files), as_commit=True)
        if done.returncode != 0:
            raise CommitRefused(f"git add failed: {_first_line(done)}")
        diff = self.git("diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--stat", "--patch",
                        "--", *literal(files)).stdout
        if len(diff) > MAX_DIFF_CHARS:
            diff = diff[:MAX_DIFF_CHARS] + f"\n[... {len(diff) - MAX_DIFF_CHARS:,} more characters of the diff]\n"
        return diff

    def commit(self, files: list[str], message: str, branch: str) -> Committed:
        """Commit the (staged) files alone, with the user's hooks; CommitRefused when git (or a hook) says no."""
        done = self.git("commit", "-q", "-m", message, "--", *literal(files), as_commit=True)
        if done.returncode != 0:
            raise CommitRefused(f"git commit failed: {_first_line(done)}",
                                hint="the files stay staged; /commit tries again")
        commit = self.git("rev-parse", "--short", "HEAD").stdout.strip()
        return Committed(commit, branch, tuple(files), message)

    def last_commit_of(self, path: Path) -> str | None:
        """"abc1234 (its subject)" of the newest commit that changed `path` when the file is as committed;
        None when it differs from HEAD, is not tracked, or git cannot say."""
        top = self._top if self.locate() else None
        if top is None or not Path(path).is_relative_to(top):
            return None
        name = Path(path).relative_to(top).as_posix()
        status = self.git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *literal([name]))
        if status.returncode != 0 or status.stdout:
            return None
        done = self.git("log", "-1", "--format=%h (%s)", "--", *literal([name]))
        if done.returncode != 0:
            return None
        return done.stdout.strip() or None


def commit_files(tree: WorkTree, paths: Iterable[Path], message: str | Callable[[str], str],
                 unchanged_is_refused: bool = True, written: Iterable[Path] = ()) -> Committed | None:
    """Commit those of `paths` that changed, with `message`, or the one message(diff) gives. CommitRefused
    (nothing committed) when there is no work tree, the session `written` (and `paths`) hold a file of
    the git or hooks directory, git says no, or (unless not `unchanged_is_refused`: then None) none of
    them changed."""
    paths = list(paths)
    branch = tree.open()
    tree.check_written([*paths, *written])
    files = tree.changed(paths)
    if not files and not unchanged_is_refused:
        return None
    if not files:
        raise CommitRefused("nothing to commit: no file this session changed differs from the last commit")
    diff = tree.stage(files)
    if callable(message):
        message = message(diff)
    return tree.commit(files, message, branch)


def literal(paths: list[str]) -> list[str]:
    """Pathspecs that are paths, never globs: a file named `*.py` stands for that file alone. (Not
    GIT_LITERAL_PATHSPECS: the hooks a commit runs would inherit it.)"""
    return [f":(literal){path}" for path in paths]


def cut_line(text: str, limit: int) -> str:
    """text, or its start and "..." within limit characters."""
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def _first_line(done: GitDone) -> str:
    """What git said, in one line: its first line of error (hint: lines left out), or the exit status."""
    for line in (done.stderr + "\n" + done.stdout).splitlines():
        if line.strip() and not line.startswith("hint:"):
            return line.strip()
    return f"exit status {done.returncode}"

