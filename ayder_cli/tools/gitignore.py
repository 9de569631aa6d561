""".gitignore rules (the root file and nested ones) and a tool's file glob; walk.py walks the project
by these rules.

pathspec (its GitIgnoreSpec's reading of gitignore(5)) turns each pattern into a regular
expression; this module reads the lines around it (blank lines and `#` comments skipped,
trailing unescaped spaces dropped, `!` re-includes, a trailing `/` for directories only, a
leading or middle `/` anchors to the .gitignore's directory) and rewrites the few patterns
pathspec would read otherwise than git (see `_for_pathspec`). The walk asks about one entry at
a time, its parents already settled, so a line counts when it matches the entry itself; the
last such line of a file wins, and a deeper .gitignore overrides a higher one. A file in an
ignored directory cannot be re-included: the walk never enters an ignored directory. `.git`,
ayder's state directory and unfinished atomic writes are never shown.
"""

from __future__ import annotations

import fnmatch
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ayder_cli.storage.atomic import TEMP_PREFIX
from ayder_cli.storage.layout import STATE_DIR

ALWAYS_IGNORED = ".git"
AYDER_STATE = STATE_DIR  # ayder's own transcripts, memory and tasks at the root: not project content
# Python's regex engine backtracks: a name with many `*` (`*a*a*a*a*b`) can take it hours on
# a long file name. A .gitignore line past these limits is skipped; a tool's glob past them is
# matched one path segment at a time with fnmatch, whose translation does not backtrack.
MAX_STARS_PER_NAME = 3
MAX_DOUBLE_STARS = 2

# POSIX character classes git knows and pathspec does not, as bracket contents (ASCII, as in git;
# never `/`, `\`, a leading `!` or `^`: pathspec copies bracket contents into its regex as they are).
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \t", "cntrl": "\x00-\x1f\x7f",
    "digit": "0-9", "graph": "0-~!-.", "lower": "a-z", "print": " -.0-~",
    "punct": ":-@{-~!-.[-`", "space": " \t\n\r\x0b\x0c", "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}
_BRACKET_WITH_POSIX_CLASS = re.compile(r"\[([!^]?)((?:\[:[a-z]+:\]|[^\[\]/])*\[:[a-z]+:\](?:\[:[a-z]+:\]|[^\[\]/])*)\]")
_POSIX_CLASS = re.compile(r"\[:([a-z]+):\]")
# A `[` with no `]` after it (a `]` first in the brackets is a member, not the end).
_UNCLOSED_BRACKET = re.compile(r"(?<!\\)\[(?![!^]?\]?[^\]]*\])")


def never_shown(name: str, rel_path: str) -> bool:
    """.git, ayder's state folder and the temporary files of unfinished atomic writes."""
    return name == ALWAYS_IGNORED or rel_path == AYDER_STATE or name.startswith(TEMP_PREFIX)


class InvalidPattern(ValueError):
    """A pattern that cannot be read (a trailing lone backslash, nothing left to match)."""


# --- .gitignore lines


@dataclass(frozen=True)
class Rule:
    """One .gitignore line, read."""

    source: str  # the line as written, for messages
    glob: str  # the pattern with `!`, the anchoring `/` and the trailing `/` taken off
    negated: bool  # `!pattern`: re-include
    dir_only: bool  # `pattern/`: directories only
    anchored: bool  # matched against the path below the .gitignore's directory, not the name

    def for_pathspec(self) -> str:
        """The pattern as pathspec should read it to answer as git does (without the `!`,
        which changes the verdict, not what matches)."""
        return f"{'/' if self.anchored else ''}{_for_pathspec(self.glob)}{'/' if self.dir_only else ''}"


def parse_line(line: str) -> Rule | None:
    """The rule of one .gitignore line; None for blank lines, comments and invalid patterns."""
    line = _trim_trailing_spaces(line.rstrip("\r"))
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
    if not line or _ends_with_lone_backslash(line):
        return None  # git matches nothing with a broken pattern
    return Rule(source, line, negated, dir_only, anchored)


def parse(text: str) -> list[Rule]:
    """The rules of a .gitignore file's text, in order."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return [rule for rule in map(parse_line, text.split("\n")) if rule is not None]


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


def _ends_with_lone_backslash(glob: str) -> bool:
    return (len(glob) - len(glob.rstrip("\\"))) % 2 == 1


def _for_pathspec(glob: str) -> str:
    """The glob rewritten where pathspec would read it otherwise than git: POSIX classes
    (`[[:digit:]]`) spelled out, an unclosed `[` made literal (pathspec drops the line), and
    `dir/**` given as `dir/**/*` (pathspec would match `dir` itself, which git enters: a file in
    it can still be re-included)."""
    glob = _BRACKET_WITH_POSIX_CLASS.sub(_spell_posix_classes, glob)
    glob = _UNCLOSED_BRACKET.sub(r"\\[", glob)
    return glob + "/*" if glob.endswith("/**") else glob


def _spell_posix_classes(bracket: re.Match[str]) -> str:
    negation, body = bracket.group(1), bracket.group(2)
    spelled = _POSIX_CLASS.sub(lambda found: _POSIX_CLASSES.get(found.group(1), found.group(0)), body)
    return f"[{negation}{spelled}]"


def _matches_everything(glob: str, anchored: bool) -> bool:
    """`*`, `**`, `**/*`...: every path (pathspec takes a shortcut of its own for these)."""
    segments = glob.split("/")
    if len(segments) == 1 and segments[0] == "*":
        return not anchored
    return all(segment == "**" for segment in segments[:-1]) and segments[-1] in ("*", "**") \
        and "**" in segments


def _backtracks_little(glob: str) -> bool:
    """Whether a regex for the glob stays fast on any path (see MAX_STARS_PER_NAME)."""
    segments = glob.split("/")
    if segments.count("**") > MAX_DOUBLE_STARS:
        return False
    return all(len(re.findall(r"\*+", segment)) <= MAX_STARS_PER_NAME
               for segment in segments if segment != "**")


def pathspec_regex(line: str) -> str | None:
    """The regular expression pathspec's GitIgnoreSpec makes of one line (None: it matches
    nothing); ValueError if pathspec rejects the line."""
    from pathspec import GitIgnoreSpec  # lazy: only a walk or a glob needs it, never `ayder --version`

    with warnings.catch_warnings():  # bracket contents reach `re` as written: "possible nested set"
        warnings.simplefilter("ignore", FutureWarning)
        patterns = GitIgnoreSpec.from_lines([line]).patterns
    regex = patterns[0].regex if patterns else None
    return regex.pattern if regex is not None else None


Matcher = Callable[[str], bool]


def line_regex(rule: Rule) -> re.Pattern[str] | None:
    """A regex that finds a match when the line matches an entry itself, not through a
    directory above it; None if the line matches nothing. It is searched in the entry's path
    below the .gitignore's directory (its name if the line is not anchored), with a trailing
    `/` for a directory.

    pathspec's regexes also match what is below a matched directory (`build/` matches
    `build/gen.py`); held to the end of the path they answer for the entry alone, as the walk
    asks: it never enters an ignored directory, so the parents are settled, and a directory
    named explicitly shows what is in it.
    """
    if not _backtracks_little(rule.glob):
        return None
    if _matches_everything(rule.glob, rule.anchored):
        return re.compile(r"/\Z" if rule.dir_only else "")
    try:
        regex = pathspec_regex(rule.for_pathspec())
    except ValueError:  # GitIgnorePatternError: git matches nothing with it either
        return None
    return None if regex is None else re.compile(f"(?:{regex})\\Z")


# --- a tool's file glob


@dataclass(frozen=True)
class Glob:
    """A user's glob (a tool's file pattern): `*.py` matches names at any depth, a pattern with
    a `/` (`src/*.py`, `**/test_*.py`) the whole path below the directory searched."""

    source: str  # as given, for messages
    glob: str  # without the leading and trailing `/`
    match: Matcher  # fullmatch of the glob (see compile_matcher)
    dir_only: bool  # `pattern/`: directories only
    anchored: bool  # matched against the relative path, not the name

    def matches(self, rel_path: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.match(rel_path if self.anchored else name)


def compile_glob(pattern: str) -> Glob:
    """A tool's glob, ready to match; InvalidPattern if it cannot be read."""
    dir_only = pattern.endswith("/")
    body = pattern.rstrip("/") if dir_only else pattern
    anchored = "/" in body
    if body.startswith("/"):
        body = body[1:]
    if not body:
        raise InvalidPattern("the pattern is empty")
    return Glob(pattern, body, compile_matcher(body), dir_only, anchored)


def glob_to_regex(glob: str) -> str:
    """The glob as a regular expression to fullmatch a `/`-separated path, as pathspec
    translates it: `*` and `?` never match `/`, `**/` matches any number of directories.
    ValueError if pathspec rejects it."""
    body = _for_pathspec(glob)
    if _matches_everything(body, anchored=True):
        return ".+"
    regex = pathspec_regex("/" + body)
    return "(?!)" if regex is None else regex


def compile_matcher(glob: str) -> Matcher:
    """A function telling whether a path (or name) matches the glob as a whole, fast on any input.

    Most globs run as one regex (glob_to_regex); those with many `*` in one name or several `**`
    run name by name with fnmatch, so no path can make matching slow.
    """
    if _ends_with_lone_backslash(glob):
        raise InvalidPattern("a pattern cannot end with a lone backslash")
    if not _backtracks_little(glob):
        return _segment_matcher(_for_pathspec(glob))
    try:
        fullmatch = re.compile(glob_to_regex(glob), re.DOTALL).fullmatch
    except (ValueError, re.error):  # pathspec rejects it: match nothing, as git does
        return lambda text: False
    return lambda text: fullmatch(text) is not None


def _segment_matcher(glob: str) -> Matcher:
    """Match name by name: fnmatch for each name (its regex cannot backtrack badly), `**` for
    any number of whole names (one or more at the end)."""
    steps = [None if segment == "**" else re.compile(fnmatch.translate(_as_fnmatch(segment))).match
             for segment in glob.split("/")]
    return lambda path: _names_match(steps, path.split("/"))


def _names_match(steps: list[Callable | None], names: list[str]) -> bool:
    """Keep the set of name positions reachable so far: a set, not a search, so no backtracking."""
    reached = {0}
    for index, step in enumerate(steps):
        if step is None and index == len(steps) - 1:
            return min(reached) < len(names)  # a final `**`: one or more names left
        if step is None:
            reached = set(range(min(reached), len(names) + 1))
        else:
            reached = {at + 1 for at in reached if at < len(names) and step(names[at])}
        if not reached:
            return False
    return len(names) in reached


def _as_fnmatch(segment: str) -> str:
    """git's glob syntax in fnmatch's: `\\*` as `[*]`, `[^...]` as `[!...]`."""
    out, i = [], 0
    while i < len(segment):
        if segment[i] == "\\" and i + 1 < len(segment):
            escaped = segment[i + 1]
            out.append(f"[{escaped}]" if escaped in "*?[" else escaped)
            i += 2
        elif segment.startswith("[^", i):
            out.append("[!")
            i += 2
        else:
            out.append(segment[i])
            i += 1
    return "".join(out)


# --- the rules of one project


@dataclass(frozen=True)
class RuleSet:
    """The rules of one .gitignore, with the directory (relative to the root) they apply below."""

    base: str  # "" for the root, else "src/pkg"
    rules: tuple[Rule, ...]
    lines: tuple[tuple[bool, bool, re.Pattern[str]], ...]  # (ignores, anchored, line_regex), last first

    @classmethod
    def of(cls, base: str, rules: tuple[Rule, ...]) -> RuleSet:
        lines = [(not rule.negated, rule.anchored, line_regex(rule)) for rule in reversed(rules)]
        return cls(base, rules, tuple(line for line in lines if line[2] is not None))

    def decides(self, rel_path: str, name: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included, None: no line of this file matches (the last
        matching line wins)."""
        slash = "/" if is_dir else ""
        below = (rel_path[len(self.base) + 1:] if self.base else rel_path) + slash
        for ignores, anchored, regex in self.lines:
            if regex.search(below if anchored else name + slash) is not None:
                return ignores
        return None


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
        chain = parent + (RuleSet.of(directory, rules),) if rules else parent
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
        return ignored_by(self.chain(directory), rel_path, name, is_dir)

    def is_excluded(self, rel_path: str, is_dir: bool) -> bool:
        """Whether rel_path or any directory above it is ignored: what git would say of the path."""
        parts = rel_path.split("/")
        for depth in range(1, len(parts) + 1):
            last = depth == len(parts)
            if self.is_ignored("/".join(parts[:depth]), is_dir if last else True):
                return True
        return False


def ignored_by(chain: tuple[RuleSet, ...], rel_path: str, name: str, is_dir: bool) -> bool:
    """Whether the rule sets of a directory (IgnoreRules.chain) ignore one entry of it."""
    for rule_set in reversed(chain):  # the deepest .gitignore speaks first
        decided = rule_set.decides(rel_path, name, is_dir)
        if decided is not None:
            return decided
    return False
