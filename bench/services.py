"""Real Redis and PostgreSQL servers on loopback, in temporary folders: for the scale-out tests
(tests/server/services.py wraps these for pytest) and the scale benchmark (bench/scale.py).

Each server is started from the Debian packages (``make system-deps`` installs them) on a free
loopback port with its data in a temporary folder, and stopped when the test session ends.
PostgreSQL refuses to run as root, so under root its folder is handed to the ``postgres`` user
that the Debian package creates, and the server runs as that user.

A missing program raises :class:`ServiceMissing` (its message has the install command); a
server that does not start raises :class:`ServiceFailed` with its log.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

START_SECONDS = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServiceMissing(Exception):
    """The program of a service is not installed."""


class ServiceFailed(Exception):
    """A service did not start (the message holds its log)."""


def _missing(what: str, package: str) -> ServiceMissing:
    return ServiceMissing(
        f"{what} is not installed (apt-get install -y {package}, or make system-deps)"
    )


def _wait(
    ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = log.read_text(errors="replace")
            raise ServiceFailed(f"{what} exited ({process.returncode}):\n{output}")
        with contextlib.suppress(OSError):
            if ready():
                return
        time.sleep(0.05)
    process.kill()
    output = log.read_text(errors="replace")
    raise ServiceFailed(f"{what} did not come up in {START_SECONDS:.0f} s:\n{output}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _accepts(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


@dataclass(frozen=True)
class RedisServer:
    port: int

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A fresh ``redis-server`` on a free loopback port, no persistence, stopped afterwards."""
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.access(program, os.X_OK):
        raise _missing("redis-server", "redis-server")
    with tempfile.TemporaryDirectory(prefix="roborally-redis-") as folder:
        port = _free_port()
        log = Path(folder) / "redis.log"
        args = [program, "--port", str(port), "--bind", "127.0.0.1", "--dir", folder]
        args += ["--save", "", "--appendonly", "no", "--logfile", str(log)]
        args += ["--protected-mode", "yes", "--daemonize", "no"]
        log.touch()
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            _wait(lambda: _accepts(port), "redis-server", process, log)
            yield RedisServer(port)
        finally:
            _stop(process)


@dataclass(frozen=True)
class PostgresServer:
    port: int
    database: str = "roborally"
    user: str = "roborally"

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{self.database}"


def _postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=_version_key)
    return Path(found[-1]).parent if found else None


def _version_key(path: str) -> int:
    part = path.split("/")[4]
    return int(part) if part.isdigit() else 0


def _as_postgres_user() -> tuple[list[str], int | None, int | None]:
    """The command prefix and ids to run PostgreSQL with: as is, or as ``postgres`` under root."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        raise ServiceFailed(
            "running as root needs the postgres user (the Debian package creates it)"
        ) from None
    return ["runuser", "-u", "postgres", "--"], entry.pw_uid, entry.pw_gid


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A fresh PostgreSQL cluster on a free loopback port (trust auth on loopback only)."""
    bin_dir = _postgres_bin()
    if bin_dir is None:
        raise _missing("PostgreSQL", "postgresql")
    prefix, uid, gid = _as_postgres_user()
    with tempfile.TemporaryDirectory(prefix="roborally-pg-") as folder:
        data = Path(folder) / "data"
        sockets = Path(folder) / "sockets"
        log = Path(folder) / "postgres.log"
        for path in (data, sockets):
            path.mkdir()
        log.touch()
        if uid is not None and gid is not None:
            for path in (Path(folder), data, sockets, log):
                os.chown(path, uid, gid)
        init = [*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "roborally"]
        init += ["--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"]
        done = subprocess.run(init, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ServiceFailed(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        port = _free_port()
        args = [*prefix, str(bin_dir / "postgres"), "-D", str(data), "-p", str(port)]
        args += ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={sockets}"]
        args += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        args += ["-c", "max_connections=200"]
        with log.open("ab") as out:
            process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait(lambda: _accepts(port), "PostgreSQL", process, log)
            create = [str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port)]
            create += ["-U", "roborally", "roborally"]
            _createdb(create, process, log)
            yield PostgresServer(port)
        finally:
            _stop(process)


def _createdb(command: list[str], process: subprocess.Popen[bytes], log: Path) -> None:
    """``createdb``, retried while the server still starts up (it accepts before it is ready)."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode == 0:
            return
        if time.monotonic() > deadline or process.poll() is not None:
            output = log.read_text(errors="replace")
            raise ServiceFailed(f"createdb failed: {done.stderr}\n{output}")
        time.sleep(0.1)
