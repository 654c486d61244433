"""Tests of our tools (the agentic_conversation LLM API)."""
