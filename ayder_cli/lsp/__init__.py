"""Diagnostics after edits: the language servers' new errors and warnings, sent with the edit's result.

What it holds: rpc.py (JSON-RPC with Content-Length framing over a server's pipes, one reader
thread), server.py (one language server process: started in the kernel sandbox, initialize,
didOpen/didChange, pull or pushed diagnostics, shutdown), servers.py (the built-in table and
the `lsp` config table: which server reads which files), compare.py (the diagnostics an edit
introduced, and their excerpt for the model), after_edit.py (EditDiagnostics: the servers of one
session, started at the first edit of their files, stopped at the end).

What it may import: the leaves and tools/ (the sandbox, process groups); never the config, the
agent or the terminal: what it needs of them (the server table, the excerpt's limit, where to
report) is passed in by setup/services.py. Nothing here is imported before the first edit.
"""
