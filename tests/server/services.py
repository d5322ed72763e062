"""Real Redis and PostgreSQL servers for the scale-out tests, on loopback, in temporary folders.

Each server is started from the Debian packages (``make system-deps`` installs them) on a free
loopback port with its data in a temporary folder, and stopped when the test session ends.
PostgreSQL refuses to run as root, so under root its folder is handed to the ``postgres`` user
that the Debian package creates, and the server runs as that user.

Outside CI a missing program skips the tests that need it (with the install command); in CI
(``CI=true``) it fails them, since ``make test`` should have installed it.
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

import pytest

START_SECONDS = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _missing(what: str, package: str) -> None:
    message = f"{what} is not installed (apt-get install -y {package}, or make system-deps)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _wait(
    ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited ({process.returncode}):\n{log.read_text(errors='replace')}")
        with contextlib.suppress(OSError):
            if ready():
                return
        time.sleep(0.05)
    process.kill()
    output = log.read_text(errors="replace")
    pytest.fail(f"{what} did not come up in {START_SECONDS:.0f} s:\n{output}")


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
        _missing("redis-server", "redis-server")
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
        pytest.fail("running as root needs the postgres user (the Debian package creates it)")
    return ["runuser", "-u", "postgres", "--"], entry.pw_uid, entry.pw_gid


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A fresh PostgreSQL cluster on a free loopback port (trust auth on loopback only)."""
    bin_dir = _postgres_bin()
    if bin_dir is None:
        _missing("PostgreSQL", "postgresql")
        raise AssertionError  # unreachable: _missing raises
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
            pytest.fail(f"initdb failed:\n{done.stdout}\n{done.stderr}")
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
            pytest.fail(f"createdb failed: {done.stderr}\n{log.read_text(errors='replace')}")
        time.sleep(0.1)
