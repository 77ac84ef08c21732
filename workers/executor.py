"""The Celery executor: the same interface as the local one, matches played by Celery workers.

``run(spec, matches, on_record)`` records the tournament in the store, sends its first window
of batches and follows the store's event stream, handing each stored record to ``on_record``
as it lands (the local output directory fills exactly as in a local run). It never waits on
Celery results (their polling is slow and scales badly): progress is the store's own.

Attaching to a tournament that already exists in the store (same id: a resumed run) sends
nothing new: its window is already queued or playing.

Bounded queues: a tournament has at most ``window`` batches queued or running
(``ARENA_QUEUE_WINDOW``, default 16); each batch that finishes sends its successors (see
``referee/store.py``). The queue's length is O(window x running tournaments), whatever their
sizes, and tournaments take turns in it.

Lost batches. Kombu's Redis transport pops a message and then records it as unacknowledged in
two steps; if Redis goes away between them, the batch is neither queued, nor in flight, nor
done, and nothing would ever play it; a worker killed while it plays a batch leaves it
unacknowledged until the visibility timeout. :func:`requeue_missing` is the safety net: when a
tournament has made no progress for a while, its window (:meth:`Store.lost_batches`, a few
keys of its own, never the queue) says which batches were popped and never started, or stopped
reporting alive; those are sent again with a new sequence number (the old copy, should it come
back, is skipped as superseded; storing is idempotent anyway, so nothing can count twice). The
following client runs it after ``stall_seconds`` without progress; the referee service and
every worker node run it for every tournament they see stalled (:mod:`workers.sweeper`). A
tournament with every match stored and its window closed that has not ended lost its
finalisation (the message, or the worker that was to send it): the stall check sends it again
(finalisation is idempotent). A followed tournament that is no longer
in the store (``FLUSHALL``) ends the follow with :class:`TournamentGone`, one line.

Batch size: with remote bots ``ceil(matches / 16)`` up to 64 (a worker process plays them at
once, up to ``--matches-per-process``); with built-in bots ``ceil(matches / 16)`` (a window's
worth) capped at 500, so a batch runs long enough to dwarf the 4-5 ms a batch costs its process
in Celery and the store. ``--batch-size`` overrides.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from celery import Celery

from arena.config import ConfigError
from arena.executor import OnRecord, check_stop_signals
from arena.record import read_view
from arena.tallied import TallyEntry
from arena.tournament import MatchSpec, Schedule, TournamentSpec, schedule_size
from referee.store import ENDED, FOLLOW_RECORDS, Store
from workers import settings
from workers.app import QUEUE, make_app
from workers.tasks import (  # noqa: F401 (MAX_BATCH: re-exported)
    MAX_BATCH,
    STALE_SECONDS,
    auto_batch_size,
    patiently,
    send_batches,
    start_window,
)

log = logging.getLogger(__name__)

UNACKED = "unacked"  # kombu's Redis transport: delivered, not yet acknowledged messages
LAST_RECORDS = 1000  # the last records of a run are read as they land (no pause between reads)
HOLD_LIMIT = 20_000  # records a following client keeps waiting for an earlier one (InOrder)
READ_INTERVAL = 0.025
"""Seconds between two reads of a following client while more than ``LAST_RECORDS`` records are
still to come: records land in groups of about 50 a few milliseconds apart, and a read per
group cost the client more CPU than the records it brought; a pause gathers several groups
into one read. The last records are read as they land."""


def batches(indices: Sequence[int], size: int) -> list[list[int]]:
    return [list(indices[i : i + size]) for i in range(0, len(indices), size)]


def enqueue(
    app: Celery,
    store: Store,
    tournament_id: str,
    spec: TournamentSpec,
    size: int | None = None,
    window: int | None = None,
) -> int:
    """Fix a stored tournament's batching and send its first window; returns the batch count."""
    total = schedule_size(spec)
    return start_window(app, store, tournament_id, size or auto_batch_size(spec, total), window)


def batches_in_flight(store: Store, tournament_id: str) -> bool:
    """Whether a batch of this tournament is in its window (queued or running)."""
    return bool(store.redis.hlen(store.key("t", tournament_id, "inflight")))


def requeue_missing(app: Celery, store: Store, tournament_id: str, *, settle: float = 2.0) -> int:
    """Send again the lost batches of a running tournament (see the module docstring); returns
    how many. Judges twice, ``settle`` seconds apart, and sends only batches judged lost both
    times with the same entry, so a batch between its pop and its start is not mistaken for lost.
    Costs O(window) whatever the queue's length."""
    if not store.redis.hexists(store.key("t", tournament_id), "spec"):
        return 0  # gone from the store (the follower says so: TournamentGone)
    info = store.tournament(tournament_id)
    if info is None or info["status"] not in ("queued", "running") or info["cancelled"]:
        return 0
    if info["done"] >= info["total"] and not store.inflight(tournament_id):
        # Every match stored, the window closed, and still not finalised: the finalisation
        # message was lost (popped as Redis went away) or never sent. It is idempotent.
        log.warning("finalisation sent again (its message was lost)", extra={"tournament": tournament_id})
        patiently(app.send_task, "arena.finalize", [tournament_id])
        return 0
    if not store.redis.hexists(store.key("t", tournament_id), "size"):
        # Never planned: no window to find lost batches in. The service's one message for it
        # (arena.fan_out) may have been lost, popped as Redis went away or dropped after its
        # retries (an outside probe: queued for good, holding its owner's place). Judged twice,
        # as batches are; sent again, it is idempotent.
        if store.fan_out_lost(tournament_id, QUEUE):
            time.sleep(settle)
            if store.fan_out_lost(tournament_id, QUEUE):
                log.warning("fan-out sent again (its message was lost)", extra={"tournament": tournament_id})
                patiently(app.send_task, "arena.fan_out", [tournament_id])
        return 0
    first = store.lost_batches(tournament_id, QUEUE, STALE_SECONDS)
    if first:
        time.sleep(settle)
        second = store.lost_batches(tournament_id, QUEUE, STALE_SECONDS)
        lost = {number: entry for number, entry in second.items() if first.get(number) == entry}
    else:
        lost = {}
    sent = [batch for number, entry in sorted(lost.items()) if (batch := store.resend(tournament_id, number, entry))]
    if sent:  # an operator's only sign that a worker died mid-batch (the matches are played again)
        log.warning(
            "lost batches sent again (a worker died, or Redis dropped their messages)",
            extra={"tournament": tournament_id, "batches": len(sent)},
        )
    send_batches(app, tournament_id, sent)
    # A window that emptied with batches left (its last refill never ran): fill it again.
    send_batches(app, tournament_id, store.fill(tournament_id, source="stall-check"))
    return len(sent)


class TournamentGone(ConfigError):
    """The followed tournament is no longer in the store: nothing more will come (one line,
    exit 2, from the CLI)."""


class CeleryExecutor:
    def __init__(
        self,
        broker_url: str,
        tournament_id: str,
        *,
        batch_size: int | None = None,
        visibility_timeout: int | None = None,
        block_ms: int = 500,
        stall_seconds: float = 30.0,
        window: int | None = None,
    ) -> None:
        self.store = Store(broker_url)
        self.app = make_app(broker_url, visibility_timeout=visibility_timeout)
        self.tournament_id = tournament_id
        self.batch_size = batch_size
        # Read now: a bad ARENA_QUEUE_WINDOW stops the run before the tournament is created.
        self.window = window if window is not None else settings.queue_window()
        self.block_ms = block_ms
        self.stall_seconds = stall_seconds
        self.cancelled = False
        """Set when the run ended because the tournament was cancelled (run_tournament reads it)."""

    def run(self, spec: TournamentSpec, matches: Sequence[MatchSpec], on_record: OnRecord) -> None:
        total = schedule_size(spec)
        if patiently(self.store.create_tournament, self.tournament_id, spec, total, 0):
            enqueue(self.app, self.store, self.tournament_id, spec, self.batch_size, self.window)
        # A whole schedule is not walked for its indices (each match is computed when asked for).
        wanted = set(range(len(matches))) if isinstance(matches, Schedule) else {m.index for m in matches}
        self.follow(wanted, on_record, spec.bots)

    def exists(self) -> bool:
        """Whether the store still holds the tournament (a ``FLUSHALL`` empties it)."""
        return bool(self.store.redis.hexists(self.store.key("t", self.tournament_id), "spec"))

    def wait_finalised(self, timeout: float | None = None, interval: float = 0.05) -> bool:
        """Wait until the store holds the tournament's final status and board (the worker that
        stored the last match finalises it, a moment after the follow has every record); True
        once it does, False after ``timeout`` seconds (default twice the stall period). A
        client that returned before, with the store still saying ``running``, left a following
        ``arena tournament status`` or page to say so. Past one stall period the finalisation
        is sent again if its message was lost (:func:`requeue_missing`)."""
        began = time.monotonic()
        limit = 2 * self.stall_seconds if timeout is None else timeout
        resent = False
        while True:
            status = patiently(self.store.redis.hget, self.store.key("t", self.tournament_id), "status")
            if status is None:  # gone from the store: nothing will finalise it
                return False
            if status.decode() in ENDED and patiently(self.store.leaderboard, self.tournament_id) is not None:
                return True
            waited = time.monotonic() - began
            if waited >= limit:
                return False
            if not resent and waited >= self.stall_seconds:
                resent = True
                patiently(requeue_missing, self.app, self.store, self.tournament_id)
            check_stop_signals()
            time.sleep(min(interval, max(0.0, limit - waited)))

    def follow(self, wanted: set[int], on_record: OnRecord, bots: Sequence[str] | None = None) -> None:
        """Hand over each wanted record as it is stored, in schedule order (:class:`InOrder`);
        return when all are in, or the tournament was cancelled and nothing more arrives.
        ``bots``: the tournament's, so each record comes with the tally entry its worker sent
        (:mod:`arena.tallied`) where there is one."""
        cursor = "0"
        received = 0  # records read (a stored index whose record is gone by the read is not)
        quiet_since = checked = time.monotonic()
        told_parked = False
        in_order = InOrder(wanted, on_record)
        follow_lines = self.store.follow_lines
        while wanted:
            check_stop_signals()  # a Ctrl-C swallowed somewhere still stops a follower with no worker
            # The records with their events: whole stores, about a thousand records a read.
            cursor, indices, lines, entries = patiently(
                follow_lines, self.tournament_id, cursor, self.block_ms, FOLLOW_RECORDS, bots
            )
            fresh = [i for i in indices if i in wanted]
            wanted.difference_update(fresh)
            if len(fresh) < len(indices):  # some were handed over before (a resumed run)
                lines = {i: lines[i] for i in fresh if i in lines}
                entries = {i: entries[i] for i in fresh if i in entries}
            received += len(lines)
            if fresh and in_order.add(lines, entries):
                patiently(self.store.stop, self.tournament_id)
                return
            if indices:
                quiet_since = time.monotonic()
                if len(wanted) > LAST_RECORDS:  # the last records are read as they land
                    time.sleep(READ_INTERVAL)
                continue
            now = time.monotonic()
            if now - quiet_since > 2.0 and not patiently(self.exists):
                # The records held back for an earlier one are kept too: the store has none now
                # (they were lost, 631 of the 710 "kept" on disk, the run left "running").
                in_order.flush()
                raise TournamentGone(
                    f"tournament {self.tournament_id} is gone from the store at {self.store.url} (was Redis "
                    f"flushed, or started without its data?); the {received} matches received are kept"
                )
            if now - quiet_since > 2.0 and patiently(self.store.is_cancelled, self.tournament_id):
                # Cancelled (nothing is stored after a cancel): the records so far are final.
                in_order.flush()
                info = patiently(self.store.tournament, self.tournament_id) or {}
                self.cancelled = info.get("status") == "cancelled"
                return
            if now - quiet_since > self.stall_seconds and now - checked > self.stall_seconds:
                checked = now
                patiently(requeue_missing, self.app, self.store, self.tournament_id)
                waiting = patiently(self.store.parked).get(self.tournament_id)
                if waiting is not None and not told_parked and not patiently(self.store.version_alive, *waiting):
                    told_parked = True  # once: the workers' versions do not change under a run
                    log.warning(
                        f"batches of tournament {self.tournament_id} wait for a worker of {waiting[0]} version "
                        f"{waiting[1]}: the workers on this broker play another version of it (run the same "
                        "Arena version on both sides, or cancel the tournament)"
                    )
        if in_order.flush():  # only if a stored record could not be read (expired)
            patiently(self.store.stop, self.tournament_id)


class InOrder:
    """Hands records over in schedule order. A record stored before an earlier one waits for
    it, as its line (and its tally entry, if its worker sent one): the store keeps every
    record, so a client that dies loses nothing it cannot read again. In order, the run
    directory needs no reordering at its end and the board's tally holds nothing back (with
    two worker processes both cost the client about 10 ms of a 1-second run). Past ``limit``
    waiting lines (a batch lost until the stall check sends it again, while the rest of the
    window plays on) the order is given up: everything waiting is handed over, and from then
    on each record as it comes."""

    def __init__(self, wanted: set[int], on_record: OnRecord, limit: int = HOLD_LIMIT) -> None:
        self.order = sorted(wanted)
        self.next = 0  # self.order[self.next] is the record to hand over next
        self.waiting: dict[int, str] = {}
        self.entries: dict[int, TallyEntry] = {}  # of waiting records that have one
        self.on_record = on_record
        self.limit = limit
        self.ordered = True

    def add(self, lines: dict[int, str], entries: dict[int, TallyEntry] | None = None) -> bool:
        """Take stored records (index -> line, and index -> tally entry for those that have
        one; entries of other records are ignored); True once ``on_record`` has asked to stop."""
        entries = entries or {}
        if not self.ordered:
            return self._hand(list(lines.items()), entries)
        waiting, order = self.waiting, self.order
        if not waiting and list(lines) == order[self.next : self.next + len(lines)]:
            # The next records in order, as they usually come: handed over without waiting.
            self.next += len(lines)
            return self._hand(list(lines.items()), entries)
        waiting.update(lines)
        if entries:
            self.entries.update(entries)
        ready = []
        while self.next < len(order) and (line := waiting.pop(index := order[self.next], None)) is not None:
            ready.append((index, line))
            self.next += 1
        if self._hand(ready, self.entries):
            return True
        if len(waiting) > self.limit:
            self.ordered = False
            return self.flush()
        return False

    def flush(self) -> bool:
        """Hand over every waiting record, in schedule order, gaps and all."""
        return self._hand([(index, self.waiting.pop(index)) for index in sorted(self.waiting)], self.entries)

    def _hand(self, lines: list[tuple[int, str]], entries: dict[int, TallyEntry]) -> bool:
        last = len(lines) - 1
        on_record, pop = self.on_record, entries.pop
        # What is tallied: the worker's entry, else the record's tallied parts (RecordView); the
        # line is what is written to disk.
        for i, (index, line) in enumerate(lines):
            entry = pop(index, None)
            if on_record(entry if entry is not None else read_view(line), line, i < last):
                return True
        return False
