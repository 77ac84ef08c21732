"""Do the designed For the Emperor Warriors make a good game? Self-play figures for the data file.

    python -m bench.design_fortheemperor --matches 400 [--sohei controlled]

Plays heuristic self-play (or random, ``--bot random``) on the engine and reports: the Crane's
(first player's) win rate and shared victories (seat advantage), how many battlefields are tied
and how often the Tiebreaker Card decides; per Warrior strength how often it is kept as the
Tiebreaker Card and, when played, how often its side wins its battlefield; how often each
Yamabushi returns a Warrior and the Ronin places a Banner; the win
rate of the player who kept the 9 (keeping it must not be always right); turns per game.
``--sohei`` picks the game option (``printed``, the default, or ``controlled``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from arena.chance import Chance
from arena.games.fortheemperor import GAME
from arena.games.fortheemperor.game import controller
from arena.games.v1 import fortheemperor_pb2 as pb
from arena.scenario import request_for
from bench import options
from bots.registry import make_bot


def simulate(matches: int, bot: str, rival: str, sohei: str = "printed") -> dict[str, object]:
    crane = 0.0
    shared = tied_fields = by_tiebreak = 0
    kept: Counter[int] = Counter()
    played: Counter[int] = Counter()
    played_won: Counter[int] = Counter()
    kept_nine_games = kept_nine_wins = 0.0
    uses: Counter[str] = Counter()
    turns: list[int] = []
    for match in range(matches):
        state = GAME.new_match(GAME.config(2, {"sohei": sohei}), seed=match)
        specs = [bot, rival] if match % 2 == 0 else [rival, bot]
        players = [make_bot(spec, "fortheemperor") for spec in specs]
        rng = Chance(20_000 + match)
        while state.pending:
            (decision,) = state.pending
            spec = specs[decision.seat]
            if spec == "random":
                choice = rng.pick(decision.options, "bot").id
            else:
                choice = players[decision.seat].decide(request_for(GAME, state, decision.seat))
            if decision.kind == "return":
                uses[f"{decision.kind}:{'none' if choice == 'none' else 'used'}"] += 1
            GAME.apply(state, {decision.seat: choice})
        result = GAME.result(state)
        assert result is not None
        winners = result.winners
        shared += len(winners) == 2
        crane += 1 / len(winners) if 0 in winners else 0
        owners = [controller(f) for f in state.fields]
        tied_fields += owners.count(-1)
        by_tiebreak += len(winners) == 1 and result.scores[0] == result.scores[1]
        for seat in (0, 1):
            card = state.hands[seat][0]
            kept[card] += 1
            if card == 9:
                kept_nine_games += 1
                kept_nine_wins += 1 / len(winners) if seat in winners else 0
        for f, owner in zip(state.fields, owners, strict=True):
            for seat, strength in f.warriors:
                played[strength] += 1
                played_won[strength] += owner == seat
        details = [(e.kind, e.detail) for e in state.log.events if isinstance(e.detail, pb.Detail)]
        uses["ronin-banner"] += sum(kind == "banner" and d.ronin for kind, d in details)
        uses["ronin-played"] += sum(kind == "play" and d.strength == 4 for kind, d in details)
        turns.append(state.turn)
    games = 2 * matches
    return {
        "bot": bot,
        "rival": rival,
        "sohei": sohei,
        "matches": matches,
        "crane_win_rate": round(crane / matches, 3),
        "shared_victories": round(shared / matches, 3),
        "decided_by_tiebreaker": round(by_tiebreak / matches, 3),
        "tied_battlefields_per_game": round(tied_fields / matches, 2),
        "kept_as_tiebreaker": {s: round(kept[s] / games, 3) for s in range(1, 10)},
        "played_side_wins_battlefield": {s: round(played_won[s] / max(1, played[s]), 3) for s in range(1, 10)},
        "kept_nine_win_rate": round(kept_nine_wins / max(1, kept_nine_games), 3),
        "yamabushi_returns": round(uses["return:used"] / max(1, uses["return:used"] + uses["return:none"]), 3),
        "ronin_places_banner": round(uses["ronin-banner"] / max(1, uses["ronin-played"]), 3),
        "turns_min_max": [min(turns), max(turns)],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=options.count(1), default=400)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--rival", default="", help="the other seat's bot (default: the same)")
    parser.add_argument("--sohei", default="printed", choices=("printed", "controlled"), help="the game option")
    args = parser.parse_args(argv)
    print(json.dumps(simulate(args.matches, args.bot, args.rival or args.bot, args.sohei)), flush=True)


if __name__ == "__main__":
    main()
