"""Everything ayder keeps on disk, and nothing else.

May import: the leaves.
(The layers, bottom to top: tests/project/test_house.py.)

    atomic.py            whole-or-nothing writes (temp file, fsync, rename) and one-record appends
    binary.py            whether bytes are binary, judged one way everywhere
    checkpoint_store.py  CheckpointStore: .ayder/memory/current_memory.md
    layout.py            Layout: every path under .ayder/ (config, prompts, sessions, memory, tasks);
                         repository_root(): which folder holds .ayder/ (the git work tree's top)
    no_follow.py         no link under .ayder/: its folders checked with lstat, its files opened O_NOFOLLOW
    notes.py             the notes of save_memory/load_memory: .ayder/memory/memories.jsonl
    paths.py             confinement to the project root (symlinks and `..` resolved first)
    profiles.py          what was learned about a server and model, for the next run
    project_config.py    one key written into the project's .ayder/config.json, the rest kept
    session_lock.py      one writer per session: flock on <session>.lock
    sessions.py          SessionStore (list, find, prune, names) and Session (append, lock, name, resume)
    tasks.py             task files under .ayder/tasks/
    transcript.py        a transcript file: its name, its records, reading it back
    trusted_projects.py  the projects you trusted: real path -> sha256 of the config you approved
    undo.py              UndoJournal: what every write replaced, for /undo and /diff; undo_store.py: its files
                         beside the session, so /undo outlives the run
    undo_store.py        Where a session's undo journal is kept between runs: `<session>.undo/` beside its
                         transcript.
    xdg.py               the user-wide places: config, state, REPL history (made mode 600)
"""
