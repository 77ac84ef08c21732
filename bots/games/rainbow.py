"""Built-in bots for Rainbow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

from arena.games.rainbow import Combo
from arena.games.rainbow.game import RUN, SET, SINGLE, claim_order, legal_combos
from arena.games.v1 import rainbow_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn, TypedOption

# How often a combo played later in the trick has each length (a rough prior over opponents).
LATER_LENGTH = {1: 0.5, 2: 0.25, 3: 0.13, 4: 0.07, 5: 0.05}


KINDS = {pb.SINGLE: SINGLE, pb.SET: SET, pb.RUN: RUN}


def action(option: TypedOption) -> pb.Action:
    typed = option.action
    assert isinstance(typed, pb.Action)
    return typed


def game_combo(combo: pb.Combo) -> Combo:
    return Combo(KINDS[combo.type], combo.rank, combo.length)


def own_combos_after(obs: pb.Observation) -> int:
    """Our combos still to play in this trick after the one chosen now: at 2 players, after
    our first, a second (if we still hold cards then)."""
    if not obs.two_player:
        return 0
    played = sum(1 for p in obs.played if p.seat == obs.seat)
    return 1 if played == 0 else 0


def beat_chance(length: int, high: int, max_length: int) -> float:
    """Chance that one combo played after ours claims before it (more cards, or as many and a
    higher top card); a later player cannot play more cards than they hold."""
    chance = 0.0
    for other, weight in LATER_LENGTH.items():
        if other > max_length:
            break
        if other > length:
            chance += weight
        elif other == length:
            chance += weight * (6 - high) / 6
    return chance


def expected_pile(piles: Sequence[int], ahead: int, later: int, p: float) -> float:
    """Expected points of our claim: ``ahead`` claims surely come first, each of ``later``
    combos does with chance ``p``; ``piles`` are the totals left, highest first."""
    value = 0.0
    for k in range(later + 1):
        position = ahead + k
        if position < len(piles):
            value += comb(later, k) * p**k * (1 - p) ** (later - k) * piles[position]
    return value


def horizon(obs: pb.Observation) -> int:
    """About how many more combos we get to play before the game ends (the game ends when a
    second player is out; 2 players: when one runs out with the reserve used)."""
    me = obs.seat
    if obs.two_player:
        other = 1 - me
        return obs.hand_sizes[other] + obs.reserve_sizes[other]
    others = sorted(n for s, n in enumerate(obs.hand_sizes) if s != me and not obs.out[s])
    if not others:
        return 0
    return others[0] if sum(obs.out) or len(others) == 1 else others[1]


class HeuristicBot(Bot):
    """Plays the combo with the best expected claim now plus the value of cards kept.

    Claims: the pile with the most points. Combos: the expected points of this trick's claim
    (from the combos already played, the piles left and a rough prior over later combos) plus
    ``keep`` x the average pile x the tricks our remaining cards will still play, counting only
    cards we can play before the game ends (surplus cards are free to spend in big combos).
    At 2 players a first combo is valued with our best second combo of the trick, which claims
    a pile of its own (an outside probe: a Run of our last two cards lost a last trick that two
    Singles won; 0.52 head to head against the bot before over 5,000 matches, 1.000 against
    random).
    The default ``keep`` = 0.5 beats keep=0 (~75%) and keep=1 (~60%) head to head; 0.3 edges it
    (~55%) but does worse against random players at 6 seats.
    """

    game_id = "rainbow"

    def __init__(self, keep: float = 0.5) -> None:
        super().__init__()
        self.keep = keep

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        if turn.kind == "claim":
            return max(turn.options, key=lambda o: action(o).claim.cards.total).id
        return self._combo(obs, turn.options)

    def _combo(self, obs: pb.Observation, options: Sequence[TypedOption]) -> str:
        piles = sorted(
            (p.total for p, taken in zip(obs.middle, obs.middle_taken_by, strict=True) if taken < 0),
            reverse=True,
        )
        average = sum(piles) / len(piles) if piles else 0.0
        played = [(p.seat, game_combo(p.combo)) for p in obs.played]
        # Every combo still to come may claim first, our own second one too: a rough prior that
        # counting only the rival's combos made weaker (0.45 head to head against it at 2 players).
        later = obs.plays_left - 1
        own_after = own_combos_after(obs)
        longest = max((n for s, n in enumerate(obs.hand_sizes) if s != obs.seat), default=0)
        cards = obs.hand_sizes[obs.seat] + (obs.reserve_sizes[obs.seat] if obs.two_player else 0)
        turns = horizon(obs)
        hand = list(obs.hand.counts)
        restriction = KINDS.get(obs.restriction)

        def claim(plays: list[tuple[int, Combo]], index: int) -> float:
            """Expected pile of ``plays[index]``: the plays before it in the game's claim order
            come first, each later rival combo may."""
            combo = plays[index][1]
            ahead = claim_order(plays).index(index)
            return expected_pile(piles, ahead, later, beat_chance(combo.length, combo.high, longest))

        def future(kept: int, combos: int) -> float:
            return self.keep * average * min(kept, max(turns - combos, 0))

        def value(option: TypedOption) -> tuple[float, int, int]:
            combo = game_combo(action(option).combo)
            plays = [*played, (obs.seat, combo)]
            left = [n - combo.cards.count(rank) for rank, n in enumerate(hand, 1)]
            if not (own_after and any(left)):
                return claim(plays, len(played)) + future(cards - combo.length, 0), -combo.length, -combo.rank
            # 2 players: our second combo of the trick, from the cards left in hand, claims a
            # pile of its own, so the best pair is valued (not this combo against our own).
            after = restriction or (combo.kind if combo.kind != SINGLE else None)
            best = 0.0
            for second in legal_combos(left, after):
                pair = [*plays, (obs.seat, second)]
                worth = claim(pair, len(played)) + claim(pair, len(played) + 1)
                best = max(best, worth + future(cards - combo.length - second.length, 1))
            return best, -combo.length, -combo.rank

        return max(options, key=value).id


def _heuristic(params: Mapping[str, str]) -> Bot:
    return HeuristicBot(read_params("heuristic", params, [Param("keep", 0.5, 0, 3)])["keep"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:keep=0"]
ROLLOUT = "heuristic"  # search's rollout policy (cheap enough to call at every step)
SEARCH = {"halving": 1, "tree": 0}  # search's defaults here: root halving, heuristic below (README)
