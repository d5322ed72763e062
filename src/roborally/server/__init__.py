"""The game server: an ASGI app (Starlette, uvicorn) with the lobby API and a WebSocket per game.

See ``docs/protocol.md`` for the wire protocol and ``docs/server.md`` for running it.
"""
