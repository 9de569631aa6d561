"""/skills: the skills and custom commands found, where they are and what they cost of the prompt."""

from __future__ import annotations

from ayder_cli.repl.commands.registry import COMMANDS, CommandContext, command


@command("skills", help="the skills and custom commands found, with their cost in tokens")
def _skills(context: CommandContext, args: str) -> None:
    from ayder_cli.skills.tool import WithSkills  # loaded with the services, after the first prompt

    registry = context.session.executor.registry
    if not isinstance(registry, WithSkills):
        context.console.info("skills are not read in this run")
        return
    skills = registry.skills
    skills.prompt_for("/skills", COMMANDS)  # the first look at them: clashes with built-in commands said once
    for line in skills.report():
        context.console.info(line)
    if skills.skills and not registry.offered():
        context.console.info("the skill tool is disabled (tools.disabled): the model is not told of the skills")
