"""Verified effects: what a turn's actions did, as the entities' states show it.

`expected.py` (pure) says which state an action implies; `watch.py` follows the
targeted entities until the turn's deadline; `note.py` notes what each kind of action
targeted; `outcome.py` holds the result: done, not done (and why), or sent.
"""
