"""The edit formats: how the model is asked to change files, one record each (config edit_format).

replace         replace_string (and write_file; insert_line, delete_line in the files group): today's tools
lines           replace_lines on the numbers read_file prints, and write_file
search-replace  SEARCH/REPLACE blocks written in the reply's text, and write_file
whole           the whole new file in a fence under its path, written in the text, and write_file
auto            the model's capability profile: a format learned for this server and model
                (edit_format in the server profile), else the formats' `auto` patterns by the model's name

A new edit format is one record here; one written in the text also needs its dialect in
intents/dialects/ (edit_blocks.py reads both of today's). tests/config/test_edit_formats.py checks the
records against the tools. A leaf beside tools/, as tool_groups.py is: the config checks the names,
the tools offer the format's, the agent teaches it, and all of them import it from below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

# Every tool that writes files: a format offers some of them; the other tools are offered whatever the format.
EDIT_TOOL_NAMES = frozenset({"write_file", "replace_string", "insert_line", "delete_line", "replace_lines"})


@dataclass(frozen=True, kw_only=True)
class EditFormat:
    name: str  # the config's edit_format value, and --edit-format's
    # The write tools it offers. write_file is in every one: it creates new files. A format written as text
    # offers no replace_string: the model writes its edits in the reply instead of in a JSON string.
    offers: frozenset[str]
    teaching: str  # what the system prompt says of it: a few lines (DESIGN.md's size limits); "": nothing
    written_as_text: bool  # its edits come in the reply's text (a dialect reads them), not as a tool call
    opener: str = ""  # the line that opens one of its edits in a text: how code tells one is there unparsed
    fences_are_files: bool = False  # a fence under a file's path is that whole file (intents' Context.whole_files)
    # auto: patterns of model names (lower case) it is picked for, and where they are tried among the
    # formats' (lower first): a name matching two formats' patterns gets the format tried first.
    auto: tuple[str, ...] = ()
    auto_order: int = 0

    def offers_tool(self, name: str) -> bool:
        """Whether the tool `name` is offered with this format (tools that do not write files always are)."""
        return name not in EDIT_TOOL_NAMES or name in self.offers


# Why auto picks each (README, "Edit formats"; the measurements are aider's tables and the hashline benchmark):
# - Qwen coders and Qwen3 write whole files far more reliably than SEARCH/REPLACE blocks (Qwen2.5-Coder-32B:
#   99.6% well-formed whole against 71.6%; qwen3-coder:30b on Ollama 100 of 100 runs against 0 of 100),
#   and code outside a JSON string is better code.
# - deepseek-coder lost about 9 points writing code inside JSON: whole, out of JSON.
# - The small and weak (3-8B general models) gain most from anchored line edits: no old text to retype;
#   tried last, so that a family named above wins over a size (qwen3:8b is whole).
# - Devstral, Mistral and the large models (GLM, Kimi, DeepSeek V3, gpt-oss, hosted ones) edit well either
#   way: the native replace_string they were tuned on.
REPLACE = EditFormat(
    name="replace",
    offers=frozenset({"write_file", "replace_string", "insert_line", "delete_line"}),
    teaching="",
    written_as_text=False,
    auto=(r"devstral|mistral|codestral|magistral",),
    auto_order=1,
)

LINES = EditFormat(  # replace_lines does what insert_line and delete_line do, on lines the model has read
    name="lines",
    offers=frozenset({"write_file", "replace_lines"}),
    teaching=("Edit files with replace_lines, by the line numbers read_file shows (inclusive; content \"\" "
              "deletes, end_line = start_line - 1 inserts): read the lines first; after an edit the lines below move."),
    written_as_text=False,
    auto=(r"llama-?3\.2|gemma|phi|smollm|granite|lfm|qwen2\.5(?!-coder)|:[1-8](\.\d)?b\b",),
    auto_order=2,
)

SEARCH_REPLACE = EditFormat(
    name="search-replace",
    offers=frozenset({"write_file"}),
    teaching=("To edit a file, write its path alone on a line, then:\n<<<<<<< SEARCH\n"
              "the exact lines now in the file\n=======\nthe new lines\n>>>>>>> REPLACE\n"
              "A new file: write_file."),
    written_as_text=True,
    opener="<<<<<<< SEARCH",
)

WHOLE = EditFormat(
    name="whole",
    offers=frozenset({"write_file"}),
    teaching=("To change a file, write its path alone on a line, then the whole new file in a ``` fence. "
              "A new file: the same, or write_file."),
    written_as_text=True,
    fences_are_files=True,
    auto=(r"qwen2\.5-coder|qwen-2\.5-coder", r"qwen3-coder|qwen3\.5-coder", r"qwen3|qwq", r"deepseek-coder"),
    auto_order=0,
)

EDIT_FORMATS: dict[str, EditFormat] = {edit.name: edit for edit in (REPLACE, LINES, SEARCH_REPLACE, WHOLE)}
FORMATS = tuple(EDIT_FORMATS)
CHOICES = (*FORMATS, "auto")
DEFAULT = REPLACE.name


def edit_format_named(name: str) -> EditFormat:
    """The record of a format the config named (a KeyError for a name the config check refuses)."""
    return EDIT_FORMATS[name]


def offered_with(edit_format: str | None, name: str) -> bool:
    """Whether the tool `name` is offered with the format named `edit_format` (None: every tool)."""
    return edit_format is None or EDIT_FORMATS[edit_format].offers_tool(name)


def fences_are_files(edit_format: str | None) -> bool:
    """Whether a fence under a file's path is that whole file with the format named (None: none chosen yet)."""
    return edit_format is not None and EDIT_FORMATS[edit_format].fences_are_files


def from_table(model: str) -> str | None:
    """The format whose `auto` patterns name the model first, or None when none does."""
    name = model.lower()
    tried = sorted((edit for edit in EDIT_FORMATS.values() if edit.auto), key=lambda edit: edit.auto_order)
    return next((edit.name for edit in tried for pattern in edit.auto if re.search(pattern, name)), None)


def resolve(setting: str, model: str, learned: Mapping[str, object] | None = None) -> tuple[str, str]:
    """The format in use and why, for the config's edit_format, the model's name and its server profile."""
    if setting != "auto":
        return setting, "the edit_format setting"
    remembered = (learned or {}).get("edit_format")
    if remembered in FORMATS:
        return str(remembered), "learned for this server and model"
    picked = from_table(model)
    if picked is None:
        return DEFAULT, f"no row of the table names {model}"
    return picked, f"the table's row for {model}"


def doctor_line(setting: str, model: str, learned: Mapping[str, object] | None = None) -> str:
    """--doctor's one line: the format in use for this model, and what auto would pick when it differs."""
    chosen, why = resolve(setting, model, learned)
    if setting == "auto":
        return f"edit format: auto picks {chosen} for {model} ({why}; set edit_format to override)"
    would, _ = resolve("auto", model, learned)
    if would != setting:
        return (f"edit format: {setting}; auto would pick {would} for {model} "
                f"(set edit_format to \"auto\" or \"{would}\")")
    return f"edit format: {setting} (the one auto picks for {model} too)"
