"""``roborally serve`` (and ``python -m roborally.server``): the server's command line.

Every :class:`~roborally.server.settings.ServerOptions` field is a flag of its own
(``--games-per-minute 20``), so each limit documented in docs/server.md can be set without code.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from roborally.argtypes import whole_number
from roborally.extras import EXTRAS, MissingExtra, require
from roborally.server.settings import ServerOptions
from roborally.server.store import safe_url

#: What each option's flag says in ``--help`` (the defaults are shown from ServerOptions).
HELP: dict[str, str] = {
    "grace_seconds": "a player without a connection this long is away: the game plays the seat",
    "away_seconds": "how long the game waits before playing each decision of a seat that is"
    " away (never faster than a person could follow)",
    "abandon_seconds": "a running game nobody is connected to is paused, and ends as abandoned"
    " after this long",
    "paused_keep_seconds": "a game nobody has been connected to this long makes room for a new"
    " one when the server is full (max_games)",
    "show_seconds": "the longest a decision's clock waits for the player's page to finish"
    " showing what happened before it",
    "decision_seconds": "deadline of a decision other than programming (then auto-play)",
    "program_seconds": "deadline of programming when the game has no timer (then auto-play)",
    "min_seconds": "the shortest timer or deadline a game may ask for",
    "max_seconds": "the longest timer or deadline a game may ask for",
    "max_rounds": "default round limit of a game",
    "max_games": "open and running games at once",
    "max_bot_games": "running games of bots only at once",
    "keep_finished": "finished games kept in memory (the rest reload on demand)",
    "lobby_seconds": "an open game no seat holder joined or connected to this long is closed",
    "max_lobbies": "open games waiting for players at once (the oldest unused one makes room)",
    "connections_per_address": "WebSockets one client address may hold",
    "requests_per_second": "calls of the HTTP API one address may make a second on average",
    "request_burst": "API calls one address may make at once before the rate applies",
    "games_per_minute": "games one address may create a minute",
    "lobbies_per_address": "open games one address may have waiting for players",
    "bot_games_per_address": "running games of bots only one address may have",
    "spectators_per_game": "spectators a game takes (seat holders always get in)",
    "spectators_per_address": "spectators of one game from one client address",
    "connections_per_seat": "connections one seat may have (more replace the oldest)",
    "hello_seconds": "a socket that has not said hello by then is closed",
    "message_bytes": "the largest WebSocket message and request body (at most 1 MiB)",
    "messages_per_second": "messages a socket may send a second on average",
    "message_burst": "messages a socket may send at once before the rate applies",
    "send_queue_bytes": "unsent bytes a connection may have before it is dropped",
    "engine_workers": "engine worker processes for games with people (-1: one per CPU up to 4;"
    " 0: none, the engine runs in the server process: tests only)",
    "bot_workers": "worker processes for games of bots only (-1: one per CPU up to 4)",
    "bot_seconds": "the longest a bot may think over one decision",
    "slice_seconds": "engine time a worker gives one game before turning to the next",
    "worker_timeout": "a worker call taking longer than this restarts the worker",
    "busy_seconds": "how long a save waits for a locked database before it fails",
    "database": "PostgreSQL to keep the games in, postgresql://user@host:5432/dbname (the"
    " password in PGPASSWORD or ~/.pgpass); without it, SQLite in the data directory",
    "custom_course_bytes": "the largest custom course file a player may upload, in bytes",
    "custom_course_boards": "boards one custom course may have",
    "custom_course_spaces": "spaces the boards of one custom course may have together",
    "custom_course_checkpoints": "checkpoints one custom course may have",
    "custom_courses_per_address": "custom courses one client address may keep at once",
    "custom_courses_total": "custom courses the server keeps at once",
    "custom_uploads_per_minute": "custom courses one address may upload a minute",
    "custom_checks": "custom course uploads checked at once (a few more wait, the rest are"
    " refused with 503)",
    "public_url": "the start of invite links, e.g. https://rally.example.org (behind a proxy)",
    "redis": "scale-out mode: the Redis server the processes share, e.g. redis://10.0.0.5:6379/0"
    " (with a PostgreSQL --database; docs/scaling.md)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (0.0.0.0: all; default: %(default)s)",
    )
    parser.add_argument(
        "--port",
        type=whole_number(1, 65535),
        default=8000,
        help="TCP port to listen on, 1 to 65535 (default: %(default)s)",
    )
    parser.add_argument("--data", help="data directory (default: ~/.local/share/roborally)")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("debug", "info", "warning", "error"),
        help="what the server logs (default: %(default)s)",
    )
    parser.add_argument(
        "--trusted-proxy",
        metavar="ADDRESSES",
        help="reverse proxies (comma-separated addresses) whose X-Forwarded-For and"
        " X-Forwarded-Proto headers are believed; nobody else's are",
    )
    parser.add_argument(
        "--workers",
        dest="processes",
        type=whole_number(1, 256),
        default=1,
        metavar="N",
        help="server processes on this machine, all on --port (above 1 needs --redis:"
        " scale-out mode, docs/scaling.md; engine processes are --engine-workers)",
    )
    parser.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--siblings", metavar="DIR", help=argparse.SUPPRESS)
    limits = parser.add_argument_group("limits and defaults (docs/server.md)")
    defaults = ServerOptions()
    for field in dataclasses.fields(ServerOptions):
        default = getattr(defaults, field.name)
        kind: Any = type(default) if default is not None else str
        limits.add_argument(
            "--" + field.name.replace("_", "-"),
            dest=field.name,
            type=kind,
            default=default,
            metavar="N" if kind in (int, float) else "URL",
            help=f"{HELP.get(field.name, field.name)} (default: {default})",
        )


def options_from(args: argparse.Namespace) -> ServerOptions:
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(ServerOptions)}
    redis = values["redis"]
    if redis is not None and not redis.startswith(("redis://", "rediss://", "unix://")):
        shown = safe_url(redis)
        raise ValueError(f"--redis must start with redis://, rediss:// or unix:// (got {shown!r})")
    if redis is not None and values["database"] is None:
        raise ValueError(
            "--redis needs a PostgreSQL --database postgresql://... that every process shares"
            " (the games are kept there; docs/scaling.md)"
        )
    if getattr(args, "processes", 1) > 1 and redis is None:
        raise ValueError(
            "--workers above 1 runs several server processes, which share games only through"
            " Redis and PostgreSQL: add --redis URL and --database postgresql://..."
            " (docs/scaling.md), or use --engine-workers for engine processes"
        )
    siblings = getattr(args, "siblings", None)
    if siblings is not None:
        from roborally.server.cluster.handoff import siblings_directory

        if redis is None:
            raise ValueError("--siblings is for scale-out mode: add --redis and --database")
        siblings_directory(siblings)
    if not 1024 <= values["message_bytes"] <= 1 << 20:
        raise ValueError("--message-bytes must be from 1024 to 1048576 (1 MiB)")
    url = values["public_url"]
    if url is not None and not url.startswith(("http://", "https://")):
        raise ValueError(f"--public-url must start with http:// or https:// (got {url!r})")
    if values["database"] is not None:
        from roborally.server.database import check_url

        check_url(values["database"])
    return ServerOptions(**values)


def require_server() -> None:
    """Import the server extra's packages, or a :class:`MissingExtra` that names the extra."""
    for module in EXTRAS["server"]:
        require(module, "server", "the game server")


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; 1 if the data directory cannot be used, 2 for a bad setting, a
    port that cannot be opened or a missing server extra."""
    try:
        options = options_from(args)
        require_server()
    except (ValueError, MissingExtra) as error:
        print(f"roborally serve: {error}", file=sys.stderr)
        return 2
    from roborally.server.app import check_port, serve
    from roborally.server.store import DamagedStore, DataDirInUse

    if args.processes > 1:
        from roborally.server.cluster.supervisor import supervise

        try:
            check_port(args.host, args.port)
        except OSError as error:
            print(f"roborally serve: {error}", file=sys.stderr)
            return 2
        return supervise(child_flags(args, options), args.processes)
    try:
        serve(
            args.host,
            args.port,
            args.data,
            args.log_level,
            options,
            args.trusted_proxy,
            reuse_port=args.reuse_port,
            siblings=args.siblings,
        )
    except (DataDirInUse, DamagedStore) as error:
        print(f"roborally serve: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"roborally serve: {error}", file=sys.stderr)
        return 2
    return 0


def child_flags(args: argparse.Namespace, options: ServerOptions) -> list[str]:
    """The command line of one of ``--workers N`` processes: this one's, option for option."""
    flags = ["--host", args.host, "--port", str(args.port), "--log-level", args.log_level]
    if args.data is not None:
        flags += ["--data", args.data]
    if args.trusted_proxy is not None:
        flags += ["--trusted-proxy", args.trusted_proxy]
    defaults = ServerOptions()
    for field in dataclasses.fields(ServerOptions):
        value = getattr(options, field.name)
        if value != getattr(defaults, field.name):
            flags += ["--" + field.name.replace("_", "-"), str(value)]
    return flags
