"""One asyncio event loop per process, in a daemon thread, owning every grpc.aio object.

The match runner is synchronous (it is also used in-process, in process pools and in Celery
tasks); remote players are asynchronous at heart (a reader per stream, deadlines, many matches
at once). This module is the bridge: coroutines run on the loop thread and sync code waits on
their results. gRPC aio objects are created and used only on that thread (grpc.aio objects
must not cross threads).

Fork safety: the loop is created lazily and keyed by process id, so a forked child (a Celery
prefork worker) never touches its parent's loop or channels; it makes its own on first use.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_pid: int | None = None


def get_loop() -> asyncio.AbstractEventLoop:
    global _loop, _pid
    with _lock:
        if _loop is None or _pid != os.getpid():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="arena-grpc-loop", daemon=True)
            thread.start()
            _loop, _pid = loop, os.getpid()
        return _loop


CLEANUP_SECONDS = 5.0
"""How long an interrupted caller waits for the cancelled coroutine to tidy up (tell its bots)."""


def run(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run a coroutine on the loop thread and wait for its result (from any other thread).

    If the caller is interrupted (Ctrl-C, a timeout), the coroutine is cancelled too rather than
    left running on the loop (a match would go on playing nobody's match), and is given a few
    seconds to tidy up."""
    finished = threading.Event()

    async def tracked() -> T:
        try:
            return await coro
        finally:
            finished.set()

    future = asyncio.run_coroutine_threadsafe(tracked(), get_loop())
    try:
        return future.result(timeout)
    except BaseException:
        if not future.done():
            future.cancel()
            finished.wait(CLEANUP_SECONDS)
        raise
