""".gitignore rules (the root file and nested ones) and a walk of the project that honours them.

Pattern semantics follow git's documentation (gitignore(5)): blank lines and `#` comments
are skipped, trailing unescaped spaces dropped, `!` re-includes, a trailing `/` matches
directories only, a `/` at the start or in the middle anchors the pattern to the directory
of its .gitignore (otherwise it matches a name at any depth below it), `*` `?` and `[...]`
never match `/`, and `**` as a whole path segment matches any number of directories.
The last matching pattern wins, and a deeper .gitignore overrides a higher one. A file in
an ignored directory cannot be re-included: the walk never enters an ignored directory.
`.git` is always ignored. Each pattern is compiled once: to a regular expression without
nested quantifiers when its shape cannot backtrack much, else to a matcher that tracks the
set of positions reached, so no path can make matching slow.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from ayder_cli.storage.layout import STATE_DIR
from ayder_cli.storage.atomic import TEMP_PREFIX

ALWAYS_IGNORED = ".git"
AYDER_STATE = STATE_DIR  # ayder's own transcripts, memory and tasks at the root: not project content


def never_shown(name: str, rel_path: str) -> bool:
    """.git, ayder's state folder and the temporary files of unfinished atomic writes."""
    return name == ALWAYS_IGNORED or rel_path == AYDER_STATE or name.startswith(TEMP_PREFIX)

# POSIX character classes git's wildmatch knows, as regex class contents (ASCII, as in git).
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\x0b\\x0c", "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}


class InvalidPattern(ValueError):
    """A pattern git would reject (a trailing lone backslash, an unknown [:class:])."""


@dataclass(frozen=True)
class Rule:
    """One compiled .gitignore line (or a tool's glob)."""

    source: str  # the line as written, for messages
    glob: str  # the pattern with `!`, the anchoring `/` and the trailing `/` taken off
    match: Callable[[str], bool]  # fullmatch of the glob (see compile_matcher)
    negated: bool  # `!pattern`: re-include
    dir_only: bool  # `pattern/`: directories only
    anchored: bool  # matched against the path below the .gitignore's directory, not the name

    def matches(self, rel_path: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.match(rel_path if self.anchored else name)


# Tokens of a glob: ("one", regex) one character other than `/` (or the `/` itself),
# ("star", ...) `*`: any run within a path segment, ("dirs", ...) `**/`: zero or more whole
# directories, ("rest", ...) a final `**`: anything at all.
Token = tuple[str, str]
_STAR: Token = ("star", "[^/]*")
_DIRS: Token = ("dirs", "(?:|.*/)")
_REST: Token = ("rest", ".*")


def tokenize(glob: str) -> list[Token]:
    """The tokens of a gitignore glob; InvalidPattern if git would reject it."""
    tokens: list[Token] = []
    i, n = 0, len(glob)
    while i < n:
        char = glob[i]
        if char == "*":
            j = i
            while j < n and glob[j] == "*":
                j += 1
            whole_segment = (i == 0 or glob[i - 1] == "/") and (j == n or glob[j] == "/")
            if j - i >= 2 and whole_segment:
                if j == n:
                    tokens.append(_REST)  # `dir/**`, or `**` alone: everything below
                else:
                    tokens.append(_DIRS)
                    j += 1  # the `/` after `**` is part of it
            else:
                tokens.append(_STAR)  # other runs of `*` are one `*`
            i = j
        elif char == "?":
            tokens.append(("one", "[^/]"))
            i += 1
        elif char == "[":
            translated, i = _character_class(glob, i)
            tokens.append(("one", translated))
        elif char == "\\":
            if i + 1 == n:
                raise InvalidPattern("a pattern cannot end with a lone backslash")
            tokens.append(("one", re.escape(glob[i + 1])))
            i += 2
        else:
            tokens.append(("one", re.escape(char)))
            i += 1
    return tokens


def glob_to_regex(glob: str) -> str:
    """The glob as a regular expression to fullmatch: `*` -> `[^/]*`, `?` -> `[^/]`, `[...]`
    -> a class that never matches `/`, `**/` -> `(?:|.*/)`, a final `**` -> `.*`."""
    return "".join(text for _, text in tokenize(glob))


def compile_matcher(glob: str) -> Callable[[str], bool]:
    """A function telling whether a path (or name) matches the glob, in linear time.

    Shapes that cannot backtrack much (at most one `*` per segment and one `**`) use the
    regex; others, such as `*a*b*c` or `a/**/b/**/c`, use a matcher that tracks the set of
    positions reached, token by token, so no input can make it slow.
    """
    tokens = tokenize(glob)
    if _backtracks_little(tokens):
        fullmatch = re.compile("".join(text for _, text in tokens), re.DOTALL).fullmatch
        return lambda text: fullmatch(text) is not None
    steps = [(kind, re.compile(text, re.DOTALL).fullmatch if kind == "one" else None)
             for kind, text in tokens]
    return lambda text: _positions_match(steps, text)


def _backtracks_little(tokens: list[Token]) -> bool:
    if sum(kind in ("dirs", "rest") for kind, _ in tokens) > 1:
        return False
    stars = 0
    for kind, text in tokens:
        if kind == "star":
            stars += 1
            if stars > 1:
                return False  # two `*` in one segment: polynomial backtracking
        elif kind == "dirs" or text == "/":
            stars = 0  # a new segment
    return True


def _positions_match(steps: list[tuple[str, Any]], text: str) -> bool:
    """Run the tokens over text keeping every position reachable so far (a set, not a search)."""
    size = len(text)
    reached = [0]  # sorted, distinct
    for kind, one in steps:
        if not reached:
            return False
        if kind == "one":
            reached = [at + 1 for at in reached if at < size and one(text[at])]
        elif kind == "star":  # every position up to the end of the current segment
            grown: list[int] = []
            for at in reached:
                if grown and at <= grown[-1]:
                    continue  # inside a run already grown to the same segment's end
                end = text.find("/", at)
                grown.extend(range(at, (size if end == -1 else end) + 1))
            reached = grown
        elif kind == "dirs":  # the position itself, and every position just after a later `/`
            first = reached[0]
            reached = sorted(set(reached) | {at + 1 for at in range(first, size) if text[at] == "/"})
        else:  # "rest": anything to the end
            return True
    return bool(reached) and reached[-1] == size


def _character_class(glob: str, start: int) -> tuple[str, int]:
    """The regex for the bracket expression at glob[start] == "[", and the index after it.

    An unclosed `[` is a literal `[`. `[!...]` and `[^...]` negate; `]` first is literal.
    """
    i, n = start + 1, len(glob)
    negated = i < n and glob[i] in "!^"
    if negated:
        i += 1
    members: list[str] = []  # regex class pieces
    covers_slash = False
    first = True
    while i < n and (glob[i] != "]" or first):
        first = False
        if glob.startswith("[:", i):
            close = glob.find(":]", i + 2)
            if close != -1:
                name = glob[i + 2:close]
                if name not in _POSIX_CLASSES:
                    raise InvalidPattern(f"unknown character class [:{name}:]")
                members.append(_POSIX_CLASSES[name])
                covers_slash |= name in ("graph", "print", "punct")
                i = close + 2
                continue
        if glob[i] == "\\" and i + 1 < n:
            low, i = glob[i + 1], i + 2
        else:
            low, i = glob[i], i + 1
        if i + 1 < n and glob[i] == "-" and glob[i + 1] != "]":
            if glob[i + 1] == "\\" and i + 2 < n:
                high, i = glob[i + 2], i + 3
            else:
                high, i = glob[i + 1], i + 2
            if low <= high:  # a reversed range matches nothing, as in git
                members.append(f"{_class_char(low)}-{_class_char(high)}")
                covers_slash |= low <= "/" <= high
        else:
            members.append(_class_char(low))
            covers_slash |= low == "/"
    if i >= n:  # no closing bracket: the `[` is an ordinary character
        return re.escape("["), start + 1
    body = "".join(members)
    if negated:
        return f"[^/{body}]", i + 1
    if not body:
        return "(?!)", i + 1  # matches nothing
    return (f"(?!/)[{body}]" if covers_slash else f"[{body}]"), i + 1


def _class_char(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


def parse_line(line: str) -> Rule | None:
    """The rule of one .gitignore line; None for blank lines, comments and invalid patterns."""
    line = line.rstrip("\r")
    line = _trim_trailing_spaces(line)
    if not line or line.startswith("#"):
        return None
    source = line
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if dir_only else line
    anchored = "/" in line
    if line.startswith("/"):
        line = line[1:]
    if not line:
        return None
    try:
        match = compile_matcher(line)
    except (InvalidPattern, re.error):
        return None  # git matches nothing with a broken pattern
    return Rule(source, line, match, negated, dir_only, anchored)


def parse(text: str) -> list[Rule]:
    """The rules of a .gitignore file's text, in order."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return [rule for rule in map(parse_line, text.split("\n")) if rule is not None]


def compile_glob(pattern: str) -> Rule:
    """A user's glob (a tool's file pattern) as a rule: `*.py` matches names at any depth,
    a pattern with a `/` (`src/*.py`, `**/test_*.py`) matches the whole relative path.
    InvalidPattern if it cannot be read."""
    dir_only = pattern.endswith("/")
    body = pattern.rstrip("/") if dir_only else pattern
    anchored = "/" in body
    if body.startswith("/"):
        body = body[1:]
    if not body:
        raise InvalidPattern("the pattern is empty")
    try:
        match = compile_matcher(body)
    except re.error as exc:  # not expected: the translation escapes everything it does not mean
        raise InvalidPattern(str(exc)) from None
    return Rule(pattern, body, match, False, dir_only, anchored)


def _trim_trailing_spaces(line: str) -> str:
    end = len(line)
    while end and line[end - 1] == " ":
        backslashes = 0
        while end - 1 - backslashes > 0 and line[end - 2 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2:
            break  # `\ `: an escaped space stays
        end -= 1
    return line[:end]


@dataclass(frozen=True)
class RuleSet:
    """The rules of one .gitignore, with the directory (relative to the root) they apply below."""

    base: str  # "" for the root, else "src/pkg"
    rules: tuple[Rule, ...]


class IgnoreRules:
    """Every .gitignore of one project, read lazily as directories are visited, each once."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._chains: dict[str, tuple[RuleSet, ...]] = {}

    @classmethod
    def for_root(cls, root: Path) -> "IgnoreRules":
        return cls(root)

    def chain(self, directory: str) -> tuple[RuleSet, ...]:
        """The rule sets that apply to entries of `directory` (root-relative, "" for the root)."""
        cached = self._chains.get(directory)
        if cached is not None:
            return cached
        parent = self.chain(directory.rpartition("/")[0]) if directory else ()
        rules = self._read(directory)
        chain = parent + (RuleSet(directory, rules),) if rules else parent
        self._chains[directory] = chain
        return chain

    def _read(self, directory: str) -> tuple[Rule, ...]:
        path = self.root / directory / ".gitignore" if directory else self.root / ".gitignore"
        try:
            with open(path, "rb") as stream:
                text = stream.read().decode("utf-8", errors="replace")
        except OSError:  # absent, a directory, unreadable: no rules
            return ()
        return tuple(parse(text))

    def is_ignored(self, rel_path: str, is_dir: bool) -> bool:
        """Whether the entry at rel_path (root-relative, `/`-separated) is ignored by itself,
        not counting its parents (the walk has checked those already)."""
        directory, _, name = rel_path.rpartition("/")
        if never_shown(name, rel_path):
            return True
        return _decide(self.chain(directory), rel_path, name, is_dir)

    def is_excluded(self, rel_path: str, is_dir: bool) -> bool:
        """Whether rel_path or any directory above it is ignored: what git would say of the path."""
        parts = rel_path.split("/")
        for depth in range(1, len(parts) + 1):
            last = depth == len(parts)
            if self.is_ignored("/".join(parts[:depth]), is_dir if last else True):
                return True
        return False


def _decide(chain: tuple[RuleSet, ...], rel_path: str, name: str, is_dir: bool) -> bool:
    for rule_set in reversed(chain):  # the deepest .gitignore speaks first
        below = rel_path[len(rule_set.base) + 1:] if rule_set.base else rel_path
        for rule in reversed(rule_set.rules):  # within a file, the last match wins
            if rule.matches(below, name, is_dir):
                return not rule.negated
    return False


@dataclass(frozen=True)
class Entry:
    """One entry the walk yields."""

    rel: str  # root-relative, `/`-separated
    path: str  # absolute
    name: str
    kind: str  # "dir" (a real directory), "file", "link" (any symlink) or "other"

    def points_to_dir(self) -> bool:
        """A directory, or a link to one (shown with a trailing / though never followed)."""
        return self.kind == "dir" or (self.kind == "link" and os.path.isdir(self.path))


def scan(rules: IgnoreRules, directory: str) -> tuple[list[Entry], int]:
    """The entries of one directory (root-relative) that are not ignored, sorted by name,
    and how many were ignored. OSError propagates (the caller says what it could not read)."""
    absolute = os.path.join(rules.root, directory) if directory else str(rules.root)
    chain = rules.chain(directory)
    prefix = directory + "/" if directory else ""
    kept: list[Entry] = []
    ignored = 0
    with os.scandir(absolute) as found:
        for item in found:
            rel = prefix + item.name
            if never_shown(item.name, rel):
                continue
            kind = _kind(item)
            if chain and _decide(chain, rel, item.name, kind == "dir"):
                ignored += 1
                continue
            kept.append(Entry(rel, item.path, item.name, kind))
    kept.sort(key=lambda entry: entry.name)
    return kept, ignored


def _kind(item: os.DirEntry) -> str:
    try:
        if item.is_symlink():
            return "link"
        if item.is_dir(follow_symlinks=False):
            return "dir"
        if item.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "other"


def walk_entries(rules: IgnoreRules, start: str = "", max_depth: int | None = None) -> Iterator[Entry]:
    """Depth first, each directory's entries sorted by name, below the root-relative `start`.

    Ignored entries are skipped and ignored directories never entered. Symlinks are yielded
    but never followed, so the walk stays inside the root and cannot loop. Directories that
    cannot be read are skipped. `start` itself is not checked: naming it asks for it.
    max_depth 1 yields start's own entries only.
    """
    stack = [(iter(_scan_quietly(rules, start)), 1)]
    while stack:
        entries, depth = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        yield entry
        if entry.kind == "dir" and (max_depth is None or depth < max_depth):
            stack.append((iter(_scan_quietly(rules, entry.rel)), depth + 1))


def _scan_quietly(rules: IgnoreRules, directory: str) -> list[Entry]:
    try:
        return scan(rules, directory)[0]
    except OSError:  # unreadable: nothing to show from it
        return []


def walk(root: Path, start_dir: Path | str | None = None) -> Iterator[tuple[Path, bool]]:
    """(path, is_dir) for every entry under start_dir (default: the root) that .gitignore
    does not exclude; is_dir is True for real directories only (symlinks are not followed)."""
    rules = IgnoreRules.for_root(root)
    start = "" if start_dir is None else _relative(rules.root, Path(start_dir))
    for entry in walk_entries(rules, start):
        yield Path(entry.path), entry.kind == "dir"


def _relative(root: Path, path: Path) -> str:
    absolute = (root / path).resolve() if not path.is_absolute() else path.resolve()
    if not absolute.is_relative_to(root):
        raise ValueError(f"{path} is outside {root}")
    rel = absolute.relative_to(root).as_posix()
    return "" if rel == "." else rel
