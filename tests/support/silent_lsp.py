"""A language server that never answers: it reads every message sent to it and says nothing.

For the tests of the time limit: a server gone silent must cost an edit at most its limit,
and be stopped at the end like any other (it ignores nothing but its input: SIGTERM ends it).
"""

import sys

while sys.stdin.buffer.read(4096):
    pass
