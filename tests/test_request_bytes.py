"""What a bot receives is pinned: the bytes of every message of a seeded match, per game.

The runner builds requests for in-process and remote players alike; its speed-ups (unchanging
parts built once per match, observations built only when read) must not change a single byte.
For each game (default player count, a fixed seed) a recording player serialises every
MatchStart, DecisionRequest and Finish it receives (deterministic serialisation) and the test
compares a SHA-256 of all of them, and of the record, with the value pinned here.

A pinned entry is keyed by the game's version: when a game's rules change (its version string
changes) its entry no longer applies and the test says to re-pin it (``python -m
tests.test_request_bytes`` prints the current table). The message hashes of the 17 games
that send private events were re-pinned once without a version change (2026-12-04), when
``Event.index`` came to be numbered per seat (``tests/test_event_numbering.py``); no record
hash changed.
"""

from __future__ import annotations

import hashlib
import json
import sys

import pytest

from arena.engine import Game
from arena.registry import games
from arena.runner import play_match
from arena.v1 import bot_pb2
from bots.random_bot import RandomBot

SEED = 20261203

PINNED: dict[str, tuple[str, str, str]] = {
    # game: (version, sha256[:32] of every message the bots received, of the canonical record)
    "chicken": ("1", "ec6c9a8aef0310f4aedaedbb12814188", "89a2284d822892107961dbcc2974b220"),
    "eggsandempires": ("4", "a28b263ccb111294a574c8752bde16cb", "45245dff16697c4f58863836205ba65d"),
    "fortheemperor": ("3", "9f3ecc31ae37ad734e3a85e23646a402", "0468126e3fc7560c8684f017b5e42005"),
    "frenzyfalls": ("2", "4d47158cce65e424e56bda483e84ce35", "72f7f4688e0bff32f011c2dbc0e1bf29"),
    # friendlyfishing 1.1: the setup event's detail (side, Special sets, tiles placed)
    "friendlyfishing": ("1.1", "4614711fa659f21f69a4768c6d776608", "029563b0638642bd4482863fdb6256cf"),
    # gasha 3: a payment's cards are shown and recorded sorted (their hand order told which draw
    # held which toy); the reshuffled discard pile, and so the games, change. gasha 4: the payer
    # chooses the backs it spends (pay:<toy><n>@<back>+...; a forced held-longest card told the
    # toy of a kept one): options, and so games, change.
    "gasha": ("5", "3547976ddb11600595f6c6d0c712589f", "f277950e25af32f40bac15cc79d98712"),
    # getbit 1.1: every event kind carries a typed detail (setup, round, tie, miss, discard, ...)
    "getbit": ("1.1", "cec1c06517af827786bea510690a6f7e", "56dc3f702063c7711b20b4b1d8b0ca0a"),
    # goldengoal 2.1: a match-winning goal's turn is counted in turns_played (the final observation)
    "goldengoal": ("2.1", "f11396732559fd9f5c1ca1f2b161bf6b", "83f732b448e3ca2f96aa3b974875228f"),
    # karakum 5 (2026-12-05): the same bytes as version 4 but for the version string (the match
    # has no reading version 4's search ran out on)
    # karakum 6: the start event's detail (StartEvent: camels removed, in play, first seat)
    "karakum": ("6", "695779ccd956522f18cab0dd0d405b14", "1dcdcaeca8e5638beace15ac70811389"),
    "llamallama": ("4", "9e50c04076c2810c9d4f777eace2bb35", "14dd61f3e5a416830829da5225022098"),
    "openseason": ("6", "485580df482883cb5781b2ad7cef068c", "adfb38928675d1dfd3c83db8f3c7886d"),
    "opensesame": ("1", "effb8c2cf1d19c6c691cf3798ee9e40d", "06200b6e454a16cc05ba8a33e123cedf"),
    # petquartet 1.1: typed details for setup, duet, maestro, round, round-end, last-card, discard, end
    "petquartet": ("1.1", "c7dd4e430ba0b03fb8ce66950e9ab725", "0935eb5c806d4a9bccd9284753a2e96e"),
    # prey 2: the prey_phase event's detail (PreyPhaseEvent)
    "prey": ("2", "ebf3de4fc5bbebe19e17ec4befc0ae22", "0c582490d161b2e810864f9532845b8b"),
    # rainbow 2.2: typed details for lead, trick, out, bonus, a no-pile claim and the public reserve
    "rainbow": ("2.2", "f05c20409350965f0233219a42393fc2", "d5ee2b25f2825c60ed21e699585cb6cf"),
    # rolldice 1.1: the observation says whether the roll-off is on (rolloff; false and unsent by
    # default); the start and end events carry details (StartEvent, EndEvent)
    "rolldice": ("1.1", "7413141bc6ae02c1dc5fbb857029c139", "1382e9990e293dbd8ffc581c305a1abb"),
    # seasons 4: drawn cards discarded face down are named only to their drawer (Observation.discard
    # lists the cards the seat knows); the draw bonus replaces the die's draw; Potion of Life is a
    # transmutation (Purse of Io, the transmute bonus)
    "seasons": ("4", "ad3cffbfbfaa6f329a3bd3b9a9a7ba43", "1ecc0bfeca36d4ddbaf9055a51ca5dc4"),
    # seerscatalog 5: a Start Seer who could not start shows as passed while the next seat starts
    # seerscatalog 7: round 4 breaks only the tie for the highest total (the version string;
    # the ranks of equal totals below it)
    # seerscatalog 8: forced passes stay in every view for the round (SeatView.cannot_beat)
    # seerscatalog 9: with the cards played since each (Unbeaten.played_since)
    "seerscatalog": ("9", "7ed93c74e19460691f97479f65d6a1ce", "b1e26039e13d8427d9e78bcdf76a9827"),
    # skyfive 1.3: the setup, start, final and end events carry a detail
    "skyfive": ("1.3", "eaa7edcd820f568b765cbbf73bfd9814", "cd769e5bdabb286367a4ff94f63316b9"),
    "slambo": ("1", "6ead48fd13168c84b339682fbc8400f4", "eb2cd32551c22ebf1a06c57c336a71d6"),
    "sodajerk": ("4", "108d5cd4446bd37936cf5b4d835ddc28", "ca1ac87261c59e9d737f4669679ad0c3"),
    "threewitches": ("3", "e0d32486418159802200b82f1a3d46ce", "58c71932208cc092467c898de04691a8"),
    "tricktothefuture": ("1", "54179c1f8059119c6910b976096bdc8b", "0f2543e171ef4d807174e25856f81f5e"),
    # vivo 1.1: typed details for start (leader), round (removed suits, hand size), end (totals)
    "vivo": ("1.1", "effe59616303bcef124bb0a356834316", "08b4d82990529a82f0c9dad90883c72b"),
    "winecellar": ("3", "cef934f8d60300cde2098cf2d08132ac", "9b378122a5194e2946a0830d64c26c4f"),
    # zoolorettodice 2: the safety stop at round 100 (ruling 11); the same match but for the
    # version string, which MatchStart and the record carry
    "zoolorettodice": ("2", "719d275e8080ccbdc6772a86cf573d70", "e5d6ee4bae19100fd0f8abd895360dcb"),
}


def players_of(game: Game) -> int:
    if game.meta.id == "getbit":
        return 4
    return min(max(2, game.meta.min_players), game.meta.max_players)


class Recording(RandomBot):
    """The random bot, serialising every message it receives (lazy parts materialised)."""

    def __init__(self, digest: hashlib._Hash, seat: int) -> None:
        super().__init__()
        self.digest = digest
        self.seat = seat

    def _add(self, tag: str, message: object) -> None:
        data = message.SerializeToString(deterministic=True)  # type: ignore[attr-defined]
        self.digest.update(f"{self.seat}:{tag}:{len(data)}:".encode() + data)

    def start(self, message: bot_pb2.MatchStart) -> bot_pb2.Ready:
        self._add("start", message)
        return super().start(message)

    def decide(self, request: bot_pb2.DecisionRequest) -> str:
        self._add("decide", request)
        return super().decide(request)

    def finish(self, message: bot_pb2.Finish) -> None:
        self._add("finish", message)
        super().finish(message)


class Keeping(Recording):
    """Keeps every message and serialises them only after the match, when the state they were
    made in has long changed: a request must still read as it was made."""

    def __init__(self, kept: list[tuple[int, str, object]], seat: int) -> None:
        super().__init__(hashlib.sha256(), seat)
        self.kept = kept

    def _add(self, tag: str, message: object) -> None:
        self.kept.append((self.seat, tag, message))


def fingerprint(game: Game, *, recording: bool = True, keeping: bool = False) -> tuple[str, str]:
    digest = hashlib.sha256()
    n = players_of(game)
    kept: list[tuple[int, str, object]] = []
    if keeping:
        bots: list[RandomBot] = [Keeping(kept, s) for s in range(n)]
    else:
        bots = [Recording(digest, s) if recording else RandomBot() for s in range(n)]
    # The match id as the runner's default once was (it reaches the bots): the pins hold the rest.
    record = play_match(game, game.config(n), SEED, bots, match_id=f"{game.meta.id}-{SEED}")
    for seat, tag, message in kept:  # serialised only now
        data = message.SerializeToString(deterministic=True)  # type: ignore[attr-defined]
        digest.update(f"{seat}:{tag}:{len(data)}:".encode() + data)
    canonical = json.dumps(record.canonical(), sort_keys=True).encode()
    return digest.hexdigest()[:32], hashlib.sha256(canonical).hexdigest()[:32]


@pytest.mark.parametrize("game_id", sorted(PINNED))
def test_bots_receive_exactly_the_pinned_bytes(game_id: str) -> None:
    game = games().get(game_id)
    if game is None:
        pytest.skip(f"{game_id} is not registered here")
    version, messages, record = PINNED[game_id]
    if game.meta.version != version:
        pytest.fail(f"{game_id} is now version {game.meta.version} (pinned {version}): re-pin it")
    assert fingerprint(game) == (messages, record)


@pytest.mark.parametrize("game_id", sorted(PINNED))
def test_a_request_read_after_the_match_reads_as_it_was_made(game_id: str) -> None:
    game = games().get(game_id)
    if game is None or game.meta.version != PINNED[game_id][0]:
        pytest.skip(f"{game_id} changed or is not registered here")
    assert fingerprint(game, keeping=True) == PINNED[game_id][1:]


@pytest.mark.parametrize("game_id", sorted(PINNED))
def test_a_bot_that_reads_nothing_plays_the_same_match(game_id: str) -> None:
    """The plain random bot (it reads only the options) plays the recorded match exactly."""
    game = games().get(game_id)
    if game is None or game.meta.version != PINNED[game_id][0]:
        pytest.skip(f"{game_id} changed or is not registered here")
    assert fingerprint(game, recording=False)[1] == PINNED[game_id][2]


def test_every_registered_game_is_pinned() -> None:
    """Every game is pinned, and a game once pinned stays pinned (an entry is not dropped by
    accident): ``python -m tests.test_request_bytes`` prints the table for a new game."""
    missing = sorted(set(PINNED) - set(games()))
    assert not missing, f"pinned games no longer registered: {missing}"
    unpinned = sorted(set(games()) - set(PINNED))
    command = f"python -m tests.test_request_bytes {' '.join(unpinned)}"
    assert not unpinned, f"games not pinned yet: {unpinned} ({command} prints their rows)"


if __name__ == "__main__":  # print the table to pin (every game, or the ids given)
    wanted = set(sys.argv[1:])
    for gid, g in sorted(games().items()):
        if wanted and gid not in wanted:
            continue
        messages, record = fingerprint(g)
        print(f'    "{gid}": ("{g.meta.version}", "{messages}", "{record}"),')
    sys.exit(0)
