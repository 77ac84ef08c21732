"""Sky Five — push-your-luck card collecting for 2–6 players (``shared/rules/skyfive.md``).

Rules as implemented (rulebook line references in brackets):

* 106 cards: 5 colours × (two 0s + three each of 1–6) and 6 colourless Shooting Stars 1–6
  [:17–20]; a card scores its number when banked [:22]. One Rainbow Die [:15].
* Setup: shuffle, remove cards face down by player count (2p 52, 3p 39, 4p 26, 5p 13, 6p 0)
  [:26–45]; a random player starts [:29]. Turns go clockwise [:51].
* On your turn, draw or attempt to bank [:53–56].
* Draw [:62–90]: a Shooting Star or a colour you lack is kept face up [:68–73, :157–162]. A
  colour you already have must be given to another player lacking it [:75–83]. If every player
  has that colour, you bust [:85–90].
* Bank [:92–121]: roll the die; if it matches no face-up number, all face-up cards go to your
  scoring pile; otherwise you bust. Colours do not matter; Shooting Stars count [:164–168].
* Bust [:123–149]: clockwise from the buster, each other player may take one of the busted
  cards of a colour they lack; the rest are discarded.
* Sky Five [:170–187]: face-up cards of all five colours bank everything at once (Shooting
  Stars too), without a roll, even off turn (after a gift or a pick-up).
* Final round [:191–208]: after the last card is drawn every player makes one forced bank
  attempt; a player who has finished it can no longer take cards from a bust.
* Score: sum of banked numbers; ties broken by most banked cards, then shared [:210–222].

Rulings (``shared/rules/NOTES.md`` §4.19 unless stated):

1. **Removal** [:27, :47]: exactly 52/39/26/13/0 cards. The deck is shuffled once; the cards at
   the bottom of the shuffled order are the removed ones (as random as removing any others).
   They stay hidden from every seat; the spectator sees them.
2. **Bust on a draw** [:85–90]: the drawn card goes to the discard pile.
3. **Duplicate colour** [:75–83]: the drawer chooses the recipient among the players lacking
   that colour (``give:<seat>``, offered clockwise from the drawer), asked even when only one
   player is eligible. With nobody eligible, every player has the colour: bust.
4. **Bust pick-up** [:132–149]: the other seats are asked in clockwise order from the buster
   (``take:<card>`` or ``decline``), off turn. Shooting Stars may be taken by anyone. A seat
   with no eligible card is skipped without a decision (it has no choice). A pick-up can
   trigger Sky Five for the taker [:183].
5. **Bank with no face-up cards** (not covered by the text): not offered on normal turns, so a
   player without face-up cards is still asked, with ``draw`` as the only option; in the final
   round it is a no-op ("has nothing to bank").
6. **Final round** [:191–208]: it starts once the draw of the last card is fully resolved
   (including its gift or bust). The next seat clockwise from the drawer goes first, the drawer
   last. Each final turn is a forced bank attempt and is applied automatically (a single forced
   action, so there is no decision). A buster's final turn is complete at their roll; the seats
   that have completed theirs are not asked to pick up. No one draws, so gifts are moot.
7. **Tie-break** [:217–220]: (score, banked cards) ranks every placing, equal keys share it.
8. **Start player** [:29] "most recently experienced good luck": a seeded random seat.
9. **After a bust** the turn passes to the player clockwise from the buster, as after any turn.
10. **Scoring piles** [:60]: face down, but "their contents are public by history" (§4.19 §1):
    every card in them was face up when banked and the bank/skyfive events name it, so every
    seat knows each pile's cards, and the observation lists them (``Player.banked``, in the
    order banked). The cards left unseen (deck + removed) are then exactly the full deck minus
    every card on view or banked.

Length: no hard bound. A seat without face-up cards must draw and every bank attempt empties
the banker's face-up cards, but a bust lets the others pick up the busted cards, so cards can
pass between seats through busts while the deck does not shrink; each such bust needs the die to
match, so only chance can keep that going. Seats that bank whenever they hold a card and always
pick up made the longest of 100 games 126 / 201 / 302 steps at 2 / 4 / 6 players against 109 /
197 / 287 for random play (an outside probe).

Chance labels: ``"deck"`` (the one shuffle of all 106 cards: top card first; the last
``removed`` cards of the order are set aside), ``"start"`` (pick of the first seat), ``"die"``
(every bank roll, in order).

Component data (colour names: arena edition; die faces 1–6: assumed) is in
``components.toml`` with its sources.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.v1 import skyfive_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))

COLOUR_NAMES: tuple[str, ...] = tuple(_DATA["deck"]["colours"])
COLOURS: tuple[int, ...] = tuple(range(pb.RED, pb.RED + len(COLOUR_NAMES)))  # proto enum values
STAR = pb.SHOOTING_STAR
SKY_FIVE = len(COLOURS)  # colours needed for a Sky Five [:172]
DIE_FACES: tuple[int, ...] = tuple(_DATA["die"]["faces"])
REMOVED: dict[int, int] = {int(players): n for players, n in _DATA["removed"].items()}


class Card(NamedTuple):
    colour: int  # a proto Colour value: RED..BLUE, or SHOOTING_STAR
    value: int

    @property
    def colour_name(self) -> str:
        return "Shooting Star" if self.colour == STAR else COLOUR_NAMES[self.colour - pb.RED]

    @property
    def name(self) -> str:
        return f"{self.colour_name} {self.value}"

    @property
    def token(self) -> str:
        """Short id used in option ids: ``red3``, ``star5``."""
        return f"{'star' if self.colour == STAR else self.colour_name}{self.value}"


def full_deck() -> list[Card]:
    """The 106 cards in a fixed order [:17–20]."""
    deck = _DATA["deck"]
    cards = []
    for colour in COLOURS:
        cards += [Card(colour, 0)] * deck["zeros_per_colour"]
        for value in deck["values"]:
            cards += [Card(colour, value)] * deck["copies_per_value"]
    cards += [Card(STAR, value) for value in deck["shooting_stars"]]
    return cards


def colours_of(cards: Iterable[Card]) -> set[int]:
    """The colours among face-up cards (Shooting Stars have none)."""
    return {c.colour for c in cards if c.colour != STAR}


def risk_values(cards: Iterable[Card]) -> list[int]:
    """Die faces that bust a bank attempt with these face-up cards [:101–112]."""
    values = {c.value for c in cards}
    return [face for face in DIE_FACES if face in values]


def bank_succeeds(cards: Iterable[Card], roll: int) -> bool:
    """True when the roll matches no face-up number [:101]."""
    return all(c.value != roll for c in cards)


def is_sky_five(cards: Iterable[Card]) -> bool:
    """Face-up cards of all five colours [:172, :185]."""
    return len(colours_of(cards)) == SKY_FIVE


def can_take(hand: Iterable[Card], card: Card) -> bool:
    """A card may join a face-up row lacking its colour; Shooting Stars always (ruling 4)."""
    return card.colour == STAR or all(c.colour != card.colour for c in hand)


def card_names(cards: Iterable[Card]) -> str:
    return ", ".join(c.name for c in cards) or "nothing"


def count_by(cards: Iterable[Card]) -> tuple[list[int], list[int]]:
    """How many cards of each colour index (0 unused, then RED..SHOOTING_STAR) and each value."""
    colours = [0] * (STAR + 1)
    values = [0] * (max(DIE_FACES) + 1)
    for card in cards:
        colours[card.colour] += 1
        values[card.value] += 1
    return colours, values


def clockwise_from(seat: int, players: int) -> list[int]:
    """The other seats, clockwise starting after ``seat``."""
    return [(seat + k) % players for k in range(1, players)]


DRAW = Option("draw", "draw the top card", pb.Action(kind=pb.DRAW))
DECLINE = Option("decline", "take nothing", pb.Action(kind=pb.DECLINE))


@dataclass
class SkyFiveState(MatchState):
    deck: list[Card] = field(default_factory=list)  # the top card is the LAST element
    removed: list[Card] = field(default_factory=list)
    face_up: list[list[Card]] = field(default_factory=list)
    banked: list[list[Card]] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    phase: int = pb.TURN
    turn_seat: int = 0
    gift: Card | None = None
    buster: int = -1
    pickup_queue: list[int] = field(default_factory=list)
    final_round: bool = False
    final_queue: list[int] = field(default_factory=list)
    final_done: list[bool] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)  # banked points per seat
    # Cards not revealed yet (deck + removed), by colour index and by value: kept up to date on
    # every draw for the observation.
    unseen_colours: list[int] = field(default_factory=list)
    unseen_values: list[int] = field(default_factory=list)


class SkyFive(Game[SkyFiveState]):
    meta = GameMeta(
        id="skyfive",
        name="Sky Five",
        min_players=2,
        max_players=6,
        version="1.3",  # 1.3: setup, start, final and end carry a detail (the text alone said)
        hidden_information=True,
        summary="Draw coloured cards or roll to bank them; a matching roll or a colour everyone "
        "has busts you; five colours bank at once.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def setup(self, config: MatchConfig, chance: Chance) -> SkyFiveState:
        players = config.players
        order = chance.shuffled(full_deck(), "deck")
        keep = len(order) - REMOVED[players]
        start = chance.pick(range(players), "start")
        unseen_colours, unseen_values = count_by(order)
        state = SkyFiveState(
            config=config,
            chance=chance,
            deck=order[:keep][::-1],
            removed=order[keep:],
            face_up=[[] for _ in range(players)],
            banked=[[] for _ in range(players)],
            final_done=[False] * players,
            scores=[0] * players,
            unseen_colours=unseen_colours,
            unseen_values=unseen_values,
            turn_seat=start,
        )
        state.log.public(
            CHANCE_SEAT,
            "setup",
            f"shuffles {len(order)} cards and removes {REMOVED[players]} face down: {keep} to draw",
            pb.Detail(removed=REMOVED[players], deck=keep, to_seat=-1),
        )
        state.log.public(CHANCE_SEAT, "start", f"seat {start} goes first", pb.Detail(seat=start, to_seat=-1))
        return state

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: SkyFiveState) -> Iterable[Decision]:
        if state.phase == pb.TURN:
            return (Decision(state.turn_seat, "turn", self._turn_options(state)),)
        if state.phase == pb.GIVE:
            return (Decision(state.turn_seat, "give", self._give_options(state)),)
        if state.phase == pb.PICKUP:
            seat = state.pickup_queue[0]
            return (Decision(seat, "take", self._take_options(state, seat)),)
        return ()

    def _turn_options(self, state: SkyFiveState) -> tuple[Option, ...]:
        cards = state.face_up[state.turn_seat]
        if not cards:
            return (DRAW,)  # ruling 5: nothing to bank
        total = sum(c.value for c in cards)
        risky = risk_values(cards)
        odds = f"busts on {', '.join(map(str, risky))}" if risky else "cannot bust"
        label = f"attempt to bank {len(cards)} card{'s' * (len(cards) > 1)} worth {total} ({odds})"
        return (DRAW, Option("bank", label, pb.Action(kind=pb.BANK)))

    def _give_options(self, state: SkyFiveState) -> tuple[Option, ...]:
        gift = state.gift
        assert gift is not None
        return tuple(
            Option(f"give:{seat}", f"give {gift.name} to seat {seat}", pb.Action(kind=pb.GIVE_TO, seat=seat))
            for seat in self._recipients(state, state.turn_seat, gift)
        )

    def _take_options(self, state: SkyFiveState, seat: int) -> tuple[Option, ...]:
        takes = tuple(
            Option(
                f"take:{card.token}",
                f"take {card.name} from seat {state.buster}",
                pb.Action(kind=pb.TAKE, card=_card_pb(card)),
            )
            for card in self._takeable(state, seat)
        )
        return (*takes, DECLINE)

    @staticmethod
    def _recipients(state: SkyFiveState, drawer: int, card: Card) -> list[int]:
        return [s for s in clockwise_from(drawer, state.players) if can_take(state.face_up[s], card)]

    @staticmethod
    def _takeable(state: SkyFiveState, seat: int) -> list[Card]:
        hand = state.face_up[seat]
        return [c for c in state.face_up[state.buster] if can_take(hand, c)]

    def resolve(self, state: SkyFiveState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        if action.kind == pb.DRAW:
            self._draw(state, seat)
        elif action.kind == pb.BANK:
            if self._attempt_bank(state, seat):
                self._end_action(state)
        elif action.kind == pb.GIVE_TO:
            self._give(state, seat, action.seat)
        else:
            self._pick_up(state, seat, action)

    # -- rules ------------------------------------------------------------------------------

    def _draw(self, state: SkyFiveState, seat: int) -> None:
        card = state.deck.pop()
        state.unseen_colours[card.colour] -= 1
        state.unseen_values[card.value] -= 1
        detail = pb.Detail(seat=seat, card=_card_pb(card), to_seat=-1)
        if can_take(state.face_up[seat], card):
            state.face_up[seat].append(card)
            state.log.public(seat, "draw", f"draws {card.name} and keeps it", detail)
            self._check_sky_five(state, seat)
            self._end_action(state)
        elif self._recipients(state, seat, card):
            state.gift = card
            state.phase = pb.GIVE
            text = f"draws {card.name}, already holding {card.colour_name}: must give it away"
            state.log.public(seat, "draw", text, detail)
        else:
            state.discard.append(card)
            text = f"draws {card.name}: every player holds {card.colour_name}, it is discarded"
            state.log.public(seat, "draw", text, detail)
            self._bust(state, seat)

    def _give(self, state: SkyFiveState, seat: int, recipient: int) -> None:
        card = state.gift
        assert card is not None
        state.gift = None
        state.face_up[recipient].append(card)
        state.log.public(
            seat,
            "give",
            f"gives {card.name} to seat {recipient}",
            pb.Detail(seat=seat, card=_card_pb(card), to_seat=recipient),
        )
        self._check_sky_five(state, recipient)
        self._end_action(state)

    def _attempt_bank(self, state: SkyFiveState, seat: int) -> bool:
        """Roll and bank or bust; False when the player busted (the pick-up has begun)."""
        cards = state.face_up[seat]
        if not cards:
            detail = pb.Detail(seat=seat, to_seat=-1, score=state.scores[seat])  # the score, as every bank says
            state.log.public(seat, "bank", "has nothing to bank", detail)
            return True
        roll = DIE_FACES[state.chance.roll(len(DIE_FACES), "die") - 1]
        if bank_succeeds(cards, roll):
            self._bank(state, seat, f"rolls {roll}: banks", roll)
            return True
        state.log.public(
            seat,
            "roll",
            f"rolls {roll}, matching a face-up card",
            pb.Detail(seat=seat, roll=roll, to_seat=-1),
        )
        self._bust(state, seat)
        return False

    def _bank(self, state: SkyFiveState, seat: int, how: str, roll: int = 0) -> None:
        """Move every face-up card to the scoring pile (``roll`` 0: a Sky Five, no roll)."""
        cards = state.face_up[seat]
        state.banked[seat] += cards
        state.face_up[seat] = []
        points = sum(c.value for c in cards)
        state.scores[seat] += points
        score = state.scores[seat]
        state.log.public(
            seat,
            "skyfive" if roll == 0 else "bank",
            f"{how} {card_names(cards)} ({points} point{'' if points == 1 else 's'}, score {score})",
            pb.Detail(seat=seat, roll=roll, cards=_cards_pb(cards), score=score, to_seat=-1),
        )

    def _check_sky_five(self, state: SkyFiveState, seat: int) -> None:
        if is_sky_five(state.face_up[seat]):
            self._bank(state, seat, "Sky Five! banks")

    def _bust(self, state: SkyFiveState, seat: int) -> None:
        state.buster = seat
        state.pickup_queue = [s for s in clockwise_from(seat, state.players) if not state.final_done[s]]
        state.phase = pb.PICKUP
        state.log.public(
            seat,
            "bust",
            f"BUST! face up: {card_names(state.face_up[seat])}",
            pb.Detail(seat=seat, cards=_cards_pb(state.face_up[seat]), to_seat=-1),
        )
        self._next_picker(state)

    def _pick_up(self, state: SkyFiveState, seat: int, action: pb.Action) -> None:
        buster = state.buster
        if action.kind == pb.TAKE:
            card = Card(action.card.colour, action.card.value)
            state.face_up[buster].remove(card)
            state.face_up[seat].append(card)
            state.log.public(
                seat,
                "take",
                f"takes {card.name} from seat {buster}",
                pb.Detail(seat=seat, card=action.card, to_seat=buster),
            )
            self._check_sky_five(state, seat)
        else:
            state.log.public(seat, "decline", "takes nothing", pb.Detail(seat=seat, to_seat=buster))
        state.pickup_queue.pop(0)
        self._next_picker(state)

    def _next_picker(self, state: SkyFiveState) -> None:
        """Ask the next seat with an eligible card; when none is left, discard the rest."""
        queue = state.pickup_queue
        while queue and not self._takeable(state, queue[0]):
            queue.pop(0)  # ruling 4: no eligible card, no decision
        if queue:
            return
        buster = state.buster
        lost = state.face_up[buster]
        state.discard += lost
        state.face_up[buster] = []
        state.buster = -1
        if lost:
            state.log.public(
                buster,
                "discard",
                f"discards {card_names(lost)}",
                pb.Detail(seat=buster, cards=_cards_pb(lost), to_seat=-1),
            )
        self._end_action(state)

    def _end_action(self, state: SkyFiveState) -> None:
        """The current action is fully resolved: next turn, or the final round (ruling 6)."""
        if not state.final_round and not state.deck:
            state.final_round = True
            drawer = state.turn_seat
            state.final_queue = [*clockwise_from(drawer, state.players), drawer]
            state.log.public(
                CHANCE_SEAT,
                "final",
                f"the last card is drawn: final round, every player must attempt to bank "
                f"(seat {state.final_queue[0]} first)",
                pb.Detail(seat=state.final_queue[0], to_seat=-1),
            )
        if not state.final_round:
            state.turn_seat = (state.turn_seat + 1) % state.players
            state.phase = pb.TURN
            return
        state.phase = pb.FINAL
        while state.final_queue:
            seat = state.final_queue.pop(0)
            state.turn_seat = seat
            state.final_done[seat] = True
            if not self._attempt_bank(state, seat):
                return  # the pick-up decisions come first; they end with _end_action again
        state.phase = pb.OVER
        scores = ", ".join(f"seat {s} {state.scores[s]}" for s in range(state.players))
        state.log.public(CHANCE_SEAT, "end", f"game over: {scores}", pb.Detail(scores=state.scores, to_seat=-1))

    # -- views ------------------------------------------------------------------------------

    def sample_world(self, state: SkyFiveState, seat: int, chance: Chance) -> SkyFiveState:
        """Every card on the table is face up or named by history (the scoring piles), so
        the only hidden thing is which unseen card is where: the draw pile's order and the
        removed cards (their make-up every seat can deduce). Both are re-drawn as one shuffle
        of the unseen cards."""
        from arena.games.skyfive.worlds import deal_unseen

        world = self.copy_for(state, seat, chance)
        deal_unseen(world, state.deck + state.removed, chance)
        self.refresh(world)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SkyFiveState:
        """Kept: everything on the table and each scoring pile's cards (ruling 10). The unseen
        cards are then exactly the full deck minus every card in the observation; drawn
        (``worlds.py``): their order, dealt uniformly into the draw pile and the removed cards,
        as in ``sample_world``."""
        from arena.games.skyfive import worlds

        obs = observation
        assert isinstance(obs, pb.Observation)
        world = SkyFiveState(
            config=config,
            chance=chance.fork(),
            deck=[Card(0, 0)] * obs.deck_size,  # sized; dealt below
            removed=[Card(0, 0)] * obs.removed_count,
            face_up=[[Card(c.colour, c.value) for c in view.face_up] for view in obs.table],
            banked=[[Card(c.colour, c.value) for c in view.banked] for view in obs.table],
            discard=[Card(c.colour, c.value) for c in obs.discard],
            phase=obs.phase,
            turn_seat=obs.turn_seat,
            gift=Card(obs.gift.colour, obs.gift.value) if obs.HasField("gift") else None,
            buster=obs.buster,
            pickup_queue=list(obs.pickup_queue),
            final_round=obs.final_round,
            final_done=[view.final_turn_done for view in obs.table],
            scores=[view.score for view in obs.table],
            unseen_colours=list(obs.unseen_by_colour),
            unseen_values=list(obs.unseen_by_value),
        )
        worlds.world_from_observation(world, obs, chance)
        self.refresh(world)
        return world

    def observation(self, state: SkyFiveState, viewer: int) -> pb.Observation:
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            players=state.players,
            phase=state.phase,  # type: ignore[arg-type]
            turn_seat=state.turn_seat,
            deck_size=len(state.deck),
            removed_count=len(state.removed),
            table=[
                pb.Player(
                    face_up=_cards_pb(state.face_up[s]),
                    banked_count=len(state.banked[s]),
                    score=state.scores[s],
                    final_turn_done=state.final_done[s],
                    risk_values=risk_values(state.face_up[s]),
                    banked=_cards_pb(state.banked[s]),
                )
                for s in range(state.players)
            ],
            discard=_cards_pb(state.discard),
            buster=state.buster,
            pickup_queue=state.pickup_queue,
            final_round=state.final_round,
            unseen_by_colour=state.unseen_colours,
            unseen_by_value=state.unseen_values,
            unseen=len(state.deck) + len(state.removed),
        )
        if state.gift is not None:
            obs.gift.CopyFrom(_card_pb(state.gift))
        if viewer == SPECTATOR:
            obs.deck.extend(_cards_pb(state.deck[::-1]))
            obs.removed.extend(_cards_pb(state.removed))
        return obs

    def score(self, state: SkyFiveState) -> Result:
        scores = [sum(c.value for c in banked) for banked in state.banked]  # [:214]
        keys = [(scores[s], len(state.banked[s])) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = (
            f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} "
            f"({best[0]} points, {best[1]} banked cards)"
        )
        return Result.ranked(scores, keys, summary)


_CARD_PB = {card: pb.Card(colour=card.colour, value=card.value) for card in dict.fromkeys(full_deck())}  # type: ignore[arg-type]


def _card_pb(card: Card) -> pb.Card:
    """The card's message (shared: protobuf copies it into every field it is put in)."""
    return _CARD_PB[card]


def _cards_pb(cards: Sequence[Card]) -> list[pb.Card]:
    return [_CARD_PB[c] for c in cards]


GAME = SkyFive()
