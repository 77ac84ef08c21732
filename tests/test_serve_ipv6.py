"""`arena serve --host` on an IPv6 address: gRPC takes it in brackets, /metrics and the web UI
bare, and no spelling of ::1 started all three (an outside metrics probe)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.services import ROOT, free_port, redis_server, wait_for


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback on this machine")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_serve_listens_on_an_ipv6_host_with_metrics_and_the_web_ui(tmp_path, host):
    metrics_port, http_port = free_port(), free_port()
    with redis_server(tmp_path) as redis, (tmp_path / "serve.log").open("w") as log:
        args = ["serve", "--host", host, "--port", "0", "--metrics-port", str(metrics_port)]
        args += ["--http-port", str(http_port), "--redis", redis.url]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-m", "arena", *args], stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env
        )
        try:
            text = lambda: (tmp_path / "serve.log").read_text()  # noqa: E731
            wait_for(lambda: "arena service on" in text() or process.poll() is not None, 60, "the service")
            found = re.search(r"arena service on \[::1\]:(\d+)", text())
            assert found, text()
            with grpc.insecure_channel(f"[::1]:{found.group(1)}") as channel:
                reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=30)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            with urllib.request.urlopen(f"http://[::1]:{metrics_port}/metrics", timeout=30) as scraped:
                assert b"arena_store_up 1.0" in scraped.read()
            assert f"web UI on http://[::1]:{http_port}/" in text()
            with urllib.request.urlopen(f"http://[::1]:{http_port}/", timeout=30) as page:
                assert page.status == 200
        finally:
            process.terminate()
            process.wait(30)
