"""Everything ayder keeps on disk, and nothing else.

atomic.py (whole-or-nothing writes), paths.py (confinement to the project root),
no_follow.py (no link followed under .ayder/),
layout.py (every path under .ayder/; make_directory creates them, the folder
itself with a .gitignore of `*`), sessions.py, transcript.py and session_lock.py
(transcripts, one writer each), undo.py and undo_store.py (the undo journal and
its files), tasks.py (task files).
"""
