"""`python -m ayder_cli` works like `ayder`."""

from ayder_cli.cli import entry

if __name__ == "__main__":
    entry()
