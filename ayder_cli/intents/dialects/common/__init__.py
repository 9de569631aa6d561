"""What the dialects share: the reader contract, JSON extents, the XML call reader and its tags.

May import: the leaves, intents/coerce, intents/found.
(The layers, bottom to top: tests/project/test_house.py.)

    dialect_parts.py     What every dialect is made of: the openers that start it, and a block reader that finds its
                         end
    edit_paths.py        Which lines name the file an edit written as text is for: a path line, or a fence's info
                         string
    json_extent.py       Where a JSON object or array ends, found incrementally: braces count only outside strings
    python_args.py       Python-style calls, `[name(key=value, ...), ...]`, read the way small models really write
                         them.
    xml_calls.py         The tag reader shared by the XML dialects: <function=NAME> (Qwen3-Coder) and <invoke
                         name="NAME">
    xml_tags.py          The tags of the XML dialects: names, attributes, DSML prefixes, and which tag may follow
                         which
"""
