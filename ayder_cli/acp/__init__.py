"""`ayder acp`: ayder as an agent of the Agent Client Protocol (JSON-RPC 2.0 over stdio), for editors.

Modules, each importing only those above it here and the packages below acp (session, repl and lower):
  wire.py        JSON-RPC 2.0 over newline-delimited stdio: the reader thread, requests both ways
  updates.py     the loop's callbacks as session/update notifications (AcpConsole), and a saved conversation replayed
  permission.py  a confirmation as session/request_permission (AcpConfirmer)
  commands.py    the REPL's slash commands typed in the editor, their lines the answer it shows
  files.py       the editor's files (fs/read_text_file, fs/write_text_file) for the file tools (EditorFiles)
  agent.py       the requests: initialize, session/new, /load, /prompt, /cancel; one Session per ACP session
  main.py        run_acp(): stdout kept for the protocol, the requests served until stdin ends

Nothing here is imported before `ayder acp` runs (cli.py loads it then).
"""
