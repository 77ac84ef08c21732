"""The referee's own lateness, so that a bot is never charged for it.

The referee measures a bot's time on its event loop: from the moment a request is written to
the moment the loop reads the answer. When the loop is stalled (a CPU-bound neighbour, hundreds
of matches at once, a garbage collection), an answer that arrived in time sits unread until the
loop gets to it, and the loop's clock would charge the bot for the wait. A timeout must mean the
bot was slow, so the referee measures its own stalls and takes them off.

:class:`LagMonitor` (one per event loop, running while remote players use the loop) schedules a
heartbeat every :data:`PERIOD` seconds. A heartbeat due at ``s`` that runs at ``h`` shows that
the loop could not run anything between ``s`` and ``h``: an answer arriving then could not have
been seen. Those intervals (when longer than :data:`TOLERANCE`, ordinary jitter) are kept for
:data:`KEEP` seconds; :meth:`LagMonitor.stalled` gives how much of a span they cover, and
:meth:`LagMonitor.hidden` those that can have kept an answer unread.

The clock (``referee.remote``) charges a bot ``elapsed - hidden(written, read, idle)``: the
stalls since the write, but only those of the loop's last busy stretch before the read, since it
last waited for input (``idle``: asyncio's selector blocked :data:`WAITED` or more, or found
nothing; at the latest until the timeout it was given: a select that returns later waited for
the interpreter, held by a thread beside the loop, and the rest is a stall, taken off whole:
when in it an answer came cannot be known, the loop's thread waiting for the interpreter all
along; a bot past its limit may pass by up to such a stall). An answer that
came before that moment would have been read then; so it came after, and only the stalls since
can have kept it unread (the backlog of a long stall is read in the busy iterations that follow
it, which a heartbeat on time now and then does not end, and gRPC hands it over through an event
that is there at once). A stall while the bot was still
thinking, the loop waiting after it, delayed nothing: it is the bot's time. (Every stall since the
write came off until an outside probe's bots, 15 ms past a hard 200 ms limit, were let through
411 times at 64 matches a process, and one thinking 219 ms was charged 53 on a loaded machine;
the stall the loop was in at the read alone, joined heartbeat after heartbeat, left 256 matches
of 20 ms bots with hundreds of timeouts: answers that came in a 170 ms stall were read 80 ms
after it; taking a select that found its events within half a millisecond for a wait left a
few, gRPC's hand-over.) A loop that never waited since the write (busy) is lenient, as before: a
bot past its limit by less than the stalls of its think may pass (``bench.bench_clock_fairness``:
about 4% at 64 matches on a 2-core machine); a loop whose selector cannot be watched (not
asyncio's own) counts every stall since the write. Before calling a timeout or charging time
beyond the limit the clock lets the loop catch up (:meth:`settle`: a heartbeat newer than now
has run, so every stall up to now is on record and any answer that came during it has been
read). The error is in the bot's favour, but for an answer handed over while a thread beside the
loop holds the interpreter (up to 12 ms against the bot in ``bench.bench_clock_fairness
--neighbour``); admission control (:meth:`admit`) keeps new matches from starting on a loop that
is already stalled.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from typing import Any

PERIOD = 0.005
"""Seconds between heartbeats."""
TOLERANCE = 0.002
"""Heartbeat lateness below this is ordinary jitter, not a stall."""
KEEP = 600.0
"""Seconds of stall history kept (longer than any decision's limit + bank + grace)."""
WAITED = 0.002
"""A select that blocked this long waited for its events (they were not a backlog)."""
ADMIT_LAG = 0.050
"""A loop whose last heartbeat was later than this is overloaded: new matches wait."""


class LagMonitor:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.stalls: deque[tuple[float, float]] = deque()  # (from, to), loop time, in order
        self.users = 0
        self.lag = 0.0  # lateness of the last heartbeat
        self._timer: asyncio.TimerHandle | None = None
        self._waiters: list[tuple[float, asyncio.Future[None]]] = []
        self._calm: asyncio.Event | None = None
        self.idle_at: float | None = None
        """Loop time the loop last waited for input (None: its selector cannot be watched)."""
        self._watch_idle()

    def _watch_idle(self) -> None:
        # asyncio's selector loops ask their selector to block (a timeout other than 0) only
        # when nothing is ready: the moment the loop has done everything handed to it. No
        # public hook tells it, so the selector's select is wrapped (one call an iteration).
        selector = getattr(self.loop, "_selector", None)
        select = getattr(selector, "select", None)
        if select is None:
            return
        loop = self.loop

        def watched(timeout: float | None = None) -> Any:
            if timeout == 0:
                return select(timeout)
            asked = loop.time()
            events = select(timeout)
            now = loop.time()
            # Waited: nothing came, or it came while the loop waited. Events there at once are
            # the backlog of a stall (gRPC hands answers over through such an event): not idle.
            if not events or now - asked >= WAITED:
                # The call also holds the wait for the interpreter after the selector returned
                # (a thread beside the loop in one long C call: json, a collection): the selector
                # returned by its timeout at the latest, and the rest is a stall, which the
                # heartbeat records and an answer that came in it must not be charged.
                self.idle_at = now if timeout is None else min(now, asked + timeout)
            return events

        selector.select = watched  # type: ignore[union-attr]
        self.idle_at = loop.time()  # (before the first wait: nothing was read yet)

    # -- lifetime: beats only while someone uses the loop ------------------------------------

    def acquire(self) -> None:
        self.users += 1
        if self._timer is None:
            self._schedule(self.loop.time())

    def release(self) -> None:
        self.users = max(0, self.users - 1)
        if self.users == 0 and self._timer is not None and not self._waiters:
            self._timer.cancel()
            self._timer = None

    def _schedule(self, now: float) -> None:
        due = now + PERIOD
        self._timer = self.loop.call_at(due, self._beat, due)

    def _beat(self, due: float) -> None:
        now = self.loop.time()
        self.lag = now - due
        if self.lag > TOLERANCE:
            self.stalls.append((due, now))
        while self.stalls and self.stalls[0][1] < now - KEEP:
            self.stalls.popleft()
        if self._waiters:
            ready = [w for w in self._waiters if w[0] <= due]
            self._waiters = [w for w in self._waiters if w[0] > due]
            for _, waiter in ready:
                if not waiter.done():
                    waiter.set_result(None)
        if self._calm is not None and self.lag <= ADMIT_LAG:
            self._calm.set()
            self._calm = None
        if self.users or self._waiters:
            self._schedule(now)
        else:
            self._timer = None

    # -- what the clock asks --------------------------------------------------------------

    def stalled(self, start: float, end: float) -> float:
        """Seconds of [start, end] during which the loop was stalled (could not read anything)."""
        total = 0.0
        for low, high in reversed(self.stalls):
            if high <= start:
                break
            if low < end:
                total += min(high, end) - max(low, start)
        return max(0.0, total)

    def hidden(self, start: float, read: float, idle: float | None) -> float:
        """Seconds of [start, read] the loop was stalled in its last busy stretch before
        ``read``: since ``idle``, the moment it last waited for input before the read (None: not
        known, every stall since ``start``). How late it may have read something that arrived
        in that time; what came before ``idle`` was read by then."""
        return self.stalled(start if idle is None else max(start, idle), read)

    async def settle(self) -> None:
        """Return once a heartbeat due after now has run: every stall up to now is on record,
        and the loop has had the iterations to read whatever arrived before."""
        now = self.loop.time()
        waiter = self.loop.create_future()
        self._waiters.append((now, waiter))
        if self._timer is None:
            self._schedule(now)
        await waiter
        # One more turn of the loop: an answer whose read completed with that heartbeat is
        # handed to its reader task in the next iteration.
        for _ in range(3):
            await asyncio.sleep(0)

    async def admit(self) -> None:
        """Wait while the loop is overloaded (its last heartbeat later than ADMIT_LAG)."""
        while self._timer is not None and self.lag > ADMIT_LAG:
            if self._calm is None:
                self._calm = asyncio.Event()
            await self._calm.wait()


_monitors: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LagMonitor] = weakref.WeakKeyDictionary()


def monitor() -> LagMonitor:
    """The running loop's monitor."""
    loop = asyncio.get_running_loop()
    found = _monitors.get(loop)
    if found is None:
        found = _monitors[loop] = LagMonitor(loop)
    return found
