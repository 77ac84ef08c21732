"""One built-in bot, one name: every spelling of a built-in bot's spec has one canonical form
(``bots.registry.canonical_spec``), and tournaments, matches, the service's tournaments and
challenges name their bots by it, so two spellings are never two entrants or two leaderboard
rows. Records stored with an old spelling still replay and still count, under that spelling.

Local runs are real ``arena`` processes; the service is a real ``arena serve`` on a private
redis-server with a real Celery worker, over real gRPC."""

from __future__ import annotations

import json
from functools import cache

import grpc
import pytest

from arena.config import ConfigError
from arena.record import MatchRecord, replay
from arena.registry import games, get_game
from arena.runner import play_match
from arena.tournament import (
    TournamentSpec,
    canonical_entrant,
    canonical_entrants,
    entrant_bot,
    play_scheduled,
    schedule,
)
from arena.v1 import arena_pb2
from bots.params import Param
from bots.registry import bot_settings, builtin_names, canonical_spec, make_bot, tournament_field
from referee.players import make_player
from referee.store import Store
from tests.cli_run import arena
from tests.remote_helpers import bot_process, served
from tests.services import redis_server, service, workers
from tests.test_service import Api, code_of, three_owners, watch_to_end
from workers.tasks import finalize_tournament

INVALID = grpc.StatusCode.INVALID_ARGUMENT


@cache
def playable(game_id: str) -> tuple[str, ...]:
    """The built-in bots that play this game (``search`` only where the game samples worlds)."""
    names = []
    for name in builtin_names(game_id):
        try:
            make_bot(name, game_id)
        except ConfigError:
            assert name == "search", (game_id, name)
            continue
        names.append(name)
    return tuple(names)


def other_value(param: Param, default: float) -> float:
    """A value in the parameter's range that is not its default (fractional where it may be)."""
    if param.choices:
        return (int(default) + 1) % len(param.choices)
    if param.integer:
        return default + 1 if default + 1 <= param.high else default - 1
    for share in (0.375, 0.625):
        value = param.low + (param.high - param.low) * share
        if value != default:
            return value
    raise AssertionError(param)


def spellings(param: Param, value: float) -> list[str]:
    """Ways of writing one value that differ only in form."""
    if param.choices:
        return [param.choices[int(value)]]
    if param.integer:
        whole = int(value)
        return [str(whole), f"0{whole}" if whole >= 0 else f"-0{-whole}", f" {whole} ", f"{whole:+d}"]
    number = float(value)
    short = repr(number)
    forms = [short, format(number, ".17e"), f" {short}", f"{number:+.17g}"]
    if number.is_integer():
        forms += [f"{int(number)}.0", f"{int(number)}.000", str(int(number))]
    else:
        forms += [short + "0", ("0" + short) if number >= 0 else short.replace("-", "-0", 1)]
    return forms


def search_config(spec: str, game_id: str) -> dict[str, object]:
    """What a ``search`` bot is configured with, read off the bot itself (not its parameters)."""
    bot = make_bot(spec, game_id)
    state = ("name", "rng", "policies", "last", "in_process_only", "abandoned")  # not what it plays with
    return {k: v for k, v in vars(bot).items() if k not in state}


def assert_one_bot(spellings_of_it: list[str], canonical: str, game_id: str) -> None:
    """Every spelling has ``canonical`` as its canonical spec; that is a fixed point; it plays
    with the same values as each spelling and builds a bot of that name."""
    assert canonical_spec(canonical, game_id) == canonical
    settings = bot_settings(canonical, game_id)
    assert make_bot(canonical, game_id).name == canonical
    for spelling in spellings_of_it:
        assert canonical_spec(spelling, game_id) == canonical, (game_id, spelling)
        assert bot_settings(spelling, game_id) == settings, (game_id, spelling)
        if canonical.startswith("search"):
            assert search_config(spelling, game_id) == search_config(canonical, game_id), (game_id, spelling)


# -- the canonical spelling ---------------------------------------------------------------------


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_parameter_of_every_built_in_bot_spelled_any_way_is_one_bot(game_id):
    for name in playable(game_id):
        params, defaults = bot_settings(name, game_id)
        assert_one_bot([name, f"{name}:", f" {name} "], name, game_id)
        for param in params:
            value = other_value(param, defaults[param.name])
            canonical = f"{name}:{param.name}={param.spell(value)}"
            forms = [f"{name}:{param.name}={form}" for form in spellings(param, value)]
            forms.append(f"{name}:{param.name}={param.spell(value)},")  # a trailing comma
            assert_one_bot(forms, canonical, game_id)
            # Given at its default, a parameter is left out: the bare name (but for search's ms,
            # which drops a game's own iterations: see the test of search below).
            at_default = [f"{name}:{param.name}={f}" for f in spellings(param, defaults[param.name])]
            if name == "search" and param.name == "ms" and defaults["iterations"]:
                assert canonical_spec(at_default[0], game_id) == "search:iterations=0"
                continue
            assert_one_bot(at_default, name, game_id)


@pytest.mark.parametrize("game_id", sorted(games()))
def test_parameters_in_any_order_and_defaults_given_or_not_are_one_bot(game_id):
    for name in playable(game_id):
        params, defaults = bot_settings(name, game_id)
        if name == "search":  # these follow the others (see the test of search below)
            params = tuple(p for p in params if p.name not in ("iterations", "ms", "epsilon"))
        if len(params) < 2:
            continue
        changed = {p.name: p.spell(other_value(p, defaults[p.name])) for p in params[:-1]}
        kept = params[-1]  # given at its default
        canonical = f"{name}:" + ",".join(f"{k}={changed[k]}" for k in sorted(changed))
        backwards = [f"{k}={changed[k]}" for k in sorted(changed, reverse=True)]
        given = [*backwards, f"{kept.name}={kept.spell(defaults[kept.name])}"]
        spellings_of_it = [f"{name}:" + ",".join(given), f"{name}:" + ",".join(reversed(given))]
        assert_one_bot(spellings_of_it, canonical, game_id)


def test_search_names_what_it_plays_with_its_games_own_defaults():
    # Skyfive's search plays 60 iterations by default; asking for a clock budget (ms) drops them.
    assert_one_bot(["search:halving=1,tree=0,iterations=60,prior=0,guard=2"], "search", "skyfive")
    assert_one_bot(["search:ms=500", "search:iterations=00"], "search:iterations=0", "skyfive")
    assert_one_bot(["search:ms=1000", "search:ms=1000,iterations=0"], "search:ms=1000", "skyfive")
    assert_one_bot(["search:iterations=60,ms=1000"], "search:iterations=60,ms=1000", "skyfive")
    # Not given, epsilon follows the rollout policy: given at that value it is the same bot.
    assert_one_bot(
        ["search:rollout=mast,epsilon=0.5", "search:epsilon=.50,rollout=mast"], "search:rollout=mast", "skyfive"
    )
    assert_one_bot(["search:epsilon=0.1"], "search", "skyfive")
    assert_one_bot(["search:epsilon=0.5"], "search:epsilon=0.5", "skyfive")
    assert canonical_spec("search:rollout=mast,epsilon=0.1", "skyfive") == "search:epsilon=0.1,rollout=mast"


@pytest.mark.parametrize("game_id", sorted(games()))
def test_the_default_field_is_spelled_canonically(game_id):
    for entrant in tournament_field(game_id):
        assert canonical_spec(entrant_bot(entrant), game_id) == entrant_bot(entrant), (game_id, entrant)


def test_addresses_and_owners_bots_are_never_rewritten():
    for name in ("grpc://127.0.0.1:5000", "unix:///tmp/bot.sock", "hosted:/tmp/x", "alice-bot", "Heuristic:x=01"):
        assert canonical_spec(name, "rolldice") == name


BAD = [
    ("rolldice", "heuristic:threshold=9", "heuristic: threshold=9 is out of range; allowed threshold=1..5"),
    ("rolldice", "heuristic:threshold=4.0", "heuristic: threshold='4.0' is not a whole number; allowed threshold=1..5"),
    ("rolldice", "heuristic:speed=1", "heuristic takes threshold=1..5; got speed"),
    ("rolldice", "heuristic:threshold", "bot spec 'heuristic:threshold': parameters are key=value, got 'threshold'"),
    ("rolldice", "random:x=1", "bot 'random' takes no parameters, got x"),
    ("skyfive", "search:rollout=best", "search: rollout='best' is not one of heuristic|mast|random; allowed"),
]


@pytest.mark.parametrize(("game_id", "spec", "error"), BAD, ids=[b[1] for b in BAD])
def test_a_bad_spelling_is_the_same_error_as_before(game_id, spec, error):
    with pytest.raises(ConfigError) as built:
        make_bot(spec, game_id)
    with pytest.raises(ConfigError) as spelled:
        canonical_spec(spec, game_id)
    assert str(spelled.value) == str(built.value) and str(built.value).startswith(error)


@pytest.mark.parametrize("spec", ["127.0.0.1:5000", "http://h:5000"])
def test_an_address_without_its_scheme_is_named_as_one(spec):
    """The first mistake a newcomer makes: it read "parameters are key=value, got '5000'"."""
    with pytest.raises(ConfigError) as info:
        make_bot(spec, "rolldice")
    assert str(info.value).startswith(f"bot spec {spec!r}: a remote bot's address is grpc://HOST:PORT or unix:///PATH")


def test_a_parameter_given_twice_is_refused_by_name():
    with pytest.raises(ConfigError) as info:
        canonical_spec("heuristic:threshold=4,threshold=2", "rolldice")
    assert str(info.value) == "bot spec 'heuristic:threshold=4,threshold=2': parameter 'threshold' is given twice"
    assert make_bot("heuristic:threshold=4,threshold=2", "rolldice")  # a stored spec still builds


def test_a_bad_spelling_in_arena_play_is_the_same_one_line_error():
    done = arena("play", "--game", "rolldice", "--bots", "heuristic:threshold=9,random")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "arena play: error: heuristic: threshold=9 is out of range; allowed threshold=1..5\n"


# -- entrants -----------------------------------------------------------------------------------


def test_copies_keep_their_number_on_the_canonical_name():
    spell = lambda bot: canonical_spec(bot, "rolldice")  # noqa: E731
    assert canonical_entrant("heuristic:threshold=04#2", spell) == "heuristic:threshold=4#2"
    given = ["heuristic:threshold=04", "heuristic:threshold=04#2", "random:", "heuristic:threshold=3"]
    assert canonical_entrants(given, spell) == [
        "heuristic:threshold=4",
        "heuristic:threshold=4#2",
        "random",
        "heuristic",
    ]
    with pytest.raises(ConfigError) as info:
        canonical_entrants(["heuristic", "random", "heuristic:threshold=03"], spell)
    assert str(info.value) == (
        "bots 'heuristic' and 'heuristic:threshold=03' are one bot, 'heuristic'; list it once, or write "
        "heuristic*N to let it fill several seats"
    )


def test_arena_play_names_seats_canonically():
    done = arena(
        "play", "--game", "rolldice", "--bots", "heuristic:threshold=04,random:,heuristic:threshold=3", "--json"
    )
    assert done.returncode == 0, done.stderr
    assert [s["bot"] for s in json.loads(done.stdout)["seats"]] == ["heuristic:threshold=4", "random", "heuristic"]


def test_a_local_tournament_refuses_two_spellings_and_names_entrants_canonically(tmp_path):
    refused = arena(
        "tournament", "--game", "rolldice", "--bots", "heuristic:threshold=4,random,heuristic:threshold=04",
        "--out", str(tmp_path / "refused"),
    )  # fmt: skip
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        "arena tournament: error: bots 'heuristic:threshold=4' and 'heuristic:threshold=04' are one bot, "
        "'heuristic:threshold=4'; list it once, or write heuristic:threshold=4*N to let it fill several seats\n"
    )
    assert not (tmp_path / "refused").exists()

    out = tmp_path / "run"
    bots = "heuristic:threshold=04*2,random:,heuristic:threshold=3"
    done = arena("tournament", "--game", "rolldice", "--bots", bots, "--seed", "5", "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    entrants = ["heuristic:threshold=4", "heuristic:threshold=4#2", "random", "heuristic"]
    assert json.loads((out / "tournament.json").read_text())["spec"]["bots"] == entrants
    assert {row["bot"] for row in json.loads(done.stdout)["leaderboard"]} == set(entrants)
    seats = {s["bot"] for line in (out / "matches.jsonl").read_text().splitlines() for s in json.loads(line)["seats"]}
    assert seats == set(entrants)
    # Resuming with the spelling it was started with is the same tournament.
    again = arena("tournament", "--game", "rolldice", "--resume", "--bots", bots, "--json", "--out", str(out))
    assert again.returncode == 0, again.stderr


def test_a_record_with_an_old_spelling_still_replays():
    game = get_game("rolldice")
    players = [make_bot("heuristic:threshold=04", "rolldice"), make_bot("random", "rolldice")]
    record = play_match(game, game.config(2), 9, players)
    assert [s["bot"] for s in record.seats] == ["heuristic:threshold=04", "random"]
    replay(game, MatchRecord.loads(record.dumps()))


# -- the service ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("specs")
    with redis_server(tmp) as redis, workers(redis.url, tmp, count=1, concurrency=1), service(redis.url, tmp) as srv:
        store = Store(redis.url)
        tokens = three_owners(store)
        yield {"store": store, "api": {name: Api(srv.address, token) for name, token in tokens.items()}}


def test_the_service_refuses_two_spellings_of_one_bot(stack):
    alice = stack["api"]["alice"]
    request = arena_pb2.CreateTournamentRequest(
        game="rolldice", bots=["heuristic:threshold=4", "random", "heuristic:threshold=04"]
    )
    code, field, details = code_of(alice.CreateTournament, request)
    assert (code, field) == (INVALID, "bots")
    assert "'heuristic:threshold=4' and 'heuristic:threshold=04' are one bot, 'heuristic:threshold=4'" in details
    # A bad spelling: the item it came from and make_bot's error, as before.
    request = arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic:threshold=9"])
    code, field, details = code_of(alice.CreateTournament, request)
    assert (code, field) == (INVALID, "bots[1]")
    assert details.endswith("heuristic: threshold=9 is out of range; allowed threshold=1..5")


def test_the_service_stores_canonical_names_and_old_spellings_still_count(stack):
    alice, store = stack["api"]["alice"], stack["store"]
    # A tournament stored before entrants were canonical, under its own spelling.
    old = TournamentSpec(game="rolldice", bots=("heuristic:threshold=04", "random"), players=2, repeats=2, seed=7)
    old_id = "rolldice-20200101-000000-0000c0de"
    records = [play_scheduled(old, match, make_player) for match in schedule(old)]
    assert store.create_tournament(old_id, old, total=len(records), batches=1)
    store.store_matches(old_id, [(int(r.tournament["index"]), r) for r in records])
    assert finalize_tournament(store, old_id)["status"] == "complete"

    created = alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="rolldice", bots=["heuristic:threshold=04*2", "random:", "heuristic:threshold=3"], repeats=1
        )
    )
    entrants = ["heuristic:threshold=4", "heuristic:threshold=4#2", "random", "heuristic"]
    assert list(created.bots) == entrants
    assert store.tournament(created.id)["spec"]["bots"] == entrants
    updates = watch_to_end(alice, created.id)
    assert updates[-1].tournament.status == "complete"
    assert {r.bot for r in updates[-1].leaderboard.rows} == set(entrants)
    rows = {r.bot: r for r in alice.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="rolldice")).rows}
    # The old spelling keeps its own row, with its games; stored data is never rewritten.
    assert set(rows) == {*entrants, "heuristic:threshold=04"}
    assert rows["heuristic:threshold=04"].games == len(records)
    ops = stack["api"]["ops"]
    old_match = ops.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=old_id)).matches[0]
    detail = ops.GetMatch(arena_pb2.GetMatchRequest(id=old_match.id))
    assert "heuristic:threshold=04" in [s.bot for s in detail.summary.seats] and detail.events
    replay(get_game("rolldice"), MatchRecord.loads(detail.record_json))

    # A filter by bot finds its matches under any spelling, copies by their number; an old
    # tournament's entrant under its own spelling.
    def filtered(tournament_id: str, bot: str) -> list[str]:
        request = arena_pb2.ListMatchesRequest(tournament_id=tournament_id, bot=bot)
        return [m.id for m in alice.ListMatches(request).matches]

    canonical = filtered(created.id, "heuristic:threshold=4")
    assert canonical and filtered(created.id, "heuristic:threshold=04") == canonical
    copy = filtered(created.id, "heuristic:threshold=4#2")
    assert copy and copy != canonical and filtered(created.id, "heuristic:threshold=004#2") == copy
    assert filtered(created.id, "heuristic:threshold=3") == filtered(created.id, "heuristic") != []
    assert filtered(old_id, "heuristic:threshold=04") != [] and filtered(created.id, "heuristic:x=1") == []


def test_a_challenges_opponents_are_named_canonically(stack):
    alice = stack["api"]["alice"]
    with bot_process(served("random")) as address:
        alice.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-spelled", games=["rolldice"], endpoint=address))
        request = arena_pb2.ChallengeRequest(
            bot="alice-spelled", game="rolldice", opponents=["heuristic:threshold=03", "heuristic:threshold=+4"]
        )
        events = list(alice.stream("Challenge", request))
    assert list(events[0].started.seat_names) == ["alice-spelled", "heuristic", "heuristic:threshold=4"]
    assert events[-1].WhichOneof("body") == "finished"
    bad = arena_pb2.ChallengeRequest(bot="alice-spelled", game="rolldice", opponents=["heuristic:threshold=0"])
    with pytest.raises(grpc.RpcError) as info:
        list(alice.stream("Challenge", bad))
    assert info.value.code() == INVALID and info.value.details().endswith(
        "threshold=0 is out of range; allowed threshold=1..5"
    )


def test_a_relative_hosted_directory_is_named_in_the_error():
    """hosted:DIR takes an absolute path; ./mybot read "expected hosted:BOT@VERSION on a worker
    with a store", which did not say the directory form exists."""
    from referee.hosted import make_hosted_player

    with pytest.raises(ConfigError) as info:
        make_hosted_player("./mybot/", "prey")
    assert "hosted:/ABSOLUTE/DIR" in str(info.value) and "hosted:BOT@VERSION" in str(info.value)
