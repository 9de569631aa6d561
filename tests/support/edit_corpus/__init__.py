"""A corpus of near-miss replace_string edits: sources.py (the files and meant edits), cases.py
(the ways each is got wrong, generated), traps.py (cases written one by one)."""
