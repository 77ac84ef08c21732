"""Design simulation for SLAMBO!'s card values (the rules print only ranges and examples).

    python -m bench.design_slambo                 # number-card duplicates, 2 players
    python -m bench.design_slambo --specials      # special-card mixes, 3 and 4 players
    python -m bench.design_slambo --matches 300
    python -m bench.design_slambo --skill         # heuristic settings against each other

The 17 number cards are 9 blue (+1..+8) and 8 red (-1..-7) (DATA 15), so each colour repeats
exactly one value; the examples need blue 2, 4 and red 5, 7. Every pair of duplicates is played
by the heuristic against itself (and the arena edition also by random players). Reported per
deck: the blue and red sums; breaks per bout; mean plays per bout (of 12 in 2p); the share of
bouts lost by the bout's first player; the match win rate of the player who started the match;
and the heuristic's match win rate against random.

The specials (3-4 players) are 6 cards of two kinds, +/- (with a number) and copy; each mix is
scored the same way, plus how often a special card is the one the heuristic plays when it holds
one, and how often a copy card is played when holding one is a loss (a copy that breaks the range
was the only option).
"""

from __future__ import annotations

import argparse
from collections import Counter

from arena.chance import Chance
from arena.games.slambo.game import ARENA_DECK, Deck, Slambo
from arena.games.v1 import slambo_pb2 as pb
from bench import options
from bots.games.slambo import BalanceBot


def play(game: Slambo, players: int, seed: int, heuristic: list[bool], stats: Counter) -> list[int]:
    state = game.new_match(game.config(players), seed)
    bot = BalanceBot()
    rng = Chance(seed ^ 0xD35)
    starter = state.first
    bout_first = state.first
    while state.pending:
        (decision,) = state.pending
        seat = decision.seat
        if heuristic[seat]:
            obs = game.observe(state, seat)
            assert isinstance(obs, pb.Observation)
            choice = bot.pick(obs, [(o.id, o.action) for o in decision.options])  # type: ignore[misc]
            if any(o.action.card.colour in (pb.PLUS_MINUS, pb.COPY) for o in decision.options):  # type: ignore[attr-defined]
                stats["holding_special"] += 1
                stats["special_played"] += choice.startswith(("pm", "copy"))
        else:
            choice = rng.pick(decision.options, "p").id
        before = len(state.log.events)
        game.apply(state, {seat: choice})
        for event in state.log.events[before:]:
            stats["plays"] += event.kind == "play"
            if event.kind == "bout-end":
                detail = event.detail
                assert isinstance(detail, pb.BoutEndEvent)
                stats["bouts"] += 1
                if detail.slambo:
                    stats["first_lost"] += detail.loser == bout_first
                else:
                    stats["breaks"] += 1
            if event.kind == "bout":
                bout_first = event.detail.first  # type: ignore[union-attr]
    result = game.result(state)
    assert result is not None
    stats["matches"] += 1
    stats["starter_won"] += result.ranks[starter] == 1
    return list(result.ranks)


def measure(deck: Deck, players: int, matches: int) -> dict[str, float]:
    game = Slambo(deck)
    stats: Counter = Counter()
    for seed in range(matches):
        play(game, players, seed, [True] * players, stats)
    versus: Counter = Counter()
    wins = 0.0
    for seed in range(matches):
        seat = seed % players
        ranks = play(game, players, 50_000 + seed, [s == seat for s in range(players)], versus)
        wins += ranks[seat] == 1
    bouts = stats["bouts"]
    return {
        "breaks/bout": round(stats["breaks"] / bouts, 3),
        "plays/bout": round(stats["plays"] / bouts, 2),
        "bouts/match": round(bouts / matches, 2),
        "first-player loses bout": round(stats["first_lost"] / max(1, bouts - stats["breaks"]), 3),
        "match starter wins": round(stats["starter_won"] / matches, 3),
        "heuristic vs random wins": round(wins / matches, 3),
        "special played when held": round(stats["special_played"] / max(1, stats["holding_special"]), 3),
    }


def head_to_head(spec: str, other: str, players: int, matches: int) -> float:
    """Win rate of one ``spec`` seat against ``other`` bots (seat rotated; shared wins split)."""
    from arena.registry import get_game
    from arena.runner import play_match
    from bots.registry import make_bot

    game = get_game("slambo")
    wins = 0.0
    for match in range(matches):
        seat = match % players
        specs = [other] * players
        specs[seat] = spec
        ranks = play_match(game, game.config(players), 70_000 + match, [make_bot(s, "slambo") for s in specs]).result[
            "ranks"
        ]
        wins += (ranks[seat] == 1) / ranks.count(1)
    return wins / matches


def with_duplicates(blue: int, red: int) -> Deck:
    return Deck(
        blue=tuple(sorted([*range(1, 9), blue])),
        red=tuple(sorted([*range(1, 8), red])),
        plus_minus=ARENA_DECK.plus_minus,
        copies=ARENA_DECK.copies,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=options.count(1), default=200)
    parser.add_argument("--specials", action="store_true")
    parser.add_argument("--skill", action="store_true")
    args = parser.parse_args(argv)
    if args.skill:
        for players in (2, 3):
            for spec, other in [
                ("heuristic", "heuristic:flex=0"),
                ("heuristic", "heuristic:flex=2"),
                ("heuristic:flex=0", "heuristic:flex=2"),
            ]:
                rate = head_to_head(spec, other, players, args.matches)
                print(f"{players}p: one {spec} vs {other}: win rate {rate:.3f} (equal skill: {1 / players:.3f})")
        return
    if not args.specials:
        for blue in range(1, 9):
            for red in range(1, 8):
                deck = with_duplicates(blue, red)
                row = measure(deck, 2, args.matches)
                row.pop("special played when held")
                print(f"blue dup {blue} red dup {red} sums {sum(deck.blue)}/{sum(deck.red)}", row, flush=True)
        return
    mixes = {
        "pm 1,2,3 + 3 copy": ((1, 2, 3), 3),
        "pm 2,3,4 + 3 copy": ((2, 3, 4), 3),
        "pm 1,1,1 + 3 copy": ((1, 1, 1), 3),
        "pm 3,3,3 + 3 copy": ((3, 3, 3), 3),
        "pm 1,2,3,4 + 2 copy": ((1, 2, 3, 4), 2),
        "pm 1,2 + 4 copy": ((1, 2), 4),
        "pm 1..6, no copy": ((1, 2, 3, 4, 5, 6), 0),
        "6 copy": ((), 6),
    }
    for name, (pm, copies) in mixes.items():
        deck = Deck(blue=ARENA_DECK.blue, red=ARENA_DECK.red, plus_minus=pm, copies=copies)
        for players in (3, 4):
            print(f"{name}, {players}p", measure(deck, players, args.matches), flush=True)


if __name__ == "__main__":
    main()
