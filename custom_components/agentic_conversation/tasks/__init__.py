"""AI tasks: data generated for automations, structured and from images."""
