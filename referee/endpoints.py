"""Who the referee may dial: the operator's policy for bot endpoints.

A registered bot's endpoint is an address the service and the workers will connect to. Left
open, anyone could make them dial the inside of the operator's network (``grpc://127.0.0.1:6379``
is the store). So by default an endpoint may not resolve to a loopback, private, link-local,
multicast, unspecified or reserved address, nor be a ``unix://`` path; the operator widens this
with an allow list (``--allow-endpoints 127.0.0.0/8,10.1.0.0/16,unix`` on ``arena serve`` and
``arena worker``). Public addresses are always allowed.

The policy is checked twice: when an endpoint is registered (the service) and on the resolved
address at every connection (:class:`referee.remote.RemotePlayer` resolves the name itself,
checks every address and dials the address it checked), so a DNS record changed after
registration cannot redirect the referee. A refusal at connection is a ``crash`` verdict that
names the policy.

A process without a configured policy trusts every endpoint: a local ``arena play`` or
``arena tournament`` is the operator's own, and its loopback bots are fine. ``arena serve`` and
``arena worker`` always configure one (:func:`configure`).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass

from arena.config import ConfigError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

ENV = "ARENA_ENDPOINT_POLICY"
"""Carries a configured policy to child processes (the allow list's text; "" = default deny)."""

UNIX = "unix"
"""The allow-list entry that lets bots be registered at ``unix://`` paths."""


POLICY = "the operator's endpoint policy (see --allow-endpoints)"


class EndpointRefused(ConfigError):
    """The endpoint is outside the operator's policy. The message is the operator's (what the
    name resolved to, the allow list); ``public`` says the same without either, for whoever
    else may read it (a verdict in a record every owner reads): the kind of refusal only."""

    def __init__(self, message: str, public: str) -> None:
        super().__init__(message)
        self.public = public


def _kind(ip: Address) -> str | None:
    """What makes an address internal, or None for a public one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return _kind(ip.ipv4_mapped)
    for name in ("loopback", "private", "link_local", "multicast", "unspecified", "reserved"):
        if getattr(ip, f"is_{name}"):
            return name.replace("_", "-")
    return None


@dataclass(frozen=True)
class EndpointPolicy:
    allow: tuple[Network, ...] = ()
    allow_unix: bool = False

    @classmethod
    def parse(cls, text: str | None) -> EndpointPolicy:
        """``CIDR,CIDR,unix`` (empty: the default, no internal address allowed)."""
        allow: list[Network] = []
        allow_unix = False
        for item in filter(None, (part.strip() for part in (text or "").split(","))):
            if item == UNIX:
                allow_unix = True
                continue
            try:
                allow.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ConfigError(
                    f"--allow-endpoints {item!r}: expected an address or CIDR block (10.0.0.0/8, ::1) or 'unix'"
                ) from None
        return cls(tuple(allow), allow_unix)

    def text(self) -> str:
        return ",".join([*(str(n) for n in self.allow), *([UNIX] if self.allow_unix else [])])

    def refusal(self, ip: Address) -> str | None:
        """Why the policy refuses this address, or None if it may be dialled."""
        kind = _kind(ip)
        if kind is None:
            return None
        plain = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip
        if any(plain.version == net.version and plain in net for net in self.allow):
            return None
        return (
            f"{plain} is a {kind} address, which the operator's endpoint policy does not allow "
            f"(allowed: {self.text() or 'public addresses only'}; see --allow-endpoints)"
        )

    def check_unix(self, spec: str) -> None:
        if not self.allow_unix:
            raise EndpointRefused(
                f"{spec}: unix sockets are not allowed by the operator's endpoint policy (see --allow-endpoints unix)",
                f"unix sockets are not allowed by {POLICY}",
            )

    def resolve(self, host: str, port: int) -> list[Address]:
        """Every address ``host`` resolves to, each checked: EndpointRefused names the first
        refused one (all must pass: a name with one internal record is refused)."""
        try:
            infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise EndpointRefused(
                f"cannot resolve {host!r}: {getattr(exc, 'strerror', None) or exc}",
                f"it did not resolve to an address allowed by {POLICY}",
            ) from None
        addresses: list[Address] = []
        for *_, sockaddr in infos:
            ip = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
            if ip not in addresses:
                addresses.append(ip)
        for ip in addresses:
            why = self.refusal(ip)
            if why is not None:
                raise EndpointRefused(
                    f"{host}:{port}: {why}", f"it resolves to a {_kind(ip)} address, which is not allowed by {POLICY}"
                )
        return addresses

    def check(self, spec: str) -> None:
        """Check a bot address (``grpc://host:port`` or ``unix://...``) as registered."""
        from referee.remote import target_of  # the one parser of bot addresses

        target = target_of(spec)
        if spec.startswith("unix:"):
            self.check_unix(spec)
            return
        host, _, port = target.rpartition(":")
        self.resolve(host, int(port))


def dial_target(address: Address, port: int) -> str:
    """The gRPC target of a checked address (no second resolution by gRPC)."""
    if address.version == 6:
        return f"ipv6:[{address}]:{port}"
    return f"ipv4:{address}:{port}"


_policy: EndpointPolicy | None = None


def configure(policy: EndpointPolicy) -> None:
    """Enforce ``policy`` in this process and its children (``arena serve``, ``arena worker``)."""
    global _policy
    _policy = policy
    os.environ[ENV] = policy.text()


def current() -> EndpointPolicy | None:
    """The policy this process enforces, or None: every endpoint is trusted (a local run)."""
    if _policy is not None:
        return _policy
    text = os.environ.get(ENV)
    return None if text is None else EndpointPolicy.parse(text)
