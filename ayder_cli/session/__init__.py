"""The live run: the server found and the runtime it resolves to, the settings and the session transcript as commands
change them, and the services wired once.

May import: the leaves, llm, storage, command_policy, processes, tools, mcp_servers, config, agent, terminal.
(The layers, bottom to top: tests/project/test_house.py.)

    deferred.py          Deferred: built at first use (the REPL's services, so its prompt comes first)
    resume.py            SessionKeeper: which session the conversation is saved to; --continue, --resume, /reset
    server.py            the server found when none is named; the window asked; runtime_for() for a new model
    services.py          build_services(): the one place the objects of a run are wired
    settings.py          Settings: model, server, values and system prompt as commands change them
    url_server.py        a URL given without -p: the API it speaks (asked once, remembered); with or without -p, its
                         only model
"""
