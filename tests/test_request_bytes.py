"""What a bot receives is pinned: the bytes of every message of a seeded match, per game.

The runner builds requests for in-process and remote players alike; its speed-ups (unchanging
parts built once per match, observations built only when read) must not change a single byte.
For each game (default player count, a fixed seed) a recording player serialises every
MatchStart, DecisionRequest and Finish it receives (deterministic serialisation) and the test
compares a SHA-256 of all of them, and of the record, with the value pinned here.

A pinned entry is keyed by the game's version: when a game's rules change (its version string
changes) its entry no longer applies and the test says to re-pin it (``python -m
tests.test_request_bytes`` prints the current table).
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
    # game: (version, sha256 of every message the bots received, sha256 of the canonical record)
    "chicken": (
        "1",
        "ec6c9a8aef0310f4aedaedbb12814188f6396956001aa0017772d26fd6d7f7cd",
        "89a2284d822892107961dbcc2974b22026ea7bc7a78230fe0a36fadbe95b7885",
    ),
    "eggsandempires": (
        "1",
        "a6e25b384e8626968447dd0a52f4c18dd1c17f67e3780490a6a6265d96c952c7",
        "6cc449e5f444360bc006f3944b56b7bc73599d412f8e4b6c51291d1f575de8a2",
    ),
    "getbit": (
        "1.0",
        "9bb5f38f70b58e58df7ca8c71f8302d5d037cd9678596dc186d39176caf4c3c9",
        "f9570273a0d9d73a28f545f68ed8fd7fb3d1e35b7eec4b86835a45048b03e269",
    ),
    "karakum": (
        "1",
        "30abf8c5228326925ecdff0ccdc0c16571fb0b8f0e9b21c9d61dce6facf7f689",
        "9ce6f4aa3bdfefc916fa3be34607f9b537c72598138a7f74b6b8585fcc516bc0",
    ),
    "llamallama": (
        "1",
        "8b1b32b172ae27777c661b67d7bec70945a905138144b2ab4cc30fad876f8a3e",
        "82f35083c1f7918e74c1146f037abdd5e58ddc24c87ecbe3e05ec1823193e3c0",
    ),
    "petquartet": (
        "1.0",
        "fb0ea7bf9232339f75ee457bacb32fb9f14950a9132d7515908617c8db590f03",
        "b4274453a4f593d17ac70e4af13bba908b49cb51fb0a55277b270f777525bd75",
    ),
    "prey": (
        "1",
        "a8b84db7b907d47cb1af4f32cb55456f9c98376acee23bf6e930ddeab9e6d46e",
        "6631e5a39fbf0518b1d657d094017d87add3ee8a3cfc68022fa8afa82ce46392",
    ),
    "rainbow": (
        "1.0",
        "8ef06f94ec5615ab7a770972dde5d5938662735551a8683946bdd3dcf885d43c",
        "5b28f6c33ff629934ab8ee36985c27f70dac90f23096e89ccca9296685ecb9ea",
    ),
    "rolldice": (
        "1.0",
        "2ccd8b7ebfb7dc615220c3edf5220cb795ea3bebe662f58b2c0f00e3b3bddc03",
        "3dcbff6b4cc06567974cddd7de940479d86362c49bb29fcd31f3916f93f4f8ee",
    ),
    "seerscatalog": (
        "1",
        "3f379cdf433daf7107dafa2a064a76ed8108f94f484bb0b8caf0925688903dbd",
        "27092bfe601401c41bedc21c8aea6ac53d81121e86fd9708ad390fd6eecb9012",
    ),
    "skyfive": (
        "1.0",
        "1a25455777b438b083109135ca8a2cabd5ebc3bdbf3da61f5338b5ff2191324b",
        "7c1d402e589cc71323086b456833ea2fbab14b93889427a69f9c50cafeb20af1",
    ),
    "slambo": (
        "1",
        "d74a8528293dbe330ed8fb85137cf210b42f937b199fc313f096e70f1c26405f",
        "eb2cd32551c22ebf1a06c57c336a71d68b413dea7d2bd6832cd339a3788969a7",
    ),
    "sodajerk": (
        "1",
        "6da509d9fedba0ccb17f5ded871557053731cef8429bd702223a31b7d9c9626f",
        "baf0488fa4c4afcf5bee3aa8646b6e9277355cc71f613fcc214fa1e708c3fd25",
    ),
    "threewitches": (
        "1",
        "440f5ee1cac11454a8c646a8911ba118510d3c5e8dcbc75cf4cf67dde26ce4a8",
        "db134c44ed1affe9f3a1915b16e3f05d91c46df7940471e8e3af022f2d79a790",
    ),
    "tricktothefuture": (
        "1",
        "2a046d9ac8cfc901c17a839079506f2d42bef7931091fad69b30edc6af644843",
        "0f2543e171ef4d807174e25856f81f5ec9313556f10d355494b7a456f697e686",
    ),
    "vivo": (
        "1.0",
        "06fa664408a86c02721ee71b3092e2ddda776f95c97068f5f3f9412afe288537",
        "7b6a9aa000466135cc6157ebe03b7d31c46f4c39557d2b95d8ce7e63b2f3beae",
    ),
    "winecellar": (
        "1",
        "18a1dba431295d4c98764d5d3a2bd993ad53be54b19296f3beffd9d050a6ee5d",
        "03197e98821fbaa3ca6e79eea0b5205995dbc0b58f0ea0c24553734e8c0c35b2",
    ),
    "zoolorettodice": (
        "1",
        "95c452804d187ef7fa1348470e7a25f06e7ecc9ad8d43a4da5fbf3bcf91cda1c",
        "69255e2767a8f028742a9f68fdc9abd4f703e2c34cabb616d2c23363088fa44b",
    ),
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


def fingerprint(game: Game, *, recording: bool = True) -> tuple[str, str]:
    digest = hashlib.sha256()
    n = players_of(game)
    bots = [Recording(digest, s) if recording else RandomBot() for s in range(n)]
    record = play_match(game, game.config(n), SEED, bots)
    canonical = json.dumps(record.canonical(), sort_keys=True).encode()
    return digest.hexdigest(), hashlib.sha256(canonical).hexdigest()


@pytest.mark.parametrize("game_id", sorted(PINNED))
def test_bots_receive_exactly_the_pinned_bytes(game_id: str) -> None:
    game = games().get(game_id)
    if game is None:
        pytest.skip(f"{game_id} is not registered here")
    version, messages, record = PINNED[game_id]
    if game.meta.version != version:
        pytest.skip(f"{game_id} is now version {game.meta.version} (pinned {version}): re-pin it")
    assert fingerprint(game) == (messages, record)


@pytest.mark.parametrize("game_id", sorted(PINNED))
def test_a_bot_that_reads_nothing_plays_the_same_match(game_id: str) -> None:
    """The plain random bot (it reads only the options) plays the recorded match exactly."""
    game = games().get(game_id)
    if game is None or game.meta.version != PINNED[game_id][0]:
        pytest.skip(f"{game_id} changed or is not registered here")
    assert fingerprint(game, recording=False)[1] == PINNED[game_id][2]


def test_every_registered_game_is_pinned_or_new() -> None:
    """A game already pinned stays pinned (an entry is not dropped by accident)."""
    missing = sorted(set(PINNED) - set(games()))
    assert not missing, f"pinned games no longer registered: {missing}"


if __name__ == "__main__":  # print the table to pin
    for gid, g in sorted(games().items()):
        messages, record = fingerprint(g)
        print(f'    "{gid}": ("{g.meta.version}", "{messages}", "{record}"),')
    sys.exit(0)
