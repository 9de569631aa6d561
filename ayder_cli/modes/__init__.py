"""One run, from its Options to its exit status: one module per way ayder is run.

May import: the leaves, intents, llm, storage, processes, tools, config, agent, terminal, session, repl.
(The layers, bottom to top: tests/project/test_house.py.)

    attachments.py       @path in a message: the file attached as read_file shows it
    doctor.py            --doctor and /doctor: one line per check of the server and model, the sandbox, then the
                         profile
    doctor_replies.py    what the doctor reads in the server's answers: the served name, the add call
    entries.py           what the REPL and scripts share: reading entries (triple-quoted blocks too), one entry
                         handled
    implement.py         --implement, --implement-all
    oneshot.py           ayder "PROMPT": the prompt from words, -f or --stdin, piped stdin attached
    options.py           Options: the command line read once into a frozen value; the Mode
    prepare.py           before a mode: the project root, --system, the session resumed, the checkpoint offered
    repl.py              the REPL loop, and Ctrl-C twice to leave
    script.py            cat script.txt | ayder: each entry as if typed; the failed lines named at the end
    start.py             run(): config resolved, the mode chosen, services built once, errors -> exit status
    user_command.py      !command and !!command: the user's own shell command, shown as it runs, shared if asked
"""
