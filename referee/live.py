"""Live tournament views shared by every watcher: one computation per update, whatever the
number of watchers.

For each tournament someone watches, one poller task follows the store's event stream, adds
each newly stored record once to a running :class:`arena.leaderboard.Tally` (records are not
kept: memory is O(bots²) per watched tournament, not O(matches x watchers)), and every
``poll`` seconds, if anything changed, builds one ``TournamentUpdate`` message. Watchers wait on
the newest version and send that same message (a slow watcher skips straight to the newest;
nothing queues up per watcher). The final update carries the published board (the full
Bradley–Terry fit with bootstrap intervals, stored at finalisation). The poller stops, and the
state is dropped, when the last watcher leaves.

Before: every watcher re-read every record on every poll and refitted the board from all of
them (200 watchers of a 600-match tournament took the service to 4.7 GB and its health check
to a p95 of 5.2 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from arena.leaderboard import Tally
from arena.record import read_view
from arena.tournament import TournamentSpec
from arena.v1 import arena_pb2
from referee import views
from referee.store import ENDED, Store

log = logging.getLogger("arena.service")

T = TypeVar("T")
Blocking = Callable[..., Awaitable[Any]]

CATCH_UP_READS = 50
"""Reads of the store (about 1,000 records each) between two updates of a live board: a board
that falls behind catches up over several updates, and its watchers hear from it meanwhile."""
FANOUT_CHUNK = 50
"""Watchers woken per turn of the event loop: between two chunks the loop serves other calls
(a health check waits for at most one chunk's writes, not a thousand)."""


FINAL_WAIT_SECONDS = 30.0
"""How long after a cancel or a stop a watcher waits for the published board (finalisation,
on a worker) before it takes the board of the matches so far as the last word."""


def has_ended(info: dict[str, Any], final_board: dict[str, Any] | None, now: float | None = None) -> bool:
    """Whether a watcher's update is the last: the tournament ended and its published board is
    stored. A cancelled or stopped tournament's board comes a moment after its status (its
    finalisation): the last update used to be the board so far, its intervals not the published
    ones and its warning saying they would be replaced; it waits for the board now, for
    :data:`FINAL_WAIT_SECONDS` (no worker may be left to finalise it)."""
    if info["status"] not in ENDED:
        return False
    if final_board is not None:
        return True
    if info["status"] == "complete":
        return False
    ended_at = float(info.get("ended") or 0.0)
    return (time.time() if now is None else now) - ended_at > FINAL_WAIT_SECONDS


class ShuttingDown(Exception):
    """The service is shutting down: watchers are told to watch again."""


def catch_up(store: Store, tournament_id: str, cursor: str, tally: Tally) -> str:
    """Add to ``tally`` what was stored after ``cursor`` (each record's tally entry as its worker
    sent it, else the record's tallied parts), in at most ``CATCH_UP_READS`` reads; the new
    cursor. Shared by the live boards and the web page."""
    for _ in range(CATCH_UP_READS):
        cursor, indices, lines, entries = store.follow_lines(tournament_id, cursor, 0, bots=tally.spec.bots)
        for index, line in lines.items():
            entry = entries.get(index)
            tally.add_entry(entry if entry is not None else tally.entry(read_view(line)))
        if not indices:
            break
    return cursor


class _Live:
    def __init__(self, tournament_id: str, spec: TournamentSpec) -> None:
        self.tournament_id = tournament_id
        self.tally = Tally(spec)
        self.cursor = "0"
        self.update: arena_pb2.TournamentUpdate | None = None
        self.version = 0
        self.final = False
        self.error: BaseException | None = None
        self.waiters: list[asyncio.Future[None]] = []
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None

    async def publish(
        self, update: arena_pb2.TournamentUpdate | None = None, *, error: BaseException | None = None
    ) -> None:
        if update is not None:
            self.update = update
            self.version += 1
            self.final = update.final
        if error is not None:
            self.error = error
        waiters, self.waiters = self.waiters, []
        for n, waiter in enumerate(waiters, 1):
            if not waiter.done():
                waiter.set_result(None)
            if n % FANOUT_CHUNK == 0:
                await asyncio.sleep(0)  # let the loop serve others between chunks


class LiveBoards:
    """The live views of the tournaments being watched (one per tournament)."""

    def __init__(self, store: Store, blocking: Blocking, shutting_down: asyncio.Event, poll: float) -> None:
        self.store = store
        self.blocking = blocking
        self.shutting_down = shutting_down
        self.poll = poll
        self.live: dict[str, _Live] = {}
        self.computations = 0  # boards built (for tests and the benchmark)

    async def watch(self, tournament_id: str, spec: TournamentSpec) -> AsyncIterator[arena_pb2.TournamentUpdate]:
        live = self.live.get(tournament_id)
        if live is None or live.error is not None:
            live = self.live[tournament_id] = _Live(tournament_id, spec)
            live.task = asyncio.get_running_loop().create_task(self._follow(live))
        live.watchers += 1
        seen = 0
        try:
            while True:
                if self.shutting_down.is_set():
                    raise ShuttingDown()
                if live.version > seen and live.update is not None:
                    seen = live.version
                    yield live.update
                    if live.final:
                        return
                    continue
                if live.error is not None:
                    raise live.error
                waiter = asyncio.get_running_loop().create_future()
                live.waiters.append(waiter)
                await waiter
        finally:
            live.watchers -= 1
            if live.watchers == 0 and self.live.get(tournament_id) is live:
                del self.live[tournament_id]
                if live.task is not None and not live.task.done():
                    live.task.cancel()

    async def _follow(self, live: _Live) -> None:
        tid = live.tournament_id
        sent = -1
        try:
            while True:
                live.cursor = await self.blocking(catch_up, self.store, tid, live.cursor, live.tally)
                info = await self.blocking(self.store.tournament, tid)
                if info is None:
                    raise LookupError(f"tournament {tid!r} is gone")
                final_board = None
                if info["status"] in ENDED:
                    final_board = await self.blocking(self.store.leaderboard, tid)
                ended = has_ended(info, final_board)
                if ended or live.tally.matches != sent:
                    board = final_board if ended and final_board else live.tally.board()
                    self.computations += 1
                    await live.publish(
                        arena_pb2.TournamentUpdate(
                            tournament=views.tournament(info),
                            leaderboard=views.leaderboard(board, tid, failures=ended),
                            final=ended,
                        )
                    )
                    sent = live.tally.matches
                if ended:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.shutting_down.wait(), self.poll)
                if self.shutting_down.is_set():
                    await live.publish()  # wake the watchers: they say "shutting down"
                    return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the store is down, say: every watcher gets the error
            log.warning("live view of %s stopped: %s", tid, exc)
            await live.publish(error=exc)
