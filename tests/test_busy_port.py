"""A server on a busy port fails with one line and exit 2, never shares the port (issue 10, 17).

gRPC sets SO_REUSEPORT by default, so a second server on the same port used to start and take
part of the first one's connections."""

from __future__ import annotations

import subprocess

import pytest

from tests.cli_run import arena
from tests.remote_helpers import bot_process, served
from tests.services import redis_server, service

pytestmark = pytest.mark.timeout(120)


def assert_one_line_refusal(out: subprocess.CompletedProcess[str], port: int) -> None:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert str(port) in lines[0] and "in use" in lines[0], lines[0]


def test_bot_serve_on_a_busy_port_fails_in_one_line():
    with bot_process(served("random")) as address:
        port = int(address.rsplit(":", 1)[1])
        out = arena("bot", "serve", "--bot", "random", "--port", str(port))
    assert_one_line_refusal(out, port)


def test_serve_on_a_busy_port_fails_in_one_line(tmp_path):
    with redis_server(tmp_path) as server, service(server.url, tmp_path) as running:
        out = arena("serve", "--port", str(running.port), "--redis", server.url, "--metrics-port", "0")
    assert_one_line_refusal(out, running.port)


def test_metrics_on_a_busy_port_say_so_and_a_host_that_does_not_resolve_is_not_blamed_on_the_port(tmp_path):
    """Every failure to serve /metrics said "each process on a machine needs its own
    --metrics-port", a host that did not resolve too (an outside metrics probe)."""
    import socket

    from tests.services import free_port

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port()))
        taken.listen()
        port = taken.getsockname()[1]
        busy = arena("tournament", "--game", "rolldice", "--metrics-port", str(port), "--out", str(tmp_path / "run"))
    assert busy.returncode == 2 and f"cannot serve metrics on port {port}" in busy.stderr, busy.stderr
    assert "(each process on a machine needs its own --metrics-port)" in busy.stderr
    with redis_server(tmp_path) as server:
        args = ["--broker", server.url, "--metrics-port", str(free_port()), "--metrics-host", "nosuchhost.invalid"]
        unknown = arena("worker", *args, timeout=120)
    assert unknown.returncode == 2 and "cannot serve metrics on nosuchhost.invalid:" in unknown.stderr, unknown.stderr
    assert "--metrics-port)" not in unknown.stderr and len(unknown.stderr.strip().splitlines()) == 1
