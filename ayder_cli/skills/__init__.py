"""Agent Skills and custom slash commands: text the user or a project keeps for the model, never code.

A skill is a folder with a SKILL.md (front matter: name, description; the body below) in a project's
`.ayder/skills/` or `.agents/skills/`, or the user's `$XDG_CONFIG_HOME/ayder/skills/` or
`~/.agents/skills/`. Only each skill's name and description go in the system prompt; the `skill` tool
gives its body, and the files beside it, when the model asks. A custom command is a Markdown file in
`.ayder/commands/` or the user's config `commands/`: `/NAME args` sends its text as the prompt.

Nothing here runs what it reads. It may import the leaves, storage (paths, reading without links) and
tools.spec (the ToolSpec and the registry it adds the `skill` tool to); the session wires it in, the
REPL's commands and entries use it.
"""
