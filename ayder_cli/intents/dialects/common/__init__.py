"""What the dialects share: the reader contract (base), JSON extents, the XML call reader and its tags."""
