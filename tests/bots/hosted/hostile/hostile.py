"""A hosted bot that attacks its sandbox in one chosen way, then (if it still can) plays on.

Written with the plain SDK, like any hosted bot. ``behaviour.json`` next to this file (written
by the test) chooses: ``probe`` (network, other files, environment, writes outside /tmp:
each attempt is printed as ``PROBE name: blocked|OPEN detail``), ``memory`` (allocates without
bound), ``fork`` (forks without bound), ``spin`` (a busy loop), ``linger`` (leaves a detached
process behind, then plays on), ``tmpfs`` (fills /tmp, then plays on), ``chatty`` (writes
200 KiB to stderr), ``swap`` (at start, puts a link to a host socket where its socket goes).
It misbehaves on its first decision (``swap``: at start-up)."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

from bots.sdk import Bot, Turn
from bots.serve import serve

CONFIG = json.loads((Path(__file__).parent / "behaviour.json").read_text())

if CONFIG["behaviour"] == "swap":  # before serving: its socket is a link to a socket of the host
    os.symlink(CONFIG["host_socket"], os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix://"))
    time.sleep(1000)
if CONFIG["behaviour"] == "deaf":  # listens, hangs up on the first dial, then refuses every other
    deaf = socket.socket(socket.AF_UNIX)
    deaf.bind(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix://"))
    deaf.listen()
    deaf.accept()[0].close()
    deaf.close()
    time.sleep(1000)


def report(name: str, attempt) -> None:  # type: ignore[no-untyped-def]
    try:
        detail = attempt()
    except Exception as exc:
        print(f"PROBE {name}: blocked {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    else:
        print(f"PROBE {name}: OPEN {detail}", file=sys.stderr, flush=True)


def connect(host: str, port: int) -> str:
    with socket.create_connection((host, port), timeout=2) as conn:
        conn.sendall(b"PING\r\n")
        return repr(conn.recv(100))


def write(path: str) -> str:
    with open(path, "w") as f:
        f.write("pwned")
    return path


def probe() -> None:
    import resource

    limits = {
        name: resource.getrlimit(getattr(resource, f"RLIMIT_{name}"))
        for name in ("AS", "CPU", "NOFILE", "FSIZE", "NPROC")
    }
    status = {
        line.split(":")[0]: line.split(":")[1].strip()
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs"))
    }
    jail = {"uid": os.getuid(), "pid": os.getpid(), "sid": os.getsid(0), "limits": limits, "status": status}
    print(f"JAIL {json.dumps(jail)}", file=sys.stderr, flush=True)
    report("redis", lambda: connect("127.0.0.1", CONFIG["redis_port"]))
    report("outside", lambda: connect("1.1.1.1", 53))
    report("dns", lambda: socket.getaddrinfo("example.com", 80))
    report("other_bot", lambda: Path(CONFIG["other_file"]).read_text())
    report("shadow", lambda: Path("/etc/shadow").read_text()[:20])
    secrets = [k for k, v in os.environ.items() if "ARENA_TEST_SECRET" in k or "ARENA_TEST_SECRET" in v]
    report("env", lambda: secrets[0] if secrets else (_ for _ in ()).throw(LookupError(sorted(os.environ))))
    report("pid1_env", lambda: _grep(Path("/proc/1/environ").read_bytes()))
    for path in ("/bot/pwned", "/pwned", "/usr/pwned", "/opt/arena-sdk/bots/pwned", CONFIG["host_file"]):
        report(f"write {path}", lambda path=path: write(path))


def _grep(data: bytes) -> str:
    if b"ARENA_TEST_SECRET" in data:
        return "secret found"
    raise LookupError("no secret")


def fill_tmp() -> None:
    written = 0
    try:
        for index in range(1000):
            with open(f"/tmp/fill{index}", "wb") as f:
                for _ in range(4):
                    f.write(b"x" * (1024 * 1024))
                    f.flush()
                    written += 1
    except OSError as exc:
        print(f"TMPFS full after {written} MiB: {exc.errno} {os.strerror(exc.errno or 0)}", file=sys.stderr, flush=True)


def linger() -> None:
    """Leaves a detached grandchild (own session, parent gone) and waits until it runs."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(write, str(os.getpid()).encode())
            time.sleep(1000)
        os._exit(0)
    os.close(write)
    print(f"LINGER pid {os.read(read, 20).decode()}", file=sys.stderr, flush=True)


class Hostile(Bot):
    name = "hostile"
    done = False

    def choose(self, turn: Turn) -> str:
        if not Hostile.done:
            Hostile.done = True
            behaviour = CONFIG["behaviour"]
            if behaviour == "probe":
                probe()
            elif behaviour == "memory":
                hoard = []
                while True:
                    hoard.append(bytearray(16 * 1024 * 1024))
            elif behaviour == "heap":  # one large table, well within the address space's 1 GiB
                table = bytearray(700 * 1024 * 1024)
                print(f"HEAP {len(table) >> 20} MiB", file=sys.stderr, flush=True)
            elif behaviour == "fork":
                while True:
                    os.fork()
            elif behaviour == "spin":
                while True:
                    pass
            elif behaviour == "linger":
                linger()
            elif behaviour == "tmpfs":
                fill_tmp()
            elif behaviour == "chatty":
                for _ in range(200):
                    print("x" * 1023, file=sys.stderr)
        return turn.option_ids[0]


if __name__ == "__main__":
    serve(Hostile)
