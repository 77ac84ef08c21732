"""Does the designed Three Witches deck make a good game? Self-play figures for the data file.

    python -m bench.design_threewitches --matches 300

Plays heuristic (and random) self-play on the engine directly and reports: how often the Lead
makes its bid exactly (by bid), how bids and card passes are distributed, rounds per game,
Eyes frequency, the Lead's trick win rate by the suit it leads (no suit should always win),
and the win rate by seat of the first Elixir holder's left neighbour (seat advantage).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from arena.chance import Chance
from arena.games.threewitches import GAME
from arena.scenario import request_for
from bench import options
from bots.registry import make_bot


def simulate(matches: int, bot: str) -> dict[str, object]:
    made: Counter[int] = Counter()
    bids: Counter[int] = Counter()
    passes: Counter[int] = Counter()
    rounds: list[int] = []
    eyes = leads = 0
    suit_leads: Counter[str] = Counter()
    suit_wins: Counter[str] = Counter()
    wins_by_seat = [0.0, 0.0, 0.0]
    for match in range(matches):
        state = GAME.new_match(GAME.config(3), seed=match)
        players = [make_bot(bot, "threewitches") for _ in range(3)]
        rng = Chance(10_000 + match)
        seen = 0
        while state.pending:
            choices = {}
            for decision in state.pending:
                if bot == "random":
                    choices[decision.seat] = rng.pick(decision.options, "bot").id
                else:
                    choices[decision.seat] = players[decision.seat].decide(request_for(GAME, state, decision.seat))
            passes_now = state.card_passes
            GAME.apply(state, choices)
            for event in state.log.events[seen:]:
                detail = event.detail
                if event.kind == "reveal":
                    lead_card = detail.cards[0]
                    leads += 1
                    eyes += lead_card.rank == 2
                    suit_leads[lead_card.suit] += 1
                    suit_wins[lead_card.suit] += detail.lead_won
                elif event.kind == "score":
                    bids[detail.bid] += 1
                    made[detail.bid] += detail.lead_tricks == detail.bid
                elif event.kind == "lead-witch":
                    passes[passes_now] += 1
            seen = len(state.log.events)
        rounds.append(state.round)
        ranks = GAME.result(state).ranks
        winners = ranks.count(1)
        for seat, rank in enumerate(ranks):
            if rank == 1:
                wins_by_seat[seat] += 1 / winners
    return {
        "bot": bot,
        "matches": matches,
        "bids": dict(sorted(bids.items())),
        "exact_bid_rate": {b: round(made[b] / bids[b], 3) for b in sorted(bids)},
        "card_passes_before_bid": dict(sorted(passes.items())),
        "mean_rounds": round(sum(rounds) / len(rounds), 2),
        "max_rounds": max(rounds),
        "eyes_lead_rate": round(eyes / max(leads, 1), 3),
        "lead_trick_win_rate_by_suit": {s: round(suit_wins[s] / suit_leads[s], 3) for s in sorted(suit_leads)},
        "lead_share_by_suit": {s: round(suit_leads[s] / leads, 3) for s in sorted(suit_leads)},
        "win_rate_by_seat": [round(w / matches, 3) for w in wins_by_seat],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=options.count(1), default=300)
    args = parser.parse_args(argv)
    for bot in ("heuristic", "random"):
        print(json.dumps(simulate(args.matches, bot)))


if __name__ == "__main__":
    main()
