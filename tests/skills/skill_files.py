"""Skills and commands as tests put them in place: folders shaped like published ones (front matter with
license and metadata, a folded description, quoted ones, scripts and references beside SKILL.md)."""

from __future__ import annotations

from pathlib import Path

PDF_FORMS = """---
name: pdf-forms
description: Fill in PDF forms and read their fields. Use when the user mentions a PDF form, its fields,
  or filling one in.
license: Apache-2.0
metadata:
  author: example-org
  version: "1.0"
---

# Filling PDF forms

1. List the form's fields first: `python scripts/fields.py FORM.pdf`.
2. Write the values as JSON, one key per field, then fill the form.
3. Open the result and check every field was filled.
"""

FIELDS_PY = "import sys\nprint('fields of', sys.argv[1])\n"
FIELDS_MD = "# Field kinds\n\nText, check box, radio group, choice.\n"

RELEASE_NOTES = """---
name: release-notes
description: >-
  Write release notes from the git log since the last tag.
  Use when asked for a changelog or release notes.
---
Collect the commits since the last tag, group them as Added, Changed and Fixed, and write one line each.
The version to write them for: $ARGUMENTS
"""

CODE_REVIEW = """---
name: code-review
description: "Review a change for bugs before it is merged: read the \\"diff\\" first."
allowed-tools: Bash(git diff:*) Read
---
Read the diff, then each changed function whole; report bugs first, style last.
"""

SQL_STYLE = """---
name: sql-style
description: 'Format SQL the team''s way: upper-case keywords, one clause a line.'
compatibility: Works with any SQL dialect
---
Upper-case every keyword; put each clause (SELECT, FROM, WHERE, ...) on a line of its own.
"""


def skill(folder: Path, name: str, text: str, **beside: str) -> Path:
    """A skill folder `folder/name` with its SKILL.md and the files beside it (path -> text)."""
    home = folder / name
    home.mkdir(parents=True, exist_ok=True)
    (home / "SKILL.md").write_text(text, encoding="utf-8")
    for path, content in beside.items():
        (home / path).parent.mkdir(parents=True, exist_ok=True)
        (home / path).write_text(content, encoding="utf-8")
    return home


def command(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def every_place(project: Path, home: Path) -> None:
    """One skill in each of the four places."""
    skill(project / ".agents" / "skills", "pdf-forms", PDF_FORMS,
          **{"scripts/fields.py": FIELDS_PY, "reference/FIELDS.md": FIELDS_MD})
    skill(project / ".ayder" / "skills", "release-notes", RELEASE_NOTES)
    skill(home / ".config" / "ayder" / "skills", "code-review", CODE_REVIEW)
    skill(home / ".agents" / "skills", "sql-style", SQL_STYLE, **{"examples/join.sql": "SELECT a\nFROM t\n"})
