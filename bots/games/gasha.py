"""Built-in bots for Gasha."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.games.v1 import gasha_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

TOYS: tuple[int, ...] = (pb.MAGICAL_GIRL, pb.KITSUNE, pb.ROBOT, pb.RADISH, pb.SUSHI)
TOKEN_VALUE = 3.0  # a Bonus token is worth about 3 points (a turn, 2 wilds or 3 points)


def toys_of(back: int) -> list[int]:
    return [t for t in TOYS if back >> t & 1]


def missing(reward: pb.Reward, hand: Sequence[int], wilds: int) -> tuple[int, list[int]]:
    """Cards still to collect for ``reward`` (after wilds) and the toys that would help."""
    if reward.identical:
        best = max(hand[t] for t in TOYS)
        helpful = [t for t in TOYS if hand[t] >= best - 1]
        return max(0, reward.identical - best - wilds), helpful
    short = [t for t in TOYS if reward.needs[t] > hand[t]]
    gap = sum(reward.needs[t] - hand[t] for t in short)
    return max(0, gap - wilds), short


class HeuristicBot(Bot):
    """Collects toward the Set Rewards on display, reading the card backs.

    * Value of a claim: the reward's points less the cards it costs (an unused Gasha scores 1
      anyway) and less the 2 cards the turn could have drawn, plus half a Bonus token for a
      Ticket half (more if it matches a colour it holds open; nothing on its last turn with no
      half open, as no later claim can pair it).
    * Turn: claims the reward of the best value when that value is at least ``greed`` (+0.5 per
      player above 4; any positive value on a last turn); otherwise draws.
    * Drawing: every reward on display wants the toys it lacks, the more the closer it is to
      complete; the deck whose top back most likely hides a wanted toy (odds from the unseen
      cards of that back) is drawn from.
    * Pay: spends Wild Gashas last and, among cards, the toys the other rewards want least; of
      the same toys, the cards whose backs show fewest toys (their fronts were the easiest to
      guess: spending them tells the table least, the kept ones stay the hardest to read).
    * Ticket: combines, a same-colour pair first (the extra Gasha card); but it leaves the last
      token (which ends the game, every other seat then playing once more) unless it leads by
      enough to stay ahead.
    """

    name = "heuristic"
    game_id = "gasha"

    def __init__(self, greed: float = 2.0) -> None:
        super().__init__()
        self.greed = greed

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        hand = [0] * 6
        for card in obs.hand:
            hand[card.toy] += 1
        me = obs.seats[obs.seat]
        if turn.kind == "pay":
            return self._pay(turn, obs, hand)
        if turn.kind == "ticket":
            if obs.tokens_left == 1 and not obs.end_triggered and not self._leads(obs, TOKEN_VALUE):
                return "skip"  # the last token ends the game: not while others would overtake
            return self._ticket(ids, me)
        want = self._wants(obs, hand, me.wilds)
        if turn.kind == "turn":
            claim = self._best_claim(obs, ids)
            if claim is not None:
                return claim
        return self._deck(obs, ids, want)

    # -- values ---------------------------------------------------------------------------------

    @staticmethod
    def _leads(obs: pb.Observation, gain: float) -> bool:
        """Whether, after gaining ``gain`` now, it stays ahead of every other seat taking one
        more good turn (a claim worth about 5 over its cards)."""
        mine = obs.seats[obs.seat].score + gain
        return all(mine > seat.score + 5 for s, seat in enumerate(obs.seats) if s != obs.seat)

    @staticmethod
    def _last_turn(obs: pb.Observation) -> bool:
        """Whether the seat claims nothing after this turn: the end is triggered (or a claim
        taking the last Set Reward triggers it), no final turn and no One More Turn is left to it."""
        ends = obs.end_triggered or obs.reward_deck <= 1
        return ends and obs.seat not in obs.final_turns and not obs.extra_turns

    def _ticket_value(self, reward: pb.Reward, obs: pb.Observation) -> float:
        me = obs.seats[obs.seat]
        if reward.ticket == pb.TICKET_NONE or obs.tokens_left == 0:
            return 0.0
        if not me.open_halves and self._last_turn(obs):
            return 0.0  # a Ticket is only offered right after a claim (ruling 6): no half to pair
        colours = {r.ticket for r in me.rewards if r.id in me.open_halves}
        match = reward.ticket == pb.WILD or pb.WILD in colours or reward.ticket in colours
        return TOKEN_VALUE / 2 + (0.7 if match else 0.0) + (0.5 if me.open_halves else 0.0)

    def _value(self, reward: pb.Reward, obs: pb.Observation) -> float:
        """What a claim adds over a draw: the points, less the cards spent (1 point each if
        kept) and the 2 cards the turn could have drawn, plus its Ticket half."""
        cost = reward.identical or sum(reward.needs)
        return reward.points - cost - 2 + self._ticket_value(reward, obs)

    def _best_claim(self, obs: pb.Observation, ids: list[str]) -> str | None:
        # On a last turn (final turn, or a reward deck about to run out) anything better than a
        # draw is taken; otherwise a claim must be worth ``greed`` more than a draw.
        last = obs.end_triggered or obs.reward_deck <= 1
        # With 5-6 players the tokens rarely run out: the Set Reward deck or the Gasha supply
        # ends the game, with fewer claims each, so each claim must be bigger.
        best, best_value = None, 0.0 if last else self.greed + 0.5 * max(0, obs.players - 4)
        for reward in obs.display:
            option = f"claim:{reward.id}"
            if option in ids:
                value = self._value(reward, obs)
                if value > best_value:
                    best, best_value = option, value
        return best

    def _wants(self, obs: pb.Observation, hand: list[int], wilds: int) -> list[float]:
        want = [0.0] * 6
        for reward in obs.display:
            gap, helpful = missing(reward, hand, wilds)
            if not helpful:
                continue
            weight = (self._value(reward, obs) + 2) / (1 + gap) ** 2
            for t in helpful:
                want[t] += weight / len(helpful)
        return want

    @staticmethod
    def _odds(obs: pb.Observation, back: int) -> dict[int, float]:
        """Chance of each toy behind ``back``, from the unseen cards showing that back."""
        counts = {t: 0 for t in toys_of(back)}
        for entry in obs.unseen:
            if entry.back == back:
                counts[entry.toy] += entry.count
        total = sum(counts.values())
        if not total:
            return {t: 1 / len(counts) for t in counts}
        return {t: n / total for t, n in counts.items()}

    def _deck(self, obs: pb.Observation, ids: list[str], want: list[float]) -> str:
        best, best_score = ids[0], -1.0
        for option in ids:
            if not option.startswith("draw:"):
                continue
            deck = obs.decks[int(option[5:])]
            odds = self._odds(obs, deck.top_back)
            score = sum(p * want[t] for t, p in odds.items())
            if score > best_score:
                best, best_score = option, score
        return best

    # -- sub-decisions --------------------------------------------------------------------------

    def _pay(self, turn: Turn, obs: pb.Observation, hand: list[int]) -> str:
        rest = [r for r in obs.display if r.id != obs.claiming.id]
        keep = [0.0] * 6
        for reward in rest:
            for t in TOYS:
                if reward.identical:
                    keep[t] += 0.2 * hand[t]
                elif reward.needs[t]:
                    keep[t] += 0.5
        best, best_cost = turn.options[0].id, (1e9, 0)
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            cost = 1.5 * action.wilds + sum(action.paid[t] * (1 + keep[t]) for t in TOYS)
            shown = sum(len(toys_of(card.back)) for card in action.cards)  # the tie-break
            if (cost, shown) < best_cost:
                best, best_cost = option.id, (cost, shown)
        return best

    @staticmethod
    def _ticket(ids: list[str], me: pb.SeatView) -> str:
        colour = {r.id: r.ticket for r in me.rewards}
        best, best_score = "skip", -1
        for option in ids:
            if not option.startswith("ticket:"):
                continue
            a, b = (int(x) for x in option[7:].split("+"))
            same = colour[a] == colour[b] or pb.WILD in (colour[a], colour[b])
            # Keep Wild halves for later when a pair of one colour is there.
            score = 2 * same - (colour[a] == pb.WILD) - (colour[b] == pb.WILD) + 2
            if score > best_score:
                best, best_score = option, score
        return best


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("greed", 2.0, -5.0, 10.0)])
    return HeuristicBot(values["greed"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:greed=4"]
