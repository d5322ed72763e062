"""The hosting guide's reverse proxies, for real: nginx and Caddy with TLS before the server.

docs/hosting.md tells a host how to put the server on the internet: a ``roborally serve`` line
(in its systemd unit), an nginx configuration and a Caddyfile. These tests run them as written
there, on loopback ports: the server (``python -m roborally.server``) with the guide's options,
and the proxy with the guide's block, in which only the ports, the certificate (self-signed,
made here with ``openssl``; Caddy gets it in a ``tls`` line instead of fetching one) and the
paths an unprivileged proxy needs are replaced. Then they play through the proxy over https
and wss, and check what the guide promises: invite links start with ``--public-url`` and carry
the token only after ``#``; the server counts each real client address (``X-Forwarded-For``
from the trusted proxy, never the header a client sends); ``X-Forwarded-Proto`` makes the
server's own links https/wss; no log (nginx's access log, the proxy's, the server's) holds a
token.

Clients connect from different loopback addresses (127.0.0.2, 127.0.0.3) so that the proxy
really sees different clients. A proxy that is not installed is skipped with the reason
(``make system-deps`` installs Debian's nginx-light and caddy).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from roborally.server.protocol import CLOSE_TOO_MANY

from .conftest import free_port

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"


def program(name: str) -> str | None:
    """``name`` on PATH, or in the sbin folders a user's PATH may lack."""
    found = shutil.which(name)
    folders = ("/usr/sbin", "/usr/local/sbin", "/usr/bin")
    return found or next(
        (f"{d}/{name}" for d in folders if os.access(f"{d}/{name}", os.X_OK)), None
    )


OPENSSL = shutil.which("openssl")
PUBLIC_URL = "https://rally.example.org"  # the guide's example name, kept as it is
SOCKETS_PER_ADDRESS = 3  # --connections-per-address for this test (the default is 32)

pytestmark = pytest.mark.skipif(OPENSSL is None, reason="the openssl command is not installed")


# ------------------------------------------------------------------ the guide
def guide_block(language: str) -> str:
    """The one fenced block of ``language`` in docs/hosting.md."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", GUIDE.read_text("utf-8"), re.M | re.S)
    assert len(blocks) == 1, f"docs/hosting.md should have one ```{language} block"
    return str(blocks[0])


def guide_serve_args() -> list[str]:
    """The ``roborally serve`` options of the guide's systemd unit (its ExecStart line)."""
    unit = guide_block("ini")
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[0].endswith("/roborally") and words[1] == "serve", line
    return words[2:]


def replace_option(args: list[str], name: str, value: str | None) -> list[str]:
    """``args`` with option ``name``'s value replaced (``None``: the option dropped)."""
    assert name in args, f"the guide's serve line has no {name}"
    i = args.index(name)
    return args[:i] + ([name, value] if value is not None else []) + args[i + 2 :]


def substitute(text: str, old: str, new: str) -> str:
    assert old in text, f"the guide's configuration no longer has {old!r}"
    return text.replace(old, new)


def ipv6_loopback() -> bool:
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET6) as probe:
        probe.bind(("::1", 0))
        return True
    return False


def nginx_config(
    work: Path, tls_port: int, http_port: int, server_port: int, cert: Path, key: Path
) -> str:
    """A whole nginx.conf around the guide's block. Replaced in the block: the listening ports
    (on loopback), the game server's port, the certificate and the access log's path; around
    it: what nginx needs to run unprivileged (pid file, error log, temporary folders)."""
    block = guide_block("nginx")
    v6 = ipv6_loopback()
    for port, ours in ((443, tls_port), (80, http_port)):
        block = substitute(block, f"listen {port}", f"listen 127.0.0.1:{ours}")
        ipv6 = f"listen [::1]:{ours}" if v6 else f"# (no IPv6 loopback here) listen [::]:{ours}"
        block = substitute(block, f"listen [::]:{port}", ipv6)
    block = substitute(block, "http://127.0.0.1:8000", f"http://127.0.0.1:{server_port}")
    block = substitute(block, "/etc/letsencrypt/live/rally.example.org/fullchain.pem", str(cert))
    block = substitute(block, "/etc/letsencrypt/live/rally.example.org/privkey.pem", str(key))
    block = substitute(block, "/var/log/nginx/roborally.access.log", str(work / "access.log"))
    temp = "\n".join(
        f"    {kind}_temp_path {work / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # As root (CI), nginx's workers would run as 'nobody', who cannot enter pytest's
    # private temporary folder; they run as root here instead.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}worker_processes 1;\npid {work / 'nginx.pid'};\n"
        f"error_log {work / 'error.log'} info;\n"
        "events { worker_connections 256; }\n"
        "http {\n"
        f"{temp}\n"
        f"    access_log {work / 'default-access.log'};\n"
        f"{block}}}\n"
    )


def caddy_config(
    work: Path, tls_port: int, http_port: int, server_port: int, cert: Path, key: Path
) -> str:
    """The guide's Caddyfile with the test's certificate instead of one from the internet
    (a ``tls`` line), the game server's port, and global options that keep Caddy on loopback
    and in the test's folder."""
    site = guide_block("caddy")
    site = substitute(
        site, "rally.example.org {", f"https://127.0.0.1:{tls_port} {{\n\ttls {cert} {key}"
    )
    site = substitute(site, "127.0.0.1:8000", f"127.0.0.1:{server_port}")
    return (
        "{\n\tadmin off\n\tdefault_bind 127.0.0.1\n"
        f"\thttp_port {http_port}\n\thttps_port {tls_port}\n"
        f"\tstorage file_system {work / 'storage'}\n}}\n{site}"
    )


@dataclass
class Proxy:
    name: str
    package: str  # Debian's package, which make system-deps installs
    config: Callable[[Path, int, int, int, Path, Path], str]
    config_name: str

    @property
    def program(self) -> str | None:
        return program(self.name)

    def command(self, work: Path) -> list[str]:
        conf = str(work / self.config_name)
        if self.name == "nginx":
            log = str(work / "error.log")
            command = [self.program or "nginx", "-p", str(work), "-c", conf, "-e", log]
            return [*command, "-g", "daemon off;"]
        return [self.program or "caddy", "run", "--config", conf, "--adapter", "caddyfile"]

    def param(self) -> Any:
        """This proxy as a test parameter, skipped with the reason when it is not installed."""
        reason = f"{self.name} is not installed (make system-deps installs {self.package})"
        return pytest.param(
            self, id=self.name, marks=pytest.mark.skipif(self.program is None, reason=reason)
        )


NGINX = Proxy("nginx", "nginx-light", nginx_config, "nginx.conf")
CADDY = Proxy("caddy", "caddy", caddy_config, "Caddyfile")
PROXIES = [NGINX.param(), CADDY.param()]


# ------------------------------------------------------------------ processes
def wait_until(
    test: Callable[[], bool], what: str, process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited ({process.returncode}):\n{log.read_text(errors='replace')}")
        with contextlib.suppress(OSError, httpx.HTTPError):
            if test():
                return
        time.sleep(0.05)
    pytest.fail(f"{what} did not come up in 30 s:\n{log.read_text(errors='replace')}")


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Stack:
    """The game server and a proxy in front of it, both on loopback."""

    proxy: Proxy
    work: Path
    tls_port: int
    http_port: int
    server_port: int
    tls: ssl.SSLContext
    server_log: Path
    proxy_log: Path  # where the proxy says why it stopped (nginx: its error log)

    def client(self, source: str = "127.0.0.1") -> httpx.Client:
        transport = httpx.HTTPTransport(verify=self.tls, local_address=source)
        return httpx.Client(
            base_url=f"https://127.0.0.1:{self.tls_port}",
            transport=transport,
            trust_env=False,
            timeout=20,
        )

    def socket(
        self, game_id: str, source: str = "127.0.0.1", headers: dict[str, str] | None = None
    ) -> ws_connect:
        """A WebSocket to a game through the proxy (wss), from loopback address ``source``.
        (The asyncio client: websockets' threaded client can stall over TLS, its reading
        thread and its writing thread sharing one SSL socket.)"""
        return ws_connect(
            f"wss://127.0.0.1:{self.tls_port}/ws/{game_id}",
            ssl=self.tls,
            proxy=None,
            compression=None,
            additional_headers=headers,
            open_timeout=10,
            local_addr=(source, 0),
        )

    def logs(self) -> dict[str, str]:
        """Every log the proxy and the server wrote (read once both have stopped)."""
        files = [self.server_log, self.work / "proxy.out", *self.work.glob("*.log")]
        return {f.name: f.read_text(errors="replace") for f in set(files) if f.exists()}


@contextlib.contextmanager
def proxied_server(tmp_path: Path, proxy: Proxy, public_url: bool = True) -> Iterator[Stack]:
    """Start the game server with the guide's options and ``proxy`` with the guide's
    configuration; stop both at the end."""
    work = tmp_path / proxy.name
    work.mkdir()
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *(OPENSSL or "openssl", "req", "-x509", "-newkey", "ec", "-nodes", "-days", "1"),
            *("-pkeyopt", "ec_paramgen_curve:prime256v1", "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    tls = ssl.create_default_context(cafile=str(cert))  # verified: the test's own certificate

    server_port, tls_port, http_port = free_port(), free_port(), free_port()
    args = guide_serve_args()
    args = replace_option(args, "--port", str(server_port))
    args = replace_option(args, "--data", str(tmp_path / "data"))
    if not public_url:
        args = replace_option(args, "--public-url", None)
    args += ["--engine-workers", "1", "--bot-workers", "1"]
    args += ["--connections-per-address", str(SOCKETS_PER_ADDRESS)]
    config = proxy.config(work, tls_port, http_port, server_port, cert, key)
    (work / proxy.config_name).write_text(config)
    server_log = tmp_path / "server.log"
    proxy_log = work / ("error.log" if proxy is NGINX else "proxy.out")
    stack = Stack(proxy, work, tls_port, http_port, server_port, tls, server_log, proxy_log)

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with server_log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "roborally.server", *args], stdout=out, stderr=out, env=env
        )
    front: subprocess.Popen[bytes] | None = None
    try:
        health = f"http://127.0.0.1:{server_port}/api/health"
        wait_until(
            lambda: httpx.get(health, trust_env=False).json()["ok"],
            "the server",
            server,
            server_log,
        )
        # Caddy keeps its own files under HOME and XDG folders: the test's folder.
        home = {"HOME": str(work), "XDG_DATA_HOME": str(work), "XDG_CONFIG_HOME": str(work)}
        with (work / "proxy.out").open("wb") as out:
            front = subprocess.Popen(
                proxy.command(work), stdout=out, stderr=out, cwd=work, env=dict(os.environ, **home)
            )

        def answers() -> bool:
            with stack.client() as http:
                return bool(http.get("/api/health").json()["ok"])

        wait_until(answers, proxy.name, front, stack.proxy_log)
        yield stack
    finally:
        if front is not None:
            stop(front, signal.SIGQUIT if proxy is NGINX else signal.SIGTERM)  # graceful
        stop(server)


# ------------------------------------------------------------------ helpers
def run(scenario: Coroutine[Any, Any, None]) -> None:
    """Run a WebSocket scenario; one that stalls fails after a minute. In a fresh thread:
    Playwright's sync API (the browser tests) may own this thread's event loop."""

    async def bounded() -> None:
        async with asyncio.timeout(60):
            await scenario

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, bounded()).result()


async def receive(ws: ClientConnection, timeout: float = 20) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        data: dict[str, Any] = json.loads(await ws.recv())
    return data


async def until(ws: ClientConnection, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(500):
        message = await receive(ws)
        assert message["type"] != "error", message
        if test(message):
            return message
    raise AssertionError("the expected message did not come")


async def hello(ws: ClientConnection, token: str | None = None) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "hello", "v": 1} | ({"token": token} if token else {})))
    welcome = await receive(ws)
    assert welcome["type"] == "welcome", welcome
    return welcome


async def play_a_decision(stack: Stack, game_id: str, token: str) -> None:
    """Over wss: hello with the seat token, welcome and state, ready, one decision, its ack."""
    async with stack.socket(game_id) as ws:
        welcome = await hello(ws, token)
        assert (welcome["seat"], welcome["role"]) == (0, "player")
        assert (await receive(ws))["type"] == "state"
        await ws.send(json.dumps({"type": "ready", "v": 1, "id": "r"}))
        await until(ws, lambda m: m["type"] == "ack" and m.get("ref") == "r")
        state = await until(ws, lambda m: m["type"] == "state" and bool(m["pending"]))
        pending = state["pending"][0]
        choice = pending["options"][0] if pending["options"] else "timeout"
        decide = {"type": "decide", "v": 1, "id": 7, "decision_id": pending["id"]}
        await ws.send(json.dumps(decide | {"choice": choice}))
        ack = await until(ws, lambda m: m["type"] == "ack")
        assert ack == {
            "type": "ack",
            "v": 1,
            "ref": 7,
            "for": "decide",
            "decision_id": pending["id"],
        }


async def count_per_address(stack: Stack, game_id: str) -> None:
    """The server counts the address the proxy reports, not the proxy's own: 127.0.0.2 fills
    its sockets and is refused one more (whatever X-Forwarded-For it sends itself: the proxy
    replaces the header), while 127.0.0.3 still gets in."""
    async with contextlib.AsyncExitStack() as held:
        for _ in range(SOCKETS_PER_ADDRESS):
            await hello(await held.enter_async_context(stack.socket(game_id, "127.0.0.2")))
        spoof = {"X-Forwarded-For": "198.51.100.7"}
        async with stack.socket(game_id, "127.0.0.2", spoof) as refused:
            try:
                error = await receive(refused, timeout=5)
            except TimeoutError:
                pytest.fail(
                    "a fourth socket from 127.0.0.2 was let in: the server believed the"
                    " X-Forwarded-For the client sent (the proxy must replace it)"
                )
            assert error["type"] == "error" and error["code"] == "too_many_connections"
            with pytest.raises(ConnectionClosed) as closed:
                await receive(refused, timeout=10)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == CLOSE_TOO_MANY
        async with stack.socket(game_id, "127.0.0.3") as other:
            assert (await hello(other))["role"] == "spectator"


async def refused_token_in_url(url: str) -> None:
    async with ws_connect(url, proxy=None, compression=None, open_timeout=10) as ws:
        assert (await receive(ws))["code"] == "token_in_url"


# ------------------------------------------------------------------ tests
@pytest.mark.parametrize("proxy", PROXIES)
def test_a_game_through_the_guides_proxy_over_tls(tmp_path: Path, proxy: Proxy) -> None:
    with proxied_server(tmp_path, proxy) as stack, stack.client() as http:
        assert http.get("/api/health").json()["ok"] is True
        page = http.get("/")
        assert page.status_code == 200, page
        assert page.headers["content-type"].startswith("text/html")

        # Plain http answers with a redirect to https.
        plain = httpx.get(f"http://127.0.0.1:{stack.http_port}/?game=abc", trust_env=False)
        assert plain.status_code in (301, 308), plain
        assert re.fullmatch(r"https://127\.0\.0\.1(:\d+)?/\?game=abc", plain.headers["location"])

        # A game; its links start with --public-url, and the token comes only after '#'.
        body = {"course": "tiny", "seats": [{"kind": "human"}, {"kind": "bot"}]}
        created = http.post("/api/games", json=body | {"first_player": 0})
        assert created.status_code == 201, created.text
        game = created.json()
        game_id, seat = game["game_id"], game["seats"][0]
        token = seat["token"]
        assert seat["url"] == f"{PUBLIC_URL}/?game={game_id}#token={token}"
        link = urlsplit(seat["url"])
        assert link.fragment == f"token={token}" and token not in seat["url"].split("#")[0]
        assert game["spectator_url"] == f"{PUBLIC_URL}/?game={game_id}"
        assert game["ws_url"] == f"wss://rally.example.org/ws/{game_id}"

        run(play_a_decision(stack, game_id, token))
        run(count_per_address(stack, game_id))
        # An old link with the token in its query: the page still opens (and moves the token
        # into the fragment), and the access log keeps the path only.
        assert http.get(f"/?game={game_id}&token=OLDLINK{token}").status_code == 200

    # Both processes have stopped: their logs are complete.
    logs = stack.logs()
    server_log = logs[stack.server_log.name]
    assert "ws from 127.0.0.2 refused: too_many_connections" in server_log
    assert "198.51.100.7" not in server_log
    if proxy is NGINX:
        access = logs["access.log"]
        assert f"/ws/{game_id}" in access and "127.0.0.2" in access and "127.0.0.3" in access
    for name, text in logs.items():
        assert game["host_token"] not in text and token not in text, f"{name} holds a token"
        assert "OLDLINK" not in text, f"{name} holds an old link's token"


@pytest.mark.parametrize("proxy", PROXIES)
def test_forwarded_headers_are_believed_from_the_proxy_only(tmp_path: Path, proxy: Proxy) -> None:
    """Without --public-url the server builds links from the request: through the proxy they are
    https/wss (X-Forwarded-Proto from the trusted proxy); the same headers sent straight to
    the server by anyone else are ignored. And a client that puts a seat token in a WebSocket
    URL anyway is refused without the token reaching the server's log."""
    body = {"course": "tiny", "seats": [{"kind": "human"}, {"kind": "bot"}]}
    with proxied_server(tmp_path, proxy, public_url=False) as stack:
        with stack.client() as http:
            game = http.post("/api/games", json=body).json()
        game_id, token = game["game_id"], game["seats"][0]["token"]
        # nginx passes the host name without the port ($host), Caddy the Host header as it is.
        host = "127.0.0.1" if proxy is NGINX else f"127.0.0.1:{stack.tls_port}"
        assert game["seats"][0]["url"] == f"https://{host}/?game={game_id}#token={token}"
        assert game["ws_url"] == f"wss://{host}/ws/{game_id}"

        direct_url = f"http://127.0.0.1:{stack.server_port}"
        spoof = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(transport=transport, trust_env=False) as direct:
            mine = direct.post(f"{direct_url}/api/games", json=body, headers=spoof).json()
        assert mine["ws_url"].startswith(f"ws://127.0.0.1:{stack.server_port}/ws/")

        old_page = f"ws://127.0.0.1:{stack.server_port}/ws/{game_id}?token={token}"
        run(refused_token_in_url(old_page))

    server_log = stack.server_log.read_text(errors="replace")
    assert "token=[hidden]" in server_log and token not in server_log
