"""The read tools that search and describe the project, and the .gitignore rules they honour.

Real files in a temporary project. The Python search is the one tested everywhere; the
ripgrep search is compared with it on the same tree when `rg` is installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from ayder_cli.errors import ToolError
from ayder_cli.tools import gitignore, ripgrep, search
from ayder_cli.tools import tree as tree_module
from ayder_cli.tools import walk as walk_module
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.file_info import GET_FILE_INFO
from ayder_cli.tools.files import LIST_FILES
from ayder_cli.tools.gitignore import IgnoreRules, glob_to_regex, parse
from ayder_cli.tools.line_matches import file_records, required_literal
from ayder_cli.tools.search import SEARCH_CODEBASE
from ayder_cli.tools.search_query import Query
from ayder_cli.tools.tree import GET_PROJECT_STRUCTURE
from ayder_cli.tools.walk import walk

from support.files import OUTSIDE_SECRET as SECRET  # noqa: E402
from support.tool_calls import call_tool  # noqa: E402
HAS_RG = shutil.which("rg") is not None


def python(root: Path) -> ToolContext:
    """The tools' context for a project; the search in it is the Python one (tests here ask for ripgrep by name)."""
    return ToolContext(root, search_backend="python")


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def walked(root: Path, start: str | None = None) -> list[str]:
    return [path.relative_to(root.resolve()).as_posix() + ("/" if is_dir else "")
            for path, is_dir in walk(root, start)]


# --- .gitignore semantics (gitignore(5))

GITIGNORE_CASES = [
    # (the .gitignore text, a path, is it a directory, ignored?)
    ("*.log", "debug.log", False, True),
    ("*.log", "src/deep/debug.log", False, True),
    ("*.log", "debug.logs", False, False),
    ("*.log", "logs/debug.txt", False, False),
    ("/build", "build", True, True),
    ("/build", "src/build", True, False),
    ("build/", "build", True, True),
    ("build/", "build", False, False),  # a trailing / matches directories only
    ("build/", "src/build", True, True),
    ("build/", "build/out.txt", False, True),  # inside an ignored directory
    ("doc/frotz/", "doc/frotz", True, True),  # a middle / anchors the pattern
    ("doc/frotz/", "a/doc/frotz", True, False),
    ("doc/*.txt", "doc/notes.txt", False, True),
    ("doc/*.txt", "doc/server/notes.txt", False, False),  # * never crosses a /
    ("**/foo", "foo", False, True),
    ("**/foo", "a/b/foo", False, True),
    ("**/foo/bar", "bar", False, False),
    ("**/foo/bar", "x/foo/bar", False, True),
    ("**/foo/bar", "foo/bar", False, True),
    ("abc/**", "abc/x", False, True),
    ("abc/**", "abc/x/y.txt", False, True),
    ("abc/**", "abc", True, False),
    ("a/**/b", "a/b", False, True),
    ("a/**/b", "a/x/b", False, True),
    ("a/**/b", "a/x/y/b", False, True),
    ("a/**/b", "a/xb", False, False),
    ("a**b", "axyzb", False, True),  # ** not a whole segment: an ordinary *
    ("a**b", "a/b", False, False),
    ("foo?.txt", "foo1.txt", False, True),
    ("foo?.txt", "foo12.txt", False, False),
    ("[abc].py", "b.py", False, True),
    ("[abc].py", "d.py", False, False),
    ("[!abc].py", "d.py", False, True),
    ("[!abc].py", "a.py", False, False),
    ("[^abc].py", "d.py", False, True),
    ("[a-c]x", "bx", False, True),
    ("[a-c]x", "dx", False, False),
    ("[]]x", "]x", False, True),
    ("[[:digit:]]*.csv", "2024.csv", False, True),
    ("[[:digit:]]*.csv", "data.csv", False, False),
    ("x[/]y", "x/y", False, False),  # a class never matches /
    ("[abc", "[abc", False, True),  # an unclosed [ is an ordinary character
    ("*.txt\n!keep.txt", "notes.txt", False, True),
    ("*.txt\n!keep.txt", "keep.txt", False, False),
    ("!keep.txt\n*.txt", "keep.txt", False, True),  # the last match wins
    ("logs/\n!logs/keep.txt", "logs/keep.txt", False, True),  # no re-including inside an ignored dir
    ("# a comment", "# a comment", False, False),
    ("\\#hash", "#hash", False, True),
    ("\\!bang", "!bang", False, True),
    ("trail   ", "trail", False, True),  # trailing spaces are dropped
    ("trail\\ ", "trail ", False, True),  # unless escaped
    ("\n\n  \n", "anything", False, False),
    ("*.tmp\r\n", "x.tmp", False, True),  # CRLF files work
    ("\ufeff*.bak", "x.bak", False, True),  # a UTF-8 BOM is skipped
    ("", ".git", True, True),  # .git is always ignored
    ("", "sub/.git", False, True),
    ("*", "anything/at/all", False, True),
    ("f(o)+[.]c", "f(o)+.c", False, True),  # regex characters are literal
    ("trailing\\", "trailing\\", False, False),  # an invalid pattern matches nothing
]


@pytest.mark.parametrize("text, path, is_dir, ignored", GITIGNORE_CASES)
def test_gitignore_patterns(root, text, path, is_dir, ignored):
    (root / ".gitignore").write_text(text, encoding="utf-8")
    assert IgnoreRules.for_root(root).is_excluded(path, is_dir) is ignored


@pytest.mark.parametrize("glob, text, matches", [
    ("*a" * 12 + "*b", "a" * 60, False),  # twelve stars in one segment: a backtracking trap
    ("*a" * 12 + "*b", "a" * 60 + "b", True),
    ("*a*a", "aa", True),
    ("*a*a", "a", False),
    ("x*y*z/*.py", "xyz/a.py", True),
    ("x*y*z/*.py", "xzy/a.py", False),
    ("**/a/**/a/**/b", "a/" * 40 + "c", False),  # many `**`: also no backtracking
    ("**/a/**/a/**/b", "x/a/y/a/z/b", True),
    ("**/a/**/a/**/b", "a/a/b", True),
    ("**/a/**/a/**/b", "a/b", False),
    ("a/**/b/**", "a/b/c", True),
    ("a/**/b/**", "a/b", False),
    ("[a-c]*[!x]*?", "b-yz", True),
    ("[a-c]*[!x]*?", "bx", False),
    ("*.py", "dir/a.py", False),  # * never crosses a /, whichever matcher runs
    ("*/*.py", "d/x.py", True),
])
def test_globs_match_the_same_whatever_their_shape(glob, text, matches):
    assert gitignore.compile_matcher(glob)(text) is matches
    if text.count("a") < 20:  # the regex form agrees where it is safe to run it
        assert (re.fullmatch(glob_to_regex(glob), text, re.DOTALL) is not None) is matches


def test_comments_blank_lines_and_negation_parse_to_rules():
    rules = parse("# build output\n\n/dist/\n!dist/keep\n  \n*.o\n")
    assert [(r.glob, r.negated, r.dir_only, r.anchored) for r in rules] == [
        ("dist", False, True, True), ("dist/keep", True, False, True), ("*.o", False, False, False)]


def test_nested_gitignore_files_apply_below_their_directory(root):
    write(root, {
        ".gitignore": "*.tmp\n",
        "a.tmp": "", "a.txt": "",
        "sub/.gitignore": "!*.tmp\n/local.txt\n",
        "sub/b.tmp": "", "sub/local.txt": "", "sub/deeper/local.txt": "",
        "other/local.txt": "",
    })
    assert walked(root) == [
        ".gitignore", "a.txt", "other/", "other/local.txt",
        "sub/", "sub/.gitignore", "sub/b.tmp", "sub/deeper/", "sub/deeper/local.txt"]


def test_an_ignored_directory_is_never_entered(root, monkeypatch):
    write(root, {".gitignore": "node_modules/\n!node_modules/keep.js\n",
                 "node_modules/lib/index.js": "x", "node_modules/keep.js": "x", "src/app.js": "x"})
    opened = []
    real_scandir = os.scandir

    def spy(path="."):
        opened.append(Path(path).resolve().relative_to(root.resolve()).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(walk_module.os, "scandir", spy)
    assert walked(root) == [".gitignore", "src/", "src/app.js"]
    assert sorted(opened) == [".", "src"]
    assert search.search(root, "x", backend="python").output == "src/app.js:1: x"
    assert not any(name.startswith("node_modules") for name in opened)


def test_walk_lists_symlinks_but_never_follows_them(root, outside):
    write(root, {"src/main.py": "x"})
    (root / "out").symlink_to(outside, target_is_directory=True)
    (root / "src_alias").symlink_to(root / "src", target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)
    assert walked(root) == ["loop", "out", "src/", "src/main.py", "src_alias"]


def test_walk_from_a_subdirectory_uses_the_rules_above_it(root):
    write(root, {".gitignore": "*.log\n", "src/a.py": "", "src/a.log": ""})
    assert walked(root, "src") == ["src/a.py"]


# --- list_files


@pytest.fixture
def tree(root) -> Path:
    return write(root, {
        ".gitignore": "build/\n*.pyc\n",
        "README.md": "# demo\n",
        "setup.py": "",
        "src/app.py": "", "src/app.pyc": "", "src/util/helpers.py": "", "src/util/data.json": "",
        "build/gen.py": "",
        "tests/test_app.py": "",
    })


def test_list_files_hides_ignored_entries_and_says_how_many(tree):
    result = call_tool(tree, "list_files")
    assert result.output.split("\n") == [
        ".gitignore", "README.md", "setup.py", "src/", "tests/", "[1 more ignored by .gitignore]"]
    assert result.summary == "5 entries"
    assert call_tool(tree, "list_files", directory="src").output.split("\n") == [
        "src/app.py", "src/util/", "[1 more ignored by .gitignore]"]


def test_list_files_pattern_matches_names_one_level(tree):
    assert call_tool(tree, "list_files", pattern="*.py").output == "setup.py"
    assert call_tool(tree, "list_files", directory="src", pattern="*.py").output == "src/app.py"
    assert call_tool(tree, "list_files", pattern="*.rs").output == "[no entries match *.rs]"


def test_list_files_pattern_with_a_slash_or_double_star_goes_down(tree):
    assert call_tool(tree, "list_files", pattern="**/*.py").output.split("\n") == [
        "setup.py", "src/app.py", "src/util/helpers.py", "tests/test_app.py"]
    assert call_tool(tree, "list_files", pattern="src/**/*.py").output.split("\n") == [
        "src/app.py", "src/util/helpers.py"]
    # Relative to the directory listed; paths shown from the root, ready for read_file.
    assert call_tool(tree, "list_files", directory="src", pattern="util/*").output == (
        "src/util/data.json\nsrc/util/helpers.py")
    assert call_tool(tree, "list_files", pattern="**/util/").output == "src/util/"


def test_list_files_of_an_ignored_directory_named_explicitly(tree):
    assert call_tool(tree, "list_files", directory="build").output == "build/gen.py"


def test_list_files_bad_pattern(tree):
    result = call_tool(tree, "list_files", pattern="abc\\")
    assert result.error == "invalid pattern 'abc\\\\': a pattern cannot end with a lone backslash"


# --- search_codebase

CODE = {
    ".gitignore": "build/\n*.min.js\n",
    "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return helper()\n\n\ndef helper():\n    return 42\n",
    "src/util.py": "def helper_two():\n    return 'hello world'\n",
    "src/page.min.js": "function main(){return 1}\n",
    "docs/guide.md": "Call main() to start.\nThe helper returns 42.\n",
    "build/app.py": "def main(): pass\n",
    "data.bin": b"\x00\x01\x02def main():\n" * 10,
}


@pytest.fixture
def code(root) -> Path:
    return write(root, CODE)


def test_search_results_are_path_line_text(code):
    result = call_tool(python(code), "search_codebase", pattern=r"def \w+\(")
    assert result.ok
    assert result.output == "src/app.py:3: def main():\nsrc/app.py:8: def helper():\nsrc/util.py:1: def helper_two():"
    assert result.summary == "3 matching lines in 2 files"


def test_search_skips_binary_and_ignored_files(code):
    output = call_tool(python(code), "search_codebase", pattern="main").output
    assert output == "docs/guide.md:1: Call main() to start.\nsrc/app.py:3: def main():"


def test_search_context_lines_like_grep(code):
    result = call_tool(python(code), "search_codebase", pattern="return", context_lines=1, directory="src")
    assert result.output == "\n".join([
        "src/app.py-4-     print('Hello')",
        "src/app.py:5:     return helper()",
        "src/app.py-6- ",
        "--",
        "src/app.py-8- def helper():",
        "src/app.py:9:     return 42",
        "--",
        "src/util.py-1- def helper_two():",
        "src/util.py:2:     return 'hello world'",
    ])


def test_search_context_runs_merge_and_stop_at_the_file_edges(root):
    write(root, {"a.txt": "x1\nhit\nx3\nhit\nx5\n"})
    assert call_tool(python(root), "search_codebase", pattern="hit", context_lines=5).output == (
        "a.txt-1- x1\na.txt:2: hit\na.txt-3- x3\na.txt:4: hit\na.txt-5- x5")


def test_search_case_sensitivity(code):
    assert call_tool(python(code), "search_codebase", pattern="hello", directory="src").output == (
        "src/util.py:2:     return 'hello world'")
    assert call_tool(python(code), "search_codebase", pattern="hello", directory="src", case_sensitive=False).output == (
        "src/app.py:4:     print('Hello')\nsrc/util.py:2:     return 'hello world'")


def test_search_file_pattern_by_name_and_by_path(code):
    assert call_tool(python(code), "search_codebase", pattern="helper", file_pattern="*.md").output == (
        "docs/guide.md:2: The helper returns 42.")
    assert call_tool(python(code), "search_codebase", pattern="main", file_pattern="src/*.py").output == (
        "src/app.py:3: def main():")
    assert call_tool(python(code), "search_codebase", pattern="main", file_pattern="*.js").ok  # ignored: nothing
    assert "no matches" in call_tool(python(code), "search_codebase", pattern="main", file_pattern="*.js").output


def test_search_caps_the_results_and_counts_the_rest(root):
    write(root, {"many.txt": "".join(f"item {n}\n" for n in range(1, 251)), "more.txt": "item x\n"})
    result = call_tool(python(root), "search_codebase", pattern="item", max_results=3)
    assert result.output == (
        "many.txt:1: item 1\nmany.txt:2: item 2\nmany.txt:3: item 3\n"
        "[3 of 251 matching lines shown; narrow the pattern, file_pattern or directory to see the rest]")
    assert result.summary == "251 matching lines in 2 files"
    assert len(call_tool(python(root), "search_codebase", pattern="item").output.split("\n")) == 101  # default 100


def test_search_cap_keeps_the_context_after_the_last_line_shown(root):
    write(root, {"a.txt": "hit 1\nafter\nhit 2\nafter\n"})
    assert call_tool(python(root), "search_codebase", pattern="hit", max_results=1, context_lines=1).output == (
        "a.txt:1: hit 1\na.txt-2- after\n"
        "[1 of 2 matching lines shown; narrow the pattern, file_pattern or directory to see the rest]")


def test_search_in_a_directory_or_one_file(code):
    assert call_tool(python(code), "search_codebase", pattern="42", directory="docs").output == "docs/guide.md:2: The helper returns 42."
    assert call_tool(python(code), "search_codebase", pattern="42", directory="src/app.py").output == "src/app.py:9:     return 42"
    assert call_tool(python(code), "search_codebase", pattern="main", directory="build").output == "build/app.py:1: def main(): pass"


def test_search_matches_stay_within_a_line(root):
    write(root, {"a.txt": "foo\nbar\nfoo bar\n", "b.txt": "alpha\n\nomega"})
    assert call_tool(python(root), "search_codebase", pattern=r"foo\s+bar").output == "a.txt:3: foo bar"
    assert call_tool(python(root), "search_codebase", pattern=r"^$").output == "b.txt:2: "
    assert call_tool(python(root), "search_codebase", pattern=r"a$").output == "b.txt:1: alpha\nb.txt:3: omega"


def test_search_windows_line_endings_and_long_lines(root):
    write(root, {"crlf.txt": b"one\r\ntwo\r\n", "long.txt": "x" * 1000 + "needle\n"})
    assert call_tool(python(root), "search_codebase", pattern="two$|one").output == "crlf.txt:1: one"
    line = call_tool(python(root), "search_codebase", pattern="needle").output
    assert line == "long.txt:1: " + "x" * 300 + "… [706 more characters]"


def test_search_with_no_match_says_where_it_looked(code):
    assert call_tool(python(code), "search_codebase", pattern="nothing here", directory="src", case_sensitive=False).output == (
        "[no matches for 'nothing here' in src, ignoring case; "
        "binary files and paths ignored by .gitignore are not searched]")


def test_search_invalid_regex_is_a_clear_error(code):
    result = call_tool(python(code), "search_codebase", pattern="def (main")
    assert not result.ok
    assert result.error == "invalid regular expression 'def (main': missing ), unterminated subpattern at position 4"


def test_search_decodes_non_utf8_bytes_without_failing(root):
    write(root, {"latin1.txt": "café au lait\n".encode("latin-1")})
    assert call_tool(python(root), "search_codebase", pattern="caf").output == "latin1.txt:1: caf\ufffd au lait"


@pytest.mark.parametrize("pattern, flags", [
    ("return", 0), (r"def \w+_two\(", 0), (r"(hello|Hello) world", 0), ("HELLO", re.I),
    ("(ret)urn 42", 0), (r"return\s+h", 0), ("main", re.I),
])
def test_the_literal_shortcut_finds_the_same_lines_as_the_regex(pattern, flags):
    text = "".join(CODE[name] for name in ("src/app.py", "src/util.py", "docs/guide.md")) + "RETURN Ünïcode\n"
    regex = re.compile(pattern, re.MULTILINE | flags)
    literal = required_literal(regex)
    assert literal is not None
    fast = list(file_records("f", text, regex, 1, literal, bool(flags & re.I)))
    plain = list(file_records("f", text, regex, 1))
    assert fast == plain and any(is_match for _, _, is_match, _ in plain)


def test_required_literal():
    def literal(pattern, flags=0):
        return required_literal(re.compile(pattern, flags))

    assert literal(r"def [a-z]+_handler\(") == "_handler("
    assert literal(r"(alpha|beta)_[a-z]+_id") == "_id"
    assert literal("TODO", re.I) == "todo"
    assert literal("(foo)bar") == "foobar"
    assert literal("abc*") is None  # the c is optional
    assert literal("foo|barbaz") is None
    assert literal("x(?i:yz)w") is None


# --- the same output from ripgrep

PARITY_TREE = {
    ".gitignore": "*.log\n/build/\nvendor/\n!important.log\nsrc/**/gen/\n",
    ".hidden.txt": "needle in a hidden file\n",
    "a.txt": "needle one\nplain\nplain\nNeedle two\nplain\nplain\nplain\nneedle three\n",
    "a-b.txt": "needle\n", "a.txt.bak": "needle\n", "B.txt": "needle\n", "_x.txt": "needle\n",
    "debug.log": "needle in a log\n", "important.log": "needle that stays\n",
    "build/out.txt": "needle\n", "src/build/out.txt": "needle in src/build\n",
    "src/vendor/lib.txt": "needle\n", "src/x/gen/g.txt": "needle\n", "src/gen/ok.txt": "needle\n",
    "src/pkg/.gitignore": "*.txt\n!keep.txt\n",
    "src/pkg/drop.txt": "needle\n", "src/pkg/keep.txt": "needle kept\n", "src/pkg/code.py": "needle = 1\n",
    "src/pkg/deep/more.txt": "needle\n",
    "crlf.txt": b"needle\r\nnext\r\n",
    "nonl.txt": "first\nlast needle",
    "bin.dat": b"\x00\x00needle\n",
    "late_nul.txt": b"needle\n" + b"x" * 9000 + b"\n\x00 needle\n",  # text: no NUL in the first 8 KB
    "utf8.txt": "naïve needle ☃\n",
    "empty.txt": "",
    "src/pkg/deep/.gitignore": "!drop2.txt\n", "src/pkg/deep/drop2.txt": "needle again\n",
    "src-x.txt": "needle after src/ in path order\n", "we:ird name.txt": "a needle: here\n",
}


@pytest.fixture
def parity(root, outside) -> Path:
    write(root, PARITY_TREE)
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "link_file.txt").symlink_to(root / "a.txt")
    return root


PARITY_QUERIES = [
    dict(pattern="needle"),
    dict(pattern="needle", case_sensitive=False, context_lines=2),
    dict(pattern="needle", context_lines=1, max_results=2),
    dict(pattern=r"^needle$"),
    dict(pattern="needle", directory="src"),
    dict(pattern="needle", directory="src/pkg"),
    dict(pattern="needle", directory="src/pkg/deep"),
    dict(pattern="needle", directory="build"),
    dict(pattern="needle", file_pattern="*.txt"),
    dict(pattern="needle", file_pattern="src/**/*.txt"),
    dict(pattern="needle", file_pattern="[ab]*.txt", case_sensitive=False),
    dict(pattern="(?=needle)"),  # look-ahead: rg refuses it; the Python search answers
    dict(pattern="no such text"),
]


@pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) is not installed")
@pytest.mark.parametrize("query", PARITY_QUERIES, ids=lambda query: json.dumps(query))
def test_ripgrep_and_python_give_the_same_output(parity, query):
    by_python = search.search(parity, backend="python", **query)
    by_rg = search.search(parity, backend="rg", **query)
    assert (by_rg.output, by_rg.summary) == (by_python.output, by_python.summary)
    assert SECRET not in by_python.output


def test_ripgrep_is_asked_for_the_same_rules(parity):
    """Without rg installed too: the command line and the rules file it would get."""
    rules = IgnoreRules.for_root(parity)
    query = Query(re.compile("x"), "x", False, 2, "src/pkg", False, gitignore.compile_glob("*.py"))
    argv = ripgrep.ripgrep_argv("rg", query, "/tmp/above.gitignore")
    for flag in ("--hidden", "--no-ignore-parent", "--no-ignore-dot", "--no-ignore-global",
                 "--no-ignore-exclude", "--no-require-git", "--no-config", "--ignore-case"):
        assert flag in argv
    assert argv[-4:] == ["--regexp", "x", "--", "src/pkg"]
    assert argv[argv.index("--type-add") + 1] == "ayder:*.py"
    assert ripgrep._rules_above(rules, "src/pkg") == (
        "/**/*.log\n/build/\n/**/vendor/\n!/**/important.log\n/src/**/gen/\n")
    assert ripgrep._rules_above(rules, "") == ""


def test_without_ripgrep_the_python_search_answers(code, monkeypatch):
    monkeypatch.setattr(search.shutil, "which", lambda name: None)
    assert call_tool(ToolContext(code, search_backend="auto"), "search_codebase", pattern="main", directory="src").output == "src/app.py:3: def main():"
    with pytest.raises(ToolError, match=r"ripgrep \(rg\) is not installed"):
        search.search(code, "main", backend="rg")


def test_python_search_stays_inside_the_root(parity, outside):
    assert SECRET not in search.search(parity, "TOP SECRET", backend="python").output


# --- paths outside the project


@pytest.mark.parametrize("tool, argument", [
    ("search_codebase", "directory"), ("get_file_info", "file_path"), ("list_files", "directory")])
@pytest.mark.parametrize("path", ["..", "../outside/secret.txt", "{outside}", "/etc/passwd", "link_out"])
def test_paths_outside_the_root_are_refused(root, outside, tool, argument, path):
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    given = path.format(outside=outside)
    arguments = {argument: given, **({"pattern": "SECRET"} if tool == "search_codebase" else {})}
    result = call_tool(python(root), tool, **arguments)
    assert not result.ok
    assert result.error.startswith(f"path {given!r} is outside the project root; use a path inside it")


def test_search_of_a_missing_directory(code):
    assert call_tool(python(code), "search_codebase", pattern="x", directory="nope").error == "no such directory: nope"


# --- get_project_structure


def test_structure_is_an_indented_tree_without_ignored_entries(tree):
    result = call_tool(tree, "get_project_structure")
    assert result.output == "\n".join([
        "src/",
        "  util/",
        "    data.json",
        "    helpers.py",
        "  app.py",
        "tests/",
        "  test_app.py",
        ".gitignore",
        "README.md",
        "setup.py",
    ])


def test_structure_depth_limit_counts_what_is_below(tree):
    write(tree, {"src/util/more/x.py": "", "src/util/more/y.py": ""})
    assert call_tool(tree, "get_project_structure", max_depth=1).output == (
        "src/ (2 entries)\ntests/ (1 entry)\n.gitignore\nREADME.md\nsetup.py")
    assert "    more/ (2 entries)" in call_tool(tree, "get_project_structure").output.split("\n")


def test_structure_caps_entries_per_directory_and_in_all(root, monkeypatch):
    write(root, {f"big/f{n:03d}.txt": "" for n in range(45)})
    write(root, {f"d{n}/sub/x.txt": "" for n in range(5)})
    output = call_tool(root, "get_project_structure").output.split("\n")
    assert output[:2] == ["big/", "  f000.txt"]
    assert "  … 5 more" in output and "  f040.txt" not in output
    monkeypatch.setattr(tree_module, "TREE_MAX_LINES", 50)
    output = call_tool(root, "get_project_structure").output.split("\n")
    assert output[0] == "big/ (45 entries)"
    assert output[-1] == "[shown to depth 1 to stay under 50 lines; use list_files or a smaller max_depth]"
    assert "d0/ (1 entry)" in output


def test_structure_does_not_follow_links(root, outside):
    write(root, {"src/a.py": ""})
    (root / "out").symlink_to(outside, target_is_directory=True)
    assert call_tool(root, "get_project_structure").output == "out/\nsrc/\n  a.py"  # out/ not entered


def test_structure_of_an_empty_project(root):
    assert call_tool(root, "get_project_structure").output == "[empty project]"


# --- get_file_info


def test_file_info_of_a_text_file(root):
    path = write(root, {"src/a.py": "one\ntwo\nthree"}) / "src" / "a.py"
    path.chmod(0o640)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    result = call_tool(root, "get_file_info", file_path="src/a.py")
    assert result.output == "\n".join([
        "path: src/a.py", "type: text file", "size: 13 bytes", "lines: 3",
        "modified: 2001-09-09T01:46:40Z", "mode: -rw-r----- (0640)"])
    assert result.summary == "text file"


def test_file_info_of_binary_ignored_linked_and_directory(root):
    write(root, {".gitignore": "*.bin\n", "blob.bin": b"\x00" * 5000, "src/a.py": "", "src/b.py": "",
                 "src/c.pyc": ""})
    (root / "alias.py").symlink_to(root / "src" / "a.py")
    blob = call_tool(root, "get_file_info", file_path="blob.bin").output.split("\n")
    assert blob[1:3] == ["type: binary file", "size: 5,000 bytes (4.9 KB)"]
    assert blob[-1] == "ignored by .gitignore: yes"
    assert not any(line.startswith("lines:") for line in blob)
    assert call_tool(root, "get_file_info", file_path="alias.py").output.split("\n")[:2] == [
        "path: src/a.py", "symlink: alias.py -> src/a.py"]
    folder = call_tool(root, "get_file_info", file_path="src").output.split("\n")
    assert folder[:3] == ["path: src", "type: directory", "entries: 3"]


def test_file_info_of_a_missing_file(root):
    assert call_tool(root, "get_file_info", file_path="nope.txt").error == "no such file: nope.txt"


# --- the specs


def test_the_schemas_are_short_and_name_their_path_arguments():
    specs = [SEARCH_CODEBASE, GET_PROJECT_STRUCTURE, GET_FILE_INFO]
    for spec in specs:
        assert spec.permission == "r"
        assert "\n" not in spec.description and len(spec.description) <= 90
        assert len(json.dumps(spec.schema())) <= 520, spec.name
    assert [spec.path_args for spec in specs] == [("directory",), (), ("file_path",)]
    assert LIST_FILES.path_args == ("directory",)


def test_ayders_own_state_directory_is_never_listed_or_searched(root):
    (root / ".ayder" / "sessions").mkdir(parents=True)
    (root / ".ayder" / "sessions" / "s.jsonl").write_text('{"content": "needle"}\n')
    (root / "code.py").write_text("x = 'needle'\n")
    found = search.search(root, "needle", backend="python")
    assert "code.py:1:" in found.output and ".ayder" not in found.output
    listed = call_tool(root, "list_files")
    assert ".ayder" not in listed.output and "code.py" in listed.output
