"""The live run: one Session per conversation (session.py), the one writer of its runtime, with the operations
commands need; the server found and the runtime it resolves to; the settings and the transcript as commands change
them; build_session() building it whole; the git safety net (/commit, auto_commit).

May import: the leaves, llm, intents, storage, command_policy, processes, tools, mcp_servers, lsp, skills, config,
agent, terminal.
(The layers, bottom to top: tests/project/test_house.py.)

    auto_commit.py       auto_commit: after each turn that changed files, a commit of those files, its message
                         naming the request
    commit.py            a git commit of the files the session changed (/commit, auto_commit): those files only
    commit_message.py    the message /commit asks for when given none: the side model's one line from the diff
    deferred.py          Deferred: built at first use (the REPL's services, so its prompt comes first)
    resume.py            SessionKeeper: which session the conversation is saved to; --continue, --resume, /reset
    server.py            the server found when none is named; the window asked; runtime_for() for a new model
    services.py          build_session(): the one place the objects of a run are built, each whole, into a Session
    session.py           Session: one conversation and all it runs on (runtime, loop, tools, transcript, settings),
                         and the operations that change it (use_model, switch_provider, reset, resume, set_values...)
    settings.py          Settings: model, server, values and system prompt as commands change them
    side_model.py        the side model (side_model): a second, smaller model for short requests (commit messages)
    side_summary.py      compaction summaries by the side model, the main model's when one would not fit its window
    url_server.py        a URL given without -p: the API it speaks (asked once, remembered); with or without -p, its
                         only model
"""
