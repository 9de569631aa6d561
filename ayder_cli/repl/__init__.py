"""The REPL's slash commands and its line input (modes/repl.py runs the loop).

May import: the leaves, llm, storage, tools, config, agent, terminal, session.
(The layers, bottom to top: tests/project/test_house.py.)

    line_input.py        the prompt_toolkit line input: history file, slash commands completed
    path_completion.py   @path completed from the project's files at the prompt
    commands/            see its __init__.py
"""
