"""Which shell commands are refused: the deny list, judged on what a command line would really run. Entry:
deny.check_command().

May import: the leaves.
(The layers, bottom to top: tests/project/test_house.py.)

    braces.py            brace expansion as bash does it, for the deny list
    deny.py              the deny list, judged on what would run (the entry: check_command)
    fork_bomb.py         whether a command line defines a fork bomb, under any name or spelling
    shell_words.py       a command line split as the shell splits it
    what_runs.py         what a command line would really run (wrappers, $(...), -c strings)
"""
