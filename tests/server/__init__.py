"""Tests of the game server (HTTP lobby, WebSocket protocol, timers, persistence)."""
