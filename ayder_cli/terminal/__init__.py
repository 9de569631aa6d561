"""Everything the user sees or types: the console, the questions asked on the terminal, --json, signals.

May import: the leaves, llm, storage, processes, tools, config.
(The layers, bottom to top: tests/project/test_house.py.)

    arriving_line.py     `→ write_file src/app.py …  2.1 KB`: the line a native call shows while it streams
    checks_question.py   whether the config's verify commands may run: the commands shown, asked once a session
    command_view.py      CommandView: what a command prints, live under its activity line; its last lines after
    confirm.py           TerminalConfirmer: the question on the terminal (or /dev/tty), with the diff
    console.py           everything printed (outside text through safe_text): the answer on stdout, activity and
                         notices on stderr, the spinner
    environment.py       Environment: the run's streams, env, working directory, tty flags, colour and clock, one
                         value built once and passed down
    help.py              --help in sections, --help-config (every config key), --version
    json_events.py       --json: the loop's callbacks as JSON Lines on stdout
    key_input.py         keys read from the terminal itself: is it one, out of line mode for a while, what waits
    markdown_view.py     Markdown on a colour terminal, line by line as it streams; Pygments for code
    mcp_question.py      whether to start the servers of a project's .mcp.json: each shown, asked once
    piped_stdin.py       piped stdin read so no byte can fail a prompt, waited for, attached as context
    progress_line.py     the line shown while the server reads a long prompt (llama.cpp's prompt progress)
    safe_text.py         the one sanitizer: outside text (streamed or not) made safe to show, a line cut to a width
    session_diff.py      /diff: each file changed this session against how it was before its first change
    signals.py           SIGTERM/SIGHUP unwind like Ctrl-C; nothing ayder started outlives it
    style.py             the ANSI styles, named once
    trust_question.py    whether to trust a project: what its config asks for, asked once on the terminal
    typed_ahead.py       what was typed while ayder started: kept from the first question, handed back after it
    usage_line.py        the token usage line after each message
    verify_question.py   /init's proposal of check commands, asked once and written to the project's config
"""
