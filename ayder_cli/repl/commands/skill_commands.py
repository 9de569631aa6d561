"""/skills: the skills and custom commands found, where they are and what they cost of the prompt."""

from __future__ import annotations

from ayder_cli.repl.commands.registry import COMMANDS, CommandContext, command


@command("skills", help="the skills and custom commands found, with their cost in tokens")
def _skills(context: CommandContext, args: str) -> None:
    skills = getattr(context.executor.registry, "skills", None)  # skills/tool.WithSkills
    if skills is None:
        context.console.info("skills are not read in this run")
        return
    skills.prompt_for("/skills", COMMANDS)  # the first look at them: clashes with built-in commands said once
    for line in skills.report():
        context.console.info(line)
