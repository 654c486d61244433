"""Tests for the Agentic Conversation integration."""
