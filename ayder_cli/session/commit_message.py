"""The message /commit asks for when given none: the side model's one line from the diff."""

from __future__ import annotations

from collections.abc import Callable

from ayder_cli.llm.wire_types import LLMError
from ayder_cli.session.commit import CommitRefused, cut_line
from ayder_cli.session.side_model import SideModel

SYSTEM = "You write git commit messages."
ASK = ("Write the commit message for the change below: one line of at most 72 characters, in the imperative "
       "mood (\"Add ...\", \"Fix ...\"), saying what changed. Answer with that line only.")
MAX_TOKENS = 1024  # a cap, not a target: a thinking model thinks first
MAX_LINE = 100  # a model's line longer than the 72 asked for is kept whole up to this


def written_by(model: SideModel) -> Callable[[str], str]:
    """message(diff): the model's one-line message; CommitRefused when it fails or writes none."""

    def write(diff: str) -> str:
        try:
            line = one_line(model.ask(SYSTEM, f"{ASK}\n\n{diff}", MAX_TOKENS))
        except LLMError as exc:
            raise CommitRefused(f"{model.name} wrote no commit message ({exc.message}): nothing committed",
                                hint="the files are staged; /commit MESSAGE commits them with yours") from None
        if not line:
            raise CommitRefused(f"{model.name} wrote an empty commit message: nothing committed",
                                hint="the files are staged; /commit MESSAGE commits them with yours")
        return line

    return write


def one_line(text: str) -> str:
    """The first line of a model's answer, without the quotes, backticks or emphasis put around it."""
    for line in text.splitlines():
        line = line.strip().strip("`*\"'").strip()
        if line:
            return cut_line(line, MAX_LINE)
    return ""

