"""The SDK's ``Bot.history``: every event of the match so far, in order, whenever it is read,
though a request's events are only added to it when it is read (in-process and served)."""

from __future__ import annotations

from arena.games.skyfive import GAME
from arena.runner import play_match
from arena.v1 import bot_pb2
from bots import serve
from bots.random_bot import RandomBot
from bots.sdk import Bot, Turn
from referee.remote import RemotePlayer


class Reader(RandomBot):
    """Reads its history every ``every`` decisions and checks it against the events it was
    sent, counted by itself from each turn's own events."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = every
        self.sent: list[tuple[int, str, str]] = []
        self.reads: list[int] = []
        self.decisions = 0

    def choose(self, turn: Turn) -> str:
        self.sent.extend((e.index, e.kind, e.text) for e in turn.events)
        self.decisions += 1
        if self.decisions % self.every == 0:
            history = turn.history if self.decisions % 2 else self.history
            assert [(e.index, e.kind, e.text) for e in history] == self.sent
            self.reads.append(len(history))
        return super().choose(turn)


def _keys(events: object) -> list[tuple[int, str, str]]:
    return [(e.index, e.kind, e.text) for e in events]  # type: ignore[attr-defined]


def test_history_holds_every_event_in_order_when_read_in_process() -> None:
    readers = [Reader(every=3), Reader(every=1)]
    record = play_match(GAME, GAME.config(2), 7, readers)
    for reader in readers:
        assert reader.reads and reader.reads == sorted(reader.reads)  # it only grows
        # The finish's events are added too; the indices run on without a gap or a repeat.
        indices = [e.index for e in reader.history]
        assert indices == list(range(len(indices))) and len(indices) > len(reader.sent)
    assert len(record.decisions) > 10


def test_a_history_never_read_is_complete_when_read_at_the_end() -> None:
    quiet, reader = Reader(every=10**9), Reader(every=1)
    play_match(GAME, GAME.config(2), 3, [quiet, reader])
    assert quiet.reads == []
    assert _keys(quiet.history)[: len(quiet.sent)] == quiet.sent
    assert quiet._unread == []  # read once: nothing is left waiting


def test_a_new_match_starts_an_empty_history_and_an_assigned_one_is_kept() -> None:
    bot = Reader(every=1)
    play_match(GAME, GAME.config(2), 3, [bot, RandomBot()])
    first = list(bot.history)
    bot.sent = []
    bot.decisions = 0
    play_match(GAME, GAME.config(2), 4, [bot, RandomBot()])  # start() resets it
    assert bot.history and _keys(bot.history)[0][0] == 0 and bot.history != first

    class Assigning(Bot):
        def on_start(self, start: bot_pb2.MatchStart) -> None:
            self.history = [bot_pb2.Event(index=99, kind="mine")]

        def choose(self, turn: Turn) -> str:
            return turn.request.options[0].id

    assigning = Assigning()
    play_match(GAME, GAME.config(2), 5, [assigning, RandomBot()])
    assert assigning.history[0].index == 99 and assigning.history[1].index == 0


def test_a_turn_made_with_a_list_reads_that_list() -> None:
    events = [bot_pb2.Event(index=0, kind="k")]
    assert Turn(bot_pb2.DecisionRequest(), events).history is events


def test_a_served_bot_reads_the_same_history() -> None:
    made: list[Reader] = []

    def make() -> Reader:
        made.append(Reader(every=2))
        return made[-1]

    server = serve.start(make, "127.0.0.1:0")
    try:
        player = RemotePlayer(f"grpc://127.0.0.1:{server.port}")
        record = play_match(GAME, GAME.config(2), 11, [player, RandomBot()])
    finally:
        server.stop()
    assert not record.failures  # a failed check would have crashed the served bot
    served = [bot for bot in made if bot.decisions]
    assert len(served) == 1 and served[0].reads  # its checks ran on the server's loop, and passed
    assert [e.index for e in served[0].history] == list(range(len(served[0].history)))
