"""What keeps risky actions behind the user's own yes beyond our own tools."""
