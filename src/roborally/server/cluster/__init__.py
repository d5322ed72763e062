"""Scale-out mode (``roborally serve --redis URL --database postgresql://...``): many server
processes, on one machine or several, share the games through Redis and PostgreSQL.

* :mod:`.lease`: which process owns a game (a lease in Redis that expires), who is alive.
* :mod:`.bus`: messages between processes (Redis pub/sub, one channel per process).
* :mod:`.link`, :mod:`.remote`: a socket in one process playing a game owned by another.
* :mod:`.node`: one process's part: owning, relaying, failover, the lobby.
* :mod:`.router`: HTTP calls about a game answered by its owner.
* :mod:`.handoff`: a connection handed to its game's owner on the same machine.
* :mod:`.supervisor`: ``--workers N``, N server processes on one port.

docs/scaling.md describes the whole.
"""
