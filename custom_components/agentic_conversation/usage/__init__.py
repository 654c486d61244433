"""Token usage: counted per agent and AI task, traced, shown as sensors."""
