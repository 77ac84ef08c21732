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
    # eggsandempires 4.1: the round-end and end texts name each seat's VP (not a Python list)
    "eggsandempires": ("4.1", "c7988ed67735ca748e09802553bc5880", "7ef662e5d3f162d6ed49aab5aa0b8aeb"),
    # fortheemperor 3.1: the deal and end texts name the Warriors and each army's Tiebreaker (not lists)
    "fortheemperor": ("3.1", "dd0be4288f5c4bae9313b644b57b6781", "e95bcd1e0a75c40b4fc98c23736aa313"),
    # frenzyfalls 2.1: the end text names each seat's points and Score cards (not lists)
    "frenzyfalls": ("2.1", "d556450c3069c45004e318ff1d4fd6d1", "e6bcd516b1d8f2c8b7504113be389e07"),
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
    # goldengoal 2.2: the kickoff texts name each seat's roll (not a list)
    "goldengoal": ("2.2", "721403eef525a6d2dc46a196d64c8ae5", "00ef99043eabdd02e2ce48475f52cca8"),
    # karakum 5 (2026-12-05): the same bytes as version 4 but for the version string (the match
    # has no reading version 4's search ran out on)
    # karakum 6: the start event's detail (StartEvent: camels removed, in play, first seat)
    "karakum": ("6", "695779ccd956522f18cab0dd0d405b14", "1dcdcaeca8e5638beace15ac70811389"),
    # llamallama 4.1: the round, place and score texts name seats, dummies, unknown owners (not -1/-2 lists)
    "llamallama": ("4.1", "1f1dab201cd4d920ae5a37fb14ff62c9", "5eeb9f1eaf903b416fca9210b3b5c233"),
    # openseason 6.1: the end text names each seat's score and accolades (not lists)
    "openseason": ("6.1", "ea6be7673a7185d7a5078c0190f7c9ba", "de8e25645489edebaf5c84cceed85c9f"),
    # opensesame 1.2: with human memory the recite option's label gives the slip chance (the
    # default, perfect memory, plays the same match: only the version differs)
    "opensesame": ("1.2", "19e57fb8f8c67a7a51fbc0b710e988e0", "176403a8618dcdf7b18320d76361f805"),
    # petquartet 1.1: typed details for setup, duet, maestro, round, round-end, last-card, discard, end
    "petquartet": ("1.1", "c7dd4e430ba0b03fb8ce66950e9ab725", "0935eb5c806d4a9bccd9284753a2e96e"),
    # prey 2: the prey_phase event's detail (PreyPhaseEvent)
    # prey 2.1: the round_end text (and a tied first lead) names seats (not lists)
    "prey": ("2.1", "12e8dd29a9c83a2b8a78e0e989a23063", "47a975a23494f2ab516c3b63c690e997"),
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
    # seerscatalog 9: (still unreleased) the game-end text names each seat's total (not a list)
    "seerscatalog": ("9", "0a92d70a2556c872e015351b4c6d994d", "b1e26039e13d8427d9e78bcdf76a9827"),
    # skyfive 1.3: the setup, start, final and end events carry a detail
    "skyfive": ("1.3", "eaa7edcd820f568b765cbbf73bfd9814", "cd769e5bdabb286367a4ff94f63316b9"),
    # slambo 1.1: the end text names each seat's shame and the winners as seats (not a list)
    "slambo": ("1.1", "ff8830e91e93a7bd1ec58ba1562d01b8", "b27356bc97c61442e5fdb78ab7493f0c"),
    "sodajerk": ("4", "108d5cd4446bd37936cf5b4d835ddc28", "ca1ac87261c59e9d737f4669679ad0c3"),
    # threewitches 3.1: the end text names each seat's Fate (not a list)
    "threewitches": ("3.1", "6d0c9e3cc8fce5e0c7a0f5026790a0bf", "7cd09db40a513e58d06a3d42a5afa34e"),
    # tricktothefuture 1.1: the end text names each seat's score (not a list)
    # tricktothefuture 1.2: the play and trick texts say "1 rod", not "1 rods"
    "tricktothefuture": ("1.2", "721cc6e78ec75ec1f1a2fe1fdefbd66d", "2fe8ca23fa16940c905485fe611ba1c9"),
    # vivo 1.1: typed details for start (leader), round (removed suits, hand size), end (totals)
    "vivo": ("1.1", "effe59616303bcef124bb0a356834316", "08b4d82990529a82f0c9dad90883c72b"),
    # winecellar 3.1: the bids, eno, game_end and end texts name seats and bottles (not lists)
    "winecellar": ("3.1", "f4e5aa3c9294acc090a6e2698fc62dd5", "26bc512df5aa26ff0767dc1287a620ae"),
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
