"""Diagnostics after edits: the language servers' new errors and warnings, sent with the edit's result. What they
need of the config, the agent or the terminal (the server table, the excerpt's limit, where to report) is passed in
by session/services.py; nothing here is imported before the first edit.

May import: the leaves, processes.
(The layers, bottom to top: tests/project/test_house.py.)

    after_edit.py        EditDiagnostics: the servers of one session, started at the first edit of their files,
                         stopped at the end
    compare.py           the diagnostics an edit introduced, and their excerpt for the model
    language_server.py   one language server process: started in the kernel sandbox, initialize, didOpen/didChange,
                         pull or pushed diagnostics, shutdown
    rpc.py               JSON-RPC with Content-Length framing over a server's pipes, one reader thread
    servers.py           the built-in table and the `lsp` config table: which server reads which files
"""
