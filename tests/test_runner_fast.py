"""The runner's common path: an in-process bot with lazy requests (every SDK bot), played in
the match loop itself. What it gives a bot, and what it records, is the general path's."""

from __future__ import annotations

from arena.chance import derive_seed
from arena.clock import clock_settings
from arena.games.rolldice.game import GAME
from arena.protocol import LazyStart, start_message
from arena.runner import ErrorPolicy, play_match
from arena.v1 import bot_pb2
from bots.random_bot import RandomBot
from bots.sdk import Turn


class Keeper(RandomBot):
    """The random bot, keeping its start message and the option views it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[object] = []
        self.views: list[object] = []

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self.started.append(message)
        return super().start(message)

    def choose(self, turn: Turn) -> str:
        self.views.extend(turn.request.options)
        return super().choose(turn)


def test_an_in_process_start_is_built_as_read_and_is_the_remote_message() -> None:
    bots = [Keeper(), Keeper()]
    play_match(GAME, GAME.config(2), 5, bots)
    # The default match id reaches every bot: not the seed ("rolldice-5" told a remote bot the deal).
    match_id = f"rolldice-{derive_seed(5, 'match-id') % 16**8:08x}"
    for seat, bot in enumerate(bots):
        (start,) = bot.started
        assert isinstance(start, LazyStart)
        assert (start.match_id, start.seat, start.bot_seed) == (match_id, seat, derive_seed(5, "bot", seat))
        expected = start_message(
            GAME,
            GAME.config(2),
            match_id=match_id,
            seat=seat,
            seat_names=["random", "random"],
            clock=clock_settings(),
            bot_seed=derive_seed(5, "bot", seat),
        )
        assert start.game_id == "rolldice" and start.players == 2  # read from the full message
        assert start.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)


def test_option_views_are_made_once_per_option_in_a_match() -> None:
    first, second = Keeper(), Keeper()
    play_match(GAME, GAME.config(2), 5, [first, RandomBot()])
    play_match(GAME, GAME.config(2), 6, [second, RandomBot()])
    # RollDice offers the same two Option objects at every decision: one view each per match.
    assert len(first.views) >= 4
    assert len({id(v) for v in first.views}) == 2
    assert {v.id for v in first.views} == {"stop", "reroll"}  # type: ignore[attr-defined]
    assert not {id(v) for v in first.views} & {id(v) for v in second.views}


def test_times_are_recorded_to_the_microsecond() -> None:
    record = play_match(GAME, GAME.config(2), 5, [RandomBot(), RandomBot()])
    assert record.decisions and all(d.ms >= 0 and round(d.ms, 3) == d.ms for d in record.decisions)
    assert record.ms > 0 and round(record.ms, 3) == record.ms


class Failing(RandomBot):
    """Plays randomly, except at its ``at``-th decision: raises or answers a non-option."""

    def __init__(self, at: int, how: str, *, read_now: bool = False, answer: str = "no-such-option") -> None:
        super().__init__()
        self.at = at
        self.how = how
        self.answer = answer
        self.read_now = read_now
        self.kept: list[bot_pb2.DecisionRequest] = []
        self.observed: list[bytes] = []  # the observation, read when asked (read_now)
        self.asked = 0

    def decide(self, request: bot_pb2.DecisionRequest) -> str:
        self.asked += 1
        if self.asked == self.at:
            self.kept.append(request)
            if self.read_now:
                self.observed.append(request.observation.SerializeToString())
            if self.how == "crash":
                raise KeyError("boom")
            return self.answer
        return super().decide(request)


def test_a_long_illegal_answer_is_quoted_cut_with_its_length_and_the_rest_of_the_detail() -> None:
    """A 60,000-character id: the detail was cut at 500 characters mid-quote, with no note of
    the length and without "not one of its N options" (an outside probe)."""
    bot = Failing(1, "illegal", answer="x" * 60_000)
    record = play_match(GAME, GAME.config(2), 5, [bot, RandomBot()], policy=ErrorPolicy("substitute", 3))
    (failure,) = record.failures
    assert failure.detail == f"answered '{'x' * 100}'…(60000 chars), not one of its 2 options"


def test_a_crash_forfeits_and_the_match_is_played_out_by_substitutes() -> None:
    bot = Failing(2, "crash")
    record = play_match(GAME, GAME.config(2), 5, [bot, RandomBot()])
    (failure,) = record.failures
    assert (failure.seat, failure.verdict, failure.detail) == (0, "crash", "KeyError: 'boom'")
    entry = record.decisions[failure.decision]
    assert (entry.seat, entry.by) == (0, "substitute")
    assert bot.asked == 2  # a forfeited seat is not asked again
    assert all(d.by == "substitute" for d in record.decisions[failure.decision :] if d.seat == 0)
    assert record.result["forfeited"] == [True, False] and record.result["ranks"] == [2, 1]
    # The request the bot kept still reads as it was made (sealed before the state moved on):
    # as the same request read at once, in the same match played again.
    (kept,) = bot.kept
    again = Failing(2, "crash", read_now=True)
    play_match(GAME, GAME.config(2), 5, [again, RandomBot()])
    assert kept.decision_index == failure.decision
    assert kept.observation.SerializeToString() == again.observed[0]
    assert GAME.observe(GAME.new_match(GAME.config(2), 5), 0).SerializeToString() not in again.observed


def test_an_illegal_answer_is_substituted_within_the_budget() -> None:
    bot = Failing(1, "illegal")
    policy = ErrorPolicy(on_error="substitute", budget=3)
    record = play_match(GAME, GAME.config(2), 5, [bot, RandomBot()], policy=policy)
    (failure,) = record.failures
    assert (failure.seat, failure.verdict) == (0, "illegal")
    assert failure.detail == "answered 'no-such-option', not one of its 2 options"
    assert record.decisions[failure.decision].by == "substitute"
    assert bot.asked > 1  # still playing: asked again after the substitute's choice
    assert record.result["forfeited"] == [False, False]
    assert [d.by for d in record.decisions].count("substitute") == 1


class Forwarding:
    """A wrapper that forwards every name it lacks to the player it wraps (as the service's
    challenge wrapper does)."""

    def __init__(self, player: object) -> None:
        self._player = player

    def __getattr__(self, name: str) -> object:
        return getattr(self._player, name)


def test_a_forwarding_wrapper_has_the_capabilities_of_the_player_it_wraps() -> None:
    from arena.runner import _capabilities
    from referee.remote import RemotePlayer

    remote = RemotePlayer("grpc://127.0.0.1:9", policy=None)
    assert _capabilities(remote).two_phase and _capabilities(remote).wire
    # Looked up twice: the first answer must not be cached for the wrapper's class.
    assert _capabilities(Forwarding(remote)) == _capabilities(remote)
    assert _capabilities(Forwarding(RandomBot())) == _capabilities(RandomBot())
    assert _capabilities(Forwarding(remote)) == _capabilities(remote)


class Aborted(Failing):
    """A failing bot that notes when it is told it forfeits."""

    def __init__(self, at: int, heard: list[str]) -> None:
        super().__init__(at, "crash")
        self.heard = heard

    def abort(self, verdict: str, reason: str) -> None:
        self.heard.append(f"abort {verdict}")


def test_on_failure_hears_each_failure_with_its_decision_before_the_seat_is_told() -> None:
    heard: list[str] = []
    seen = []

    def on_failure(entry: object) -> None:
        seen.append(entry)
        heard.append("failure")

    def on_decision(state: object, entry: object) -> None:
        heard.append(f"decision {entry.by}")  # type: ignore[attr-defined]

    record = play_match(
        GAME,
        GAME.config(2),
        5,
        [Aborted(2, heard), RandomBot()],
        policy=ErrorPolicy("forfeit"),
        on_decision=on_decision,
        on_failure=on_failure,
    )
    assert seen == record.failures and record.failures[0].decision >= 1
    # Heard first, then the seat is told, then the substitute's move for that decision.
    at = heard.index("failure")
    assert heard[at : at + 3] == ["failure", "abort crash", "decision substitute"]
    assert heard[:at].count("decision bot") == record.failures[0].decision
