"""`ayder acp`: ayder as an agent of the Agent Client Protocol (JSON-RPC 2.0 over stdio), for editors; one Session
per ACP session, driven by the same loop, tools and pipeline as the REPL. Nothing here is imported before
`ayder acp` runs (cli.py loads it then).

May import: the leaves, storage, tools, config, terminal, session, repl.
(The layers, bottom to top: tests/project/test_house.py.)

    agent.py             the requests: initialize, session/new, /load, /prompt, /cancel; a Session for the editor's
                         folder; prompts on the main thread, a cancel as Ctrl-C
    commands.py          the REPL's slash commands typed in the editor, their lines the answer it shows
    editor_files.py      EditorFiles: the editor's buffers for the file tools (fs/read_text_file, fs/write_text_file)
    main.py              run_acp(): stdout kept for the protocol (fd 1 pointed at stderr), requests served until EOF
    permission.py        AcpConfirmer: a confirmation as session/request_permission (once, always, reject)
    updates.py           AcpConsole: the loop's callbacks as session/update (chunks, tool calls, diffs); replay of a
                         saved conversation
    wire.py              JSON-RPC 2.0 a line each way: the reader thread, requests both ways, cancel handled at once
"""
