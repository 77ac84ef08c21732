"""Real services for integration tests: a private redis-server and Celery worker processes.

Every test gets its own redis-server on a free port (AOF on, in a temporary directory), never
the machine's shared one, and real ``arena worker`` processes (Celery prefork) in their own
process groups so a test can ``kill -9`` a whole worker. Workers serve their metrics, as in
production, each on a free port with its multiprocess directory in the test's directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.0/8,::1"
"""The endpoint allow list the tests' services and workers run with (their bots are local)."""


_PORT_BLOCK = 1000
_next_port = 0


def free_port() -> int:
    """A free loopback port from this test process's own block of 20000-31999, below the
    kernel's ephemeral range (32768 and up, where port 0 binds and outgoing connections land).
    A port a test frees for a moment (a Redis restart keeps its port) is then never handed to
    another test process meanwhile: with ports from the kernel, a parallel test once started its
    own redis-server on a restarting server's port, and the first test's client followed the
    wrong server."""
    global _next_port
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    base = 20000 + (int(worker) % 12 if worker.isdigit() else 0) * _PORT_BLOCK
    for _ in range(_PORT_BLOCK):
        port = base + (_next_port + os.getpid()) % _PORT_BLOCK
        _next_port += 1
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {base}..{base + _PORT_BLOCK - 1}")


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")


class RedisServer:
    """A redis-server with AOF (appendfsync everysec) in ``directory``; restartable."""

    def __init__(self, directory: Path, *extra: str) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.directory = directory
        self.extra = extra  # more options, after (and over) the ones above
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--daemonize",
            "no",
            "--maxmemory-policy",
            "noeviction",
            "--logfile",
            str(self.directory / "redis.log"),
            *self.extra,
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)

        def up() -> bool:
            try:
                return bool(client.ping())
            except (redis.ConnectionError, redis.BusyLoadingError):
                return False

        wait_for(up, 20, "redis-server to answer")
        pid = client.info("server")["process_id"]
        client.close()
        if pid != self.process.pid:  # another process's server holds the port
            raise RuntimeError(f"port {self.port} is answered by another redis-server (pid {pid})")

    def stop(self) -> None:
        """A clean shutdown: Redis fsyncs the AOF and exits."""
        if self.process is None:
            return
        with contextlib.suppress(redis.ConnectionError):  # the shutdown closes its connection
            redis.Redis(port=self.port).shutdown(nosave=False)
        self.process.wait(20)
        self.process = None

    def restart(self, downtime: float = 1.0) -> None:
        self.stop()
        time.sleep(downtime)
        self.start()

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port)


@contextmanager
def redis_server(directory: Path, *extra: str) -> Iterator[RedisServer]:
    server = RedisServer(directory, *extra)
    server.start()
    try:
        yield server
    finally:
        if server.process is not None:
            server.process.kill()
            server.process.wait(10)


class Worker:
    """An ``arena worker`` process (Celery prefork) in its own process group."""

    def __init__(
        self,
        url: str,
        concurrency: int,
        log: Path,
        visibility: int,
        env: dict[str, str],
        metrics_port: int | None = None,
        allow_endpoints: str = LOOPBACK,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.metrics_port = metrics_port
        args = [
            sys.executable,
            "-m",
            "arena",
            "worker",
            "--broker",
            url,
            "--concurrency",
            str(concurrency),
            "--visibility-timeout",
            str(visibility),
            "--hostname",
            f"w{free_port()}@%h",
            "--metrics-port",
            str(metrics_port or 0),
            "--allow-endpoints",
            allow_endpoints,
            *extra,
        ]
        self.log = log
        self.handle = log.open("w")
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
        self.process = subprocess.Popen(
            args, stdout=self.handle, stderr=subprocess.STDOUT, env=full_env, cwd=ROOT, start_new_session=True
        )
        wait_for(lambda: "ready." in log.read_text() or self.process.poll() is not None, 60, "the worker to start")
        if self.process.poll() is not None:
            raise RuntimeError(f"worker exited: {log.read_text()[-2000:]}")

    def scrape(self) -> str:
        """The node's ``/metrics`` text."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10) as response:
            return str(response.read().decode())

    def kill(self) -> None:
        """``kill -9`` the worker and all its pool processes."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.handle.close()


@contextmanager
def workers(
    url: str,
    tmp: Path,
    count: int = 1,
    concurrency: int = 2,
    visibility: int = 3600,
    env: dict[str, str] | None = None,
    metrics: bool = True,
    allow_endpoints: str = LOOPBACK,
    extra: tuple[str, ...] = (),
) -> Iterator[list[Worker]]:
    started: list[Worker] = []
    try:
        for n in range(count):
            port = free_port() if metrics else None
            node_env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp / f"metrics{n}")} if metrics else {}
            node_env.update(env or {})
            log = tmp / f"worker{n}.log"
            started.append(Worker(url, concurrency, log, visibility, node_env, port, allow_endpoints, extra))
        yield started
    finally:
        for worker in started:
            worker.stop()


def metric(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels``, in an exposition."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and labels.items() <= sample.labels.items():
                total += sample.value
    return total


def prometheus_tool(name: str) -> str:
    """The path of ``prometheus`` or ``promtool``; the test is skipped, saying why, without them.

    Never installed from here: a test suite must not change the system it runs on. ``.ci/run``
    installs Debian's ``prometheus`` package (it ships both), and the README says so."""
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed: `apt-get install prometheus` (.ci/run does) to run this test")
    return path


def promtool_check(text: str) -> None:
    """``promtool check metrics`` accepts the exposition (names, units, help, types)."""
    out = subprocess.run(
        [prometheus_tool("promtool"), "check", "metrics"], input=text, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and not (out.stdout + out.stderr).strip(), out.stdout + out.stderr


class Service:
    """An ``arena serve`` process on a free port."""

    def __init__(self, url: str, log: Path, *extra: str, allow_endpoints: str = LOOPBACK) -> None:
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.http_port = free_port()  # the web UI (a fixed default would collide between tests)
        args = [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--port",
            str(self.port),
            "--redis",
            url,
            "--metrics-port",
            "0",
            "--http-port",
            str(self.http_port),
            "--allow-endpoints",
            allow_endpoints,
            *extra,
        ]
        self.handle = log.open("w")
        self.log = log
        self.process = subprocess.Popen(
            args, stdout=self.handle, stderr=subprocess.STDOUT, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
        wait_for(lambda: "arena service on" in log.read_text() or self.process.poll() is not None, 60, "the service")
        if self.process.poll() is not None:
            raise RuntimeError(f"service exited: {log.read_text()[-2000:]}")

    def terminate(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        self.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.handle.close()


@contextmanager
def service(url: str, tmp: Path, *extra: str, allow_endpoints: str = LOOPBACK) -> Iterator[Service]:
    running = Service(url, tmp / f"service{free_port()}.log", *extra, allow_endpoints=allow_endpoints)
    try:
        yield running
    finally:
        running.stop()


@contextmanager
def in_process_service(url: str, monkeypatch: pytest.MonkeyPatch, **config: Any) -> Iterator[str]:
    """``arena serve``'s gRPC server (:func:`referee.server.start`) in this process, on its own
    event loop in a thread, so that a test can lower the service's module constants or give it
    its own built-in bots (``config``: :class:`referee.server.ServerConfig` fields over the
    CLI's). Endpoints are checked against the tests' allow list. Yields its address."""
    import asyncio
    import threading

    from bots.registry import bot_names
    from referee import endpoints
    from referee.players import make_player
    from referee.server import ServerConfig, start

    monkeypatch.setattr(endpoints, "_policy", endpoints.EndpointPolicy.parse(LOOPBACK))
    settings = {"make_player": make_player, "builtin_bots": bot_names, "rate": 0.0, "grace": 1.0, **config}
    port = free_port()
    server_config = ServerConfig(store_url=url, submit=lambda *_: None, port=port, **settings)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="in-process-service", daemon=True)
    thread.start()
    try:
        running = asyncio.run_coroutine_threadsafe(start(server_config), loop).result(60)
        try:
            yield f"127.0.0.1:{port}"
        finally:
            asyncio.run_coroutine_threadsafe(running.shutdown(), loop).result(60)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def headless_chrome(chromium: tuple[str, str], logs: dict[str, str]) -> Any:
    """Debian's chromium under its chromedriver (``chromium``: the two paths, the conftest
    fixture's), headless, keeping ``logs`` (e.g. ``{"browser": "ALL"}``); the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    binary, driver_path = chromium
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(argument)
    options.binary_location = binary
    options.set_capability("goog:loggingPrefs", logs)
    driver = webdriver.Chrome(service=DriverService(driver_path), options=options)
    driver.set_page_load_timeout(120)
    return driver
