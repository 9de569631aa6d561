"""Skills: the skills and commands of a session, found at the first need (the first request, the
first slash line), and what the model and the user are told of them.

The catalog (one line per skill: name and description) goes in the system prompt after the tools'
text; it is stable from request to request, so the server's prompt cache keeps it. When it would take
more than SHARE of the served window, as deferred MCP tools are, one line says how many skills there
are and the model finds them with skill(name=a few words).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Callable, Collection, Mapping

from ayder_cli.skills.beside import files_note
from ayder_cli.skills.discovery import (CustomCommand, Skill, command_places, find_commands, find_skills,
                                        skill_places)
from ayder_cli.wording import counted

SHARE = 0.10  # of the served window the catalog may take before it is found on demand (mcp_schema_share's default)
MAX_FOUND = 5
WORDS = re.compile(r"[a-z0-9]+")
LITTLE = {"the", "and", "for", "use", "when", "with", "this", "that", "from", "how", "what", "you", "are"}
PLACEHOLDER = re.compile(r"\$(?:ARGUMENTS\b|([1-9])(?![0-9]))")


class Skills:
    def __init__(self, repo: Path, env: Mapping[str, str], *, say: Callable[[str], None],
                 log: Callable[[str], None], window: Callable[[], int | None] = lambda: None) -> None:
        self.repo, self.env, self.say, self.log = repo, env, say, log
        self.window = window  # the served context window, known by the first request
        self._skills: dict[str, Skill] | None = None
        self._commands: dict[str, CustomCommand] | None = None
        self._clashes_said = False

    @property
    def skills(self) -> dict[str, Skill]:
        return self._found()[0]

    @property
    def commands(self) -> dict[str, CustomCommand]:
        return self._found()[1]

    def _found(self) -> tuple[dict[str, Skill], dict[str, CustomCommand]]:
        """Both looked for at once, the first time either is needed: their problems said together."""
        if self._skills is None or self._commands is None:
            self._skills = find_skills(skill_places(self.repo, self.env), self.say, self.log)
            self._commands = find_commands(command_places(self.repo, self.env), self.say, self.log)
        return self._skills, self._commands

    def catalog(self) -> str:
        """The lines of the system prompt that name every skill."""
        lines = [f"- {skill.name}: {skill.description}" for skill in self.skills.values()]
        return ("Skills: instructions for particular tasks. Before doing such a task, read its skill with "
                "skill(name):\n" + "\n".join(lines))

    def tokens(self) -> int:
        """What the catalog adds to every request, estimated as a request's prompt is (four characters a token)."""
        return len(self.catalog()) // 4 if self.skills else 0

    def deferred(self) -> bool:
        window = self.window()
        return window is not None and window > 0 and self.tokens() > SHARE * window

    def prompt_note(self) -> str:
        if not self.skills:
            return ""
        if not self.deferred():
            return self.catalog()
        return (f"{counted(len(self.skills), 'skill')} hold instructions for particular tasks; they are not listed to "
                "save room: call skill(name) with a few words of the task to find the matching ones, then "
                "skill(name) with the name found to read one.")

    def search(self, query: str) -> list[Skill]:
        """At most MAX_FOUND skills sharing most words with the query (the name counts twice); `form`
        finds `forms` and `fill` `filling`, and little words (a, the, for) find nothing."""
        asked = words(query)
        scored = []
        for index, skill in enumerate(self.skills.values()):
            score = 2 * shared(asked, words(skill.name)) + shared(asked, words(skill.description))
            if score:
                scored.append((-score, index, skill))
        return [skill for _, _, skill in sorted(scored)[:MAX_FOUND]]

    def prompt_for(self, line: str, builtin: Collection[str]) -> str | None:
        """The prompt `/NAME args` stands for, a custom command's or a skill's; None when NAME is built in
        or neither. The first call says once each name a built-in command (or a command a skill) hides."""
        self._say_clashes(builtin)
        name, args = [*line[1:].strip().split(None, 1), "", ""][:2]  # the name ends at a space or a line end
        if name in builtin:
            return None
        command = self.commands.get(name)
        if command is not None:
            return fill(command.text, args.strip())
        skill = self.skills.get(name)
        if skill is not None:
            return skill_prompt(skill, args.strip())
        return None

    def slash_help(self) -> dict[str, str]:
        """/NAME -> what it is, for the REPL's completer: only what was found already (looking for them
        there would print their problems over the prompt being typed)."""
        helps = {f"/{name}": f"skill: {skill.description}" for name, skill in (self._skills or {}).items()}
        helps.update({f"/{name}": command.description or f"custom command ({command.shown})"
                      for name, command in (self._commands or {}).items()})
        return helps

    def _say_clashes(self, builtin: Collection[str]) -> None:
        if self._clashes_said:
            return
        self._clashes_said = True
        for name, command in self.commands.items():
            if name in builtin:
                self.say(f"/{name} is built into ayder: the command of {command.shown} is not used (rename it)")
        for name, skill in self.skills.items():
            if name in builtin:
                self.say(f"/{name} is built into ayder: the skill of {skill.shown} runs only when the model reads it")
            elif name in self.commands:
                self.say(f"/{name} runs the command of {self.commands[name].shown}, not the skill of {skill.shown}")

    def report(self) -> list[str]:
        """/skills: each skill and command, where it is and what it costs."""
        lines = []
        if self.skills:
            state = "found on demand" if self.deferred() else "in the system prompt"
            lines.append(f"{counted(len(self.skills), 'skill')}: ~{self.tokens():,} tokens, {state}")
            width = max(len(name) for name in self.skills)
            for skill in self.skills.values():
                line = len(f"- {skill.name}: {skill.description}") // 4
                lines.append(f"  {skill.name:<{width}}  ~{line:,} tokens listed, ~{len(skill.body) // 4:,} when read"
                             f"  {skill.shown}")
        else:
            lines.append("no skills (a folder with a SKILL.md in .agents/skills/, .ayder/skills/, ~/.agents/skills/ "
                         "or the config folder's skills/)")
        if self.commands:
            lines.append(f"{counted(len(self.commands), 'custom command')}:")
            width = max(len(name) for name in self.commands) + 1
            for command in self.commands.values():
                about = f"  {command.description}" if command.description else ""
                lines.append(f"  /{command.name:<{width}} ~{len(command.text) // 4:,} tokens  {command.shown}{about}")
        return lines


def words(text: str) -> set[str]:
    return {word for word in WORDS.findall(text.lower()) if len(word) > 2 and word not in LITTLE}


def shared(asked: set[str], have: set[str]) -> int:
    """How many asked words the text has, as written or as the start of a longer one (four letters or more)."""
    return sum(1 for word in asked if any(word == other or min(len(word), len(other)) >= 4
                                          and (other.startswith(word) or word.startswith(other)) for other in have))


def skill_prompt(skill: Skill, args: str) -> str:
    """What /NAME args sends: the skill's instructions, the files beside it, then what the user asked."""
    note = files_note(skill)
    head = f"Use the skill {skill.name}; its instructions:\n\n"
    return head + fill(skill.body, args, tail=f"\n\n{note}" if note else "")


def fill(text: str, args: str, tail: str = "") -> str:
    """$ARGUMENTS is the whole of args, $1 ... $9 its words (quotes group them); with neither in the
    text, args follow it as a paragraph of its own."""
    try:
        words = shlex.split(args)
    except ValueError:  # an unclosed quote: split on spaces
        words = args.split()

    def one(found: re.Match) -> str:
        if found[1] is None:
            return args
        index = int(found[1]) - 1
        return words[index] if index < len(words) else ""

    filled, count = PLACEHOLDER.subn(one, text)
    return filled + tail + (f"\n\n{args}" if args and not count else "")
