"""Precise gRPC errors for the referee service.

Handlers raise :class:`ApiError`; the service turns it into a status with the right code, and
for INVALID_ARGUMENT a ``google.rpc.BadRequest`` detail naming the field. Anything else that
escapes a handler is logged with its traceback here and reaches the client as INTERNAL with an
incident id, never as a stack trace.
"""

from __future__ import annotations

import grpc
import redis
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

ECHO_CHARACTERS = 64
"""How much of a caller's input an error message repeats (see :func:`shown`)."""
MAX_MESSAGE = 2000
"""The longest error message (and field name) sent: a status travels in HTTP/2 trailers, which
gRPC caps at 16 KiB in all (the message is sent twice, as ``grpc-message`` and in the
``BadRequest`` detail), so a message repeating a long input whole once reached clients as
RESOURCE_EXHAUSTED ("received metadata size exceeds hard limit") instead of its own code."""


def shown(text: object, limit: int = ECHO_CHARACTERS) -> str:
    """A caller's input as an error message repeats it: quoted (``repr``), and cut to its first
    ``limit`` characters, saying how long it was, when it is longer."""
    value = str(text)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}…({len(value)} chars)"


def _clip(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else f"{text[: limit - 24]}…({len(text)} chars)"


class ApiError(Exception):
    def __init__(
        self, code: grpc.StatusCode, message: str, *, field: str | None = None, retry_after: float = 0
    ) -> None:
        message = _clip(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = None if field is None else _clip(field, 200)
        self.retry_after = retry_after

    def status(self) -> grpc.Status:
        details = []
        if self.field is not None:
            bad = error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=self.field, description=self.message)
                ]
            )
            packed = any_pb2.Any()
            packed.Pack(bad)
            details.append(packed)
        if self.retry_after:
            # The delay the message names, to the millisecond (never rounded up to a second).
            delay = duration_pb2.Duration()
            delay.FromMilliseconds(max(1, round(self.retry_after * 1000)))
            info = error_details_pb2.RetryInfo(retry_delay=delay)
            packed = any_pb2.Any()
            packed.Pack(info)
            details.append(packed)
        proto = status_pb2.Status(code=getattr(code_pb2, self.code.name), message=self.message, details=details)
        return rpc_status.to_status(proto)


STORE_DOWN = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
"""What the store raises while Redis is down or restarting."""
STORE_RETRY_SECONDS = 2.0


def store_unavailable() -> ApiError:
    return ApiError(
        grpc.StatusCode.UNAVAILABLE,
        f"the store is unavailable; retry in {STORE_RETRY_SECONDS:g}s",
        retry_after=STORE_RETRY_SECONDS,
    )


DETAILS_KEY = "grpc-status-details-bin"


def _rich_status(error: grpc.RpcError) -> status_pb2.Status | None:
    """The ``google.rpc.Status`` an error carries (client side), if it carries one for its own
    code. ``rpc_status.from_call`` raises ValueError when the two disagree, which happens when
    the transport replaced the server's status (e.g. RESOURCE_EXHAUSTED for trailers over the
    metadata limit): then the details belong to a status the client never got, and are None."""
    trailing = getattr(error, "trailing_metadata", None)
    metadata = trailing() if callable(trailing) else None
    for key, value in metadata or ():
        if key == DETAILS_KEY:
            try:
                found = status_pb2.Status.FromString(value)
            except DecodeError:  # not a Status: no details
                return None
            return found if found.code == error.code().value[0] else None
    return None


def retry_after(error: grpc.RpcError) -> float | None:
    """The RetryInfo delay of an error (client side), in seconds, if it has one."""
    status = _rich_status(error)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.ToMilliseconds() / 1000
    return None


def invalid(field: str, message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message, field=field)


def not_found(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.NOT_FOUND, message)


def exists(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.ALREADY_EXISTS, message)


def denied(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, message)


def precondition(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.FAILED_PRECONDITION, message)


def exhausted(message: str, retry_after: float) -> ApiError:
    """RESOURCE_EXHAUSTED; ``message`` may hold ``{delay}``, filled with the very delay the
    RetryInfo carries (to the millisecond)."""
    delay = max(0.001, round(retry_after, 3))
    return ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED, message.format(delay=f"{delay:g}s"), retry_after=delay)


def bad_request_field(error: grpc.RpcError) -> str | None:
    """The offending field of an INVALID_ARGUMENT error (client side), if it names one."""
    status = _rich_status(error)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return bad.field_violations[0].field if bad.field_violations else None
    return None
