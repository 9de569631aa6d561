"""replace_string's forgiving match: the steps in order, one place or a refusal. Entry: edit_match.

May import: the leaves.
(The layers, bottom to top: tests/project/test_house.py.)

    edit_adapt.py        new_string made to fit where a forgiving match landed: the file's indentation and its
                         lookalike characters
    edit_match.py        replace_string's forgiving match: the steps in order, one place or a refusal (the entry)
    edit_nearest.py      On a miss, the region of the file that looks most like old_string, with read_file's line
                         numbers
    edit_search.py       Where old_string's lines stand in a file at one level of forgiveness: every candidate place
    edit_text.py         The text forms the forgiving match compares: lines with their offsets, and each line's key
                         at a level
"""
