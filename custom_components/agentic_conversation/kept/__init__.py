"""Kept data: nothing a user said is lost (one turn at a time, files set aside, not lost)."""
