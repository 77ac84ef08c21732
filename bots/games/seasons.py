"""Built-in bots for Seasons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.chance import Chance
from arena.games.seasons.framework import CARDS, ENERGIES, ENERGY_BY_NAME, TRANSMUTE
from arena.games.seasons.game import GAME
from arena.games.v1 import seasons_pb2 as pb
from bots.params import Param, read_params
from bots.sdk import Bot, Turn

# What a card is worth once in play, in points, beyond its printed prestige (a rough human
# estimate: the crystals its effect brings over a game). Unlisted cards: 0.
EFFECT_VALUE: dict[int, float] = {
    1: 4, 2: 3, 3: 9, 4: 6, 5: 8, 6: 9, 7: 0, 8: 4, 9: 8, 10: 4, 11: 5, 12: 3, 13: 6, 14: 4,
    15: 4, 16: 5, 17: 1, 18: 4, 19: 8, 20: 3, 21: 3, 22: 0, 23: 5, 24: 3, 25: 7, 26: 8, 27: 4,
    28: 6, 29: 20, 30: 4,
    # the advanced cards 31-50
    31: 5, 32: 2, 33: 5, 34: 2, 35: 4, 36: 4, 37: 0, 38: 3, 39: 3, 40: 2, 41: 4, 42: 12, 43: 5,
    44: 2, 45: 6, 46: 8, 47: 2, 48: 4, 49: 5, 50: 10,
}  # fmt: skip
SPENDING = ("overflow", "spend", "exchange-give", "orb-pay", "cauldron", "mirror-from")
DRINK_WORLDS = 8  # worlds dealt to judge a last-round Potion of Power (its draw is hidden)
ENERGY_VALUE = 1.5  # an energy is worth about 1.5 crystals (average transmute rate)


def card_value(number: int, players: int) -> float:
    """Prestige + effect − cost (energies at ENERGY_VALUE, crystals at face value)."""
    card = CARDS[number]
    energies, crystals = card.cost(players)
    return card.prestige + EFFECT_VALUE.get(number, 0.0) - ENERGY_VALUE * sum(energies[1:]) - crystals


class HeuristicBot(Bot):
    """Plays like a careful beginner.

    * Draft: the card of the best value (prestige + effect − cost). Library: the cheapest three
      stay in hand (year I), the dearest three wait for year III.
    * Dice: the face worth most now: energies the reserve can hold, crystals, a star when cards
      wait for room under the gauge, the card symbol, transmuting when the reserve holds energy.
    * Turn: summon the best affordable card (any card in the last round: a card left in hand
      costs 5); activate the useful cards (Potion of Power in the last round only when the
      engine counts that it pays: the card it draws costs 5 unless summoned); transmute
      energies no card in hand needs (in the last round every one that raises the final score,
      counted by the engine, and any energy the reserve cannot keep); draw with the die; use
      the gauge bonus only when a valuable card waits for room; then end.
    * Choices: energies the hand's cards lack; discard the least needed; keep and summon the
      best card, give away the worst; sacrifice or return the card of least prestige; copy the
      richest reserve; Die of Malice rerolls a weak face.
    """

    name = "heuristic"
    game_id = "seasons"

    def __init__(self, thrift: float = 0.0) -> None:
        super().__init__()
        self.thrift = thrift  # value a summon must beat (points)

    # -- helpers --------------------------------------------------------------------------------

    @staticmethod
    def _last_round(obs: pb.Observation) -> bool:
        if obs.year < 3:
            return False
        left = [d.pips for d in obs.dice]
        if len(left) == 1:
            return obs.month + left[0] > 12
        return obs.month + (min(left) if left else 1) > 12

    @staticmethod
    def _wanted(obs: pb.Observation) -> list[int]:
        """Energies the summoning costs of the cards in hand add up to, by energy."""
        want = [0] * 5
        for number in obs.hand:
            energies, _ = CARDS[number].cost(obs.players)
            for e in ENERGIES:
                want[e] += energies[e]
        return want

    @classmethod
    def _needs(cls, obs: pb.Observation) -> list[int]:
        """Energies the cards in hand still lack, by energy (what to gain or keep)."""
        reserve, want = obs.seats[obs.seat].reserve, cls._wanted(obs)
        return [max(0, want[e] - reserve[e]) if e else 0 for e in range(5)]

    @classmethod
    def _kept(cls, obs: pb.Observation) -> list[int]:
        """Energies of the reserve the cards in hand will use (not to be transmuted)."""
        reserve, want = obs.seats[obs.seat].reserve, cls._wanted(obs)
        return [min(want[e], reserve[e]) if e else 0 for e in range(5)]

    def _best_energy(self, obs: pb.Observation, ids: Sequence[str]) -> str:
        needs = self._needs(obs)
        rates = TRANSMUTE[obs.season - 1]

        def score(oid: str) -> float:
            e = ENERGY_BY_NAME[oid.split(":")[1]]
            return 10 * needs[e] + rates[e]

        return max((o for o in ids if o.startswith("energy:")), key=score)

    def _worst_energy(self, obs: pb.Observation, ids: Sequence[str]) -> str:
        kept = self._kept(obs)
        rates = TRANSMUTE[obs.season - 1]
        me = obs.seats[obs.seat]

        def score(oid: str) -> float:
            e = ENERGY_BY_NAME[oid.split(":")[1]]
            return 10 * (kept[e] >= me.reserve[e]) + rates[e]

        return min((o for o in ids if o.startswith("energy:")), key=score)

    # -- decisions ------------------------------------------------------------------------------

    def choose(self, turn: Turn) -> str:
        obs = turn.observation
        assert isinstance(obs, pb.Observation)
        ids = turn.option_ids
        kind = turn.kind
        if kind == "draft":
            return max(ids, key=lambda o: (card_value(int(o.split(":")[1]), obs.players), o))
        if kind == "library":
            return self._library(obs, ids)
        if kind == "die":
            return self._die(obs, turn)
        if kind == "turn":
            return self._turn(obs, turn)
        if kind == "reroll":
            face = obs.seats[obs.seat].die
            return "reroll" if self._face_value(obs, face) < 4 else "keep"
        if kind == "keep":
            card = obs.drawn
            late = obs.year == 3 and obs.month >= 7
            return "keep" if not late or card_value(card, obs.players) > 8 else "discard"
        if kind == "energy":
            reason = obs.prompt.reason
            if reason == "tree":  # Tree of Light #32: discard the least needed energy to transmute
                transmutes = [o for o in ids if o.startswith("transmute:")]
                if transmutes:
                    worst = self._worst_energy(obs, ["energy:" + o[10:] for o in transmutes])
                    return "transmute:" + worst[7:]
                return self._best_energy(obs, ids)
            if reason == "mirror-more":
                return "stop"
            if reason in SPENDING:
                return "stop" if "stop" in ids else self._worst_energy(obs, ids)
            return self._best_energy(obs, ids)
        if kind == "card":
            return self._card(obs, ids)
        if kind == "seat":
            return max(ids, key=lambda o: sum(obs.seats[int(o.split(":")[1])].reserve))
        if kind == "move":
            me = obs.seats[obs.seat]
            ahead = me.score >= max(s.score for s in obs.seats)
            return max(ids, key=lambda o: int(o.split(":")[1]) * (1 if ahead else -1))
        return ids[-1]

    def _library(self, obs: pb.Observation, ids: Sequence[str]) -> str:
        players = obs.players
        cards = sorted(obs.drafted, key=lambda c: (CARDS[c].prestige + sum(CARDS[c].cost(players)[0]), c))
        for lib in (obs.library_2, obs.library_3):
            for c in lib:
                cards.remove(c)
        numbers = {int(o.split(":")[1]): o for o in ids}
        if ids[0].startswith("lib3:"):
            return numbers[cards[-1]]  # the dearest wait for year III
        # year II: the dearest but three (those wait for year III; the cheapest stay in hand)
        return numbers[cards[max(0, len(cards) - 4)]]

    def _face_value(self, obs: pb.Observation, face: pb.DieFace) -> float:
        me = obs.seats[obs.seat]
        room = me.reserve_cap - sum(me.reserve)
        value = ENERGY_VALUE * min(len(face.energies), room) + face.crystals
        waiting = len(obs.hand) > 0 and len(me.tableau) >= me.gauge
        if face.star:
            value += 3 if waiting else 1.5
        if face.card:
            value += 1.5
        if face.transmute:
            value += 0.5 * sum(me.reserve)
        return value

    def _die(self, obs: pb.Observation, turn: Turn) -> str:
        best, best_value = turn.option_ids[0], -1e9
        by_die = {f.die: f for f in obs.dice}
        for option in turn.options:
            action = option.action
            assert isinstance(action, pb.Action)
            value = self._face_value(obs, by_die[action.die])
            if value > best_value:
                best, best_value = option.id, value
        return best

    def _activation_ok(self, obs: pb.Observation, option_id: str, card: int, last: bool) -> bool:
        me = obs.seats[obs.seat]
        reserve = sum(me.reserve)
        if card == 16:  # Kairn: only when the opponents have crystals to lose
            return sum(min(4, s.crystals) for i, s in enumerate(obs.seats) if i != obs.seat) >= 4
        if card == 26:  # Potion of Life: 4 crystals per energy
            return reserve >= 3 or (last and reserve >= 1)
        if card == 25:  # Potion of Knowledge: 5 energies
            return me.reserve_cap - reserve >= 4 or last
        if card == 24:  # Potion of Dreams: a good card in hand for all the energy
            return bool(obs.hand) and max(card_value(c, obs.players) for c in obs.hand) > 2 * reserve
        if card == 23:  # Potion of Power: when the gauge is short; in the last round only if it pays
            return self._drink_pays(obs, option_id) if last else bool(obs.hand)
        if card == 32:  # Tree of Light: discard an energy to transmute the others
            return not obs.may_transmute and reserve >= 3
        if card == 35:  # Glutton Cauldron: only energies no card in hand needs
            kept = self._kept(obs)
            return any(me.reserve[e] > kept[e] for e in ENERGIES) and not last
        if card == 37:  # Dragon Skull: three cards in play are worth more than 15
            return False
        if card == 44:  # Necrotic Kriss: a familiar of the hand
            return any(CARDS[c].familiar for c in obs.hand)
        if card == 47:  # Mirror of the Seasons: when a card in hand lacks an energy
            return any(self._needs(obs)) and me.crystals >= 3
        return True  # Balance of Ishtar, Orb, Idol, Damned Soul (pass it on)

    def _turn(self, obs: pb.Observation, turn: Turn) -> str:
        ids = turn.option_ids
        me = obs.seats[obs.seat]
        last = self._last_round(obs)
        players = obs.players
        # 1. summon
        summons = [o for o in turn.options if o.id.startswith("summon:")]
        if summons:
            needs_after = self._needs(obs)

            def summon_score(option: object) -> float:
                action = option.action  # type: ignore[attr-defined]
                value = card_value(action.card, players)
                # prefer keeping the energies other hand cards need
                value -= 0.1 * sum(action.cost.energies[e] * needs_after[e] for e in ENERGIES)
                return value

            best = max(summons, key=summon_score)
            if last or summon_score(best) > self.thrift - 10:
                return best.id
        # 2. activations
        for option in turn.options:
            if option.id.startswith("activate:"):
                action = option.action
                assert isinstance(action, pb.Action)
                if self._activation_ok(obs, option.id, action.card, last):
                    return option.id
        # 3. transmute what no card in hand needs (all of it in the last round)
        transmutes = [o for o in ids if o.startswith("transmute:")]
        if transmutes:
            kept = self._kept(obs)
            rates = TRANSMUTE[obs.season - 1]
            spare = [o for o in transmutes if last or me.reserve[ENERGY_BY_NAME[o[10:]]] > kept[ENERGY_BY_NAME[o[10:]]]]
            good = [o for o in spare if last or rates[ENERGY_BY_NAME[o[10:]]] >= 2 or sum(me.reserve) >= 6]
            if good and last:
                good = self._paying(obs, good)
            if good:
                return max(good, key=lambda o: rates[ENERGY_BY_NAME[o[10:]]])
        # 4. the die's card
        if "draw" in ids and not (obs.year == 3 and obs.month >= 10):
            return "draw"
        # 5. the gauge bonus when a valuable card waits for room
        waiting = "bonus:gauge" in ids and me.bonus_used == 0 and len(me.tableau) >= me.gauge and obs.hand
        if waiting and obs.year < 3 and max(card_value(c, players) for c in obs.hand) >= 12:
            return "bonus:gauge"
        return "end"

    @staticmethod
    def _paying(obs: pb.Observation, transmutes: list[str]) -> list[str]:
        """The transmutations that raise this seat's score now, counted by the engine on a world
        built from the observation (its cards and the public state are exact). A spare energy
        is worth nothing at the end unless a card counts it: Lantern of Xidit #45 gives 3 a
        reserve energy, more than a transmutation's crystals (an outside probe: 4 of them, 2
        points each, turned a 127-123 win into a 119-123 loss)."""
        config = GAME.config(obs.players, {"mode": obs.mode})
        world = GAME.world_from_observation(config, obs.seat, obs, Chance(0))
        before = obs.seats[obs.seat].score
        paying = []
        for option_id in transmutes:
            after = GAME.clone(world)
            GAME.apply(after, {obs.seat: option_id})
            if GAME.score_of(after, obs.seat) > before:
                paying.append(option_id)
        return paying

    @staticmethod
    def _drink_pays(obs: pb.Observation, option_id: str) -> bool:
        """Whether drinking Potion of Power #23 in the last round raises this seat's expected
        score, counted by the engine on worlds built from the observation (the draw pile is dealt
        at random in each): drunk, then the best summon it allows, against ending now. Its gauge
        +2 is then worth only the summons it makes room for, and the card it draws costs 5 unless
        summoned (an outside probe: 2 players, an empty hand, 10 crystals, it drew Runic Cube #22,
        cost 20, and turned a 10-10 win on cards in play into a 5-10 loss)."""
        config = GAME.config(obs.players, {"mode": obs.mode})
        gain = 0
        for k in range(DRINK_WORLDS):
            world = GAME.world_from_observation(config, obs.seat, obs, Chance(k))
            before = GAME.score_of(world, obs.seat)
            GAME.apply(world, {obs.seat: option_id})
            best = GAME.score_of(world, obs.seat)
            for decision in world.pending:
                for option in decision.options if decision.seat == obs.seat else ():
                    if option.id.startswith("summon:"):
                        after = GAME.clone(world)
                        GAME.apply(after, {obs.seat: option.id})
                        best = max(best, GAME.score_of(after, obs.seat))
            gain += best - before
        return gain > 0  # not on a tie: the potion counts among the cards in play, the tie-break

    def _card(self, obs: pb.Observation, ids: Sequence[str]) -> str:
        players = obs.players
        reason = obs.prompt.reason
        if ids[0].startswith("tableau:"):
            me = obs.seats[obs.seat]

            def keep_score(oid: str) -> float:
                card = me.tableau[int(oid.split(":")[1])].card
                if reason == "return-item":
                    return CARDS[card].prestige - EFFECT_VALUE.get(card, 0) * 0.5
                return CARDS[card].prestige + EFFECT_VALUE.get(card, 0)

            return min(ids, key=keep_score)
        cards = [o for o in ids if o.startswith("card:")]
        if reason == "orb":  # Crystal Orb #34: look at the top card
            return "draw"
        if reason == "crown":  # Vampiric Crown #36: draw a card for its prestige
            return "draw" if "draw" in ids else min(cards, key=lambda o: (card_value(int(o[5:]), players), o))
        if reason == "kriss" and cards:  # Necrotic Kriss #44: the least valuable familiar of the hand
            return min(cards, key=lambda o: (card_value(int(o[5:]), players), o))
        if reason == "orb-look":
            return cards[0] if cards and card_value(int(cards[0][5:]), players) >= 8 else "none"
        if not cards:
            return ids[-1]
        value = {o: card_value(int(o.split(":")[1]), players) for o in cards}
        if reason == "give":
            return min(cards, key=lambda o: (value[o], o))
        if reason == "summon-free":

            def worth(oid: str) -> float:
                number = int(oid.split(":")[1])
                return CARDS[number].prestige + EFFECT_VALUE.get(number, 0)

            best = max(cards, key=lambda o: (worth(o), o))
            return "none" if worth(best) < 0 and "none" in ids else best
        return max(cards, key=lambda o: (value[o], o))


def _heuristic(params: Mapping[str, str]) -> Bot:
    values = read_params("heuristic", params, [Param("thrift", 0.0, -20.0, 20.0)])
    return HeuristicBot(values["thrift"])


BOTS = {"heuristic": _heuristic}
FIELD = ["heuristic:thrift=5"]
