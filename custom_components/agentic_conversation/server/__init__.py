"""The LLM server as set up by its admin: faults it reports, and the Repairs naming the fix."""
