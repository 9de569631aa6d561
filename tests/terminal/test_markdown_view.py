"""Markdown on a terminal with colour; the model's text unchanged anywhere else."""

from __future__ import annotations

import io
import subprocess
import sys

from support.fakellm import Reply
from support.harness import server_args

from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.llm.wire_types import Reply as ModelReply  # fakellm.Reply is the scripted server reply
from ayder_cli.terminal.markdown_view import MarkdownView
from ayder_cli.masking import Secrets

REPLY = """# Plan
Some **bold**, *italic* and `code` in a_snake_case line.
- first
2. second
> quoted
```python
def f():
    return 1
```
done"""


def console_on(stdout_is_tty: bool = True, no_color: bool = False) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    environment = Environment(stdout=out, stderr=io.StringIO(), stdout_is_tty=stdout_is_tty,
                              stderr_is_tty=stdout_is_tty, no_color=no_color)
    return Console(environment), out


def stream(console: Console, text: str, size: int = 3, end: bool = True) -> None:
    for start in range(0, len(text), size):
        console.on_text(text[start : start + size])
    if end:
        console.on_reply_end(ModelReply(text=text, finish_reason="stop"))


def test_a_terminal_shows_headings_emphasis_lists_quotes_and_highlighted_code():
    console, out = console_on()
    stream(console, REPLY)
    shown = out.getvalue()
    assert "\x1b[1m\x1b[4mPlan\x1b[0m\n" in shown  # the heading, bold and underlined, without its #
    assert "\x1b[1mbold\x1b[22m" in shown and "\x1b[3mitalic\x1b[23m" in shown and "\x1b[36mcode\x1b[39m" in shown
    assert "a_snake_case line" in shown  # underscores inside a word are no emphasis
    assert "• first\n" in shown and "\x1b[1m2.\x1b[22m second" in shown
    assert "│\x1b[0m \x1b[3mquoted" in shown
    assert "\x1b[2m```python\x1b[0m" in shown
    assert "\x1b[34mdef\x1b[39" in shown  # Pygments' keyword colour
    assert "**" not in shown and "# Plan" not in shown
    assert shown.endswith("done\n")


def test_piped_output_and_no_color_keep_the_models_text_byte_for_byte():
    for tty, no_color in ((False, False), (True, True)):
        console, out = console_on(stdout_is_tty=tty, no_color=no_color)
        stream(console, REPLY)
        assert out.getvalue() == REPLY + "\n"


def test_no_color_in_the_environment_turns_markdown_off():
    assert Environment.of(None, io.StringIO(), io.StringIO(), {"NO_COLOR": "1"}).no_color


def test_table_rows_keep_their_layout_with_dim_pipes_and_inline_markup_in_cells():
    view = MarkdownView()
    shown = view.feed("| name | size |\n|:-----|-----:|\n| **a.py** | `12` |\n")
    pipe = "\x1b[2m|\x1b[22m"
    assert shown.splitlines() == [
        f"{pipe} name {pipe} size {pipe}",
        "\x1b[2m|:-----|-----:|\x1b[0m",
        f"{pipe} \x1b[1ma.py\x1b[22m {pipe} \x1b[36m12\x1b[39m {pipe}",
    ]


def test_a_setext_underline_is_dimmed_and_its_text_shown_as_it_came():
    view = MarkdownView()
    assert view.feed("Title\n=====\nSub\n---\n") == "Title\n\x1b[2m=====\x1b[0m\nSub\n" + f"\x1b[2m{'─' * 40}\x1b[0m\n"


def test_a_paragraph_streams_before_its_line_ends_and_markup_waits_for_it():
    view = MarkdownView()
    assert view.feed("Hello wor") == "Hello wor"
    assert view.feed("ld **bo") == "ld "
    assert view.feed("ld** end\n") == "\x1b[1mbold\x1b[22m end\n"
    assert view.feed("# Tit") == ""  # a heading is known only at its end
    assert view.finish() == "\x1b[1m\x1b[4mTit\x1b[0m"


def test_secrets_are_masked_in_rendered_markdown():
    console, out = console_on()
    console.mask_with(Secrets(["sk-secret-key-123"]))
    stream(console, "Key **sk-secret-key-123** here\nsk-secret-key-123\nsplit sk-sec", size=4, end=False)
    console.on_text("ret-key-123 done")
    console.on_reply_end(ModelReply(text="", finish_reason="stop"))
    shown = out.getvalue()
    assert "secret" not in shown
    assert "\x1b[1m***\x1b[22m" in shown  # inside the emphasis
    assert "\n***\n" in shown  # a line that was only the key is no horizontal rule
    assert "split *** done" in shown


def test_pygments_is_not_imported_when_stdout_is_not_a_terminal():
    script = f"""
import io, sys
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment
from ayder_cli.llm.wire_types import Reply
out = io.StringIO()
console = Console(Environment(stdout=out, stderr=io.StringIO()))
console.on_text({REPLY!r})
console.on_reply_end(Reply(text="", finish_reason="stop"))
assert out.getvalue() == {REPLY + chr(10)!r}
print("pygments" in sys.modules, "ayder_cli.terminal.markdown_view" in sys.modules)
console = Console(Environment(stdout=out, stderr=io.StringIO(), stdout_is_tty=True, stderr_is_tty=True))
console.on_text({REPLY!r})
print("pygments" in sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False", "True"]


def test_an_unknown_language_is_still_shown_as_code():
    view = MarkdownView()
    assert view.feed("```nosuchlang\nx = 1\n```\n") == "\x1b[2m```nosuchlang\x1b[0m\n\x1b[36mx = 1\x1b[39m\n" \
                                                      "\x1b[2m```\x1b[0m\n"


def test_the_real_run_renders_on_a_terminal_and_not_through_a_pipe(fake, ayder_on_pty, run_ayder, protocol):
    fake.queue(Reply(text="# Title\nplain and **strong**"), Reply(text="# Title\nplain and **strong**"))
    child = ayder_on_pty(*server_args(fake, protocol), "q", term="xterm")
    child.expect_exact("\x1b[1m\x1b[4mTitle")
    child.expect_exact("\x1b[1mstrong\x1b[22m")
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.stdout == "# Title\nplain and **strong**\n"


def test_no_color_flag_shows_the_models_text_on_a_terminal(fake, ayder_on_pty):
    fake.queue(Reply(text="# Title\nplain and **strong**"))
    child = ayder_on_pty("--base-url", fake.url, "--no-color", "q", term="xterm")
    child.logfile_read = seen = io.StringIO()
    child.expect_exact("plain and **strong**")
    child.expect_exact("tokens: in")
    assert "# Title" in seen.getvalue() and "\x1b[" not in seen.getvalue()


def test_ctrl_c_mid_line_shows_what_arrived_and_ends_the_line():
    console, out = console_on()
    console.on_text("# Hea")
    assert out.getvalue() == ""
    console.on_reply_end(ModelReply(text="# Hea", interrupted=True))
    assert out.getvalue() == "\x1b[1m\x1b[4mHea\x1b[0m\n"


def test_a_reply_cut_at_max_tokens_goes_on_in_the_same_line():
    console, out = console_on()
    console.on_text("Some **bo")
    console.on_reply_end(ModelReply(text="Some **bo", finish_reason="length"))
    console.on_text("ld** text\n")
    assert out.getvalue() == "Some \x1b[1mbold\x1b[22m text\n"
