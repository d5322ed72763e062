"""K game servers in scale-out mode on loopback, sharing one Redis and one PostgreSQL, for the
scale test (``make scale``) and the failover tests (docs/scaling.md).

with LocalCluster(2, redis_url, database_url, work_dir) as cluster:
    cluster.ports            # [port of process 1, port of process 2]
    cluster.servers[0].kill9()
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from serverproc import LocalServer


class LocalCluster:
    """``count`` server processes (``python -m roborally.server --redis ... --database ...``),
    each on its own loopback port with its own data directory and log under ``work_dir``;
    ``flags`` are given to every one (limits, ``--engine-workers``...). With ``siblings`` the
    processes hand each other the connections of the games they own, as ``--workers N`` does
    (``--siblings``); without, every socket that reaches a non-owner is relayed through Redis,
    as between machines."""

    def __init__(
        self,
        count: int,
        redis_url: str,
        database_url: str,
        work_dir: str | Path,
        *flags: str,
        siblings: bool = False,
    ) -> None:
        if count < 1:
            raise ValueError("a cluster has at least one process")
        self.work_dir = Path(work_dir)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        shared = ("--redis", redis_url, "--database", database_url, *flags)
        if siblings:
            directory = self.work_dir / "siblings"
            directory.mkdir(mode=0o700, exist_ok=True)
            directory.chmod(0o700)
            shared += ("--siblings", str(directory))
        self.servers = [
            LocalServer(
                self.work_dir / f"data-{index}",
                *shared,
                log=self.work_dir / f"server-{index}.log",
            )
            for index in range(count)
        ]

    @property
    def ports(self) -> list[int]:
        return [server.port for server in self.servers]

    @property
    def bases(self) -> list[str]:
        return [server.base for server in self.servers]

    def start(self, timeout: float = 60.0) -> LocalCluster:
        try:
            for server in self.servers:
                server.start(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


def start_cluster(
    count: int,
    redis_url: str,
    database_url: str,
    work_dir: str | Path,
    *flags: str,
    siblings: bool = False,
) -> LocalCluster:
    """Start a :class:`LocalCluster` (stop it with ``.stop()``); its ``ports`` are the
    processes' loopback ports."""
    return LocalCluster(count, redis_url, database_url, work_dir, *flags, siblings=siblings).start()
