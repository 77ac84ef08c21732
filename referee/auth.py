"""Accounts and authentication: owners with API tokens, checked on every call.

An operator creates owners (``arena admin create-owner NAME`` against Redis, or the
``CreateOwner`` call); each gets a random token, shown once. Only the token's SHA-256 is stored,
so a leaked Redis dump does not leak credentials. Clients send ``authorization: Bearer <token>``
metadata; the interceptor resolves it to an owner (held in a context variable for the handler)
or answers UNAUTHENTICATED. Health checks and server reflection need no token.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio

from referee.errors import STORE_DOWN, ApiError, exhausted, shown, store_unavailable
from referee.store import LookAlike, Store

log = logging.getLogger("arena.service")
TOKEN_TEXT = re.compile(r"[\x21-\x7e]{1,200}")
"""Printable ASCII without spaces: anything a client could send as a token we issued."""

OWNER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{1,31}")
"""An owner's name, matched whole (``fullmatch``: ``$`` would also match before a final newline)."""
OPEN_METHODS = ("/grpc.health.v1.Health/", "/grpc.reflection.")
CACHE_SECONDS = 30.0
CACHE_SIZE = 10_000
"""Tokens remembered (least recently used go first): a flood of made-up tokens costs no memory."""
REFUSED_RATE = 20.0
REFUSED_BURST = 100
"""Calls refused for their token, per client address: each costs a store lookup, so past this
rate a client's calls with tokens not seen before are refused before any lookup
(RESOURCE_EXHAUSTED with a retry delay). Tokens already known are never held back."""


@dataclass(frozen=True)
class Caller:
    name: str
    operator: bool


current_caller: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("arena_caller", default=None)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return "arena_" + secrets.token_urlsafe(32)


def create_owner(store: Store, name: str, operator: bool = False) -> str:
    """A new owner; returns its token. ValueError if the name is invalid or taken."""
    if not OWNER_NAME.fullmatch(name):
        raise ValueError(f"owner name {shown(name)}: 2-32 of a-z 0-9 _ -, starting with a letter or digit")
    token = new_token()
    try:
        if not store.add_owner(name, operator, hash_token(token)):
            raise ValueError(f"owner {name!r} exists already")
    except LookAlike as like:
        raise ValueError(
            f"owner {name!r} reads as {like.args[0]!r}, which exists already: names must differ in more than _ and -"
        ) from None
    return token


def new_owner_token(store: Store, name: str) -> tuple[str, int]:
    """A new token for an existing owner, every old one revoked (a service still takes an old one
    for up to CACHE_SECONDS); returns (the token, how many were revoked). ValueError if there
    is no such owner."""
    token = new_token()
    revoked = store.replace_tokens(name, hash_token(token))
    if revoked < 0:
        raise ValueError(f"no owner {shown(name)}")
    return token, revoked


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Resolves the bearer token to an owner before any handler runs."""

    def __init__(self, store: Store, *, refused_rate: float = REFUSED_RATE, refused_burst: int = REFUSED_BURST) -> None:
        self.store = store
        self._cache: OrderedDict[str, tuple[float, Caller | None]] = OrderedDict()
        self._refused_by_peer: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, last
        self.refused_rate = refused_rate
        self.refused_burst = refused_burst

    def caller(self, token: str) -> Caller | None:
        digest = hash_token(token)
        hit = self._cache.get(digest)
        if hit and time.monotonic() - hit[0] < CACHE_SECONDS:
            self._cache.move_to_end(digest)
            return hit[1]
        name = self.store.owner_of_token(digest)
        account = self.store.owner(name) if name else None
        found = Caller(name, bool(account.get("operator"))) if name and account else None
        if found is not None:  # unknown tokens are not remembered: they would fill the cache
            self._cache[digest] = (time.monotonic(), found)
            self._cache.move_to_end(digest)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return found

    def _known(self, token: str) -> bool:
        hit = self._cache.get(hash_token(token))
        return bool(hit and hit[1] is not None and time.monotonic() - hit[0] < CACHE_SECONDS)

    def _refusal_wait(self, peer: str) -> float:
        """0 if the peer's refused calls leave room for one more lookup, else the seconds to
        wait (a token bucket per client address, the least recently seen forgotten first)."""
        if self.refused_rate <= 0:
            return 0.0
        now = time.monotonic()
        tokens, last = self._refused_by_peer.get(peer, (float(self.refused_burst), now))
        tokens = min(float(self.refused_burst), tokens + (now - last) * self.refused_rate)
        self._refused_by_peer[peer] = (tokens, now)
        self._refused_by_peer.move_to_end(peer)
        while len(self._refused_by_peer) > CACHE_SIZE:
            self._refused_by_peer.popitem(last=False)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.refused_rate

    def _charge_refusal(self, peer: str) -> None:
        tokens, last = self._refused_by_peer.get(peer, (float(self.refused_burst), time.monotonic()))
        self._refused_by_peer[peer] = (tokens - 1.0, last)

    async def admit(self, header: object, peer: str) -> Caller | ApiError:
        """The caller of a call with this ``authorization`` value, or the error to answer."""
        scheme, _, value = header.partition(" ") if isinstance(header, str) else ("", "", "")
        token = value.strip() if scheme.lower() == "bearer" else ""
        known = bool(token) and self._known(token)
        if not known:
            wait = self._refusal_wait(peer)
            if wait:
                return exhausted("too many calls without a valid token: retry in {delay}", wait)
        if token and not TOKEN_TEXT.fullmatch(token):
            # Not a token this service could have issued (a tab, a space, a control character):
            # refused as such, without a lookup.
            self._charge_refusal(peer)
            return ApiError(grpc.StatusCode.UNAUTHENTICATED, "invalid token")
        try:
            caller = await asyncio.get_running_loop().run_in_executor(None, self.caller, token) if token else None
        except STORE_DOWN as exc:
            log.warning("store unavailable: %s", exc)
            return store_unavailable()
        if caller is None:
            self._charge_refusal(peer)
            reason = "invalid token" if token else "missing token: send 'authorization: Bearer <token>' metadata"
            return ApiError(grpc.StatusCode.UNAUTHENTICATED, reason)
        return caller

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        if details.method.startswith(OPEN_METHODS) or handler is None:
            return handler
        header = dict(details.invocation_metadata or ()).get("authorization", "")
        return _guarded(handler, lambda context: self.admit(header, _address(context.peer())))


def _address(peer: str) -> str:
    """The client's address without its port (``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``)."""
    return peer.rsplit(":", 1)[0] if peer.count(":") > 1 else peer


class _Malformed:
    """A request that did not decode (the handler answers INVALID_ARGUMENT)."""


MALFORMED = ApiError(grpc.StatusCode.INVALID_ARGUMENT, "malformed request: it does not decode as the method's message")


def _guarded(
    handler: grpc.RpcMethodHandler, admit: Callable[[grpc.aio.ServicerContext], Awaitable[Caller | ApiError]]
) -> grpc.RpcMethodHandler:
    """The handler, run only for an admitted caller (set in ``current_caller`` for it), and with
    a request that fails to decode answered INVALID_ARGUMENT, never UNKNOWN naming the
    decoder's exception class. Admission runs in the call (it needs the client's address)."""
    if handler.request_streaming and handler.response_streaming:
        raise ValueError("the Arena API has no bidirectional-streaming methods")
    decode = handler.request_deserializer

    def lenient(data: bytes) -> Any:
        if decode is None:
            return data
        try:
            return decode(data)
        except Exception:  # protobuf's DecodeError (or anything a decoder raises): the client's fault
            return _Malformed()

    async def check(request: Any, context: grpc.aio.ServicerContext) -> None:
        admitted = await admit(context)
        if isinstance(admitted, ApiError):
            await context.abort_with_status(admitted.status())
        assert isinstance(admitted, Caller)
        current_caller.set(admitted)
        if isinstance(request, _Malformed):
            await context.abort_with_status(MALFORMED.status())

    if handler.request_streaming:  # an upload (SubmitBotVersion): admitted before any piece is read
        upload: Any = handler.stream_unary

        async def receive(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            await check(None, context)

            async def pieces() -> Any:
                async for piece in request_iterator:
                    if isinstance(piece, _Malformed):
                        await context.abort_with_status(MALFORMED.status())
                    yield piece

            return await upload(pieces(), context)

        return grpc.stream_unary_rpc_method_handler(receive, lenient, handler.response_serializer)
    if handler.response_streaming:
        behaviour: Any = handler.unary_stream

        async def stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
            await check(request, context)
            async for item in behaviour(request, context):
                yield item

        return grpc.unary_stream_rpc_method_handler(stream, lenient, handler.response_serializer)
    unary: Any = handler.unary_unary

    async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await check(request, context)
        return await unary(request, context)

    return grpc.unary_unary_rpc_method_handler(call, lenient, handler.response_serializer)
