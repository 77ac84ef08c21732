"""Accounts and authentication: owners with API tokens, checked on every call.

An operator creates owners (``arena admin create-owner NAME`` against Redis, or the
``CreateOwner`` call); each gets a random token, shown once. Only the token's SHA-256 is stored,
so a leaked Redis dump does not leak credentials. Clients send ``authorization: Bearer <token>``
metadata; the interceptor resolves it to an owner (held in a context variable for the handler)
or answers UNAUTHENTICATED. Health checks and server reflection need no token.
"""

from __future__ import annotations

import contextvars
import hashlib
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio

from referee.store import Store

OWNER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{1,31}$")
OPEN_METHODS = ("/grpc.health.v1.Health/", "/grpc.reflection.")
CACHE_SECONDS = 30.0


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
    if not OWNER_NAME.match(name):
        raise ValueError(f"owner name {name!r}: 2-32 of a-z 0-9 _ -, starting with a letter or digit")
    token = new_token()
    if not store.add_owner(name, operator, hash_token(token)):
        raise ValueError(f"owner {name!r} exists already")
    return token


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Resolves the bearer token to an owner before any handler runs."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[float, Caller | None]] = {}

    def caller(self, token: str) -> Caller | None:
        digest = hash_token(token)
        hit = self._cache.get(digest)
        if hit and time.monotonic() - hit[0] < CACHE_SECONDS:
            return hit[1]
        name = self.store.owner_of_token(digest)
        account = self.store.owner(name) if name else None
        found = Caller(name, bool(account.get("operator"))) if name and account else None
        self._cache[digest] = (time.monotonic(), found)
        return found

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        if details.method.startswith(OPEN_METHODS):
            return await continuation(details)
        metadata = dict(details.invocation_metadata or ())
        header = metadata.get("authorization", "")
        token = header[7:].strip() if isinstance(header, str) and header.lower().startswith("bearer ") else ""
        caller = self.caller(token) if token else None
        if caller is None:
            reason = "invalid token" if token else "missing token: send 'authorization: Bearer <token>' metadata"
            return _refuse(grpc.StatusCode.UNAUTHENTICATED, reason, await continuation(details))
        current_caller.set(caller)
        return await continuation(details)


def _refuse(code: grpc.StatusCode, message: str, handler: grpc.RpcMethodHandler | None) -> grpc.RpcMethodHandler:
    """A handler of the same shape as the real one that aborts at once."""

    async def abort_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(code, message)

    async def abort_stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(code, message)
        yield  # pragma: no cover - makes this an async generator

    deserializer = handler.request_deserializer if handler else None
    serializer = handler.response_serializer if handler else None
    if handler is not None and handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(abort_stream, deserializer, serializer)
    return grpc.unary_unary_rpc_method_handler(abort_unary, deserializer, serializer)
