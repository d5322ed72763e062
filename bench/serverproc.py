"""A real game server in a subprocess on loopback, for the load test and the red team.

with LocalServer(data_dir, "--games-per-minute", "1000") as server:
    httpx.get(server.base + "/api/health")
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

#: Limits a capacity test lifts: all its traffic comes from one address.
NO_ADDRESS_LIMITS = (
    "--requests-per-second",
    "100000",
    "--request-burst",
    "100000",
    "--games-per-minute",
    "100000",
    "--lobbies-per-address",
    "100000",
    "--connections-per-address",
    "100000",
    "--bot-games-per-address",
    "100000",
    "--max-bot-games",
    "100000",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LocalServer:
    """``python -m roborally.server`` on 127.0.0.1 and a free port; its output goes to
    ``log`` (a file in the data directory's parent unless given)."""

    def __init__(
        self, data_dir: str | Path, *flags: str, log: Path | None = None, port: int | None = None
    ) -> None:
        self.data_dir = Path(data_dir)
        self.flags = flags
        self.port = port or free_port()
        self.log_path = log or self.data_dir.parent / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "roborally.server",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data",
            str(self.data_dir),
            *self.flags,
        ]

    def start(self, timeout: float = 30.0) -> LocalServer:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log()[-2000:]}")
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.process.kill()
        raise RuntimeError("the server did not start in time")

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def workers(self) -> list[int]:
        pids: list[int] = httpx.get(f"{self.base}/api/health", timeout=10).json()["workers"]
        return pids

    def rss_mib(self) -> float:
        """The server process's resident memory (its workers are other processes)."""
        with open(f"/proc/{self.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
