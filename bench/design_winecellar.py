"""Wine Cellar: how the designed bottles and clients were made, and the simulation that checks
them (arena/games/winecellar/components.toml).

    python -m bench.design_winecellar [--check] [--scale 1.0]

``--check`` only verifies that :func:`generate` reproduces the frozen components. Otherwise:

1. Heuristic self-play at 2, 4 and 8 players: win share by seat (seat advantage), mean score
   and its parts, win share by client profile (no client always right), top/bottom shares.
2. Fixed bid policies in one seat against heuristic seats at 3 players: always the highest
   card, always the lowest card (else the heuristic): no bid is always right.
3. Solo: the heuristic's and random play's scores and titles against Eno.
4. An alternative design, every Age Score row a plain random permutation instead of a
   drinking window: how much the heuristic gains over random play (skill) and solo scores.

Figures (``--scale 1``; heuristic = bots/games/winecellar.py ``heuristic``):

1. Heuristic self-play. 2 players (300 matches): seat win shares 0.555 / 0.445 (600 more
   matches, seeds 170000+: 0.51 / 0.49, so no real seat advantage); mean score 71.1 (53-86)
   = cellar 52.2 + types 10.1 + countries 8.8; top/bottom 0.51 / 0.49. 4 players (150):
   seats 0.27 / 0.27 / 0.20 / 0.25; mean 74.4 (46-92) = 52.5 + 11.2 + 10.8. 8 players (50):
   seats 0.11 / 0.14 / 0.07 / 0.13 / 0.24 / 0.11 / 0.12 / 0.09 (expected 0.125; small
   sample); mean 79.2 = 53.3 + 12.4 + 13.5.
   Win rate per seat holding each client profile (expected 1/n): 2p from 0.41
   (sparkling5+rose2) to 0.56 (sparkling3+rose3); 4p from 0.13 (red2+sparkling3) to 0.33
   (sparkling6+white1); 8p from 0.05 (sparkling5+rose2) to 0.23 (sparkling6+white1), 28-48
   seats each. No profile wins always or never, and no type is best at every count.
2. Fixed bids at 3 players, one seat against heuristic seats (150 matches, expected 0.333):
   always the highest card 0.14, always the lowest 0.27: neither extreme is right; the bid
   has to follow what the round's prizes are worth to you and to the others.
3. Solo (400 games): heuristic mean 71.8 (53-89): Master 0.48, Capable 0.36, Wine Geek 0.14,
   Still Fermenting 0.02; random play 50.6 (31-72): Still Fermenting 0.86, Wine Geek 0.13,
   Capable 0.01. The printed table separates careful play from random play with these rows.
4. Random permutation rows instead of drinking windows: heuristic vs random 2p 0.985 (chosen
   rows 1.0); heuristic solo mean 68.7 (chosen 71.8), Master 0.27. Drinking windows reward
   planning the cellar (a bottle belongs near its peak) more than noise rows do, and keep the
   solo table's top titles in reach of careful play.
"""

from __future__ import annotations

import argparse
import math
import random
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

from arena.games.v1 import winecellar_pb2 as pb
from arena.games.winecellar import GAME
from arena.games.winecellar import game as wc
from arena.record import resimulate
from arena.runner import play_match
from bots.games.winecellar import SommelierBot
from bots.registry import make_bot

GA = ["France", "Italy", "Spain", "USA"]
GB = ["Portugal", "Germany", "Chile", "Argentina"]
GC = ["Australia", "New Zealand", "South Africa", "Austria"]
PROFILES = [
    ("sparkling", 6, "white", 1),
    ("sparkling", 6, "red", 1),
    ("sparkling", 5, "rose", 2),
    ("rose", 3, "red", 1),
    ("rose", 3, "white", 1),
    ("red", 2, "white", 1),
    ("white", 2, "red", 1),
    ("red", 2, "sparkling", 3),
    ("white", 2, "sparkling", 3),
    ("sparkling", 3, "rose", 3),
]


def _row(rng: random.Random, peak: int) -> list[int]:
    """A drinking window: 8 at the peak, falling away (side by coin), one wobble."""
    values = {peak: 8}
    left, right, v = peak - 1, peak + 1, 7
    while v >= 1:
        p = rng.choice([q for q in (left, right) if 1 <= q <= 8])
        values[p] = v
        v -= 1
        if p == left:
            left -= 1
        else:
            right += 1
    row = [values[i] for i in range(1, 9)]
    i = rng.choice([i for i in range(7) if 8 not in (row[i], row[i + 1])])
    row[i], row[i + 1] = row[i + 1], row[i]
    return row


def generate() -> tuple[list[dict], list[dict]]:
    """The frozen components: bottles (types and rows from one seeded stream, countries from a
    second) and clients (10 profiles x 3, countries rotated, sets alternating)."""
    rng = random.Random(2026)
    extra = [1, 8, 2, 7, 3, 6, 4, 5]
    bottles: list[dict] = []
    for block in range(8):
        types = ["red"] * 3 + ["white"] * 3 + ["rose"] * 2 + ["sparkling"]
        peaks = [*range(1, 9), extra[block]]
        rng.shuffle(types)
        rng.shuffle(peaks)
        for k in range(9):
            bottles.append({"id": block * 9 + k + 1, "type": types[k], "ages": _row(rng, peaks[k])})
    crng = random.Random(2026)
    for block in range(8):
        group = GA if block < 3 else GB if block < 5 else GC
        rot = block % 4
        countries = ((group[rot:] + group[:rot]) * 3)[:9]
        crng.shuffle(countries)
        for k in range(9):
            bottles[block * 9 + k]["country"] = countries[k]
    clients: list[dict] = []
    for rep in range(3):
        for p, (t1, b1, t2, b2) in enumerate(PROFILES):
            clients.append(
                {
                    "id": len(clients) + 1,
                    "set": "A" if (p + rep) % 2 == 0 else "B",
                    "type1": t1,
                    "bonus1": b1,
                    "type2": t2,
                    "bonus2": b2,
                    "countries": [GA[(p + rep) % 4], GB[(p + 2 * rep + 1) % 4], GC[(p + 3 * rep + 2) % 4]],
                }
            )
    return bottles, clients


def check() -> None:
    data = tomllib.loads((Path(wc.__file__).with_name("components.toml")).read_text())
    bottles, clients = generate()
    assert data["bottles"]["cards"] == bottles, "bottles differ from generate()"
    assert data["clients"]["cards"] == clients, "clients differ from generate()"
    print("components.toml == generate()")


class FixedBid(SommelierBot):
    def __init__(self, highest: bool) -> None:
        super().__init__()
        self.highest = highest

    def _bid(self, obs, turn):  # type: ignore[no-untyped-def]
        ids = [b.id for b in obs.hand]
        return f"bid:{max(ids) if self.highest else min(ids)}"


def selfplay(players: int, matches: int, seed: int) -> dict:
    game = GAME
    config = game.config(players)
    seat_wins = [0.0] * players
    profile_wins: dict[tuple, float] = defaultdict(float)
    profile_seen: Counter = Counter()
    parts = [0, 0, 0]
    scores: list[int] = []
    ends: Counter = Counter()
    for m in range(matches):
        record = play_match(game, config, seed + m, [make_bot("heuristic", "winecellar") for _ in range(players)])
        ranks = record.result["ranks"]
        winners = [s for s, r in enumerate(ranks) if r == 1]
        state = resimulate(game, record)
        for s in winners:
            seat_wins[s] += 1 / len(winners)
        for s in range(players):
            c = wc.CLIENTS[state.clients[s]]
            key = c[2:6]
            profile_seen[key] += 1
            if s in winners:
                profile_wins[key] += 1 / len(winners)
            b = game.breakdown(state, s)
            parts[0] += b.cellar
            parts[1] += b.types
            parts[2] += b.countries
            scores.append(b.total)
        for e in state.log.events:
            if e.kind == "place" and e.detail.end:
                ends[pb.End.Name(e.detail.end)] += 1
    n = matches * players
    return {
        "players": players,
        "matches": matches,
        "seat_win_share": [round(w / matches, 3) for w in seat_wins],
        "mean_score": round(sum(scores) / n, 1),
        "min_max": (min(scores), max(scores)),
        "cellar_types_countries": [round(x / n, 1) for x in parts],
        "profile_win_rate_per_seat": {
            f"{k[0]}{k[1]}+{k[2]}{k[3]}": (round(profile_wins[k] / profile_seen[k], 3), profile_seen[k])
            for k in sorted(profile_seen)
        },
        "top_share": round(ends["TOP"] / max(sum(ends.values()), 1), 3),
    }


def policy(highest: bool, matches: int, seed: int, players: int = 3) -> float:
    config = GAME.config(players)
    wins = 0.0
    for m in range(matches):
        seat = m % players
        bots = [make_bot("heuristic", "winecellar") for _ in range(players)]
        bots[seat] = FixedBid(highest)
        ranks = play_match(GAME, config, seed + m, bots).result["ranks"]
        if ranks[seat] == 1:
            wins += 1 / ranks.count(1)
    return round(wins / matches, 3)


def solo(bot: str, matches: int, seed: int) -> dict:
    config = GAME.config(1)
    scores = [
        play_match(GAME, config, seed + m, [make_bot(bot, "winecellar")]).result["scores"][0] for m in range(matches)
    ]
    titles = Counter(wc.title(int(s)) for s in scores)
    return {
        "bot": bot,
        "mean": round(sum(scores) / len(scores), 1),
        "min_max": (min(scores), max(scores)),
        "titles": {k: round(v / len(scores), 3) for k, v in titles.most_common()},
    }


def vs_random(players: int, matches: int, seed: int) -> float:
    config = GAME.config(players)
    wins = 0.0
    for m in range(matches):
        seat = m % players
        specs = ["random"] * players
        specs[seat] = "heuristic"
        ranks = play_match(GAME, config, seed + m, [make_bot(s, "winecellar") for s in specs]).result["ranks"]
        if ranks[seat] == 1:
            wins += 1 / ranks.count(1)
    return round(wins / matches, 3)


def with_random_rows(seed: int = 7) -> None:
    """Swap every Age Score row for a random permutation (in place, for this process)."""
    rng = random.Random(seed)
    for i, b in list(wc.BOTTLES.items()):
        ages = list(range(1, 9))
        rng.shuffle(ages)
        wc.BOTTLES[i] = b._replace(ages=tuple(ages))
        wc._PB_BOTTLE[i] = pb.Bottle(id=b.id, type=b.type, country=b.country, ages=ages)


SMALLEST_SCALE = 0.02
"""The smallest study is 50 matches: a scale below this plays none of them (it divided by 0)."""


def scale(text: str) -> float:
    """An argparse ``type``: a finite ``--scale`` of at least SMALLEST_SCALE."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < SMALLEST_SCALE:
        raise argparse.ArgumentTypeError(f"{text}: a finite number, at least {SMALLEST_SCALE}")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--scale", type=scale, default=1.0, help=f"of every study's matches, at least {SMALLEST_SCALE}")
    args = parser.parse_args(argv)
    check()
    if args.check:
        return
    k = args.scale
    for players, matches in ((2, 300), (4, 150), (8, 50)):
        print(selfplay(players, int(matches * k), 70_000), flush=True)
    print("policy highest", policy(True, int(150 * k), 80_000), "lowest", policy(False, int(150 * k), 80_000))
    print(solo("heuristic", int(400 * k), 90_000))
    print(solo("random", int(400 * k), 90_000))
    print("heuristic vs random 2p win share", vs_random(2, int(200 * k), 95_000))
    with_random_rows()
    print("random rows: heuristic vs random 2p win share", vs_random(2, int(200 * k), 95_000))
    print("random rows:", solo("heuristic", int(400 * k), 90_000))


if __name__ == "__main__":
    main()
