"""The live run: one Session per conversation (session.py), the one writer of its runtime, with the operations
commands need; the server found and the runtime it resolves to; the settings and the transcript as commands change
them; build_session() building it whole.

May import: the leaves, llm, storage, command_policy, processes, tools, mcp_servers, config, agent, terminal.
(The layers, bottom to top: tests/project/test_house.py.)

    deferred.py          Deferred: built at first use (the REPL's services, so its prompt comes first)
    resume.py            SessionKeeper: which session the conversation is saved to; --continue, --resume, /reset
    server.py            the server found when none is named; the window asked; runtime_for() for a new model
    services.py          build_session(): the one place the objects of a run are built, each whole, into a Session
    session.py           Session: one conversation and all it runs on (runtime, loop, tools, transcript, settings),
                         and the operations that change it (use_model, switch_provider, reset, resume, set_values...)
    settings.py          Settings: model, server, values and system prompt as commands change them
    url_server.py        a URL given without -p: the API it speaks (asked once, remembered); with or without -p, its
                         only model
"""
