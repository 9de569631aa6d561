"""The `skill` tool (read-only: a skill's instructions, or a file beside them) and the registry that
offers it, with the catalog in the system prompt, once a skill is found."""

from __future__ import annotations

from typing import Any, Callable

from ayder_cli.calls import ToolResult
from ayder_cli.skills.beside import files_note, read_beside
from ayder_cli.skills.catalog import Skills
from ayder_cli.tool_groups import SKILL
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec


def skill_spec(skills: Skills) -> ToolSpec:
    def run(_context: ToolContext, arguments: dict[str, Any]) -> ToolResult:
        name, file = str(arguments.get("name", "")).strip(), str(arguments.get("file") or "")
        skill = skills.skills.get(name)
        if skill is None:
            return _matching(skills, name)
        if file:
            text = read_beside(skill, file)
            return ToolResult(ok=True, output=text, summary=f"{skill.name}/{file}: {len(text):,} characters")
        note = files_note(skill)
        return ToolResult(ok=True, output=skill.body + (f"\n\n{note}" if note else ""),
                          summary=f"{skill.name}: {len(skill.body):,} characters")

    return ToolSpec(
        name=SKILL,
        description="Read a skill's instructions by its name (a few words find skills not listed); "
                    "with file, read a file of the skill.",
        parameters={"type": "object", "properties": {"name": {"type": "string"}, "file": {"type": "string"}},
                    "required": ["name"]},
        permission="r",
        run=run,
        # what models write instead, from other agents' skill tools and find_tools
        aliases={"skill": "name", "skill_name": "name", "query": "name", "path": "file", "file_path": "file"},
    )


def _matching(skills: Skills, query: str) -> ToolResult:
    found = skills.search(query)
    if not found:
        names = ", ".join(list(skills.skills)[:50])
        return ToolResult(ok=True, output=f"no skill matches {query!r}; the skills are: {names}", summary="no match")
    lines = [f"- {skill.name}: {skill.description}" for skill in found]
    return ToolResult(ok=True, output=f"no skill is named {query!r}; these match, read one by its name:\n"
                      + "\n".join(lines), summary=", ".join(skill.name for skill in found))


class WithSkills(ToolRegistry):
    """The tools of `inner` and, when a skill is found, the skill tool; the catalog after inner's note.
    With the tool disabled (tools.disabled names skill), neither: the model is not told of skills."""

    def __init__(self, inner: ToolRegistry, skills: Skills,
                 allowed: Callable[[ToolSpec], bool] = lambda spec: True) -> None:
        super().__init__(())
        self.inner, self.skills = inner, skills
        self.mcp = getattr(inner, "mcp", None)  # /mcp and the doctor find the MCP servers here
        self.spec = skill_spec(skills)
        self.allowed = allowed  # the tools policy

    def _mine(self) -> list[ToolSpec]:
        return [self.spec] if self.offered() else []

    def offered(self) -> bool:
        """Whether the model is told of the skills: there are some, and the tool is not disabled."""
        return bool(self.skills.skills) and self.allowed(self.spec)

    def specs(self) -> list[ToolSpec]:
        return [*self.inner.specs(), *self._mine()]

    def callable_specs(self) -> list[ToolSpec]:
        return [*self.inner.callable_specs(), *self._mine()]

    def names(self) -> list[str]:
        return [spec.name for spec in self.specs()]

    def get(self, name: str) -> ToolSpec | None:
        if name == SKILL and self.offered():
            return self.spec
        return self.inner.get(name)

    def prompt_note(self) -> str:
        mine = self.skills.prompt_note() if self.offered() else ""
        return "\n\n".join(note for note in (self.inner.prompt_note(), mine) if note)
