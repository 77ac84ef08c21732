"""Where a remote decision's time goes, leg by leg, against the echo's round trip.

Every process notes its moments on the machine's monotonic clock (the same clock in every
process on Linux), so a decision's period splits into:

* ``out``: from the referee starting to write a request to the bot reading it (gRPC's write,
  the kernel's loopback, the bot server's wake-up and read);
* ``bot``: from that read to the bot starting to write its answer (the SDK parsing the request,
  the bot's ``choose``, the answer's bytes);
* ``back``: from there to the answer's arrival in the referee (the stream's reader task
  reading it);
* ``handoff``: from that arrival to the waiting decision resuming with it (the reader task
  waking the match's coroutine). The echo's client reads in the coroutine that waits, so the
  echo's ``back`` ends where the match's ``handoff`` does: the match's transport is ``out``,
  ``back`` and ``handoff``;
* ``referee``: from there to the next request's write (checking the answer, the clock, the
  move, the record, the next request): the referee's own critical path.

The echo's round trip splits the same way (``out``, ``back`` through the echo server, and the
client's ``gap`` between round trips, nothing). A leg is the median over the run's decisions.
The servers note their moments when run with ``--marks FILE`` (``bench.first_bot``,
``bench.echo_server``), one JSON line per stream, written when the stream ends.
"""

from __future__ import annotations

import bisect
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from bots.serve import BotServicer
from referee.remote import RemotePlayer


def write_marks(path: str, marks: list[Any]) -> None:
    """Append one stream's marks to ``path`` (a JSON line)."""
    with open(path, "a") as f:
        f.write(json.dumps(marks) + "\n")


def read_marks(path: Path, streams: int, timeout: float = 5.0) -> list[Any]:
    """Every mark of ``path`` once ``streams`` streams have written theirs (they write as their
    stream ends, which the referee may see a moment before the file does)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= streams or time.monotonic() > deadline:
            return [mark for line in lines for mark in json.loads(line)]
        time.sleep(0.02)


class _MarkedContext:
    """A servicer context that notes when each message was read and each answer written."""

    def __init__(self, context: Any, marks: list[tuple[int, int]]) -> None:
        self._context = context
        self._marks = marks
        self._read = 0

    async def read(self) -> Any:
        data = await self._context.read()
        self._read = time.monotonic_ns()
        return data

    async def write(self, data: bytes) -> None:
        self._marks.append((self._read, time.monotonic_ns()))
        await self._context.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def marked_servicer(path: str) -> type[BotServicer]:
    """A :class:`bots.serve.BotServicer` noting, per stream, (read, answer written) for every
    message it answers, written to ``path`` when the stream ends."""

    class Marked(BotServicer):
        async def Play(self, request_iterator: object, context: Any) -> None:
            marks: list[tuple[int, int]] = []
            try:
                await super().Play(request_iterator, _MarkedContext(context, marks))
            finally:
                write_marks(path, marks)

    return Marked


class LegsPlayer(RemotePlayer):
    """A remote player noting, on the monotonic clock, when each request's write starts, when
    each answer arrived (the moment the referee's clock for the bot stops) and when the decision
    waiting for it resumed with it."""

    writes: ClassVar[list[int]] = []
    arrivals: ClassVar[list[int]] = []
    resumed: ClassVar[list[int]] = []
    _resumed_ns = 0  # when the last receive of this seat's stream returned

    @staticmethod
    def reset() -> None:
        LegsPlayer.writes, LegsPlayer.arrivals, LegsPlayer.resumed = [], [], []

    async def _start(self, message: Any) -> Any:
        outcome = await super()._start(message)
        stream = self._stream
        if stream is not None:
            # Wrapped here, on this bench's streams only: referee.remote's own path stays as it is.
            receive = stream.receive

            async def stamped(deadline: float) -> Any:
                item = await receive(deadline)
                self._resumed_ns = time.monotonic_ns()
                return item

            stream.receive = stamped  # type: ignore[method-assign]
        return outcome

    async def _send_request(self, data: bytes, request: Any) -> Any:
        LegsPlayer.writes.append(time.monotonic_ns())
        return await super()._send_request(data, request)

    def _charge(self, elapsed: float, option_id: str) -> Any:
        # elapsed runs from the write's start (_sent_at) to the answer's arrival, both loop time
        # (time.monotonic, the clock of every mark here); the answer came through the last receive.
        LegsPlayer.arrivals.append(round((self._sent_at + elapsed) * 1e9))
        LegsPlayer.resumed.append(self._resumed_ns)
        return super()._charge(elapsed, option_id)


def _median_us(values: list[int]) -> float:
    return round(statistics.median(values) / 1000, 1) if values else 0.0


def match_legs(
    writes: list[int], arrivals: list[int], resumed: list[int], bot_marks: list[tuple[int, int]]
) -> dict[str, float]:
    """The match's legs (µs, medians): each request's write, the bots' first read after it and
    that message's answer, the answer's arrival, the decision resuming with it, the next write."""
    reads = sorted(bot_marks)
    out, bot, back, handoff, referee, period = [], [], [], [], [], []
    for i, (written, arrived, woke) in enumerate(zip(writes, arrivals, resumed, strict=False)):
        j = bisect.bisect_left(reads, (written, 0))
        if j == len(reads) or reads[j][1] > arrived:
            continue  # no read between this write and its answer: not a decision's pair
        read, answered = reads[j]
        out.append(read - written)
        bot.append(answered - read)
        back.append(arrived - answered)
        handoff.append(woke - arrived)
        if i + 1 < len(writes):
            referee.append(writes[i + 1] - woke)
            period.append(writes[i + 1] - written)
    return {
        "out": _median_us(out),
        "bot": _median_us(bot),
        "back": _median_us(back),
        "handoff": _median_us(handoff),
        "referee": _median_us(referee),
        "period": _median_us(period),
        "decisions": len(period),
    }


def echo_legs(round_trips: list[tuple[int, int]], server_reads: list[int]) -> dict[str, float]:
    """The echo's legs (µs, medians): each round trip's write and read, the server's read of
    its message between them, the client's gap to the next write."""
    reads = sorted(server_reads)
    out, back, gap, period = [], [], [], []
    for i, (written, answered) in enumerate(round_trips):
        j = bisect.bisect_left(reads, written)
        if j == len(reads) or reads[j] > answered:
            continue
        out.append(reads[j] - written)
        back.append(answered - reads[j])
        if i + 1 < len(round_trips):
            gap.append(round_trips[i + 1][0] - answered)
            period.append(round_trips[i + 1][0] - written)
    return {
        "out": _median_us(out),
        "back": _median_us(back),
        "gap": _median_us(gap),
        "period": _median_us(period),
        "round_trips": len(period),
    }


def legs(
    play: Callable[[list[RemotePlayer]], object],
    echo: Callable[[], list[tuple[int, int]]],
    bots: list[str],
    bot_marks: Path,
    echo_marks: Path,
) -> dict[str, float]:
    """One match of ``LegsPlayer`` seats (``play``) against marked bot servers writing to
    ``bot_marks``, and ``echo()``'s round trips against marked echo servers writing to
    ``echo_marks``: both split into legs, flat (``legs_match_out_us``, ...)."""
    LegsPlayer.reset()
    play([LegsPlayer(bots[0]), LegsPlayer(bots[1])])
    pairs = [tuple(mark) for mark in read_marks(bot_marks, len(bots))]
    match = match_legs(LegsPlayer.writes, LegsPlayer.arrivals, LegsPlayer.resumed, pairs)
    round_trips = echo()
    reads = read_marks(echo_marks, 2)
    bare = echo_legs(round_trips, reads)
    report: dict[str, float] = {}
    for name, value in match.items():
        report[f"legs_match_{name}" + ("_us" if name != "decisions" else "")] = value
    for name, value in bare.items():
        report[f"legs_echo_{name}" + ("_us" if name != "round_trips" else "")] = value
    # What the transport costs the match beyond the echo's own legs, and what is the match's own.
    # The echo's back ends as its waiting coroutine resumes, so the match's back is matched by
    # its back and its hand-off; the echo's whole period counts as transport (its gap is its
    # client's loop, about a microsecond).
    report["legs_transport_beyond_echo_us"] = round(
        match["out"] + match["back"] + match["handoff"] - bare["out"] - bare["back"] - bare["gap"], 1
    )
    report["legs_referee_and_bot_us"] = round(match["referee"] + match["bot"], 1)
    return report
