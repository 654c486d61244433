"""The config flows: a connection, its agents and its AI Task entities."""
