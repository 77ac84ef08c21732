"""Ports: the service's defaults, and whether a TCP address can be bound, checked before a gRPC
server binds it.

gRPC servers set SO_REUSEPORT by default: a second server on a busy port starts and shares it
with the first (the kernel splits connections between them). Our servers turn that off
(``grpc.so_reuseport=0``) and check here first, so a busy port is a one-line error rather than a
gRPC C-core log line and a RuntimeError.
"""

from __future__ import annotations

import socket
from typing import Any

# The service's default ports (here, not in the service's modules, so the CLI can show them
# without importing the service).
DEFAULT_PORT = 50051
"""The referee service's gRPC API."""
DEFAULT_METRICS_PORT = 9100
"""The referee service's Prometheus /metrics."""
DEFAULT_HTTP_PORT = 8080
"""The web UI."""
MAX_REQUEST = 1024 * 1024
"""The largest message the service takes."""
MAX_RESPONSE = 32 * 1024 * 1024
"""The largest reply the service sends, and the CLI's clients take (gRPC's default of 4 MiB
lost a long challenge's record, played in full, and refused a long match's GetMatch)."""


def host_port(host: str, port: int) -> str:
    """``host:port`` as gRPC takes it: an IPv6 address in brackets (``[::1]:50051``)."""
    host = host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _addresses(host: str, port: int) -> list[tuple[Any, Any, int, str, Any]] | str:
    """The addresses to bind for ``host:port``, or why there are none."""
    host = host.strip("[]")
    try:
        return socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot resolve {host!r}: {exc.strerror}"
    except UnicodeError:  # IDNA's encoding of the name, not a gaierror (a traceback)
        return (
            f"{host!r} is not a valid host name (IDNA: a part between dots empty or over 63 characters, "
            "or a character no name may hold)"
        )


def host_error(host: str) -> str | None:
    """None if ``host`` names an address to bind, else why not (checked before gRPC tries it:
    its core logs a line of its own and the error named a port, not the host)."""
    found = _addresses(host, 0)
    return found if isinstance(found, str) else None


UNIX_PATH_BYTES = 107
"""The longest path a Unix socket may have (``sun_path`` holds 108 bytes with its NUL)."""


def unix_socket_error(path: str) -> str | None:
    """None if a Unix socket can be made at ``path`` (nothing there, or a socket a server left),
    else why not: a file that is not a socket is someone's (gRPC said "Address already in use"),
    a directory that does not exist."""
    import os
    import stat

    if len(os.fsencode(path)) > UNIX_PATH_BYTES:  # gRPC logged its own line for it, then failed
        return f"longer than {UNIX_PATH_BYTES} bytes, the most a Unix socket's path may be"
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        parent = os.path.dirname(path) or "/"
        return None if os.path.isdir(parent) else f"no directory {parent}"
    except OSError as exc:
        return exc.strerror or str(exc)
    return None if stat.S_ISSOCK(mode) else "exists and is not a socket (remove it, or choose another path)"


def bind_error(host: str, port: int) -> str | None:
    """None if ``host:port`` can be bound now (port 0 always can), else why not (a port out of
    0..65535 too: the kernel would take it modulo 65536, 99999 as 34463)."""
    if not 0 <= port <= 65535:
        return f"port {port} is not a TCP port (0..65535)"
    if port == 0:
        return None
    infos = _addresses(host, port)
    if isinstance(infos, str):
        return infos
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as sock:
            # SO_REUSEADDR as servers set it: TIME_WAIT leftovers are no reason to refuse.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                return f"{exc.strerror or exc} (port {port})"
    return None
