"""The schema everything reads: every config key, where its value comes from, its check; the system prompt parts, the
instructions and the edit formats. Read once; nothing here changes while a session runs.

May import: the leaves, llm, storage, processes, tools, mcp_servers.
(The layers, bottom to top: tests/project/test_house.py.)

    config_checks.py     the check of every value (also for slash commands)
    config_layers.py     where values come from, later wins: files, environment, flags; load_config()
    edit_formats.py      the edit formats, what auto picks for a model and why, each format's few lines of teaching
    instructions.py      AGENTS.md files (user-wide, root down to the working directory, 32 KB cap) and the
                         environment note sent before the first message
    keys.py              the API key a config sends and the Endpoint it resolves to
    project_mcp.py       a project's .mcp.json: its servers as mcp_servers entries, started once approved
    project_tools.py     a project's `tools` narrowed to what yours allows
    project_trust.py     whether a project's config may set what needs trust (NEEDS_TRUST in schema.py)
    prompts.py           system prompt parts from prompts/ and .ayder/prompts/
    runtime.py           Runtime: config + endpoint + client + what the server said of its window, one value
    schema.py            Config: every key with its default
    verify_proposals.py  the check commands a project's files suggest (pytest, ruff, npm, cargo, go, make)
"""
