"""Many remote-bot matches at once in one worker process.

A Celery pool process runs one task at a time; a batch of remote-bot matches would play them
one after the other, each mostly waiting on its bots. Here the batch's matches run as
coroutines on the process's event loop (:mod:`referee.aioloop`, made after the fork, in the
pool process: no gRPC object crosses a fork), up to ``per_process`` at once
(``arena worker --matches-per-process K``, ``ARENA_MATCHES_PER_PROCESS``; default 64).

The pool process's own thread keeps every blocking duty off the loop, so no bot is ever charged
for the platform's waits: it takes the per-bot leases (the Redis lease semaphore bounds what
one bot receives across all workers; all of a match's leases or none, so matches cannot
deadlock on each other's bots), renews them, checks the cancel flag, stores records
(:func:`workers.tasks.patiently` may wait out a Redis restart) and reports the batch alive.
The loop only plays. A match whose bot has no free lease waits without blocking the others (a
bot that is busy is asked again after ``LEASE_POLL_SECONDS``; this process never asks Redis for
more leases of a bot than the bot's limit). A match gives back a bot's lease as soon as every
seat of the bot in it has forfeited (the loop says so; this thread releases it): a dead or
refusing endpoint does not hold one of the bot's slots while the match plays on without it.
Matches with built-in bots only are played right here, synchronously, between the remote matches' events.

Keeping K slots busy: a batch ends with its slowest match, so when nothing of its own is left
to start and slots are free, the task asks for more (``steal``: the tournament's lowest queued
batch, taken over in Redis; see ``referee/store.py``), for a limited time (``steal_seconds``)
after which it plays out what it holds and returns to the queue, where other tournaments wait.

Cancel: the batch's cancel check sets a flag that every running match polls (the runner's
cancel hook), so each running match tells its bots ``abort`` (verdict ``cancelled``) within
about a second and is not stored; no further match starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any

from arena.engine import Game
from arena.hooked_player import HookedPlayer
from arena.record import MatchRecord
from arena.registry import get_game
from arena.runner import MatchCancelled
from arena.tournament import (
    MatchSpec,
    TournamentSpec,
    entrant_bot,
    play_scheduled,
    play_scheduled_async,
    remote_endpoints,
)
from referee import aioloop
from referee.hosted import versions as hosted_versions
from referee.players import make_player
from referee.remote import is_remote
from referee.store import Store

log = logging.getLogger(__name__)


def owners_caps(store: Store, spec: TournamentSpec) -> Callable[[str], int]:
    """An endpoint's cap set by its bots' owners (``max_matches`` of the registered bots served
    there, the lowest; 0: none), read from their registrations when asked (an owner may change
    it while the tournament runs)."""
    names: dict[str, set[str]] = {}
    for bot in spec.bots:
        if is_remote(address := spec.address(bot)):
            names.setdefault(address, set()).add(entrant_bot(bot))

    def cap(endpoint: str) -> int:
        registered = (store.bot(name) for name in sorted(names.get(endpoint, ())))
        caps = [int(data.get("max_matches") or 0) for data in registered if data is not None]
        return min((c for c in caps if c > 0), default=0)

    return cap


def registered_keys(store: Store, spec: TournamentSpec, match: MatchSpec) -> dict[str, str]:
    """The endpoint key of each remote seat's registered bot (entrant -> key), read as the match
    is about to start, and only while the registration still names the address the tournament
    dials: a tournament created before its owner moved the bot dials the old address, which may
    be anyone's now, and no proof of the owner's key may go there."""
    keys: dict[str, str] = {}
    for entrant in {spec.bots[b] for b in match.seats}:
        address = spec.address(entrant)
        data = store.bot(entrant_bot(entrant)) if is_remote(address) else None
        if data is not None and data.get("endpoint_key") and data.get("endpoint") == address:
            keys[entrant] = str(data["endpoint_key"])
    return keys


async def play_remote(
    spec: TournamentSpec,
    game: Game,
    match: MatchSpec,
    stop: threading.Event,
    bound: tuple[float, str],
    keys: dict[str, str],
    tournament_id: str = "",
    released: Callable[[str], None] | None = None,
) -> MatchRecord:
    """One scheduled match on the event loop: :func:`arena.tournament.play_scheduled_async`
    with the referee's players (a registered bot's with its endpoint's key, ``keys``), the
    batch's stop flag and the match's bound. ``released(endpoint)`` hears, on the loop, when
    every seat of the match on a remote endpoint has forfeited: the match sends it nothing
    more, so its lease can go back (a refused or dead endpoint no longer holds one of the
    bot's slots while the rest of the match plays)."""
    seconds, text = bound
    entrants = [spec.bots[b] for b in match.seats]
    # A hosted seat keeps its output under TOURNAMENT:MATCH, read from this thread when the
    # player is made (the loop's thread, not the batch's, which said so: workers.tasks).
    hosted_versions.playing(tournament_id)
    players: list[Any] = [make_player(spec.address(e), spec.game, keys.get(e)) for e in entrants]
    if released is not None:
        players = _releasing(players, [spec.address(e) for e in entrants], released)
    return await play_scheduled_async(
        spec, match, players, game, cancelled=stop.is_set, match_seconds=seconds, match_bound=text
    )


def _releasing(players: list[Any], addresses: list[str], released: Callable[[str], None]) -> list[Any]:
    """The players, each remote one hooked to count its seat out when it forfeits (once; a
    cancel aborts every seat again); ``released(endpoint)`` once no seat of it is left."""
    seated = Counter(a for a in addresses if is_remote(a))
    gone: set[int] = set()
    wrapped = list(players)

    def forfeited(seat: int, address: str, verdict: str, reason: str) -> None:
        if seat in gone:
            return
        gone.add(seat)
        seated[address] -= 1
        if seated[address] == 0:
            released(address)

    for seat, address in enumerate(addresses):
        if is_remote(address):
            wrapped[seat] = HookedPlayer(players[seat], on_abort=partial(forfeited, seat, address))
    return wrapped


CAP_SECONDS = 5.0
"""How long a bot's own cap (its owner's ``max_matches``), as read, is used before it is read
again: an owner who lowers it sees new matches held to it within seconds."""


class Leases:
    """This process's leases on remote bots (see the module docstring). A bot's limit is the
    tournament's ``bot_concurrency``, or its owner's cap (``caps``: the endpoint's ``max_matches``,
    0 for none) where that is lower: the lease set is the endpoint's across every tournament, so
    the owner's cap holds across all of them."""

    def __init__(
        self,
        store: Store,
        limit: int,
        patiently: Callable[..., Any],
        lease_seconds: float,
        poll: float,
        caps: Callable[[str], int] = lambda endpoint: 0,
    ):
        self.store = store
        self.limit = limit
        self.patiently = patiently
        self.lease_seconds = lease_seconds
        self.poll = poll
        self.caps = caps
        self.limits: dict[str, tuple[float, int]] = {}  # endpoint -> (when read, its limit)
        self.held: Counter[str] = Counter()
        self.busy_until: dict[str, float] = {}
        self.live: dict[int, list[tuple[str, str]]] = {}  # match index -> its leases
        self.lost: set[str] = set()  # leases renew could not take again (warned once each)

    def limit_of(self, endpoint: str) -> int:
        now = time.monotonic()
        read = self.limits.get(endpoint)
        if read is None or now - read[0] >= CAP_SECONDS:
            cap = self.patiently(self.caps, endpoint)
            read = self.limits[endpoint] = (now, min(self.limit, cap) if cap > 0 else self.limit)
        return read[1]

    def take(self, index: int, endpoints: list[str]) -> bool:
        now = time.monotonic()
        if any(self.held[e] >= self.limit_of(e) or self.busy_until.get(e, 0.0) > now for e in endpoints):
            return False
        taken: list[tuple[str, str]] = []
        for endpoint in endpoints:
            lease = self.patiently(self.store.acquire, endpoint, self.limit_of(endpoint), self.lease_seconds)
            if lease is None:
                self.busy_until[endpoint] = now + self.poll
                for held in taken:
                    self.patiently(self.store.release, *held)
                return False
            taken.append((endpoint, lease))
        for endpoint, _ in taken:
            self.held[endpoint] += 1
        self.live[index] = taken
        return True

    def give_back_one(self, index: int, endpoint: str) -> None:
        """Give back a running match's lease on one endpoint (every seat of it forfeited)."""
        leases = self.live.get(index, [])
        for held in leases:
            if held[0] == endpoint:
                leases.remove(held)
                self.held[endpoint] -= 1
                self.lost.discard(held[1])
                self.patiently(self.store.release, *held)
                return

    def give_back(self, index: int) -> None:
        for endpoint, lease in self.live.pop(index, []):
            self.held[endpoint] -= 1
            self.lost.discard(lease)
            self.patiently(self.store.release, endpoint, lease)

    def renew(self, errors: tuple[type[BaseException], ...]) -> None:
        """Extend every running match's leases. A lease that lapsed (this process could not
        renew it in time) or vanished (Redis restarted empty) is taken again where the bot has
        room; where it has none the match plays on (stopping it would forfeit healthy bots),
        beyond the bot's limit until it ends, and the operator is told once."""
        for index, leases in self.live.items():
            for endpoint, lease in leases:
                held = True
                with contextlib.suppress(*errors):
                    held = self.store.renew(endpoint, lease, self.lease_seconds, self.limit_of(endpoint))
                if held:
                    self.lost.discard(lease)
                elif lease not in self.lost:
                    self.lost.add(lease)
                    log.warning(
                        "match %d: its lease on %s lapsed and the bot's %d slots were taken "
                        "meanwhile; the match plays on beyond the bot's limit until it ends",
                        index,
                        endpoint,
                        self.limit_of(endpoint),
                    )


def _done(finished: queue.SimpleQueue[int], index: int, _: object) -> None:
    finished.put(index)


def _put(freed: queue.SimpleQueue[tuple[int, str]], index: int, endpoint: str) -> None:
    freed.put((index, endpoint))


def play_concurrently(
    store: Store,
    tournament_id: str,
    spec: TournamentSpec,
    plan: Sequence[MatchSpec],
    todo: list[int],
    *,
    per_process: int,
    on_record: Callable[[int, MatchRecord], None],
    tick: Callable[[], None],
    steal: Callable[[], list[int] | None],
    steal_seconds: float,
    running_metric: Callable[[], contextlib.AbstractContextManager[None]],
    patiently: Callable[..., Any],
    errors: tuple[type[BaseException], ...],
    bound: tuple[float, str],
    lease_seconds: float,
    lease_poll: float,
    cancel_check: float,
    flush_seconds: float,
) -> bool:
    """Play ``todo`` (match indices), up to ``per_process`` remote matches at once; hand each
    record to ``on_record`` (in this thread) and call ``tick`` often (flushes, heartbeats).
    While slots are free and nothing waits, for ``steal_seconds`` from the start, ``steal``
    is asked for more matches (None: none now). Returns True if the tournament was cancelled
    meanwhile."""
    game = get_game(spec.game)
    loop = aioloop.get_loop()
    finished: queue.SimpleQueue[int] = queue.SimpleQueue()
    freed: queue.SimpleQueue[tuple[int, str]] = queue.SimpleQueue()  # (match, endpoint) all of whose seats forfeited
    stop = threading.Event()
    leases = Leases(store, spec.bot_concurrency, patiently, lease_seconds, lease_poll, owners_caps(store, spec))
    running: dict[int, Future[MatchRecord]] = {}
    metered: dict[int, contextlib.AbstractContextManager[None]] = {}  # each running match's gauge
    waiting = list(todo)
    cancelled = False
    began = checked = renewed = time.monotonic()
    asked = 0.0  # when steal last found nothing

    def collect(index: int) -> None:
        nonlocal cancelled
        future = running.pop(index)
        metered.pop(index).__exit__(None, None, None)
        leases.give_back(index)
        try:
            record = future.result()
        except MatchCancelled:
            cancelled = True
            return
        on_record(index, record)

    try:
        while (waiting and not cancelled) or running:
            now = time.monotonic()
            if now - checked >= cancel_check:
                checked = now
                if not cancelled and patiently(store.is_cancelled, tournament_id):
                    cancelled = True
                    stop.set()
            while not freed.empty():  # before renewing: a forfeited seat's lease is not kept
                leases.give_back_one(*freed.get_nowait())
            if now - renewed >= lease_seconds / 3:
                renewed = now
                leases.renew(errors)
            if (
                not cancelled
                and not waiting
                and len(running) < per_process
                and now - began < steal_seconds
                and now - asked >= lease_poll * 10
            ):
                more = steal()
                if more is None:
                    asked = now
                else:
                    waiting = more
            if not cancelled:
                left = []
                for index in waiting:
                    if cancelled or len(running) >= per_process:
                        left.append(index)
                        continue
                    match = plan[index]
                    endpoints = remote_endpoints(spec, match)
                    if not endpoints:  # built-in bots only: played here, at once
                        try:
                            with running_metric():
                                record = play_scheduled(spec, match, make_player, game, cancelled=stop.is_set)
                        except MatchCancelled:
                            cancelled = True
                            continue
                        on_record(index, record)
                        continue
                    if not leases.take(index, endpoints):
                        left.append(index)
                        continue
                    metered[index] = gauge = running_metric()
                    gauge.__enter__()
                    future = asyncio.run_coroutine_threadsafe(
                        play_remote(
                            spec,
                            game,
                            match,
                            stop,
                            bound,
                            patiently(registered_keys, store, spec, match),
                            tournament_id,
                            partial(_put, freed, index),
                        ),
                        loop,
                    )
                    future.add_done_callback(partial(_done, finished, index))
                    running[index] = future
                waiting = left
            tick()
            if not running:
                if waiting and not cancelled:
                    time.sleep(lease_poll)  # every match waits for a lease
                continue
            try:
                index = finished.get(timeout=lease_poll if waiting and not cancelled else flush_seconds)
            except queue.Empty:
                continue
            collect(index)
            while True:
                try:
                    collect(finished.get_nowait())
                except queue.Empty:
                    break
    finally:
        if running:  # an error here (not a bot's: those are results): stop what still plays
            stop.set()
            for index, future in list(running.items()):
                with contextlib.suppress(Exception):
                    future.result(timeout=30)
                running.pop(index, None)
                metered.pop(index).__exit__(None, None, None)
                with contextlib.suppress(*errors):
                    leases.give_back(index)
    return cancelled
