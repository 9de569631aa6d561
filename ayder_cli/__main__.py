"""`python -m ayder_cli` works like `ayder`."""

from ayder_cli.cli import main

if __name__ == "__main__":
    main()
