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

# The controls that redraw a line in place (a spinner, progress, a call arriving), named once.
CLEAR_TO_END = "\033[K"  # the rest of the line cleared, after a line drawn over a longer one
ERASE_LINE = "\r" + CLEAR_TO_END  # back to the line's start, and the line cleared
CLEAR_BELOW = "\033[J"  # the rest of the screen cleared, from the cursor down


def rows_up(rows: int) -> str:
    """The cursor moved up `rows` rows (a live view drawn over again)."""
    return f"\033[{rows}A"
