"""A camera whose snapshot is a known picture, for the e2e story (tests only)."""
