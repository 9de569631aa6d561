"""Agent Skills and custom slash commands: text the user or a project keeps for the model, never code.

A skill is a folder with a SKILL.md (front matter: name, description; the body below) in a project's
`.ayder/skills/` or `.agents/skills/`, or the user's `$XDG_CONFIG_HOME/ayder/skills/` or
`~/.agents/skills/`. Only each skill's name and description go in the system prompt; the `skill` tool
gives its body, and the files beside it, when the model asks. A custom command is a Markdown file in
`.ayder/commands/` or the user's config `commands/`: `/NAME args` sends its text as the prompt.

Nothing here runs what it reads. The session wires it in; the REPL's commands and entries use it.

May import: the leaves, storage, tools.
(The layers, bottom to top: tests/project/test_house.py.)

    beside.py            the files beside a skill's SKILL.md: listed for the model and read, inside its folder only
    catalog.py           Skills: the skills and commands of a session, found at the first need; the prompt's
                         catalog, search, /NAME expansion, the /skills report
    discovery.py         where skills and commands are kept, and reading each without trusting it
    front_matter.py      the YAML front matter of a SKILL.md or a command file, read by a small parser of our own
    tool.py              the `skill` tool (read-only) and the registry that adds it to the tools
"""
