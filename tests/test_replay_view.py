"""The replay viewer's data (arena.replay_view) and ``arena replay --html`` (no browser: the
browser tests are in test_web.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.engine import SPECTATOR
from arena.record import FailureEntry, MatchRecord, ReplayMismatch, replay, resimulate, with_forfeits
from arena.registry import get_game
from arena.replay_view import message_json, render_html, replay_data
from arena.runner import ErrorPolicy, FunctionPlayer, play_match
from bots.random_bot import RandomBot
from tests.cli_run import arena
from tests.test_runner import Scripted, first


def played(game_id: str, players: int, seed: int) -> MatchRecord:
    game = get_game(game_id)
    config = game.config(players)
    return play_match(game, config, seed, [RandomBot() for _ in range(players)])


def test_one_frame_per_decision_step_with_every_views_observation():
    record = played("rainbow", 3, 11)
    game = get_game("rainbow")
    data = replay_data(game, record)
    steps = sorted({d.step for d in record.decisions})
    assert len(data["frames"]) == len(steps) + 1 and data["frames"][-1]["end"]
    assert [d["choice"] for f in data["frames"] for d in f["decisions"]] == [d.choice for d in record.decisions]
    # The observations are the engine's, each seat's own (replayed here independently).
    state = game.new_match(game.config(3), record.seed)
    for frame in data["frames"][:5]:
        for viewer in (0, 1, 2):
            assert frame["obs"][str(viewer)] == message_json(game.observe(state, viewer))
        # The spectator's, but for the seat field (its default, 0, read as seat 0's view).
        spectator = message_json(game.observe(state, SPECTATOR))
        assert spectator.pop("seat") == 0 and frame["obs"][str(SPECTATOR)] == spectator
        game.apply(state, {d["seat"]: d["choice"] for d in frame["decisions"]})
    seat_view = data["frames"][1]["obs"]["0"]
    assert not any(hand["counts"] != [0] * 6 for hand in seat_view.get("hands", []))  # nobody else's hand
    assert data["frames"][-1]["events_end"] == len(data["events"])
    assert any(e["to"] == [1] for e in data["events"])  # private events keep who may see them


def test_failures_and_strikes_are_attached_to_their_decision():
    record = played("skyfive", 2, 3)
    record.failures.append(FailureEntry(seat=record.decisions[3].seat, decision=3, verdict="timeout", detail="slow"))
    record.failures.append(FailureEntry(seat=1, decision=-1, verdict="crash", detail="did not start"))
    # As the runner would have it: a seat that fails at the start forfeits, ranks last, and
    # substitutes play all its decisions.
    for decision in record.decisions:
        if decision.seat == 1:
            decision.by = "substitute"
    game = get_game("skyfive")
    record.policy = {"on_error": "substitute", "budget": 3}
    forfeited = with_forfeits(game.result(resimulate(game, record)), [False, True])
    record.result.update(
        forfeited=[False, True], ranks=list(forfeited.ranks), scores=list(forfeited.scores), summary=forfeited.summary
    )
    data = replay_data(game, record)
    decisions = [d for f in data["frames"] for d in f["decisions"]]
    assert decisions[3]["failures"] == [{"seat": record.decisions[3].seat, "verdict": "timeout", "detail": "slow"}]
    assert not any(d["failures"] for i, d in enumerate(decisions) if i != 3)
    assert data["frames"][0]["failures"][0]["verdict"] == "crash"


def test_a_record_that_does_not_reproduce_is_refused():
    record = played("skyfive", 2, 5)
    last = record.decisions[-1]
    last.choice = "bank" if last.choice != "bank" else "draw"
    with pytest.raises(ReplayMismatch):
        replay_data(get_game("skyfive"), record)


def test_a_seat_that_failed_exactly_its_error_budget_keeps_its_seat_on_replay():
    """Under substitute a seat forfeits only past --error-budget: one failure with budget 1 replays as played."""
    game = get_game("rolldice")
    record = play_match(
        game, game.config(2), 3, [FunctionPlayer(first), Scripted({0: "x"})], policy=ErrorPolicy("substitute", budget=1)
    )
    assert len(record.failures) == 1 and record.result["forfeited"] == [False, False]
    assert list(replay(game, record).ranks) == record.result["ranks"]


def test_a_record_hiding_a_forfeit_is_refused():
    """A forfeit ranks a seat last: not the record's to say; replay checks `forfeited` against failures and policy."""
    game = get_game("rolldice")
    record = play_match(game, game.config(2), 3, [FunctionPlayer(first), Scripted({0: "x"})])  # forfeit policy
    assert record.result["forfeited"] == [False, True] and record.result["ranks"] == [1, 2]
    assert list(replay(game, record).ranks) == [1, 2]
    record.result["forfeited"] = [False, False]  # hide the forfeit, keep the ranks
    with pytest.raises(
        ReplayMismatch,
        match=re.escape("result forfeited differ: its failures and policy give [False, True], record [False, False]"),
    ):
        replay(game, record)


@pytest.mark.parametrize("policy", [ErrorPolicy("forfeit"), ErrorPolicy("substitute", budget=0)], ids=str)
def test_a_record_whose_bot_plays_on_after_its_forfeit_is_refused(policy):
    """From its forfeit on, only substitutes play for a seat: a record whose failure was moved or
    whose decisions all said "bot" read as "reproduces exactly" (a fuzzing probe)."""
    game = get_game("rolldice")
    record = play_match(game, game.config(2), 3, [FunctionPlayer(first), Scripted({0: "x"})], policy=policy)
    (failure,) = record.failures
    seat_1 = [i for i, d in enumerate(record.decisions) if d.seat == 1]
    assert failure.decision == seat_1[0] and all(record.decisions[i].by == "substitute" for i in seat_1)
    replay(game, record)
    record.decisions[seat_1[-1]].by = "bot"
    with pytest.raises(
        ReplayMismatch,
        match=re.escape(
            f"decision {seat_1[-1]}: played by the bot, but seat 1 forfeited at decision {failure.decision}"
        ),
    ):
        replay(game, record)


def test_a_record_of_another_game_version_is_refused():
    """A record replays only on the game version that played it."""
    game = get_game("rolldice")
    record = play_match(game, game.config(2), 3, [FunctionPlayer(first), FunctionPlayer(first)])
    replay(game, record)
    record.game_version = "0.0-old"
    with pytest.raises(
        ReplayMismatch, match=re.escape(f"game version differs: record '0.0-old', engine {game.meta.version!r}")
    ):
        replay(game, record)


def test_the_page_inlines_everything_and_escapes_the_data():
    record = played("getbit", 3, 2)
    data = replay_data(get_game("getbit"), record)
    data["events"][0]["text"] = "</script><script>alert(1)</script>"
    text = render_html(data)
    assert text.count("</script>") == 2  # the data's and the viewer's script elements only
    embedded = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', text, re.S)
    assert embedded and json.loads(embedded.group(1))["events"][0]["text"].startswith("</script>")
    assert "{{" not in text and "src=" not in text and 'href="http' not in text


def test_cli_html_picks_one_match_of_a_jsonl_file(tmp_path: Path):
    records = [played("skyfive", 2, seed) for seed in (1, 2)]
    records[1].match_id = "second"
    path = tmp_path / "matches.jsonl"
    path.write_text("".join(r.dumps() + "\n" for r in records))
    out = arena("replay", str(path), "--html", str(tmp_path / "x.html"))
    assert out.returncode == 2 and "choose one with --match" in out.stderr and out.stderr.count("\n") == 1
    out = arena("replay", str(path), "--match", "second", "--html", str(tmp_path / "x.html"))
    assert out.returncode == 0, out.stderr
    assert "match second" in (tmp_path / "x.html").read_text()
    assert arena("replay", str(path), "--match", "nope", "--html", str(tmp_path / "y.html")).returncode == 2
    bad = records[0].to_json()
    bad["decisions"][-1]["choice"] = "nonsense"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    out = arena("replay", str(tmp_path / "bad.json"), "--html", str(tmp_path / "z.html"))
    assert out.returncode == 1 and "MISMATCH" in out.stderr and not (tmp_path / "z.html").exists()


def test_a_record_whose_result_does_not_reproduce_is_refused_and_the_shown_result_is_the_engines(tmp_path: Path):
    record = played("rolldice", 2, 7)
    path = tmp_path / "tampered.json"
    data = json.loads(record.dumps())
    data["result"]["scores"] = [0, 99]
    path.write_text(json.dumps(data))
    plain = arena("replay", str(path))
    out = arena("replay", str(path), "--html", str(tmp_path / "t.html"))
    assert plain.returncode == out.returncode == 1
    assert out.stderr == plain.stderr and "MISMATCH: result scores differ" in out.stderr
    assert not (tmp_path / "t.html").exists()
    # Its summary is checked too (it names the winner): a forged one does not reproduce.
    record.result["summary"] = "seat 1 wins by a mile"
    with pytest.raises(ReplayMismatch, match="result summary differ"):
        replay_data(get_game("rolldice"), record)


def test_html_never_overwrites_the_records_or_a_file_that_is_not_a_replay_page(tmp_path: Path):
    records = [played("skyfive", 2, seed) for seed in (1, 2)]
    records[1].match_id = "second"
    jsonl = tmp_path / "all.jsonl"
    jsonl.write_text("".join(r.dumps() + "\n" for r in records))
    single = tmp_path / "one.json"
    single.write_text(records[0].dumps())
    (tmp_path / "link.html").symlink_to(jsonl)
    kept = {p: p.read_bytes() for p in (jsonl, single)}
    for args in (
        (str(jsonl), "--match", "second", "--html", str(jsonl)),
        (str(single), "--html", str(single)),
        (str(jsonl), "--match", "second", "--html", str(tmp_path / "link.html")),
        (str(jsonl), "--match", "second", "--html", str(tmp_path / "." / "all.jsonl")),
        (str(single), "--html", str(single), "--force"),  # never the input, --force or not
    ):
        out = arena("replay", *args)
        assert out.returncode == 2 and "is the records file it reads" in out.stderr, out.stderr
        assert out.stderr.strip().count("\n") == 0
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    out = arena("replay", str(single), "--html", str(notes))
    assert out.returncode == 2 and "not a replay page" in out.stderr and "--force" in out.stderr
    assert out.stderr.strip().count("\n") == 0 and notes.read_text() == "my notes\n"
    assert {p: p.read_bytes() for p in kept} == kept
    # An earlier export is overwritten; anything else only with --force.
    assert arena("replay", str(single), "--html", str(notes), "--force").returncode == 0
    assert notes.read_text().startswith("<!DOCTYPE html>")
    page = tmp_path / "page.html"
    assert arena("replay", str(single), "--html", str(page)).returncode == 0
    out = arena("replay", str(jsonl), "--match", "second", "--html", str(page))
    assert out.returncode == 0 and "match second" in page.read_text()
    assert arena("replay", str(single), "--force").returncode == 2  # --force goes with --html
