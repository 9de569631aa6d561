"""ayder: a plain, synchronous command-line coding agent."""

__version__ = "0.1.0"
