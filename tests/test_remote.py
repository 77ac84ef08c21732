"""Remote bots over real gRPC on loopback: verdicts, policies, clocks, no leaks, equivalence.

Every bot under test is a separate process (tests/bots/misbehaving.py, or `arena bot serve`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import statistics
import sys
import threading
import time
from collections import deque

import pytest

from arena import PROTOCOL_VERSION
from arena.clock import clock_settings
from arena.games.rolldice import GAME
from arena.record import MatchRecord, replay
from arena.runner import ErrorPolicy, FunctionPlayer, play_match
from arena.v1 import bot_pb2
from referee import lag, remote
from referee.remote import RemotePlayer
from tests.cli_run import arena
from tests.remote_helpers import ROOT, bot_process, misbehaving, open_fds, served

CONFIG = GAME.config(2, {"target": 60})
FAST_CLOCK = clock_settings({"decision": 600, "bank": 0, "increment": 0, "startup": 2000, "grace": 100, "strikes": 0})


def first_option(request):
    return request.options[0].id


FORFEIT = ErrorPolicy("forfeit")


def play(address, policy=FORFEIT, seed=4, clock=FAST_CLOCK):
    players = [RemotePlayer(address), FunctionPlayer(first_option, "local")]
    return play_match(GAME, CONFIG, seed, players, policy=policy, clock=clock)


def seat0_decision(record, k):
    """Record index of seat 0's k-th decision (0-based)."""
    return [i for i, d in enumerate(record.decisions) if d.seat == 0][k]


# behaviour, extra args, verdict, which of seat 0's decisions it is recorded at (None = start-up)
CASES = [
    ("sleep", ["--at", "1", "--sleep", "1.5"], "timeout", 1),
    ("exit", ["--at", "1"], "crash", 1),
    ("illegal", ["--at", "1"], "illegal", 1),
    ("oversized", ["--at", "1"], "malformed", 1),
    ("garbage", ["--at", "1"], "malformed", 1),
    ("noready", [], "stall", None),
    ("twice", ["--at", "1"], "protocol", 2),
    ("early", [], "protocol", 0),
    ("close", ["--at", "1"], "crash", 1),
    # Its own status, not an oversized message (it was "malformed: oversized message").
    ("exhausted", ["--at", "1"], "crash", 1),
    ("version", [], "protocol", None),
    ("index", ["--at", "1"], "protocol", 1),
    ("mangled", ["--at", "1"], "protocol", 1),
]


def check_case(behaviour, extra, verdict, at):
    with bot_process(misbehaving(behaviour, *extra)) as address:
        record = play(address)
    assert len(record.failures) == 1, (behaviour, record.failures)
    (failure,) = record.failures
    assert (failure.seat, failure.verdict) == (0, verdict), (behaviour, failure)
    expected = -1 if at is None else seat0_decision(record, at)
    assert failure.decision == expected, (behaviour, failure)
    # Forfeit: the match completed with substitutes for seat 0, which ranks last.
    assert record.result["forfeited"] == [True, False], behaviour
    assert record.result["ranks"] == [2, 1], behaviour
    later = [d for i, d in enumerate(record.decisions) if d.seat == 0 and i > max(expected, -1)]
    assert all(d.by == "substitute" for d in later), behaviour
    replay(GAME, record)


def test_a_message_with_no_body_is_a_protocol_verdict_saying_so():
    # It said "sent None during the match" (Python's None, to a bot author in any language).
    with bot_process(misbehaving("empty", "--at", "1")) as address:
        record = play(address)
    (failure,) = record.failures
    assert (failure.verdict, failure.decision) == ("protocol", seat0_decision(record, 1))
    assert failure.detail == "sent a message with no body during the match"


def test_misbehaving_bots_get_exact_verdicts_and_the_referee_leaks_nothing():
    # Warm up: the first remote match creates the gRPC event-loop thread and gRPC's own fds.
    with bot_process(misbehaving("well")) as address:
        assert not play(address).failures
    time.sleep(0.5)
    gc.collect()
    threads, fds = threading.active_count(), open_fds()
    for case in CASES:
        check_case(*case)
    # Channels close asynchronously: give them a moment, then insist. At most as many as before:
    # on a suite worker an earlier test's leftovers (a client collected now) may close meanwhile,
    # while a leak here would leave one or more per case.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (threading.active_count() > threads or open_fds() > fds):
        time.sleep(0.1)
        gc.collect()
    assert threading.active_count() <= threads, [t.name for t in threading.enumerate()]
    assert open_fds() <= fds


def test_mismatched_echoes_say_what_was_expected_and_what_came():
    with bot_process(misbehaving("mangled", "--at", "1")) as address:
        (failure,) = play(address).failures
    assert "request_id" in failure.detail and "before it was asked" not in failure.detail
    expected = int(failure.detail.split("open with request_id ")[1].split(":")[0])
    came = int(failure.detail.split("answered with request_id ")[1].split(" ")[0])
    assert came == expected + 1
    with bot_process(misbehaving("index", "--at", "1")) as address:
        record = play(address)
    (failure,) = record.failures
    asked = seat0_decision(record, 1)
    assert f"decision_index {asked + 1}, expected {asked}" in failure.detail


def test_request_ids_survive_a_javascript_number():
    # A client that decodes 64-bit integers as doubles (JavaScript) echoes ids exactly below 2^53.
    with bot_process(misbehaving("jsnumber")) as address:
        for seed in range(3):
            assert not play(address, seed=seed).failures


@pytest.mark.parametrize(
    ("behaviour", "extra", "at", "detail"),
    [
        ("twice", ["--at", "1"], 2, "answered decision {decision} twice"),
        ("early", [], 0, "answered with request_id"),
        ("readytwice", [], 0, "sent ready during the match"),
    ],
)
def test_one_unsolicited_message_is_one_verdict_whenever_it_is_read(behaviour, extra, at, detail):
    """One message too many (an answer twice, an answer before the request, a second ready) is
    one protocol verdict for the decision that reads it, whatever the moment the stream's reader
    took it in: it held the count of messages one ahead of the requests for good, so a later
    answer, or the message itself when read before the next request went out, was judged a flood
    and the seat forfeited under ``substitute`` with budget to spare (an outside probe: 33 of 40
    tournament matches of a bot that answered one decision twice)."""
    with bot_process(misbehaving(behaviour, *extra)) as address:
        for seed in range(4, 10):
            record = play(address, ErrorPolicy("substitute", budget=3), seed=seed)
            (failure,) = record.failures
            decision = seat0_decision(record, at)
            assert (failure.seat, failure.decision, failure.verdict) == (0, decision, "protocol"), seed
            assert failure.detail.startswith(detail.format(decision=seat0_decision(record, 1))), (seed, failure)
            assert record.result["forfeited"] == [False, False], seed
            assert [d.by for d in record.decisions if d.seat == 0].count("substitute") == 1, seed
            replay(GAME, record)


@pytest.mark.parametrize("opponent", ["local", "remote, 50 ms a decision"])
def test_each_unsolicited_message_is_one_verdict_whatever_the_pace_of_the_match(opponent):
    """Each message too many is judged, one at a decision, however many came at once: the
    referee reads one beyond what it asked for and no further until that one is judged. Two
    copies too many were two verdicts beside an instant opponent and a flood (a forfeit) beside
    one that thinks 50 ms, which left them both unread (an outside review)."""
    with contextlib.ExitStack() as stack:
        thrice = stack.enter_context(bot_process(misbehaving("thrice", "--at", "1")))
        if opponent == "local":
            other = FunctionPlayer(first_option, "local")
        else:
            other = RemotePlayer(stack.enter_context(bot_process(misbehaving("concurrent", "--sleep", "0.05"))))
        players = [RemotePlayer(thrice), other]
        record = play_match(GAME, CONFIG, 4, players, policy=ErrorPolicy("substitute", budget=3), clock=FAST_CLOCK)
    twice = f"answered decision {seat0_decision(record, 1)} twice"
    assert [(f.seat, f.decision, f.verdict, f.detail) for f in record.failures] == [
        (0, seat0_decision(record, 2), "protocol", twice),
        (0, seat0_decision(record, 3), "protocol", twice),
    ]
    assert record.result["forfeited"] == [False, False]


def test_copies_of_a_late_answer_are_judged_not_dropped():
    """A decision's late answer, after its timeout, is dropped as it always was; a copy of it is
    a message too many like any other, judged at the decision that reads it (copies were dropped
    unjudged, each letting the referee read one more: a bot sent 34,000 with no verdict)."""
    with bot_process(misbehaving("latetwice", "--at", "1", "--sleep", "0.9")) as address:
        record = play(address, ErrorPolicy("substitute", budget=3))
    assert [(f.decision, f.verdict, f.detail) for f in record.failures] == [
        (seat0_decision(record, 1), "timeout", "no answer within 700 ms (limit + bank + grace)"),
        (seat0_decision(record, 2), "protocol", f"answered decision {seat0_decision(record, 1)} twice"),
    ]
    assert record.result["forfeited"] == [False, False]


def test_a_bot_that_sends_one_message_too_many_and_ends_its_stream_is_judged_at_once():
    """An unread message held the bot's status back: when the next request's write met the
    ended call, the referee waited out limit + bank + grace (3.7 s with a 3 s bank) for a status
    that never came, then named gRPC core's own error (an outside review: 2 runs of 6). Now the
    message is read first, or the end as the reader found it is taken, or, when gRPC core's
    error is all there is, the stream's end is said as such (which of these is a race)."""
    clock = clock_settings({"decision": 600, "bank": 3000, "increment": 0, "startup": 3000, "grace": 100, "strikes": 0})
    with bot_process(misbehaving("extraclose", "--at", "1")) as address:
        for seed in range(8):
            began = time.monotonic()
            record = play(address, seed=seed, clock=clock)
            assert time.monotonic() - began < 2.5, seed
            (failure,) = record.failures
            ended = f"the bot ended the stream (status OK) before answering decision {failure.decision}"
            lost = f"the stream ended before answering decision {failure.decision} (its status never came)"
            verdicts = {("protocol", "sent ready during the match"), ("crash", ended), ("crash", lost)}
            assert (failure.verdict, failure.detail) in verdicts, (seed, failure)
            assert failure.decision == seat0_decision(record, 2), seed


def test_substitute_policy_keeps_a_bot_that_errs_within_budget():
    with bot_process(misbehaving("illegal", "--at", "1")) as address:
        record = play(address, ErrorPolicy("substitute", budget=2))
    assert [(f.verdict, f.decision) for f in record.failures] == [("illegal", seat0_decision(record, 1))]
    assert record.result["forfeited"] == [False, False]
    assert sum(d.by == "substitute" for d in record.decisions) == 1


def test_a_late_answer_after_a_timeout_is_dropped_and_play_goes_on():
    # 1.05 s against 600 + 100 ms: 350 ms past the limit (a stalled referee's lag is not charged
    # to the bot) and 350 ms left of the next decision's limit once the late answer is out.
    with bot_process(misbehaving("sleep", "--at", "1", "--sleep", "1.05")) as address:
        record = play(address, ErrorPolicy("substitute", budget=5))
    assert [(f.verdict, f.decision) for f in record.failures] == [("timeout", seat0_decision(record, 1))]
    assert record.result["forfeited"] == [False, False]
    # The bot answered every later decision itself, on time.
    assert all(d.by == "bot" for i, d in enumerate(record.decisions) if d.seat == 0 and i > seat0_decision(record, 1))


def test_time_bank_absorbs_a_slow_decision_and_strikes_absorb_grace():
    # Margins for a loaded machine: the referee's own stalls come off an answer's time, and a
    # 0.9 s answer at 0.6 + 0.1 s once stood under a load of 6 on 2 cores (an outside probe).
    slow = ["--at", "1", "--sleep", "1.5"]
    banked = clock_settings({"decision": 600, "bank": 2000, "increment": 0, "startup": 2000, "grace": 100})
    with bot_process(misbehaving("sleep", *slow)) as address:
        assert not play(address, clock=banked).failures  # 0.9 s over the limit, paid from the bank
    with bot_process(misbehaving("sleep", *slow)) as address:
        assert play(address).failures[0].verdict == "timeout"  # no bank: 1.5 s > 0.6 + 0.1


def test_a_bank_never_grows_past_what_a_clock_field_holds():
    """bank_ms is 32 bits: a bank of 2^32 - 1 ms with an increment wrapped to 999 ms in the
    request while the referee kept 49 days (an outside mutation probe)."""
    from arena.clock import MAX_MS

    player = RemotePlayer("grpc://127.0.0.1:1")
    player._clock = clock_settings({"decision": 300, "bank": MAX_MS, "increment": 1000})
    player._bank = MAX_MS / 1000.0
    assert player._charge(0.1, "roll") == "roll"  # within the limit: the increment is added
    assert player._bank == MAX_MS / 1000.0 and int(player._bank * 1000) == MAX_MS


def test_strikes_are_recorded_with_seat_decision_and_lateness():
    graceful = clock_settings({"decision": 600, "bank": 0, "increment": 0, "grace": 1500, "strikes": 2})
    with bot_process(misbehaving("sleep", "--at", "1", "--sleep", "0.9")) as address:
        record = play(address, clock=graceful)
    assert not record.failures
    (strike,) = record.strikes
    assert (strike.seat, strike.decision) == (0, seat0_decision(record, 1))
    assert 100 < strike.late_ms < 1500  # ~300 ms past the 600 ms limit
    again = MatchRecord.loads(record.dumps())
    assert again.strikes == record.strikes and "late_ms" not in str(again.canonical()["strikes"])
    replay(GAME, again)
    # A record written before strikes were recorded reads as having none, and replays.
    old = record.to_json()
    del old["strikes"]
    assert MatchRecord.from_json(old).strikes == []
    replay(GAME, MatchRecord.from_json(old))


def test_unreachable_bot_is_a_crash_at_start():
    # Dialled again for RECONNECT_SECONDS, well within this start-up allowance: at 2 s the last
    # dial outlasted it on a loaded machine (a stall, not the crash).
    patient = clock_settings({"decision": 600, "bank": 0, "increment": 0, "startup": 30_000, "grace": 100})
    record = play("grpc://127.0.0.1:1", clock=patient)
    (failure,) = record.failures
    assert failure.verdict == "crash" and failure.decision == -1
    assert record.result["forfeited"] == [True, False]


def test_a_bot_server_restarting_at_a_matchs_start_is_dialled_again_and_loses_nothing(monkeypatch):
    """A refused connection was a crash at once: an outside probe's bot, down for 0.3 s, lost the
    11 matches that started then. A start now dials again until the endpoint has been unreachable
    for RECONNECT_SECONDS (raised here: the bot server's own start-up is slow on a loaded machine)."""
    import referee.remote
    from tests.services import free_port

    monkeypatch.setattr(referee.remote, "RECONNECT_SECONDS", 60.0)
    port = free_port()
    args = served("random")
    args[args.index("--port") + 1] = str(port)
    up: list[object] = []

    def come_up() -> None:
        time.sleep(0.3)
        up.append(bot_process(args))
        up[0].__enter__()  # type: ignore[attr-defined]

    starter = threading.Thread(target=come_up)
    starter.start()
    try:
        patient = clock_settings({"decision": 5000, "bank": 0, "increment": 0, "startup": 60000, "grace": 100})
        record = play(f"grpc://127.0.0.1:{port}", clock=patient)
    finally:
        starter.join()
        up[0].__exit__(None, None, None)  # type: ignore[attr-defined]
    assert not record.failures and not record.result["forfeited"][0]


def test_an_endpoint_that_stays_down_costs_only_the_matches_in_its_first_seconds(monkeypatch):
    """Dialling again is counted from the first refusal a match of the process met: once the
    endpoint has been down RECONNECT_SECONDS, each later start fails at once."""
    import referee.remote
    from tests.services import free_port

    monkeypatch.setattr(referee.remote, "RECONNECT_SECONDS", 1.5)
    address = f"grpc://127.0.0.1:{free_port()}"  # nobody listens
    began = time.monotonic()
    first = play(address)
    first_took = time.monotonic() - began
    began = time.monotonic()
    second = play(address)
    second_took = time.monotonic() - began
    for record in (first, second):
        (failure,) = record.failures
        assert failure.verdict == "crash" and failure.decision == -1 and "unreachable" in failure.detail
    assert second_took < first_took / 3, (first_took, second_took)  # dialled for 1.5 s, then not


def test_a_live_server_answering_unavailable_is_not_sent_the_start_again(tmp_path):
    # A status the bot's own server sends (UNAVAILABLE: "busy") on a connection that works is
    # the bot's answer: a crash at once, the start read once (an outside review's bot read it 13
    # times, the start dialled again as if the endpoint were down).
    starts = tmp_path / "starts"
    with bot_process(misbehaving("busy", "--clock-file", str(starts))) as address:
        record = play(address)
    (failure,) = record.failures
    assert failure.verdict == "crash" and failure.decision == -1 and "busy: try later" in failure.detail
    assert len(starts.read_text().splitlines()) == 1


def test_remote_and_in_process_bots_make_identical_decisions():
    from bots.registry import make_bot

    with bot_process(served("heuristic", "rolldice")) as heuristic, bot_process(served("random")) as rnd:
        for seed in range(3):
            remote = play_match(GAME, CONFIG, seed, [RemotePlayer(heuristic), RemotePlayer(rnd)])
            local = play_match(GAME, CONFIG, seed, [make_bot("heuristic", "rolldice"), make_bot("random", "rolldice")])
            assert [(d.seat, d.choice) for d in remote.decisions] == [(d.seat, d.choice) for d in local.decisions]
            assert remote.result["ranks"] == local.result["ranks"] and not remote.failures


@pytest.mark.parametrize(
    "bad",
    [
        "grpc://nohostport",
        "grpc://host:port",
        "tcp://x:1",
        "unix:",
        "unix://",
        "unix:///",
        "unix://relative.sock",  # an authority, not a path: gRPC refused it at every connect
        "unix:relative.sock",
        "grpc://127.0.0.1:0",
        "grpc://127.0.0.1:99999",
    ],
)
def test_bad_addresses_are_rejected(bad):
    from arena.config import ConfigError

    with pytest.raises(ConfigError, match="bot address"):
        RemotePlayer(bad)


def test_the_decision_waiting_for_an_answer_runs_before_the_next_read_starts(monkeypatch):
    # The answer's decision (the move, the next request) is a match's critical path; starting
    # the stream's next read (a gRPC batch) is not, and waits for it (bench_transport).
    import referee.remote as remote

    events: list[str] = []
    open_stream, receive = remote._Stream.open, remote._Stream.receive

    async def recording_open(self):
        await open_stream(self)
        read = self.call.read

        def recorded_read():
            events.append("read")
            return read()

        self.call.read = recorded_read

    async def recording_receive(self, deadline):
        item = await receive(self, deadline)
        events.append("handed over")
        return item

    monkeypatch.setattr(remote._Stream, "open", recording_open)
    monkeypatch.setattr(remote._Stream, "receive", recording_receive)
    with bot_process(served("random")) as address:
        record = play_match(GAME, GAME.config(1, {"target": 25}), 3, [RemotePlayer(address)])
    assert not record.failures and len(record.decisions) > 3
    answers = 1 + len(record.decisions)  # the ready, then each decision's answer
    assert events[: 2 * answers] == ["read", "handed over"] * answers


def test_unix_addresses_with_an_absolute_path_are_taken():
    from referee.remote import target_of

    assert target_of("unix:///tmp/bot.sock") == "unix:///tmp/bot.sock"
    assert target_of("unix:/tmp/bot.sock") == "unix:/tmp/bot.sock"
    assert target_of("unix:///tmp/b\u00f6t.sock") == "unix:///tmp/b\u00f6t.sock"  # printable: taken


@pytest.mark.parametrize("odd", ["\u200b", "\u202e", "\n", "\x00"])
def test_an_address_with_an_invisible_or_control_character_is_refused(odd, tmp_path):
    """'unix:///tmp/a' and 'unix:///tmp/a' + a zero-width space were two entrants that read as
    one on a leaderboard (an outside probe); a local run refuses it before anything starts. An
    address stored before the check (a registered endpoint) still plays: only new ones are held
    to it (a review: every batch of such a bot's tournament failed)."""
    from arena.config import ConfigError
    from referee.remote import check_new_address, target_of

    for address in (f"unix:///tmp/a{odd}", f"grpc://127.0.0.1{odd}:50"):
        with pytest.raises(ConfigError, match=rf"holds an invisible or control character \(U\+{ord(odd):04X}\)"):
            check_new_address(address)
        assert target_of(address) == address.removeprefix("grpc://")
    if odd.isspace() or odd == "\x00":
        return  # the command line strips the one, and carries no NUL
    bots = f"unix:///tmp/a{odd},random"
    done = arena("tournament", "--game", "rolldice", "--bots", bots, "--repeats", "1", cwd=tmp_path)
    assert done.returncode == 2 and "holds an invisible or control character" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_simultaneous_answers_record_each_bots_own_time(tmp_path):
    # Get Bit!'s card choice is asked of every seat before any answer is awaited, and the
    # answers are collected in turn: a fast seat collected after a slow one was recorded with
    # the slow one's time. Each seat's ms is its own: the fast bots' stay far below the slow one's.
    from arena.games.getbit import GAME as GETBIT

    count = str(tmp_path / "count")
    slow = misbehaving("concurrent", "--sleep", "0.2", "--count-file", count)
    with bot_process(slow) as sleepy, bot_process(misbehaving("well")) as quick:
        players = [RemotePlayer(sleepy), RemotePlayer(quick), FunctionPlayer(first_option, "local")]
        clock = clock_settings({"decision": 2000, "startup": 10000})
        record = play_match(GETBIT, GETBIT.config(3), 2, players, clock=clock, match_seconds=60)
    assert not record.failures
    cards = [d for d in record.decisions if d.kind == "choose_card"]
    # Medians: the time recorded leaves out the referee's own stalls (a loaded machine's), so a
    # single slow answer may read short.
    quick = statistics.median(d.ms for d in cards if d.seat in (1, 2))
    slow = statistics.median(d.ms for d in cards if d.seat == 0)
    assert slow >= 100 and quick < slow / 4, (quick, slow)


def test_a_verdict_detail_leaves_the_endpoint_out():
    # Verdict details go into records other owners read; gRPC's own text names the address.
    from referee.remote import without_endpoint

    detail = (
        "bot unreachable or gone (failed to connect to all addresses; last error: UNKNOWN: "
        "ipv4:127.0.0.1:56399: Failed to connect to remote host: Connection refused)"
    )
    assert without_endpoint(detail, "grpc://bots.example.org:56399", "bots.example.org:56399", "bots.example.org") == (
        "bot unreachable or gone (failed to connect to all addresses; last error: UNKNOWN: <endpoint>: "
        "Failed to connect to remote host: Connection refused)"
    )
    assert without_endpoint("DNS resolution failed for bots.example.org:56399", "bots.example.org:56399") == (
        "DNS resolution failed for <endpoint>"
    )


def test_an_unreachable_bots_verdict_does_not_name_its_address():
    record = play("grpc://127.0.0.1:1")
    (failure,) = record.failures
    assert failure.verdict == "crash" and "127.0.0.1" not in failure.detail, failure.detail


def test_a_bots_status_text_is_quoted_printable_and_short():
    # A bot chooses the text of the status it ends its stream with; the record quotes it, and
    # other owners print records in their terminals.
    import grpc
    import grpc.aio

    from referee.remote import _failure_of_error

    error = grpc.aio.AioRpcError(
        grpc.StatusCode.UNKNOWN,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details="\x1b]0;TITLE\x07\x1b[2Jx" + "y" * 1000,
    )
    detail = _failure_of_error(error).detail
    assert "\x1b" not in detail and "\x07" not in detail and len(detail) < 400 and "(1015 chars)" in detail


# -- the clock against a bot that games it (an outside probe) ---------------------------------------


def test_the_clock_starts_as_the_request_is_written_not_once_it_has_arrived():
    """A bot with its own HTTP/2 lets in all of a request but its last 9 bytes, thinks on the
    options, then lets the rest in and answers: with the clock started at the write's end it
    thought 530 ms a decision at a 300 ms limit with no verdict. Started at the write's start,
    its holding back is its own time: 600 ms held + 150 ms after is past 300 ms, a timeout
    (250 + 200 ms once stood on a loaded machine: the referee's own stalls come off)."""
    script = str(ROOT / "tests" / "bots" / "h2_withhold.py")
    clock = clock_settings({"decision": 300, "bank": 0, "increment": 0, "startup": 5000, "grace": 0, "strikes": 0})
    with bot_process([sys.executable, script, "--port", "0", "--think", "0.6", "--after", "0.15"]) as address:
        record = play(address, clock=clock)
    (failure,) = record.failures
    assert (failure.seat, failure.verdict) == (0, "timeout"), failure
    assert failure.decision == seat0_decision(record, 0)


def test_a_late_answer_collected_after_another_seats_is_a_timeout_whatever_the_order():
    """A sealed simultaneous step collects its seats' answers one by one. An answer that came
    past limit + bank + grace but was read only after a slower (richer) seat's used to be a
    strike, its answer standing, when the shuffled order put that seat first; now it is the
    timeout it is when collected first (3 of 6 seeds each way before)."""
    from arena.games.getbit import GAME as GETBIT

    clock = clock_settings({"decision": 100, "bank": 2600, "increment": 0, "grace": 500, "strikes": 5, "startup": 5000})
    slow_but_rich = misbehaving("sleeps", "--sleeps", "1:2.6")  # its bank pays 2,500 ms
    # Bank gone (3.0 s: 300 ms past it, a strike), then 1.5 s past limit + grace, answering
    # half a second before the rich seat. The referee's own stalls are not charged, and under a
    # heavy load they came off both answers: margins of 50 ms of grace and 150 ms between the
    # seats (a CI run at a load of 14 kept a bank of 0.5 s; one beside two probes, 205 ms), then
    # of 600 ms (a CI run beside four probes, at a load of 14, let the late answer stand) now
    # need stalls of 1.5 s a decision to let the late answer stand.
    drained = misbehaving("sleeps", "--sleeps", "0:3.0,1:2.1")
    verdicts = []
    for seed in range(4):
        with bot_process(slow_but_rich) as a, bot_process(drained) as b:
            record = play_match(GETBIT, GETBIT.config(2), seed, [RemotePlayer(a), RemotePlayer(b)], clock=clock)
        late = [d for d in record.decisions if d.seat == 1][1]
        # (The drain's own strike comes and goes with how much of the referee's stalls came off.)
        verdicts.append([(f.seat, f.verdict) for f in record.failures])
        assert late.by == "substitute", (seed, late)
    assert verdicts == [[(1, "timeout")]] * 4, verdicts


def test_a_bots_version_is_recorded_printable_and_short():
    from arena.runner import VERSION_CHARS

    said = "\x1b[2J\x1b[31mPWNED" + "x" * 50_000  # 50 KB and a terminal's escapes, in every record

    class Verbose(FunctionPlayer):
        def start(self, message):
            return bot_pb2.Ready(protocol_version=PROTOCOL_VERSION, bot_version=said)

    record = play_match(GAME, CONFIG, 4, [Verbose(first_option, "verbose"), FunctionPlayer(first_option, "local")])
    version = record.seats[0]["version"]
    assert "\x1b" not in version and version.startswith(" [2J [31mPWNED")
    assert len(version) <= VERSION_CHARS + 20 and version.endswith(f"({len(said)} chars)")


def test_a_remote_decisions_recorded_ms_is_what_its_clock_was_charged():
    """A single remote decision recorded the referee's time around it (the request's building,
    the write, the checks): 224 ms at a 200 ms limit with no verdict under load. It records
    what the bot's clock was charged, as a simultaneous step does."""

    class Charged(RemotePlayer):
        def __init__(self, address: str) -> None:
            super().__init__(address)
            self.charged: list[float] = []

        async def end_decide_async(self, request):  # type: ignore[no-untyped-def]
            answer = await super().end_decide_async(request)
            self.charged.append(self.last_answer_ms)
            return answer

    with bot_process(misbehaving("sleeps", "--sleeps", "0:0.05,2:0.03")) as address:
        seat = Charged(address)
        record = play_match(GAME, CONFIG, 4, [seat, FunctionPlayer(first_option, "local")], clock=FAST_CLOCK)
    assert not record.failures
    # (Not the sleeps themselves: on a loaded machine the referee's own stalls come off them.)
    assert [d.ms for d in record.decisions if d.seat == 0] == seat.charged and len(seat.charged) > 2


# -- the clock on a scripted stream: no bot process, no wall clock ----------------------------------
#
# A RemotePlayer whose stream is a script: the referee's loop runs on a clock the script moves
# (an answer "arrives" its thinking time after the request's write), so every charge is exact.


class _ScriptedLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only when the script says time passed."""

    now = 1000.0

    def time(self) -> float:
        return self.now


def _on_scripted_loop(coro):
    with asyncio.Runner(loop_factory=_ScriptedLoop) as runner:
        return runner.run(coro)


class _NoCall:
    def done(self) -> bool:
        return False


class _ScriptedStream:
    """A bot's stream: it takes each request's clock down, and answers the request's first option
    ``thinks[k]`` seconds after its k-th request was written (0.001 s by default). An answer
    later than the referee's deadline is never read (its request is abandoned anyway)."""

    def __init__(self, player: ScriptedRemote) -> None:
        self.player = player
        self.call = _NoCall()
        self.inbox: deque = deque()
        self.flooded = False
        self.clocks: list[tuple[int, int, int]] = []  # (decision_ms, bank_ms, strikes) sent
        self.indices: list[int] = []  # decision_index of each request
        self.request: bot_pb2.DecisionRequest | None = None

    async def send(self, data, allowance, monitor=None):
        self.request = bot_pb2.RefereeMessage.FromString(data).decision
        clock = self.request.clock
        self.clocks.append((clock.decision_ms, clock.bank_ms, clock.strikes))
        self.indices.append(self.request.decision_index)
        k = len(self.clocks) - 1
        if k in self.player.stalls:  # the referee's own stall, from and to (after the write)
            low, high = self.player.stalls[k]
            assert self.player._lag is not None
            self.player._lag.stalls.append((self.player._sent_at + low, self.player._sent_at + high))
        return True

    def idle_before(self, moment: float) -> float:
        """When the scripted loop last waited for input by ``moment``: then, unless a scripted
        stall holds it (from the stall's start)."""
        monitor = self.player._lag
        for low, high in monitor.stalls if monitor is not None else ():
            if low <= moment <= high:
                return low
        return moment

    async def receive(self, deadline: float) -> remote._Inbound | None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, _ScriptedLoop) and self.request is not None
        k = len(self.clocks) - 1
        at = self.player._sent_at + self.player.thinks.get(k, 0.001)
        if at > deadline:
            loop.now = max(loop.now, deadline)
            if self.player._lag is not None:
                self.player._lag.idle_at = self.idle_before(loop.now)
            return None
        loop.now = max(loop.now, at)  # (read after another seat's later answer: it waited in the inbox)
        request = self.request
        answer = bot_pb2.DecisionResponse(
            request_id=request.request_id, decision_index=request.decision_index, option_id=request.options[0].id
        )
        return remote._Inbound("message", at, bot_pb2.BotMessage(decision=answer), idle=self.idle_before(at))


class _NoStalls(lag.LagMonitor):
    """The referee's stall record, as the script writes it (nothing beats, nothing waits; the
    script says when the loop was idle)."""

    def _watch_idle(self) -> None:
        pass

    async def settle(self) -> None:
        pass


class ScriptedRemote(RemotePlayer):
    """A remote seat on a scripted stream (see :class:`_ScriptedStream`): ``thinks`` maps the
    seat's k-th decision to its thinking time in seconds, ``stalls`` to a stall of the referee's
    own loop (seconds after the write, from and to)."""

    runs_on = staticmethod(_on_scripted_loop)  # type: ignore[assignment]

    def __init__(self, thinks: dict[int, float], stalls: dict[int, tuple[float, float]] | None = None) -> None:
        super().__init__("grpc://127.0.0.1:1", "scripted")
        self.thinks = thinks
        self.stalls = stalls or {}

    async def start_async(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self._clock = message.clock
        self._bank = self._clock.bank_ms / 1000.0
        self._stream = self.script = _ScriptedStream(self)  # type: ignore[assignment]
        self._lag = _NoStalls(asyncio.get_running_loop()) if self.stalls else None
        return bot_pb2.Ready(protocol_version=PROTOCOL_VERSION)

    async def _close(self, goodbye: bot_pb2.RefereeMessage | None) -> None:
        self._lag = None


def scripted_match(clock, *seats, game=GAME, config=CONFIG, seed=4, policy=FORFEIT, match_seconds=None):
    """A match of the scripted seats against an in-process one (seat order as given)."""
    players = [*seats, FunctionPlayer(first_option, "local")]
    return play_match(game, config, seed, players, policy=policy, clock=clock, match_seconds=match_seconds)


def scripted_clock(**values: int) -> bot_pb2.ClockSettings:
    return clock_settings({"decision": 300, "bank": 0, "increment": 0, "grace": 0, "strikes": 0, **values})


def test_strikes_n_allows_n_late_answers_and_the_next_one_is_a_timeout():
    """``strikes``: strikes allowed; one more is a timeout (arena.clock)."""
    seat = ScriptedRemote({0: 0.5005, 1: 0.4005, 2: 0.6004})  # 200.5, 100.5, 300.4 ms late
    record = scripted_match(scripted_clock(grace=1000, strikes=2), seat)
    assert [(s.seat, s.decision, s.late_ms) for s in record.strikes] == [
        (0, seat0_decision(record, 0), 200.5),
        (0, seat0_decision(record, 1), 100.5),
    ]
    assert [(f.seat, f.decision, f.verdict, f.detail) for f in record.failures] == [
        (0, seat0_decision(record, 2), "timeout", "answered 300 ms late with no strikes left (2 used)")
    ]
    assert record.result["forfeited"] == [True, False]
    assert seat.script.clocks[:3] == [(300, 0, 0), (300, 0, 1), (300, 0, 2)]
    # The record's time is what the clock charged, the verdict's decision too (it read the
    # referee's own time around it, a few ms more than the detail's).
    assert [record.decisions[seat0_decision(record, k)].ms for k in range(3)] == [500.5, 400.5, 600.4]


def test_a_late_answer_past_the_strikes_is_a_timeout_and_uses_no_strike():
    """A late answer with no strikes left is a timeout, not a strike used: under ``substitute``
    every later one says the strikes the seat used, and requests say no more than it may use
    (they counted on, "(2 used)", "(3 used)", up to 43 of 3: an outside probe)."""
    seat = ScriptedRemote({0: 0.4005, 1: 0.4005, 2: 0.4005, 3: 0.4005})  # 100.5 ms late each
    record = scripted_match(scripted_clock(grace=1000, strikes=1), seat, policy=ErrorPolicy("substitute", budget=5))
    assert [(s.decision, s.late_ms) for s in record.strikes] == [(seat0_decision(record, 0), 100.5)]
    assert [(f.decision, f.detail) for f in record.failures] == [
        (seat0_decision(record, k), "answered 100 ms late with no strikes left (1 used)") for k in (1, 2, 3)
    ]
    assert seat.script.clocks[:5] == [(300, 0, 0), (300, 0, 1), (300, 0, 1), (300, 0, 1), (300, 0, 1)]


def test_the_increment_is_added_to_the_bank_after_each_answer():
    """``increment``: added to the bank after each answer (README)."""
    # 500 ms a decision; the second answer spends 199.5 ms of it, and the bank pays every later one.
    seat = ScriptedRemote({0: 0.1, 1: 0.4995, 2: 0.9995})
    record = scripted_match(scripted_clock(increment=500), seat)
    assert not record.failures and not record.strikes
    assert seat.script.clocks[:4] == [(300, 0, 0), (300, 500, 0), (300, 800, 0), (300, 600, 0)]


def test_time_over_the_limit_is_taken_from_the_bank_until_it_is_spent():
    """Time over the limit is taken from the bank (referee.remote): 400 ms over twice is more
    than a 600 ms bank holds, and the second answer comes past limit + what is left + grace."""
    seat = ScriptedRemote({0: 0.699, 1: 0.699})  # 399 ms over the limit each
    record = scripted_match(scripted_clock(bank=600), seat)
    assert [(f.decision, f.verdict, f.detail) for f in record.failures] == [
        (seat0_decision(record, 1), "timeout", "no answer within 501 ms (limit + bank + grace)")
    ]
    assert seat.script.clocks[:2] == [(300, 600, 0), (300, 201, 0)]


def test_each_request_carries_the_limit_the_bank_left_and_the_strikes_used():
    """The request carries the limit, the bank left and the strikes used (referee.remote)."""
    # 198.5 ms from the bank, then 401.5 ms past its 401.5 ms: a strike, the bank empty.
    seat = ScriptedRemote({0: 0.1, 1: 0.4985, 2: 0.9015, 3: 0.25})
    record = scripted_match(scripted_clock(bank=600, grace=1000, strikes=3), seat)
    assert not record.failures
    assert [(s.decision, s.late_ms) for s in record.strikes] == [(seat0_decision(record, 2), 200.0)]
    assert seat.script.clocks[:5] == [(300, 600, 0), (300, 600, 0), (300, 401, 0), (300, 0, 1), (300, 0, 1)]


def test_a_strike_in_a_simultaneous_step_is_recorded():
    """Strikes are recorded in the match record (README): a sealed simultaneous step's too."""
    from arena.games.getbit import GAME as GETBIT

    seat = ScriptedRemote({0: 0.5005})
    record = scripted_match(scripted_clock(grace=1000, strikes=2), seat, game=GETBIT, config=GETBIT.config(2))
    assert not record.failures
    first = seat0_decision(record, 0)
    assert record.decisions[first].kind == "choose_card"
    assert [(s.seat, s.decision, s.late_ms) for s in record.strikes] == [(0, first, 200.5)]
    assert seat.script.clocks[:2] == [(300, 0, 0), (300, 0, 1)]


def test_a_strike_in_a_match_with_a_bound_is_recorded():
    """Strikes are recorded in the match record (README): a match with a bound (how workers run
    matches) asks every decision through the general path."""
    seat = ScriptedRemote({1: 0.4005})
    record = scripted_match(scripted_clock(grace=1000, strikes=2), seat, match_seconds=60)
    assert not record.failures
    assert [(s.seat, s.decision, s.late_ms) for s in record.strikes] == [(0, seat0_decision(record, 1), 100.5)]


def test_a_simultaneous_steps_recorded_ms_is_each_bots_own_charged_time():
    """A record's ``ms`` for a remote bot is the time its clock was charged (README), whichever
    seat's answer was collected first."""
    from arena.games.getbit import GAME as GETBIT

    slow, quick = ScriptedRemote(dict.fromkeys(range(40), 0.2345)), ScriptedRemote(dict.fromkeys(range(40), 0.0125))
    record = scripted_match(scripted_clock(decision=1000), slow, quick, game=GETBIT, config=GETBIT.config(3))
    assert not record.failures
    cards = [d for d in record.decisions if d.kind == "choose_card" and d.seat in (0, 1)]
    assert len(cards) > 4
    assert [d.ms for d in cards] == [234.5 if d.seat == 0 else 12.5 for d in cards]


def test_a_stall_of_the_referee_while_the_bot_thinks_is_the_bots_time():
    """Only the stall an answer was read after comes off (referee.lag): one that ended while the
    bot was still thinking delayed nothing. 260 ms at a 200 ms limit is a timeout, whatever the
    referee did at 30-180 ms; 150 ms with a stall at 30-100 ms is recorded as 150 (an outside probe: bots 15 ms past a
    hard limit were let through 411 times at 64 matches a process, the stalls of their thinking
    taken off)."""
    seat = ScriptedRemote({1: 0.15, 2: 0.26}, stalls={1: (0.03, 0.10), 2: (0.03, 0.18)})
    record = scripted_match(scripted_clock(decision=200), seat, policy=ErrorPolicy("substitute", budget=5))
    assert [(f.decision, f.verdict, f.detail) for f in record.failures] == [
        (seat0_decision(record, 2), "timeout", "no answer within 200 ms (limit + bank + grace)")
    ]
    assert record.decisions[seat0_decision(record, 1)].ms == 150.0
    assert record.decisions[seat0_decision(record, 1)].by == "bot"


def test_the_stall_an_answer_waited_through_unread_is_not_the_bots_time():
    """An answer that came during the referee's stall sat unread until the stall ended: that
    wait is not charged (260 ms read at the end of a stall from 100 ms: 100 ms charged), and
    the deadline that fell in the stall waits for it."""
    seat = ScriptedRemote({1: 0.26, 2: 0.21}, stalls={1: (0.10, 0.26), 2: (0.02, 0.05)})
    record = scripted_match(scripted_clock(decision=200), seat, policy=ErrorPolicy("substitute", budget=5))
    assert [(f.decision, f.verdict) for f in record.failures] == [(seat0_decision(record, 2), "timeout")]
    assert record.decisions[seat0_decision(record, 1)].ms == 100.0
    assert record.decisions[seat0_decision(record, 1)].by == "bot"


def test_a_timeout_spends_the_whole_bank():
    """A timeout is no answer within limit + bank + grace: the bank is spent, and the seat goes
    on (under substitute) with none."""
    seat = ScriptedRemote({0: 2.0})
    record = scripted_match(scripted_clock(bank=1000), seat, policy=ErrorPolicy("substitute", budget=5))
    assert [(f.decision, f.verdict, f.detail) for f in record.failures] == [
        (seat0_decision(record, 0), "timeout", "no answer within 1300 ms (limit + bank + grace)")
    ]
    assert seat.script.clocks[:3] == [(300, 1000, 0), (300, 0, 0), (300, 0, 0)]
    timed_out = record.decisions[seat0_decision(record, 0)]
    assert (timed_out.ms, timed_out.by) == (1300.0, "substitute")  # all the clock allowed


def test_past_the_match_bound_a_remote_seat_still_asked_gets_a_timeout(monkeypatch):
    """Past it, every remote seat still asked gets a ``timeout`` (README): a single decision's
    too. The runner's monotonic clock is the script's here: 600 ms a decision, a 1 s bound."""
    import types

    import arena.runner

    def monotonic() -> float:
        return asyncio.get_running_loop().time()

    monkeypatch.setattr(
        arena.runner, "time", types.SimpleNamespace(monotonic=monotonic, perf_counter=time.perf_counter)
    )
    seat = ScriptedRemote(dict.fromkeys(range(40), 0.6))
    record = scripted_match(scripted_clock(decision=5000), seat, match_seconds=1)
    assert [(f.seat, f.decision, f.verdict, f.detail) for f in record.failures] == [
        (0, seat0_decision(record, 2), "timeout", "the match ran past its bound of 1 s")
    ]
    assert len(seat.script.clocks) == 2


def test_a_simultaneous_requests_decision_index_is_its_seats_record_entry():
    """Record entries are in seat order within a step; their index is the decision index
    (arena.runner): each remote seat is asked with its own entry's index, whatever the order."""
    from arena.games.getbit import GAME as GETBIT

    seats = [ScriptedRemote({}), ScriptedRemote({})]
    for seed in range(3):
        record = scripted_match(scripted_clock(), *seats, game=GETBIT, config=GETBIT.config(3), seed=seed)
        assert not record.failures
        for s, seat in enumerate(seats):
            assert [record.decisions[i].seat for i in seat.script.indices] == [s] * len(seat.script.indices)
            assert seat.script.indices == [i for i, d in enumerate(record.decisions) if d.seat == s]
