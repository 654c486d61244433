"""Developer tools: drive a running Home Assistant over its REST and websocket APIs."""
