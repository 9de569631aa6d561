"""The edit format: how the model is asked to change files, a per-model choice (config edit_format).

replace         replace_string (and write_file; insert_line, delete_line in the files group): today's tools
lines           replace_lines on the numbers read_file prints, and write_file
search-replace  SEARCH/REPLACE blocks written in the reply's text, and write_file
whole           the whole new file in a fence under its path, written in the text, and write_file
auto            the model's capability profile: a format learned for this server and model
                (edit_format in the server profile), else the table below by the model's name

Which tools each format offers is tools/edit_formats.py's (a test keeps the names in step);
what the system prompt teaches of it is here. A leaf of setup/: the config checks the names
before the tools are imported.
"""

from __future__ import annotations

import re
from typing import Mapping

FORMATS = ("replace", "lines", "search-replace", "whole")
CHOICES = (*FORMATS, "auto")
DEFAULT = "replace"

# auto: the first pattern found in the model's name (lower case) decides. Why each (README, "Edit formats";
# the measurements are aider's tables and the hashline benchmark):
# - Qwen coders and Qwen3 write whole files far more reliably than SEARCH/REPLACE blocks (Qwen2.5-Coder-32B:
#   99.6% well-formed whole against 71.6%; qwen3-coder:30b on Ollama 100 of 100 runs against 0 of 100),
#   and code outside a JSON string is better code.
# - deepseek-coder lost about 9 points writing code inside JSON: whole, out of JSON.
# - The small and weak (3-8B general models) gain most from anchored line edits: no old text to retype.
# - Devstral, Mistral and the large models (GLM, Kimi, DeepSeek V3, gpt-oss, hosted ones) edit well either
#   way: the native replace_string they were tuned on.
AUTO_TABLE: tuple[tuple[str, str], ...] = (
    (r"qwen2\.5-coder|qwen-2\.5-coder", "whole"),
    (r"qwen3-coder|qwen3\.5-coder", "whole"),
    (r"qwen3|qwq", "whole"),
    (r"deepseek-coder", "whole"),
    (r"devstral|mistral|codestral|magistral", "replace"),
    (r"llama-?3\.2|gemma|phi|smollm|granite|lfm|qwen2\.5(?!-coder)|:[1-8](\.\d)?b\b", "lines"),
)

# What the system prompt says of the format in use: a few lines, within the system prompt's size limits (DESIGN.md).
TEACHING = {
    "replace": "",
    "lines": ("Edit files with replace_lines, by the line numbers read_file shows (inclusive; content \"\" "
              "deletes, end_line = start_line - 1 inserts): read the lines first; after an edit the lines below move."),
    "search-replace": ("To edit a file, write its path alone on a line, then:\n<<<<<<< SEARCH\n"
                       "the exact lines now in the file\n=======\nthe new lines\n>>>>>>> REPLACE\n"
                       "A new file: write_file."),
    "whole": ("To change a file, write its path alone on a line, then the whole new file in a ``` fence. "
              "A new file: the same, or write_file."),
}


def from_table(model: str) -> str | None:
    """The table's format for a model name, or None when no row names it."""
    name = model.lower()
    return next((edit for pattern, edit in AUTO_TABLE if re.search(pattern, name)), None)


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
        return f"edit format: {setting}; auto would pick {would} for {model} (set edit_format to \"auto\" or \"{would}\")"
    return f"edit format: {setting} (the one auto picks for {model} too)"
