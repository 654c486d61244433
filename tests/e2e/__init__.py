"""End-to-end tests: a real hass process, driven over its own APIs, and a real LLM server process."""
