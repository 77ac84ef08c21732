"""Built-in bots for Seers Catalog."""

from __future__ import annotations

from collections.abc import Mapping

from arena.games.seerscatalog.melds import (
    ART,
    ARTIFACT_IDS,
    GIFT,
    HOURGLASS,
    ROD,
    VEIL,
    WILD,
    Meld,
    Trick,
    melds_for,
    parse_token,
)
from arena.games.v1 import seerscatalog_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn


class HeuristicBot(Bot):
    """Sheds low cards in big melds and keeps high ones for the Bonus, as a careful player would.

    Every way to play (each ``turn`` option, then each meld it allows) gets a score: +3 per card
    leaving the hand (+2 more for an Artifact, dead weight at scoring), minus ``keep`` per rank
    point of the suited cards used (low cards go first, high cards are kept for the Bonus),
    minus 1.5 per Wild spent on a short meld, +4 for emptying the hand, and for abilities:
    the Rod costs 1.5 per card it takes back, Veil and Gift of Fate are worth +1 (they win
    tricks). It plays the best scoring option when starting a trick; when answering, it passes
    unless the best play scores above 0 (never in the Bonus, where passing is not offered). The
    Gift of Fate goes to the player with the most cards.
    """

    game_id = "seerscatalog"

    def __init__(self, keep: float = 0.15) -> None:
        super().__init__()
        self.keep = keep

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        if turn.kind == "gift":
            return max(turn.option_ids, key=lambda o: (obs.seats[int(o.split(":")[1])].hand_size, o))
        hand = [parse_token(t) for t in obs.hand]
        trick = Trick(obs.trick_type, obs.trick_size, obs.trick[-1].value2, obs.reversed) if obs.trick else None
        taken = sum(len(m.cards) + (1 if m.artifact else 0) for m in obs.trick)
        suits = len(obs.suits)
        if turn.kind == "meld":
            artifact, ability = _mode(obs.chosen)
            by_id = {m.id: m for m in melds_for(hand, trick, suits, artifact, ability)}
            return max(turn.option_ids, key=lambda o: (self._score(by_id[o], len(hand), taken), o))
        best, best_score = "", float("-inf")
        for option in turn.option_ids:
            if option == "pass":
                score = 0.0
            else:
                artifact, ability = _mode(option)
                melds = melds_for(hand, trick, suits, artifact, ability)
                score = max(self._score(m, len(hand), taken) for m in melds)
            if score > best_score:
                best, best_score = option, score
        return best

    def _score(self, meld: Meld, hand_size: int, taken: int) -> float:
        out = meld.physical()
        score = 3.0 * len(out)
        score -= self.keep * sum(c & 15 for c in out if c < WILD)
        wilds = sum(1 for c in out if c == WILD)
        if meld.size < 3 and hand_size > 3:
            score -= 1.5 * wilds
        score += 2.0 * sum(1 for c in out if c >= ART)
        if len(out) == hand_size:
            score += 4.0
        if meld.ability:
            if meld.artifact == ROD:
                score -= 1.5 * taken
            elif meld.artifact in (VEIL, GIFT):
                score += 1.0
            elif meld.artifact == HOURGLASS:
                score += 0.5
        return score


def _mode(option: str) -> tuple[int, bool]:
    if option in ("meld", ""):
        return -1, False
    how, _, name = option.partition(":")
    return ART + ARTIFACT_IDS.index(name), how == "use"


def _heuristic(params: Mapping[str, str]) -> Bot:
    return HeuristicBot(read_params("heuristic", params, [Param("keep", 0.15, 0.0, 2.0)])["keep"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:keep=0.35"]
