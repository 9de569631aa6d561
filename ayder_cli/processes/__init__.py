"""The processes ayder starts: a command in a process group of its own, its output captured in bounded memory, the
Landlock sandbox it runs in. The tools, the terminal and !cmd use them.

May import: the leaves, storage.
(The layers, bottom to top: tests/project/test_house.py.)

    capture.py           a pipe's head and tail in bounded memory
    landlock.py          the Landlock system calls through ctypes: the ABI asked, a ruleset built, a thread
                         restricted
    own_process.py       ayder kept from its commands: not dumpable, the key wiped from its first environment
    process_groups.py    a command in a group of its own, stopping the group, the one /bin/sh
    read_only_binds.py   the project's .git bound read-only in the command's own mount namespace
    sandbox.py           Sandbox: where a command may write (sandbox, sandbox_writable), the command started in it
    sandbox_refusals.py  a write the sandbox refused, found in the command's output and named with the key
"""
