"""Seers Catalog — climbing and shedding with melds, 2–5 players (``shared/rules/seerscatalog.md``).

Rules as implemented (rulebook line references in brackets):

* Cards by player count [:30–50]: 2p 3 suits 2–10 minus 3 random cards, 4 Artifacts, 2 Wilds;
  3p 3 suits 2–13, 6 Artifacts; 4p 4 suits, 8; 5p 5 suits, 10. Go First is always used [:48]. Components [:16–26].
  At 2 players the 3 random cards are removed once, at setup, and returned to the box [:46, :50]:
  the same 24 suited cards are collected, shuffled and dealt every round [:359–360].
* Each round every player gets 12 suited cards, 1 Wild and 2 Artifacts face-down (15 cards)
  [:52–63, :355–365]; the holder of Go First is the Start Seer [:63, :365]. 4 rounds [:14, :367].
* A trick [:65–122]: the Start Seer plays any meld; clockwise, each player plays a higher meld of
  the same type and number of cards, or passes; a player who passed is out until the next trick;
  when all but one have passed, that player wins the trick (its cards are set aside) and starts
  the next. A Start Seer who cannot play passes and the player to the left starts [:93–97].
* Melds [:124–186]: a Single (1 card, higher value), a Matching Set (2+ cards of one rank, beaten
  by as many cards of a higher rank), a Suited Run (2+ consecutive cards of one suit, beaten by as
  many with a higher top card, any suit). A Wild counts as any rank 2–13 and any suit [:188–200].
* Artifacts [:202–216]: one may be played with a legal meld, its ability used or declared unused
  (not Go First); some are Singles on their own. The 15 abilities are in ``components.toml``.
* The Bonus [:218–276]: with 5 or fewer cards a player is in the Bonus and may not pass while a
  legal play exists (plays with Artifacts included); above 5 cards again, they leave it.
* The round ends at once when a hand is empty [:278–284]. Round score [:286–353]: with 1–5
  cards, the lowest card value (Wilds and Artifacts 0) minus the number of cards; with more,
  minus the number of cards; an empty hand scores 0.
* Highest total after 4 rounds wins; a tie for it: most points in round 4 [:369–382]. Equal
  totals below the highest share a place: the rulebook breaks only the tie for the win
  (version 7; round 4 ordered every tie, a win and a loss to the ratings' pairs).

Rulings (``shared/rules/NOTES.md`` §4.18 unless stated):

1. **Grabbing the box** [:382]: a tie on total and round-4 score is a shared victory.
2. **Which suits** [:38–46]: the first N suits of ``components.toml`` (suits are interchangeable).
   At 2 players the 3 random suited cards are removed once, at setup, face down and returned to
   the box [:46, :50]; "collect and shuffle all suited cards" [:359] means the 24 in play, which
   deal evenly, 12 each (NOTES §4.18 3.1). The removed cards are hidden from both players in
   round 1; as every hand is shown at the end of round 1 (ruling 14) and every played card is
   public, both then know exactly which 3 are out, so from round 2 on the observation lists
   them (``Observation.removed``) and the ``round`` event names them.
3. **Which Artifacts** [:48]: Go First plus a random selection of the others, drawn once per
   game and public (the Artifact Reference lists them); they are reshuffled and dealt each round.
4. **Go First** [:48, :212]: it may be played only with a meld that starts a trick (option
   ``shed:gofirst``); it has no other effect. Otherwise its holder could never empty their hand.
5. **One Artifact per meld** [:212] (:233's Bonus of "legal plays involving one or more Artifact
   Cards" is read as the Bonus's plays in general, not as leave to play two); an Artifact
   played "without its ability" just leaves the hand with the meld (``shed:<id>``). An ability
   is offered only where it can change something (Rod, Mirror, Lens, Wheel need a meld to
   answer; Lens and Wheel need a Set or Run trick).
6. **Wild-only melds**: several Wilds (after a Rod) may form a Set or a Run alone; a Run of Wilds
   names no suit (``W=*5``). A Wild always counts 2–13, also at 2 players [:190].
7. **Forced passes**: in the Bonus a player with no legal play passes without a decision
   (event ``pass``, ``forced``), and one with a legal play is not offered ``pass`` [:227–235];
   so does a Start Seer who cannot start a trick [:95], and, as any pass, it keeps that seat out
   of the trick the next seat starts (version 4; it was asked or forced to pass again, a second
   ``pass`` event), and the observation shows it as passed while that trick is being started
   (version 5; it showed nobody as passed until the first meld). Out of the Bonus a player may
   pass with a legal play [:108], so one without is still asked, ``pass`` its only option: its
   pass reads exactly like a chosen one to the others (the same event, the same count of
   decisions, which every request's ``decision_index`` shows), as nobody at the table can tell.
   What a forced pass tells of the hand (no legal play against that meld, or no way to start)
   holds for the hand then, the hand now and the cards played since (all public), so every view
   keeps it for the round with those cards (``SeatView.cannot_beat``, version 8: it was lost
   when the trick ended; version 9: ``played_since``), until a Rod's take gives the seat cards;
   worlds deal only hands that respect it. A Veil's pass tells nothing.
8. **Nobody can start**: if every player in turn is unable to start a trick (only Artifacts that
   cannot be played alone), the round ends and is scored as it stands (not covered by the text).
9. **A round ends at once** [:280–282] when a hand is empty: after the meld, before any Gift of
   Fate, Veil or trick win. The Rod's take happens first (the player then has cards again).
10. **Public knowledge** tracked in ``known_cards``: each player's dealt Wild, Go First in the
    Start Seer's hand until played, cards taken with the Rod.
11. **Compound turn**: a turn is a chain: ``turn`` (pass, or which way to play: ``meld``,
    ``use:<artifact>``, ``shed:<artifact>``), then ``meld`` (the concrete meld, every option
    legal), then for the Gift of Fate ``gift`` (who starts next). A ``turn`` option is offered
    only when at least one meld completes it. Whole melds are enumerated in the ``meld`` step:
    a hand holds at most a few dozen (sets over the suits of one rank, runs over windows).
12. **Artifact details** (the Reference is missing): Cauldron changes one suited card by ±1 within
    2–13 and Prism one suited card's suit (Runs only, where a suit matters); the changed card must
    be in the meld. Twin Idol copies a suited card of its Set; Crown and Beacon are Singles on
    their own. The Hourglass reverses the order for the rest of the trick (another Hourglass
    restores it); Mirror then allows an equal meld, the Moon still adds ½. Gift of Fate ends the
    trick at once, then its player names another seat to start. Veil makes the next seat still in
    the trick pass (``pass`` event, ``forced``). Rod takes the earlier melds of the trick (with
    their artifacts) into the hand; the Rod's own meld stays as the one to beat.
13. **Seating**: clockwise is increasing seat number; "the player to the left" is the next seat.
14. **Round-end reveal**: the ``round-end`` event shows every remaining hand (players score
    their hands openly at the table).

Bound: a round deals 15 cards a player and every meld takes at least one card out of the
hands; only the Rod of Reincarnation brings cards back (at most the 15 × players − 1 others on
the table, once a round: the Rod stays on the table), so a round has at most M = 30 × players −
1 melds. A meld asks at most 3 steps (``turn``, ``meld``, ``gift``); every trick has a meld, and
each seat passes at most once a trick (the winner never), plus at most one asked pass a seat
when nobody can start (ruling 8). So 4 rounds have at most 4 × ((players + 2) × M + players)
steps: 952 / 1,792 / 2,872 / 4,192 at 2–5 players. Random play takes at most 190 / 312 / 434 /
569 over 200 games.

Chance labels, in draw order: ``"artifacts"`` (once: shuffle of the 14 Artifacts other than Go
First; the first N−1 are used), ``"removed"`` (once, 2 players only: shuffle of the 27 suited
cards, the last 3 are removed for the whole game), then per round ``"deck"`` (shuffle of the
suited cards in play, in sorted order before the shuffle: seat s gets cards 12s…12s+11) and
``"artifact-deal"`` (shuffle of the Artifacts in use: seat s gets cards 2s and 2s+1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import MatchConfig
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result
from arena.games.seerscatalog.melds import (
    ANY,
    ART,
    ARTIFACT_IDS,
    ARTIFACT_NAMES,
    BONUS_LIMIT,
    GIFT,
    GOFIRST,
    HAND_SUITED,
    HIGH,
    HOURGLASS,
    LETTERS,
    LOW,
    PLAYER_SETUP,
    ROD,
    ROUNDS,
    VEIL,
    WILD,
    Meld,
    Trick,
    VCard,
    ability_applies,
    any_meld,
    has_meld,
    make_meld,
    melds_for,
    parse_token,
    score_value,
    sorted_cards,
    suited,
    token,
)
from arena.games.v1 import seerscatalog_pb2 as pb


@dataclass
class ForcedPass:
    """A forced pass that tells of the hand (ruling 7): the meld the seat could not beat (None:
    a trick it could not start), and the cards it has played since (all public): the hand then
    was the hand now and these, and held no legal play against the meld."""

    trick: Trick | None
    played: list[int] = field(default_factory=list)


class Played(NamedTuple):
    seat: int
    meld: Meld


def round_score(hand: Sequence[int]) -> int:
    """Bonus points (1–5 cards: the lowest value) minus one per card (:288–317)."""
    n = len(hand)
    if n == 0:
        return 0
    bonus = min(score_value(c) for c in hand) if n <= BONUS_LIMIT else 0
    return bonus - n


def suited_deck(players: int) -> list[int]:
    setup = PLAYER_SETUP[players]
    return [suited(s, r) for s in range(setup["suits"]) for r in range(LOW, setup["max_rank"] + 1)]


def tokens(cards: Iterable[int]) -> list[str]:
    return [token(c) for c in sorted_cards(cards)]


@dataclass
class SeersState(MatchState):
    artifacts: list[int] = field(default_factory=list)  # in use, Go First first
    round: int = 0
    hands: list[list[int]] = field(default_factory=list)
    known: list[list[int]] = field(default_factory=list)  # publicly known cards in each hand
    removed: list[int] = field(default_factory=list)  # 2 players: out of the game since setup
    set_aside: list[int] = field(default_factory=list)
    round_scores: list[list[int]] = field(default_factory=list)  # per seat
    turn: int = 0
    start_seer: int = 0
    trick: list[Played] = field(default_factory=list)
    trick_type: str = ""
    trick_size: int = 0
    reversed: bool = False
    passed: list[bool] = field(default_factory=list)
    # Per seat, this round's forced passes that tell of its hand (ruling 7): what it could not
    # beat in the Bonus, or None for a trick it could not start, and what it has played since.
    # A Rod's take (cards back into the hand) clears the taker's list.
    cannot_beat: list[list[ForcedPass]] = field(default_factory=list)
    chosen: str = ""  # the "turn" option chosen, while its "meld" decision is open
    gift: bool = False  # the Gift of Fate's player must name the next Start Seer
    over: bool = False

    @property
    def suits(self) -> int:
        return PLAYER_SETUP[self.players]["suits"]

    def current(self) -> Trick | None:
        if not self.trick:
            return None
        return Trick(self.trick_type, self.trick_size, self.trick[-1].meld.value2, self.reversed)


class SeersCatalog(Game[SeersState]):
    meta = GameMeta(
        id="seerscatalog",
        name="Seers Catalog",
        min_players=2,
        max_players=5,
        # 6: the round-end event's detail carries every hand (`hands`), which only its text did
        version="9",  # 9: with the cards played since each (Unbeaten.played_since)
        hidden_information=True,
        summary="Climb with Singles, Sets and Runs to shed your hand; keep few, high cards for the "
        "Bonus; 15 Artifacts bend the melds.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> SeersState:
        players = config.players
        others = chance.shuffled([ART + i for i in range(len(ARTIFACT_IDS)) if ART + i != GOFIRST], "artifacts")
        used = [GOFIRST, *others[: PLAYER_SETUP[players]["artifacts"] - 1]]
        state = SeersState(config=config, chance=chance, artifacts=used, round_scores=[[] for _ in range(players)])
        out = PLAYER_SETUP[players]["removed"]
        if out:  # 2 players: once per game, face down, back to the box (:46, :50; ruling 2)
            state.removed = sorted_cards(chance.shuffled(suited_deck(players), "removed")[-out:])
        names = ", ".join(ARTIFACT_NAMES[token(a)[1:]] for a in used)
        state.log.public(CHANCE_SEAT, "round", f"artifacts in this game: {names}", pb.Detail(round=0))
        self._start_round(state)
        return state

    def _start_round(self, state: SeersState) -> None:
        players = state.players
        state.round += 1
        removed = set(state.removed)
        order = state.chance.shuffled([c for c in suited_deck(players) if c not in removed], "deck")
        arts = state.chance.shuffled(state.artifacts, "artifact-deal")
        state.hands = [
            sorted_cards([*order[HAND_SUITED * s : HAND_SUITED * (s + 1)], WILD, *arts[2 * s : 2 * s + 2]])
            for s in range(players)
        ]
        state.set_aside = []
        seer = next(s for s in range(players) if GOFIRST in state.hands[s])
        state.known = [[WILD, GOFIRST] if s == seer else [WILD] for s in range(players)]
        state.cannot_beat = [[] for _ in range(players)]
        out, shown = "", []
        if state.removed and state.round == 1:
            out = f"; {len(state.removed)} suited cards were removed face down at setup"
        elif state.removed:  # known to both since the round-1 reveal (ruling 2)
            shown = tokens(state.removed)
            out = f"; out of the game: {' '.join(shown)}"
        state.log.public(
            CHANCE_SEAT,
            "round",
            f"round {state.round}: 12 suited cards, 1 Wild and 2 Artifacts dealt to each{out}; "
            f"seat {seer} holds Go First and is the Start Seer",
            pb.Detail(round=state.round, leader=seer, cards=shown),
        )
        for s in range(players):
            state.log.private(
                [s],
                CHANCE_SEAT,
                "deal",
                f"deals seat {s}: {' '.join(tokens(state.hands[s]))}",
                pb.Detail(seat=s, cards=tokens(state.hands[s]), round=state.round),
            )
        self._new_trick(state, seer)

    def _new_trick(self, state: SeersState, leader: int) -> None:
        state.trick = []
        state.trick_type, state.trick_size, state.reversed = "", 0, False
        state.passed = [False] * state.players
        state.turn = state.start_seer = leader
        self._advance(state)

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: SeersState) -> Iterable[Decision]:
        if state.over:
            return ()
        seat = state.turn
        if state.gift:
            opts = tuple(
                Option(f"lead:{s}", f"seat {s} starts the next trick", pb.Action(kind="lead", seat=s))
                for s in range(state.players)
                if s != seat
            )
            return (Decision(seat, "gift", opts),)
        if state.chosen:
            return (Decision(seat, "meld", self._meld_options(state, seat, state.chosen)),)
        return (Decision(seat, "turn", self._turn_options(state, seat)),)

    def _turn_options(self, state: SeersState, seat: int) -> tuple[Option, ...]:
        hand = state.hands[seat]
        trick = state.current()
        key = tuple(hand)
        plain = has_meld(key, trick, state.suits)
        opts: list[Option] = []
        if trick is not None and len(hand) > BONUS_LIMIT:
            opts.append(Option("pass", "pass", pb.Action(kind="pass")))
        if plain:
            opts.append(Option("meld", "play a meld", pb.Action(kind="meld")))
        for a in sorted(set(c for c in hand if c >= ART)):
            name = ARTIFACT_IDS[a - ART]
            if ability_applies(a, trick) and has_meld(key, trick, state.suits, a, True):
                opts.append(
                    Option(
                        f"use:{name}",
                        f"play a meld with {ARTIFACT_NAMES[name]}, using it",
                        pb.Action(kind="use", artifact=name),
                    )
                )
            if plain and (a != GOFIRST or trick is None):
                opts.append(
                    Option(
                        f"shed:{name}",
                        f"play a meld with {ARTIFACT_NAMES[name]}, no ability",
                        pb.Action(kind="shed", artifact=name),
                    )
                )
        if trick is not None and len(hand) <= BONUS_LIMIT and not opts:
            opts.append(Option("pass", "pass", pb.Action(kind="pass")))  # unreachable: forced passes skip
        return tuple(opts)

    @staticmethod
    def _mode(chosen: str) -> tuple[int, bool]:
        if chosen == "meld":
            return -1, False
        how, _, name = chosen.partition(":")
        return ART + ARTIFACT_IDS.index(name), how == "use"

    def _meld_options(self, state: SeersState, seat: int, chosen: str) -> tuple[Option, ...]:
        artifact, ability = self._mode(chosen)
        melds = melds_for(state.hands[seat], state.current(), state.suits, artifact, ability)
        return tuple(_meld_option(seat, m) for m in melds)

    def resolve(self, state: SeersState, chosen: Mapping[int, Option]) -> None:
        (seat, option), *_ = chosen.items()
        action = option.action
        assert isinstance(action, pb.Action)
        if action.kind == "lead":
            state.gift = False
            state.log.public(
                seat,
                "gift",
                f"Gift of Fate: seat {action.seat} starts the next trick",
                pb.Detail(seat=seat, leader=action.seat),
            )
            self._new_trick(state, action.seat)
        elif action.kind == "pass":
            state.log.public(seat, "pass", "passes", pb.Detail(seat=seat))
            self._pass(state, seat)
        elif action.kind == "play":
            artifact, ability = self._mode(state.chosen)
            state.chosen = ""
            trick = state.current()
            meld = next(
                m for m in melds_for(state.hands[seat], trick, state.suits, artifact, ability) if m.id == option.id
            )
            self._play(state, seat, meld)
        else:
            state.chosen = option.id

    # -- rules ------------------------------------------------------------------------------

    def _play(self, state: SeersState, seat: int, meld: Meld) -> None:
        hand = state.hands[seat]
        for c in meld.physical():
            hand.remove(c)
            if c in state.known[seat]:
                state.known[seat].remove(c)
        for forced in state.cannot_beat[seat]:
            forced.played = sorted_cards([*forced.played, *meld.physical()])  # the hand at each pass held these too
        earlier = state.trick
        state.trick = [*earlier, Played(seat, meld)]
        state.trick_type, state.trick_size = meld.type, meld.size
        used = meld.artifact if meld.ability else -1
        what = f" with {ARTIFACT_NAMES[token(meld.artifact)[1:]]}" if meld.artifact >= 0 else ""
        how = "" if meld.artifact < 0 else (" (ability used)" if meld.ability else " (no ability)")
        detail = pb.Detail(seat=seat, meld=_meld_pb(seat, meld))
        state.log.public(seat, "play", f"plays {meld.label}{what}{how}", detail)
        if used == HOURGLASS:
            state.reversed = not state.reversed
        if used == ROD and earlier:
            taken = [c for p in earlier for c in p.meld.physical()]
            hand.extend(taken)
            state.hands[seat] = sorted_cards(hand)
            state.known[seat].extend(taken)
            state.cannot_beat[seat] = []  # the hand is no longer part of the one that passed
            state.trick = state.trick[-1:]
            state.log.public(
                seat,
                "take",
                f"Rod of Reincarnation: takes {' '.join(tokens(taken))}",
                pb.Detail(seat=seat, cards=tokens(taken)),
            )
        if not state.hands[seat]:
            self._end_round(state, f"seat {seat} has no cards left")
            return
        if used == GIFT:
            self._set_aside(state)
            state.log.public(seat, "trick", "wins the trick with the Gift of Fate", pb.Detail(seat=seat, leader=seat))
            state.gift = True
            return
        if used == VEIL:
            target = self._next_active(state, seat)
            if target != seat:
                state.passed[target] = True
                state.log.public(target, "pass", "passes (Veil of Silence)", pb.Detail(seat=target, forced=True))
        self._after_action(state, seat)

    def _pass(self, state: SeersState, seat: int) -> None:
        state.passed[seat] = True
        self._after_action(state, seat)

    def _after_action(self, state: SeersState, seat: int) -> None:
        active = [s for s in range(state.players) if not state.passed[s]]
        if len(active) == 1:
            winner = active[0]
            self._set_aside(state)
            state.log.public(
                winner,
                "trick",
                f"seat {winner} wins the trick and starts the next",
                pb.Detail(seat=winner, leader=winner),
            )
            self._new_trick(state, winner)
            return
        state.turn = self._next_active(state, seat)
        self._advance(state)

    @staticmethod
    def _next_active(state: SeersState, seat: int) -> int:
        for k in range(1, state.players):
            s = (seat + k) % state.players
            if not state.passed[s]:
                return s
        return seat

    def _set_aside(self, state: SeersState) -> None:
        state.set_aside.extend(c for p in state.trick for c in p.meld.physical())
        state.trick = []

    def _advance(self, state: SeersState) -> None:
        """Skip forced passes (ruling 7) until a seat has a choice, or the round ends (ruling 8)."""
        failures = 0
        while True:
            seat = state.turn
            trick = state.current()
            if any_meld(state.hands[seat], trick, state.suits):
                return
            if trick is None:
                state.log.public(seat, "pass", "cannot start a trick and passes", pb.Detail(seat=seat, forced=True))
                state.cannot_beat[seat].append(ForcedPass(None))
                state.passed[seat] = True  # out of the trick it did not start, like any pass
                failures += 1
                if failures >= state.players:
                    self._end_round(state, "nobody can start a trick")
                    return
                state.turn = state.start_seer = (seat + 1) % state.players
                continue
            if len(state.hands[seat]) > BONUS_LIMIT:
                # Out of the Bonus a pass may be chosen, so the seat is asked (``pass`` its one
                # option): the event and the decision count read as a chosen pass (ruling 7).
                return
            state.log.public(seat, "pass", "passes", pb.Detail(seat=seat, forced=True))
            state.cannot_beat[seat].append(ForcedPass(trick))
            state.passed[seat] = True
            active = [s for s in range(state.players) if not state.passed[s]]
            if len(active) == 1:
                self._after_action(state, seat)
                return
            state.turn = self._next_active(state, seat)

    def _end_round(self, state: SeersState, why: str) -> None:
        scores = [round_score(h) for h in state.hands]
        for s in range(state.players):
            state.round_scores[s].append(scores[s])
        state.set_aside.extend(c for p in state.trick for c in p.meld.physical())
        state.trick = []
        state.chosen, state.gift = "", False
        text = ", ".join(
            f"seat {s} {scores[s]:+d} ({' '.join(tokens(state.hands[s])) or 'no cards'})" for s in range(state.players)
        )
        state.log.public(
            CHANCE_SEAT,
            "round-end",
            f"round {state.round} ends ({why}): {text}",
            pb.Detail(round=state.round, scores=scores, hands=[pb.Hand(cards=tokens(hand)) for hand in state.hands]),
        )
        if state.round >= ROUNDS:
            state.over = True
            totals = [sum(r) for r in state.round_scores]
            text = "game over: totals " + ", ".join(f"seat {s} {v}" for s, v in enumerate(totals))
            state.log.public(CHANCE_SEAT, "game-end", text, pb.Detail(scores=totals))
            return
        self._start_round(state)

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: SeersState, viewer: int) -> pb.Observation:
        obs = pb.Observation(
            seat=max(viewer, 0),
            spectator=viewer == SPECTATOR,
            players=state.players,
            round=state.round,
            artifacts=[ARTIFACT_IDS[a - ART] for a in state.artifacts],
            suits=list(LETTERS[: state.suits]),
            max_rank=PLAYER_SETUP[state.players]["max_rank"],
            turn=state.turn,
            start_seer=state.start_seer,
            trick=[_meld_pb(p.seat, p.meld) for p in state.trick],
            trick_type=state.trick_type if state.trick else "",
            trick_size=state.trick_size if state.trick else 0,
            reversed=state.reversed,
            set_aside=tokens(state.set_aside),
            chosen=state.chosen if viewer in (SPECTATOR, state.turn) else "",
            removed_count=len(state.removed),
            over=state.over,
            gift=state.gift,
        )
        if viewer >= 0:
            obs.hand.extend(tokens(state.hands[viewer]))
        for s in range(state.players):
            known = state.known[s]
            obs.seats.append(
                pb.SeatView(
                    hand_size=len(state.hands[s]),
                    in_bonus=len(state.hands[s]) <= BONUS_LIMIT,
                    passed=state.passed[s] if self._in_trick(state) else False,
                    known_cards=tokens(known),
                    unknown_artifacts=self._unknown_artifacts(state, s),
                    round_scores=state.round_scores[s],
                    total=sum(state.round_scores[s]),
                    cannot_beat=[_unbeaten_pb(t) for t in state.cannot_beat[s]],
                )
            )
        if viewer == SPECTATOR:
            obs.hands.extend(" ".join(tokens(h)) for h in state.hands)
        if viewer == SPECTATOR or self._removed_known(state):
            obs.removed.extend(tokens(state.removed))
        return obs

    @staticmethod
    def _in_trick(state: SeersState) -> bool:
        """Does ``passed`` describe a trick under way? Yes once a meld is on the table, and also
        while a trick is being started (a Start Seer who could not start is out of it, ruling 7);
        no after a Gift of Fate ended the trick or at the end of the game."""
        return bool(state.trick) or not (state.gift or state.over)

    @staticmethod
    def _removed_known(state: SeersState) -> bool:
        """Ruling 2: after the round-1 reveal everyone knows which cards were removed at setup."""
        return state.round > 1

    @staticmethod
    def _unknown_artifacts(state: SeersState, seat: int) -> int:
        return sum(1 for c in state.hands[seat] if c >= ART) - sum(1 for c in state.known[seat] if c >= ART)

    def score(self, state: SeersState) -> Result:
        totals = [sum(r) for r in state.round_scores]
        last = [r[-1] if r else 0 for r in state.round_scores]
        # Round 4 breaks a tie for the highest total only (:379-381); equal totals below it
        # share a place (version 7), and a tie round 4 leaves is shared too (ruling 1).
        top = max(totals)
        keys = [(totals[s], last[s] if totals[s] == top else 0) for s in range(state.players)]
        best = max(keys)
        winners = [s for s in range(state.players) if keys[s] == best]
        summary = f"winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))} ({best[0]} points)"
        return Result.ranked(totals, keys, summary)

    # -- determinization --------------------------------------------------------------------

    def sample_world(self, state: SeersState, seat: int, chance: Chance) -> SeersState:
        """A copy where what ``seat`` cannot know is re-dealt at random (see module docstring).

        Known to the seat: its hand, every played card, each hand's public ``known`` cards and
        its counts of suited cards, Wilds and Artifacts (deducible from the deal and the plays),
        and from round 2 on the cards removed at setup (2 players, ruling 2). Re-dealt
        uniformly: the other hands' unknown suited cards (in round 1 together with the removed
        cards), and their unknown Artifacts, among the deals that respect what each hand's
        forced passes tell (``cannot_beat``: no legal play against those melds; by rejection).
        """
        world = self.copy_for(state, seat, chance)
        fixed = list(state.removed) if self._removed_known(state) else []
        suited_pool: list[int] = [] if fixed else list(state.removed)
        art_pool: list[int] = []
        need: dict[int, tuple[int, int]] = {}
        for s in range(state.players):
            if s == seat:
                continue
            unknown = list(state.hands[s])
            for c in state.known[s]:
                unknown.remove(c)
            su = [c for c in unknown if c < WILD]
            ar = [c for c in unknown if c >= ART]
            assert all(c < WILD or c >= ART for c in unknown), "Wilds are always known"
            suited_pool += su
            art_pool += ar
            need[s] = (len(su), len(ar))
        self._deal_unseen(world, seat, suited_pool, art_pool, need, fixed, chance)
        return world

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> SeersState:
        """The table, the seat's hand, every hand's ``known_cards`` and the listed ``removed``
        cards (2 players, from round 2 on) are kept; the unseen suited cards (all minus the hand,
        the played, the known and the listed removed ones) are dealt over the other hands and,
        in round 1, the removed cards; the unseen Artifacts over the other hands, as in
        ``sample_world`` (respecting each seat's ``cannot_beat``)."""
        obs = observation
        assert isinstance(obs, pb.Observation)
        players = config.players
        trick = [Played(m.seat, _meld_from_pb(m)) for m in obs.trick]
        world = SeersState(
            config=config,
            chance=chance.fork(),
            artifacts=[ART + ARTIFACT_IDS.index(a) for a in obs.artifacts],
            round=obs.round,
            hands=[[] for _ in range(players)],
            known=[[parse_token(t) for t in v.known_cards] for v in obs.seats],
            set_aside=[parse_token(t) for t in obs.set_aside],
            round_scores=[list(v.round_scores) for v in obs.seats],
            turn=obs.turn,
            start_seer=obs.start_seer,
            trick=trick,
            trick_type=obs.trick_type,
            trick_size=obs.trick_size,
            reversed=obs.reversed,
            passed=[v.passed for v in obs.seats],
            cannot_beat=[[_unbeaten_from_pb(t) for t in v.cannot_beat] for v in obs.seats],
            chosen=obs.chosen,
            gift=obs.gift,
            over=obs.over,
        )
        world.hands[seat] = [parse_token(t) for t in obs.hand]
        fixed = [parse_token(t) for t in obs.removed]
        unseen = Counter(suited_deck(players) + world.artifacts)
        unseen.subtract(c for c in world.hands[seat] + world.set_aside + fixed if c != WILD)
        unseen.subtract(c for p in trick for c in p.meld.physical() if c != WILD)
        need: dict[int, tuple[int, int]] = {}
        for s, view in enumerate(obs.seats):
            if s != seat:
                unseen.subtract(c for c in world.known[s] if c != WILD)
                need[s] = (view.hand_size - len(view.known_cards) - view.unknown_artifacts, view.unknown_artifacts)
        pool = sorted_cards(unseen.elements())
        suited_pool, art_pool = [c for c in pool if c < WILD], [c for c in pool if c >= ART]
        self._deal_unseen(world, seat, suited_pool, art_pool, need, fixed, chance)
        return world

    def _deal_unseen(
        self,
        world: SeersState,
        seat: int,
        suited_pool: list[int],
        art_pool: list[int],
        need: Mapping[int, tuple[int, int]],
        removed: Sequence[int],
        chance: Chance,
    ) -> None:
        """Deal the unseen suited cards and Artifacts: each other seat ``s`` gets its known cards
        and ``need[s]`` = (suited, Artifacts) unseen ones; the removed cards are ``removed`` (the
        known ones, from round 2 on) and the suited cards left (round 1). A deal that gives a
        seat a hand its forced passes rule out (``cannot_beat``) is dealt again, up to
        ``WORLD_DEALS`` times (rejection: uniform over the deals that respect them); after that,
        seat by seat (:meth:`_deal_seat_by_seat`). Then recompute the decisions."""
        suited_cards, art_cards = sorted_cards(suited_pool), sorted_cards(art_pool)
        for _ in range(WORLD_DEALS):
            suited = chance.shuffled(suited_cards, "world-suited")
            arts = chance.shuffled(art_cards, "world-artifacts")
            hands: dict[int, list[int]] = {}
            for s, (n_su, n_ar) in need.items():
                hands[s] = sorted_cards([*world.known[s], *suited[:n_su], *arts[:n_ar]])
                suited, arts = suited[n_su:], arts[n_ar:]
            if all(could_not_beat(hand, world.cannot_beat[s], world.suits) for s, hand in hands.items()):
                break
        else:
            hands, suited = self._deal_seat_by_seat(world, suited_cards, art_cards, need, chance)
        for s, hand in hands.items():
            world.hands[s] = hand
        world.removed = sorted_cards([*removed, *suited])
        if world.turn != seat:
            world.chosen = ""  # another seat's half-made move is not visible: rewind it
        world.pending = tuple(self.decisions(world))

    @staticmethod
    def _deal_seat_by_seat(
        world: SeersState,
        suited_cards: list[int],
        art_cards: list[int],
        need: Mapping[int, tuple[int, int]],
        chance: Chance,
    ) -> tuple[dict[int, list[int]], list[int]]:
        """Where whole deals rarely respect the forced passes (several of them on one seat, or
        one that leaves few cards possible): the seats with most of them first, each dealt from
        what is left, only cards that alone would not have given it a play (a hand with one is
        ruled out whatever else it holds), until its hand respects them (``SEAT_DRAWS`` tries);
        the whole anew if one cannot (``SEAT_RESTARTS`` times; the last time a seat keeps its
        last try). Every hand is possible, but the deal is no longer exactly uniform among
        them. The hands and the suited cards left."""
        order = sorted(need, key=lambda s: (-len(world.cannot_beat[s]), s))
        possible: dict[int, set[int]] = {}
        for s in order:
            passes, known = world.cannot_beat[s], world.known[s]
            possible[s] = {c for c in {*suited_cards, *art_cards} if could_not_beat([*known, c], passes, world.suits)}
        for attempt in range(SEAT_RESTARTS):
            suited, arts, hands = list(suited_cards), list(art_cards), {}
            for s in order:
                n_su, n_ar = need[s]
                su_from = [c for c in suited if c in possible[s]]
                ar_from = [c for c in arts if c in possible[s]]
                if len(su_from) < n_su or len(ar_from) < n_ar:
                    su_from, ar_from = suited, arts  # the others left too few: only the last try keeps this
                    tries = 1 if attempt == SEAT_RESTARTS - 1 else 0
                else:
                    tries = SEAT_DRAWS
                hand: list[int] = []
                su: list[int] = []
                ar: list[int] = []
                for _ in range(tries):
                    su = chance.shuffled(su_from, "world-suited")[:n_su]
                    ar = chance.shuffled(ar_from, "world-artifacts")[:n_ar]
                    hand = sorted_cards([*world.known[s], *su, *ar])
                    if could_not_beat(hand, world.cannot_beat[s], world.suits):
                        break
                else:
                    if attempt < SEAT_RESTARTS - 1:
                        break  # this seat cannot be dealt from what the others left: anew
                hands[s] = hand
                suited = [c for c in suited if c not in su]
                arts = [c for c in arts if c not in ar]
            else:
                return hands, suited
        raise AssertionError("unreachable: the last attempt deals every seat")


WORLD_DEALS = 200
"""Whole deals tried for one world before it is dealt seat by seat: in random play a world
needed 2.5 on average and more than 27 in 1% (docs/versions.md, version 8)."""
SEAT_DRAWS = 500
"""Hands tried for one seat in a seat-by-seat deal."""
SEAT_RESTARTS = 20
"""Seat-by-seat deals tried; in the last, a seat whose tries all failed keeps its last (not
seen in random or heuristic play)."""


def could_not_beat(hand: Sequence[int], passes: Sequence[ForcedPass], suits: int) -> bool:
    """Can a seat holding ``hand`` now have been forced to pass each of ``passes``? Its hand at
    each held these cards and the ones played since, and no legal play against the meld (or
    none to start a trick). Melds only grow with a hand, so a card that gives a play here rules
    the hand out whatever else it holds (the seat-by-seat deal filters on it)."""
    return not any(any_meld(sorted_cards([*hand, *p.played]), p.trick, suits) for p in passes)


def _unbeaten_pb(forced: ForcedPass) -> pb.Unbeaten:
    played = tokens(forced.played)
    trick = forced.trick
    if trick is None:
        return pb.Unbeaten(played_since=played)
    return pb.Unbeaten(
        type=trick.type, size=trick.size, value2=trick.value2, reversed=trick.reversed, played_since=played
    )


def _unbeaten_from_pb(message: pb.Unbeaten) -> ForcedPass:
    trick = Trick(message.type, message.size, message.value2, message.reversed) if message.type else None
    return ForcedPass(trick, [parse_token(t) for t in message.played_since])


def _meld_from_pb(meld: pb.Meld) -> Meld:
    cards = []
    for c in meld.cards:
        card = parse_token(c.card)
        if not c.counts_as:
            cards.append(VCard(card, card >> 4, card & 15))
        else:
            suit = ANY if c.counts_as[0] == "*" else LETTERS.index(c.counts_as[0])
            cards.append(VCard(card, suit, int(c.counts_as[1:])))
    artifact = parse_token(meld.artifact) if meld.artifact else -1
    return make_meld(meld.type, cards, meld.value2, artifact, meld.ability)


@lru_cache(maxsize=16384)
def _meld_option(seat: int, meld: Meld) -> Option:
    action = pb.Action(kind="play")
    action.meld.CopyFrom(_meld_body(meld))  # built in place: no second copy of the meld
    action.meld.seat = seat
    return Option(meld.id, meld.label, action)


@lru_cache(maxsize=8192)
def _meld_pb(seat: int, meld: Meld) -> pb.Meld:
    message = pb.Meld()
    message.CopyFrom(_meld_body(meld))
    message.seat = seat
    return message


@lru_cache(maxsize=16384)
def _meld_body(meld: Meld) -> pb.Meld:
    """The meld's message without its seat: the same meld is offered to every seat in turn, and
    copying a built message costs a fraction of building it card by card."""
    return pb.Meld(
        type=meld.type,
        size=meld.size,
        value2=meld.value2,
        cards=[pb.MeldCard(card=token(v.card), counts_as=v.counts_as) for v in meld.cards],
        artifact=token(meld.artifact) if meld.artifact >= 0 else "",
        ability=meld.ability,
    )


GAME = SeersCatalog()

__all__ = ["GAME", "HIGH", "Played", "SeersCatalog", "SeersState", "round_score", "suited_deck"]
