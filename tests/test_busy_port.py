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
