"""The read-only tools and the registry: real files in a temporary project, paths that try to leave it."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.repl.commands import CommandResult, run_command
from ayder_cli.config.schema import TOOL_GROUPS, Config
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.modes.entries import command_context
from ayder_cli.calls import ToolCall
from ayder_cli.tools import GROUPS, ToolContext, ToolError, ToolRegistry, ToolResult, ToolSpec, default_registry
from ayder_cli.tools.executor import ToolExecutor
from ayder_cli.tools.files import LIST_FILES, READ_FILE
from ayder_cli.storage.paths import display_path, resolve_in_root

from support.files import OUTSIDE_SECRET as SECRET  # noqa: E402
from support.tool_calls import call_tool, run_call  # noqa: E402


def numbered(lines: range) -> str:
    return "\n".join(f"{n:>6}\tline {n}" for n in lines)


def write_lines(path: Path, count: int) -> Path:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))
    return path


# --- read_file


def test_read_file_numbers_every_line(root):
    (root / "notes.txt").write_bytes(b"alpha\r\nbeta\n\ngamma")
    result = call_tool(root, "read_file", file_path="notes.txt")
    assert result.ok and result.error is None
    assert result.output == "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma"
    assert result.summary == "4 lines"


def test_read_file_range_shows_those_lines_and_the_total(root):
    write_lines(root / "fifty.txt", 50)
    result = call_tool(root, "read_file", file_path="fifty.txt", start_line=5, end_line=7)
    assert result.output == numbered(range(5, 8)) + "\n[lines 5-7 of 50]"
    assert result.summary == "3 lines"


def test_read_file_start_line_alone_reads_to_the_end(root):
    write_lines(root / "fifty.txt", 50)
    result = call_tool(root, "read_file", file_path="fifty.txt", start_line=48)
    assert result.output == numbered(range(48, 51)) + "\n[lines 48-50 of 50]"


def test_read_file_end_line_past_the_end_stops_at_the_last_line(root):
    write_lines(root / "fifty.txt", 50)
    result = call_tool(root, "read_file", file_path="fifty.txt", start_line=45, end_line=80)
    assert result.ok
    assert result.output == numbered(range(45, 51)) + "\n[lines 45-50 of 50]"


@pytest.mark.parametrize("start, end, message", [
    (51, None, "start_line 51 is past the end of fifty.txt (50 lines)"),
    (60, 70, "start_line 60 is past the end of fifty.txt (50 lines)"),
    (10, 5, "end_line (5) is before start_line (10)"),
    (0, 3, "start_line must be 1 or more (lines are numbered from 1), got 0"),
])
def test_read_file_impossible_ranges_say_what_is_wrong(root, start, end, message):
    write_lines(root / "fifty.txt", 50)
    arguments = {"start_line": start} if end is None else {"start_line": start, "end_line": end}
    result = call_tool(root, "read_file", file_path="fifty.txt", **arguments)
    assert not result.ok
    assert result.error == message
    assert result.output == ""


def test_read_file_reads_at_most_2000_lines_and_says_how_to_go_on(root):
    write_lines(root / "long.txt", 5000)
    result = call_tool(ToolContext(root, max_output_chars=100_000), "read_file", file_path="long.txt")
    lines = result.output.split("\n")
    assert lines[:-1] == numbered(range(1, 2001)).split("\n")
    assert lines[-1] == "[lines 1-2000 of 5000; at most 2000 lines per call; ask for start_line=2001 to read more]"
    assert result.summary == "2000 lines"


def test_read_file_stops_on_a_whole_line_when_the_output_limit_is_near(root):
    (root / "wide.txt").write_text("".join(f"{n:04d} " + "x" * 95 + "\n" for n in range(1, 101)))
    result = call_tool(ToolContext(root, max_output_chars=1200), "read_file", file_path="wide.txt")
    *lines, note = result.output.split("\n")
    assert len(result.output) <= 1200
    shown = len(lines)
    assert 1 <= shown < 100
    assert [int(line.split("\t")[1][:4]) for line in lines] == list(range(1, shown + 1))
    assert note == f"[lines 1-{shown} of 100; output limit reached; ask for start_line={shown + 1} to read more]"


def test_read_file_cuts_a_very_long_line_and_says_how_much_is_left(root):
    (root / "min.js").write_text("a" * 5000 + "\nshort\n")
    result = call_tool(root, "read_file", file_path="min.js")
    first, second = result.output.split("\n")
    assert first == "     1\t" + "a" * 2000 + "… [3,000 more characters on this line]"
    assert second == "     2\tshort"


def test_read_file_replaces_bytes_that_are_not_utf8(root):
    (root / "latin1.txt").write_bytes(b"caf\xe9\n")
    assert call_tool(root, "read_file", file_path="latin1.txt").output == "     1\tcaf\ufffd"


def test_read_file_of_an_empty_file(root):
    (root / "empty.txt").write_text("")
    result = call_tool(root, "read_file", file_path="empty.txt")
    assert result.ok and result.output == "[empty file]" and result.summary == "0 lines"


def test_read_file_refuses_a_binary_file_and_gives_its_size(root):
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 1226 + b"text after")
    result = call_tool(root, "read_file", file_path="logo.png")
    assert not result.ok
    assert result.error == "logo.png is a binary file (1,244 bytes); read_file reads text files only"
    assert result.output == ""


def test_read_file_of_a_missing_file_suggests_close_names(root):
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "src" / "util.py").write_text("")
    result = call_tool(root, "read_file", file_path="src/mian.py")
    assert not result.ok
    assert result.error == "no such file: src/mian.py; did you mean src/main.py?"
    assert result.summary == result.error


def test_read_file_of_a_missing_file_with_nothing_close(root):
    (root / "README.md").write_text("")
    result = call_tool(root, "read_file", file_path="zzz/qqq.txt")
    assert result.error == "no such file: zzz/qqq.txt"


def test_read_file_of_a_directory_points_at_list_files(root):
    (root / "src").mkdir()
    result = call_tool(root, "read_file", file_path="src")
    assert not result.ok
    assert result.error == "src is a directory, not a file; use list_files to see what it holds"


def test_read_file_range_of_a_huge_file_returns_exactly_those_lines(root):
    huge = root / "huge.log"
    with huge.open("w") as out:
        out.writelines(f"line {n} of the huge log, padded to make the file big\n" for n in range(1, 200_001))
    size = huge.stat().st_size
    result = call_tool(root, "read_file", file_path="huge.log", start_line=5, end_line=10)
    expected = [f"{n:>6}\tline {n} of the huge log, padded to make the file big" for n in range(5, 11)]
    assert result.output.split("\n") == expected + [f"[lines 5-10 of a {size / 1024 / 1024:.1f} MB file]"]


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/self/io")
def test_read_file_range_near_the_top_does_not_read_the_rest_of_the_file(root):
    huge = root / "huge.log"
    with huge.open("w") as out:
        out.writelines(f"line {n:07d} {'.' * 40}\n" for n in range(1, 200_001))

    def bytes_read() -> int:
        return int(re.search(r"rchar: (\d+)", Path("/proc/self/io").read_text()).group(1))

    before = bytes_read()
    result = call_tool(root, "read_file", file_path="huge.log", start_line=5, end_line=10)
    read = bytes_read() - before
    assert result.ok and len(result.output.split("\n")) == 7
    assert read < 200_000 < huge.stat().st_size  # a few buffers, not the 10 MB file


# --- list_files


def test_list_files_sorted_with_directories_marked_and_git_skipped(root):
    for name in ("b.txt", "a.txt", ".env"):
        (root / name).write_text("x")
    (root / "src").mkdir()
    (root / ".github").mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    result = call_tool(root, "list_files")
    assert result.ok
    assert result.output.split("\n") == [".env", ".github/", "a.txt", "b.txt", "src/"]
    assert result.summary == "5 entries"
    assert call_tool(root, "list_files", directory=".").output == result.output


def test_list_files_of_a_subdirectory_gives_paths_read_file_accepts(root):
    (root / "src" / "lib").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    result = call_tool(root, "list_files", directory="src")
    assert result.output.split("\n") == ["src/lib/", "src/main.py"]
    assert call_tool(root, "read_file", file_path=result.output.split("\n")[1]).output == "     1\tprint('hi')"


def test_list_files_of_an_empty_directory(root):
    (root / "empty").mkdir()
    result = call_tool(root, "list_files", directory="empty")
    assert result.ok and result.output == "[empty directory]" and result.summary == "0 entries"


def test_list_files_caps_the_entries_and_says_so(root):
    many = root / "many"
    many.mkdir()
    for n in range(1005):
        (many / f"f{n:04d}").write_text("")
    result = call_tool(root, "list_files", directory="many")
    lines = result.output.split("\n")
    assert lines[:-1] == [f"many/f{n:04d}" for n in range(1000)]
    assert lines[-1] == "[1000 of 1005 entries shown]"
    assert result.summary == "1000 of 1005 entries"


def test_list_files_of_a_missing_directory(root):
    (root / "source").mkdir()
    result = call_tool(root, "list_files", directory="sourc")
    assert not result.ok
    assert result.error == "no such directory: sourc; did you mean source?"


def test_list_files_of_a_file_points_at_read_file(root):
    (root / "a.txt").write_text("x")
    assert call_tool(root, "list_files", directory="a.txt").error == "a.txt is a file, not a directory; use read_file to read it"


# --- paths: nothing outside the project root


@pytest.fixture
def links(root, outside) -> Path:
    """Symlinks inside the project: two pointing outside it, two pointing inside."""
    (root / "notes.txt").write_text("inside notes\n")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "file_link").symlink_to(outside / "secret.txt")
    (root / "dir_link").symlink_to(outside, target_is_directory=True)
    (root / "alias.txt").symlink_to(root / "notes.txt")
    (root / "src_alias").symlink_to("src", target_is_directory=True)
    return root


ESCAPES_FOR_READ = ["../outside/secret.txt", "{outside}/secret.txt", "/etc/passwd", "file_link",
                    "dir_link/secret.txt", "src/../../outside/secret.txt", "~/secret.txt"]
ESCAPES_FOR_LIST = ["..", "../outside", "{outside}", "/etc", "/", "dir_link", "src/../.."]


@pytest.mark.parametrize("path", ESCAPES_FOR_READ)
def test_read_file_refuses_paths_outside_the_root(links, outside, path):
    given = path.format(outside=outside)
    result = call_tool(links, "read_file", file_path=given)
    assert not result.ok
    assert result.error.startswith(f"path {given!r} is outside the project root; use a path inside it")
    assert SECRET not in result.output + result.error
    assert "root:" not in result.output


@pytest.mark.parametrize("path", ESCAPES_FOR_LIST)
def test_list_files_refuses_paths_outside_the_root(links, outside, path):
    given = path.format(outside=outside)
    result = call_tool(links, "list_files", directory=given)
    assert not result.ok
    assert result.error.startswith(f"path {given!r} is outside the project root; use a path inside it")
    assert "secret.txt" not in result.output + result.error


def test_symlinks_that_stay_inside_the_root_work(links):
    assert call_tool(links, "read_file", file_path="alias.txt").output == "     1\tinside notes"
    assert call_tool(links, "read_file", file_path="src_alias/main.py").output == "     1\tprint('hi')"
    assert call_tool(links, "list_files", directory="src_alias").output == "src/main.py"


def test_list_files_names_links_without_following_them_out(links):
    listing = call_tool(links, "list_files").output.split("\n")
    assert "dir_link/" in listing and "file_link" in listing
    assert "secret.txt" not in listing


def test_resolve_in_root(root):
    (root / "a").mkdir()
    assert resolve_in_root(root, "a/../a/b.txt") == root.resolve() / "a" / "b.txt"
    assert resolve_in_root(root, str(root / "a")) == root.resolve() / "a"
    assert resolve_in_root(root, ".") == root.resolve()
    with pytest.raises(ToolError, match=r"^path '\.\./x' is outside the project root"):
        resolve_in_root(root, "../x")
    with pytest.raises(ToolError, match="the path is empty"):
        resolve_in_root(root, "  ")
    with pytest.raises(ToolError, match="cannot be resolved"):
        resolve_in_root(root, "bad\0name")


def test_a_symlink_loop_is_an_error_not_a_hang(root):
    (root / "loop").symlink_to(root / "loop")
    result = call_tool(root, "read_file", file_path="loop")
    assert not result.ok and "loop" in result.error


def test_display_path(root):
    assert display_path(root, root.resolve() / "src" / "main.py") == "src/main.py"
    assert display_path(root, root.resolve()) == "."


# --- the registry


def test_unknown_tool_names_the_nearest_and_lists_the_tools(root):
    result = call_tool(root, "red_file", file_path="a.txt")
    assert not result.ok
    assert result.error.startswith("unknown tool 'red_file'; did you mean read_file? (tools: read_file, list_files, ")


def test_unknown_tool_with_nothing_near(root):
    result = call_tool(root, "launch_rockets")
    assert result.error.startswith("unknown tool 'launch_rockets' (tools: read_file, list_files, ")


READ_FILE_EXPECTS = "expected read_file(file_path: string, start_line?: integer, end_line?: integer)"


@pytest.mark.parametrize("arguments, problem", [
    ({}, "missing required argument 'file_path'"),
    ({"file_path": None}, "missing required argument 'file_path'"),
    ({"file_pth": "a.txt"}, "unknown argument 'file_pth' (did you mean 'file_path'?); missing required argument 'file_path'"),
    ({"file_path": "a.txt", "encoding": "utf-8"}, "unknown argument 'encoding'"),
    ({"filepth": "a.txt"}, "unknown argument 'filepth' (did you mean 'file_path'?); missing required argument 'file_path'"),
    ({"file_path": "a.txt", "start_line": "abc"}, "argument 'start_line' must be an integer, got string 'abc'"),
    ({"file_path": "a.txt", "start_line": 1.5}, "argument 'start_line' must be an integer, got number 1.5"),
    ({"file_path": "a.txt", "start_line": True}, "argument 'start_line' must be an integer, got boolean True"),
    ({"file_path": 42}, "argument 'file_path' must be a string, got integer 42"),
    ({"file_path": ["a.txt"]}, "argument 'file_path' must be a string, got array ['a.txt']"),
])
def test_bad_arguments_say_what_is_wrong_and_what_the_tool_expects(root, arguments, problem):
    (root / "a.txt").write_text("x\n")
    result = call_tool(root, "read_file", **arguments)
    assert not result.ok
    assert result.error == f"read_file: {problem}; {READ_FILE_EXPECTS}"


def test_a_misnamed_directory_argument_points_at_the_right_name(root):
    result = call_tool(root, "list_files", directry="src")
    assert result.error == "list_files: unknown argument 'directry' (did you mean 'directory'?); expected list_files(directory?: string, pattern?: string)"


def test_arguments_that_could_not_be_decoded(root):
    broken = ToolCall("call-1", "read_file", {}, error="invalid JSON: Expecting ',' at column 20")
    result = run_call(root, broken)
    assert result.error == (
        f"read_file: the arguments could not be read (invalid JSON: Expecting ',' at column 20); {READ_FILE_EXPECTS}")


def test_arguments_that_are_not_an_object(root):
    result = run_call(root, ToolCall("call-1", "list_files", ["src"]))
    assert result.error == "list_files: the arguments must be a JSON object, got array; expected list_files(directory?: string, pattern?: string)"


def test_numbers_given_as_text_are_accepted_and_null_means_not_given(root):
    write_lines(root / "fifty.txt", 50)
    result = call_tool(root, "read_file", file_path="fifty.txt", start_line="2", end_line=" 3")
    assert result.output == numbered(range(2, 4)) + "\n[lines 2-3 of 50]"
    result = call_tool(root, "read_file", file_path="fifty.txt", start_line=49.0, end_line=None)
    assert result.output == numbered(range(49, 51)) + "\n[lines 49-50 of 50]"


def spec(name: str, run) -> ToolSpec:
    return ToolSpec(name, "A test tool.", {"type": "object", "properties": {}, "additionalProperties": False}, "r", run)


def test_a_failing_tool_gives_a_one_line_error(root):
    def broken(context, args):
        raise ValueError("bad size\n  with a second line")

    result = call_tool(root, "broken", tools=[spec("broken", broken)])
    assert not result.ok
    assert result.error == "broken failed: ValueError: bad size"
    assert result.summary == result.error


def test_a_tool_error_message_is_the_result_as_it_is(root):
    def refuses(context, args):
        raise ToolError("nothing to do here; try list_files")

    result = call_tool(root, "refuses", tools=[spec("refuses", refuses)])
    assert result.error == "nothing to do here; try list_files"


def test_long_output_keeps_head_and_tail_and_says_how_much_was_cut(root):
    text = "\n".join(f"row {n}" for n in range(10_000))
    chatty = spec("chatty", lambda context, args: ToolResult(ok=True, output=text))
    output = call_tool(ToolContext(root, max_output_chars=2000), "chatty", tools=[chatty]).output
    assert len(output) <= 2000
    head, marker, tail = re.split(r"\n?(\[\.\.\. [\d,]+ characters cut from the middle \.\.\.\])\n", output)
    cut = int(re.search(r"[\d,]+", marker).group().replace(",", ""))
    assert head.startswith("row 0\nrow 1\n") and text.startswith(head)
    assert tail.endswith("row 9998\nrow 9999") and text.endswith(tail)
    assert len(head) + cut + len(tail) + 1 == len(text)  # the newline before the marker was the head's
    assert head.split("\n")[-1] in text.split("\n") and tail.split("\n")[0] in text.split("\n")  # whole lines


def test_output_within_the_limit_is_untouched(root):
    text = "x" * 2000
    exact = spec("exact", lambda context, args: ToolResult(ok=True, output=text))
    assert call_tool(ToolContext(root, max_output_chars=2000), "exact", tools=[exact]).output == text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=5,
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["read_file", "list_files", "read_fil", ""]),
       arguments=st.dictionaries(st.sampled_from(["file_path", "directory", "start_line", "end_line", "x"]),
                                 JSON_VALUES, max_size=4))
def test_execute_never_raises_whatever_the_model_sends(root, name, arguments):
    (root / "a.txt").write_text("one\ntwo\n")
    result = run_call(root, ToolCall("c", name, arguments))
    assert isinstance(result, ToolResult)
    assert result.ok or (result.error and "\n" not in result.error)


def test_schemas_are_openai_tools_in_registration_order_and_small(root):
    registry = ToolRegistry([READ_FILE, LIST_FILES])
    schemas = ToolExecutor(registry, ToolContext(root)).schemas()
    assert default_registry().names()[:2] == ["read_file", "list_files"]  # reads are offered first
    assert [s["function"]["name"] for s in schemas] == registry.names()
    assert registry.get("read_file") is READ_FILE and registry.get("list_files") is LIST_FILES
    assert registry.get("nope") is None
    for schema in ToolExecutor(default_registry(), ToolContext(root)).schemas():
        assert schema["type"] == "function"
        function = schema["function"]
        assert set(function) == {"name", "description", "parameters"}
        assert "\n" not in function["description"] and len(function["description"]) <= 100, function["name"]
        parameters = function["parameters"]
        assert parameters["type"] == "object" and parameters["additionalProperties"] is False
        assert set(parameters.get("required", ())) <= set(parameters["properties"])
        for prop in parameters["properties"].values():
            assert prop["type"] in ("string", "integer", "number", "boolean", "array")
            assert len(prop.get("description", "")) <= 40  # the name says most; a short note where it does not
    assert len(json.dumps(schemas)) < 750
    assert all(spec.permission == "r" for spec in registry.specs())


def test_every_tool_is_in_a_known_group_and_core_is_the_small_default():
    specs = default_registry().specs()
    assert tuple(GROUPS) == TOOL_GROUPS
    assert {spec.group for spec in specs} == set(GROUPS)
    # replace_lines is offered only by edit_format lines, in replace_string's place (ayder_cli/edit_formats.py)
    assert [spec.name for spec in specs if spec.group == "core"] == [
        "read_file", "list_files", "search_codebase", "write_file", "replace_string", "replace_lines",
        "run_shell_command"]
    assert {spec.name for spec in specs if spec.group == "tasks"} == {
        "create_task", "list_tasks", "show_task", "update_task_status"}
    assert {spec.name for spec in specs if spec.group == "memory"} == {"save_memory", "load_memory"}


# --- /tools


def test_tools_command_lists_each_tool_with_its_permission(root):
    from ayder_cli.session.services import build_session

    err = io.StringIO()
    environment = Environment(stdout=io.StringIO(), stderr=err, no_color=True, local_servers=())
    services = build_session(Config(), environment, root=root, console=Console(environment))
    context = command_context(services)
    err.seek(0), err.truncate()  # what building said (no server configured) is not /tools' output
    assert run_command("/tools", context) is CommandResult.OK
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("  r  read_file(file_path, start_line?, end_line?)  ")
    assert lines[0].endswith(f"  {READ_FILE.description}")
    assert lines[1].split(None, 3)[:3] == ["r", "list_files(directory?,", "pattern?)"]
    assert lines[1].endswith(f"  {LIST_FILES.description}")
    assert lines[0].index(READ_FILE.description) == lines[1].index(LIST_FILES.description)  # aligned
    assert environment.stdout.getvalue() == ""


def test_tools_command_names_the_groups_not_offered_and_offers_them(root):
    from ayder_cli.session.services import build_session

    err = io.StringIO()
    environment = Environment(stdout=io.StringIO(), stderr=err, no_color=True, local_servers=())
    services = build_session(Config(), environment, root=root, console=Console(environment))
    context = command_context(services)
    run_command("/tools", context)
    lines = {line.split()[1].split("(")[0]: line for line in err.getvalue().splitlines()}
    assert "not offered" not in lines["read_file"] and "not offered" not in lines["run_shell_command"]
    assert lines["create_task"].endswith("[not offered: /tools tasks, asks first]")
    assert "[not offered: /tools processes]" in lines["list_background_processes"]

    assert run_command("/tools tasks memory", context) is CommandResult.OK
    offered = [spec.name for spec in services.executor.offered()]
    assert {"create_task", "update_task_status", "save_memory"} <= set(offered)
    assert "run_background_process" not in offered

    err.truncate(0)
    assert run_command("/tools prcesses", context) is CommandResult.FAILED
    assert "unknown tool group 'prcesses' (did you mean 'processes'?)" in err.getvalue()
    assert "core, files, processes, tasks, memory, or all" in err.getvalue()


def test_tools_command_in_a_piped_script(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/tools\n")
    assert result.returncode == 0, result.stderr
    listed = [line.split()[:2] for line in result.stderr.splitlines() if "(" in line]
    assert ["r", "read_file(file_path,"] in listed and ["r", "list_files(directory?,"] in listed
    assert result.stdout == ""
    assert fake.chat_requests() == []


def test_context_root_is_resolved(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    assert ToolContext(tmp_path / "link").root == (tmp_path / "real").resolve()
    assert os.path.isabs(ToolContext(Path(".")).root)
