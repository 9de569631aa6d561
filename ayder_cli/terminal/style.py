"""The ANSI styles ayder paints with, named once: the console, the confirmation and the Markdown view."""

BOLD = "\033[1m"
DIM = "\033[2m"
ITALIC = "\033[3m"
UNDERLINE = "\033[4m"
RED = "\033[31m"
GREEN = "\033[32m"
YELLOW = "\033[33m"
CYAN = "\033[36m"
RESET = "\033[0m"  # ends every style

NO_BOLD = "\033[22m"  # ends bold and dim alike
NO_ITALIC = "\033[23m"
NO_UNDERLINE = "\033[24m"
NO_COLOUR = "\033[39m"  # the default foreground again
