"""Wine Cellar — sealed bids with Wine Bottle cards to build the best cellar, 2–8 players, solo
against Eno, and the advanced 3-game series (``shared/rules/winecellar.md``).

Rules as implemented (rulebook line references in brackets):

* Components [:26–33]: 72 Wine Bottle cards and 30 Client cards (designed data:
  ``components.toml``). A bottle's number is its bid value (unique); it has a wine type, a
  country of origin and 8 Age Scores [:93–134].
* Setup [:37–91]: the bottles 1–9n are used (1–18 at 1–2 players); shuffled; 8 dealt to each
  player; the rest are the first round's prize bottles. The clients are shuffled, 2 dealt to
  each player, who keeps 1 (public) and discards the other (hidden) [:79–89].
* A round [:138–212]: every player bids one bottle of their hand at the same time (sealed);
  the bids are revealed; in descending bid order each player takes 1 prize bottle and adds it
  to the top or the bottom of their cellar (the first bottle starts it) [:178–200]; then the
  bids become the next round's prizes [:202–212].
* End [:214–226]: after 8 rounds (hands empty, 8 bottles per cellar). Score [:228–307]: bottle
  k from the top scores its k-th Age Score; plus, per bottle, the Client's type-1 bonus, type-2
  bonus and +3 when its country is listed for the player count. Highest total wins; ties share
  the victory [:301–307].
* Advanced series [:339–483] (option ``series``): 3 games. Game 1: the used bottles are split
  into a lower half (the extra card of an odd count goes low) and a higher half, each shuffled;
  each player gets 4 of each; the rest are the prizes [:375–416]. Clients: at 2–3 players only
  set A or set B (option ``client_set``) [:418–451]. Between games: the clients are discarded
  and 2 new ones dealt to each player from the same deck (ruling 8); each cellar
  becomes its owner's hand; the last round's bids are the next game's first prizes
  [:455–473]. The sum of the 3 games wins [:477–483].
* Solo [:487–607] (1 player): bottles 1–18; 8 to you, 8 face down as Eno's deck, 2 prizes.
  Two clients drawn: you keep one, the other is Eno's. Each round you bid face up, then Eno
  reveals cards from its deck until it has 2 face up (2 in round 1, then 1 a round). Higher
  than Eno's higher bid: you take a prize, Eno's other prize goes to the box, and the next
  prizes are your bid and Eno's lower bid (its higher stays up). Lower: Eno takes the prize
  that best fits its client (type 1, then type 2, then its first country, then the higher
  number; returned to the box), you get the other, and the next prizes are your bid and Eno's
  higher bid (its lower stays up). Your score is cellar + client bonuses, with a title.

Rulings (``shared/rules/NOTES.md`` §4.25 unless stated):

1. **Card data** (missing): designed, ``components.toml``; bid value = card number 1–72, so
   bids never tie (NOTES ruling 1; solo ties impossible, NOTES ruling 5).
2. **Client countries**: a client lists 1 country at 1–3 players, 2 at 4–5, 3 at 6–8 (designed;
   "only use the countries listed for the current number of players" [:287–289]). The
   observation, the events and the ``client:`` options' labels name only those (version 3: the
   labels named all three).
3. **Placement order**: each player places the bottle right after taking it (top/bottom is a
   separate decision, none for a game's first bottle); the last prize left is taken without a
   decision. Client choice is simultaneous; kept clients are revealed together.
4. **Solo ranking** [:590–605]: 73+ Master Sommelier, 67–72 Capable Sommelier, 60–66 Wine
   Geek, 0–59 Still Fermenting (NOTES ruling 4).
5. **Eno's choice** [:559–568]: the prize with the best key (type = client type 1, type = type
   2, country = the client's first listed country, number); equal matches and no matches fall
   to the higher number (NOTES ruling 6).
6. **Eno in round 8** (arena ruling): Eno's 8 cards are all revealed by round 7 (2 + 6), so in
   round 8 it bids with the one card left face up; your bid is compared with it.
7. **Last bids** (NOTES ruling 3): the base game's round-8 bids stay unused; in the series they
   are the next game's prizes. Eno's last bid and your round-8 bid simply stay unused.
8. **Series clients** (arena ruling; "Discard the current Client cards. Deal each player 2 new
   Client cards" [:457–465]): one client deck (the pool: set A or B at 2–3 players, all 30
   otherwise) lasts the whole series. Every client dealt, kept or not, goes to the discard pile
   (the kept one when the next game starts), and each later game deals 2 new clients per
   player from the rest of the deck. The rulebook does not say what happens when the deck runs
   short, and it does: at 3 players a set of 15 must give 18 deals, at 6–8 players 30 cards
   must give 36–48. As a card game does, only then (the deck holds fewer than 2 per player)
   are the discards shuffled back in, together with the deck's remaining clients (so with the
   whole pool, the current clients being discarded first), and the deal is made from the new
   deck. Shuffling the few remaining clients in rather than dealing them first keeps the seats
   equal: dealt first, they would all go to the first seats, and the last seats would get only
   recycled clients, possibly ones they have already seen. So the deck is shuffled before game
   3 at 3, 6 and 7 players and before games 2 and 3 at 8; at 2, 4 and 5 players no client is
   ever dealt twice. ``client_set`` is ignored outside the series at 2–3 players. The series
   needs 2+ players.
9. **Result**: score = the game score (series: the sum of the 3 games); ranks by score, ties
   shared. Solo: one seat, rank 1, the score is the result; the title is in the summary.

Bound: a game has one sealed ``client`` step and 8 rounds; a round has one sealed ``bid`` step,
a ``pick`` for every seat but the last (the last prize is taken without one) and a ``place``
for every bottle but a cellar's first, so a game has exactly 1 + 8 + 8 × (players − 1) +
7 × players = 15 × players + 1 steps (31 / 46 / … / 121 at 2–8 players), and a series 3 × that
(93 … 363). Solo has at most 1 + 8 bids + 8 picks + 7 places = 24 steps (random play: 16–23).

Chance labels, in draw order: game 1: ``"bottles"`` (one shuffle of the bottle numbers used,
ascending; seat s gets items 8s…8s+7, solo: you 0–7, Eno's deck 8–15 in reveal order, prizes
the rest), or in the series ``"low"`` then ``"high"`` (the two halves; seat s gets items
4s…4s+3 of each; the prizes are the rest of low, then of high); then ``"clients"`` (a shuffle
of the client ids of the pool, ascending; seat s gets items 2s, 2s+1; solo: you choose from
items 0, 1; in the series the rest, in order, is the client deck). Series games 2 and 3 deal
the next 2n items of the deck, drawing nothing, unless the deck holds fewer than 2n (ruling 8):
then they draw ``"reshuffle"`` (a shuffle of the whole pool, ascending; seat s gets items 2s,
2s+1, the rest is the new deck). ``sample_world`` and ``world_from_observation`` draw
``"world"`` (the seed of the world's own chance) and then ``"sample"`` (the re-deals).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from google.protobuf.message import Message

from arena.chance import Chance
from arena.config import ConfigError, MatchConfig, OptionSpec
from arena.engine import CHANCE_SEAT, SPECTATOR, Decision, Game, GameMeta, MatchState, Option, Result, Variant
from arena.games.v1 import winecellar_pb2 as pb

_DATA = tomllib.loads(Path(__file__).with_name("components.toml").read_text(encoding="utf-8"))
_RULES = _DATA["rules"]
ROUNDS: int = _RULES["rounds"]
HAND: int = _RULES["hand_size"]
PER_PLAYER: int = _RULES["cards_per_player"]
COUNTRY_BONUS: int = _RULES["country_bonus"]
SOLO_CARDS: int = _RULES["solo_cards"]
TITLES: list[tuple[int, str]] = [(int(a), str(b)) for a, b in _RULES["solo_titles"]]
COUNTRIES_LISTED: list[int] = _RULES["countries_listed"]
TYPES = ("red", "white", "rose", "sparkling")
SERIES_GAMES = 3


class Bottle(NamedTuple):
    id: int
    type: str
    country: str
    ages: tuple[int, ...]


class Client(NamedTuple):
    id: int
    set: str
    type1: str
    bonus1: int
    type2: str
    bonus2: int
    countries: tuple[str, ...]

    def listed(self, players: int) -> tuple[str, ...]:
        return self.countries[: COUNTRIES_LISTED[players]]


BOTTLES: dict[int, Bottle] = {
    c["id"]: Bottle(c["id"], c["type"], c["country"], tuple(c["ages"])) for c in _DATA["bottles"]["cards"]
}
CLIENTS: dict[int, Client] = {
    c["id"]: Client(c["id"], c["set"], c["type1"], c["bonus1"], c["type2"], c["bonus2"], tuple(c["countries"]))
    for c in _DATA["clients"]["cards"]
}


def _check_data() -> None:
    if sorted(BOTTLES) != list(range(1, 73)) or sorted(CLIENTS) != list(range(1, 31)):
        raise ValueError("components.toml: bottles must be 1-72 and clients 1-30")
    for b in BOTTLES.values():
        if sorted(b.ages) != list(range(1, 9)) or b.type not in TYPES:
            raise ValueError(f"components.toml: bottle {b.id} is malformed")


_check_data()


def deck_size(players: int) -> int:
    """Bottles used: 1–18 at 1–2 players, else 1–9n [:41–67]."""
    return SOLO_CARDS if players <= 2 else PER_PLAYER * players


def title(score: int) -> str:
    """The solo ranking title (ruling 4)."""
    return next(name for low, name in TITLES if score >= low)


class Breakdown(NamedTuple):
    cellar: int
    types: int
    countries: int

    @property
    def total(self) -> int:
        return self.cellar + self.types + self.countries


def score_cellar(cellar: Sequence[Bottle], client: Client | None, players: int) -> Breakdown:
    """Cellar Score (bottle k from the top scores ages[k-1]) and the client's bonuses [:234–305]."""
    ages = sum(b.ages[k] for k, b in enumerate(cellar))
    if client is None:
        return Breakdown(ages, 0, 0)
    listed = client.listed(players)
    types = sum(client.bonus1 * (b.type == client.type1) + client.bonus2 * (b.type == client.type2) for b in cellar)
    countries = sum(COUNTRY_BONUS for b in cellar if b.country in listed)
    return Breakdown(ages, types, countries)


def eno_key(bottle: Bottle, client: Client) -> tuple[bool, bool, bool, int]:
    """Eno's preference (ruling 5): type 1, type 2, first country, then the higher number."""
    first = client.countries[0]
    return (bottle.type == client.type1, bottle.type == client.type2, bottle.country == first, bottle.id)


def split_halves(n: int) -> tuple[list[int], list[int]]:
    """The series split of bottles 1..n: the extra card of an odd count goes low [:383–399]."""
    low = (n + 1) // 2
    return list(range(1, low + 1)), list(range(low + 1, n + 1))


# --------------------------------------------------------------------------------------------
# Protobuf views

_PB_BOTTLE = {i: pb.Bottle(id=b.id, type=b.type, country=b.country, ages=b.ages) for i, b in BOTTLES.items()}


def _pb_client(client: Client, players: int) -> pb.Client:
    return pb.Client(
        id=client.id,
        set=client.set,
        type1=client.type1,
        bonus1=client.bonus1,
        type2=client.type2,
        bonus2=client.bonus2,
        countries=client.listed(players),
        country_bonus=COUNTRY_BONUS,
    )


def _bottle_label(i: int) -> str:
    b = BOTTLES[i]
    return f"#{i} {b.type} {b.country} ages {''.join(map(str, b.ages))}"


_BID = {i: Option(f"bid:{i}", f"bid {_bottle_label(i)}", pb.Action(bid=i)) for i in BOTTLES}
_TAKE = {i: Option(f"take:{i}", f"take {_bottle_label(i)}", pb.Action(take=i)) for i in BOTTLES}
# Keyed by (players, client): the label names only the countries that score at that player
# count (ruling 2), as the observation does.
_CLIENT = {
    (n, i): Option(
        f"client:{i}",
        f"keep client {i}: {c.type1}+{c.bonus1} {c.type2}+{c.bonus2} {'/'.join(c.listed(n))}",
        pb.Action(client=i),
    )
    for n in range(1, len(COUNTRIES_LISTED))
    for i, c in CLIENTS.items()
}
_PLACE = (
    Option("top", "add to the top of the cellar", pb.Action(place=pb.TOP)),
    Option("bottom", "add to the bottom of the cellar", pb.Action(place=pb.BOTTOM)),
)


# --------------------------------------------------------------------------------------------
# State


@dataclass
class WineCellarState(MatchState):
    solo: bool = False
    series: bool = False
    game: int = 1
    round: int = 0
    phase: str = "client"  # client, bid, pick, place, over
    hands: list[list[int]] = field(default_factory=list)  # sorted bottle ids
    prizes: list[int] = field(default_factory=list)  # sorted
    offers: list[list[int]] = field(default_factory=list)  # per seat, the 2 clients dealt (sorted)
    clients: list[int] = field(default_factory=list)  # kept client per seat (0 = not chosen)
    chosen: dict[int, int] = field(default_factory=dict)  # simultaneous client choices so far
    cellars: list[list[int]] = field(default_factory=list)  # top first
    bids: list[int] = field(default_factory=list)  # this round's bid per seat (0 = none)
    order: list[int] = field(default_factory=list)  # pick order this round
    picked: list[bool] = field(default_factory=list)
    turn: int = 0
    last_taken: int = 0
    game_scores: list[list[int]] = field(default_factory=list)  # per seat, per finished game
    pool: list[int] = field(default_factory=list)  # client ids of the pool in use
    client_deck: list[int] = field(default_factory=list)  # series: the client deck, next first
    past_offers: list[list[list[int]]] = field(default_factory=list)  # series: per earlier game, per seat
    past_clients: list[list[int]] = field(default_factory=list)  # series: per earlier game, kept per seat
    # solo
    eno_client: int = 0
    eno_deck: list[int] = field(default_factory=list)  # next card first
    eno_bids: list[int] = field(default_factory=list)  # face up
    boxed: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.phase == "over"


# --------------------------------------------------------------------------------------------
# Clients in play (setup and the worlds)


def client_pool(config: MatchConfig) -> list[int]:
    """The clients in play: set A or B in the series at 2-3 players, else all 30 [:418-451]."""
    if config["series"] and config.players <= 3:
        return [i for i, c in CLIENTS.items() if c.set == config["client_set"]]
    return sorted(CLIENTS)


def client_shuffles(players: int, pool: int, games: int = SERIES_GAMES) -> list[bool]:
    """Per game of a series (game 1 first): is the client deck shuffled before its deal
    (ruling 8)? Game 1 always; a later game when the deck holds fewer than 2 per player."""
    deal = 2 * players
    left = 0
    shuffles = []
    for _ in range(games):
        shuffle = left < deal
        left = (pool if shuffle else left) - deal
        shuffles.append(shuffle)
    return shuffles


def client_cycles(players: int, pool: int, games: int) -> list[list[int]]:
    """Games 1..``games`` (0-based) grouped by the client shuffle they were dealt from."""
    cycles: list[list[int]] = []
    for g, shuffle in enumerate(client_shuffles(players, pool, games)):
        if shuffle:
            cycles.append([])
        cycles[-1].append(g)
    return cycles


# --------------------------------------------------------------------------------------------
# The game


class WineCellar(Game[WineCellarState]):
    meta = GameMeta(
        id="winecellar",
        name="Wine Cellar",
        min_players=1,
        max_players=8,
        version="3.1",  # 3.1: event texts name seats and read as English, not Python lists
        options=(
            OptionSpec("series", False, "advanced variant: 3 connected games, cellars become hands (2-8 players)"),
            OptionSpec("client_set", "A", "series at 2-3 players: the client set in use", choices=("A", "B")),
        ),
        variants=(
            Variant("solo", "1 player against the automated Eno", players=(1,)),
            Variant("series", "advanced 3-game series, total score wins", {"series": True}, tuple(range(2, 9))),
            Variant("series-set-b", "advanced series with client set B", {"series": True, "client_set": "B"}, (2, 3)),
        ),
        simultaneous=True,
        hidden_information=True,
        chance=True,
        summary="Bid bottles in sealed auctions for this round's prizes; stack your cellar top or "
        "bottom so each bottle sits where its Age Score peaks; please your client.",
    )
    observation_type = pb.Observation
    action_type = pb.Action

    def check_config(self, config: MatchConfig) -> None:
        if config["series"] and config.players < 2:
            raise ConfigError("winecellar series=true plays with 2-8 players (solo has no series)")

    # -- setup ------------------------------------------------------------------------------

    def setup(self, config: MatchConfig, chance: Chance) -> WineCellarState:
        n = config.players
        state = WineCellarState(config=config, chance=chance, solo=n == 1, series=bool(config["series"]))
        state.game_scores = [[] for _ in range(n)]
        state.pool = client_pool(config)
        size = deck_size(n)
        if state.solo:
            deck = chance.shuffled(range(1, size + 1), "bottles")
            state.hands = [sorted(deck[:HAND])]
            state.eno_deck = deck[HAND : 2 * HAND]
            state.prizes = sorted(deck[2 * HAND :])
        elif state.series:
            low_ids, high_ids = split_halves(size)
            low = chance.shuffled(low_ids, "low")
            high = chance.shuffled(high_ids, "high")
            half = HAND // 2
            state.hands = [sorted(low[half * s : half * (s + 1)] + high[half * s : half * (s + 1)]) for s in range(n)]
            state.prizes = sorted(low[half * n :] + high[half * n :])
        else:
            deck = chance.shuffled(range(1, size + 1), "bottles")
            state.hands = [sorted(deck[HAND * s : HAND * (s + 1)]) for s in range(n)]
            state.prizes = sorted(deck[HAND * n :])
        self._start_game(state)
        return state

    def _start_game(self, state: WineCellarState) -> None:
        n = state.players
        if state.game == 1:
            deck = state.chance.shuffled(state.pool, "clients")
        elif len(state.client_deck) < 2 * n:  # ruling 8: the discards and the rest, together
            deck = state.chance.shuffled(state.pool, "reshuffle")
        else:
            deck = state.client_deck
        state.offers = [sorted(deck[2 * s : 2 * s + 2]) for s in range(n)]
        state.client_deck = list(deck[2 * n :]) if state.series else []
        state.clients = [0] * n
        state.chosen = {}
        state.cellars = [[] for _ in range(n)]
        state.bids = [0] * n
        state.order = []
        state.picked = [False] * n
        state.round = 0
        state.phase = "client"
        state.eno_client = 0
        for seat in range(n):
            hand = ", ".join(map(str, state.hands[seat]))
            offer = ", ".join(map(str, state.offers[seat]))
            state.log.private(
                [seat],
                seat,
                "deal",
                f"game {state.game}: hand {hand}; clients {offer}",
                pb.DealEvent(
                    game=state.game,
                    hand=[_PB_BOTTLE[i] for i in state.hands[seat]],
                    offer=[_pb_client(CLIENTS[c], n) for c in state.offers[seat]],
                ),
            )

    # -- decisions --------------------------------------------------------------------------

    def decisions(self, state: WineCellarState) -> Iterable[Decision]:
        phase = state.phase
        if phase == "client":
            return tuple(
                Decision(s, "client", tuple(_CLIENT[state.players, c] for c in state.offers[s]))
                for s in range(state.players)
                if s not in state.chosen
            )
        if phase == "bid":
            return tuple(Decision(s, "bid", tuple(_BID[i] for i in state.hands[s])) for s in range(state.players))
        if phase == "pick":
            return (Decision(state.turn, "pick", tuple(_TAKE[i] for i in state.prizes)),)
        if phase == "place":
            return (Decision(state.turn, "place", _PLACE),)
        return ()

    def resolve(self, state: WineCellarState, chosen: Mapping[int, Option]) -> None:
        phase = state.phase
        if phase == "client":
            for seat, option in chosen.items():
                state.chosen[seat] = int(option.id.split(":")[1])
            if len(state.chosen) == state.players:
                self._reveal_clients(state)
        elif phase == "bid":
            for seat, option in chosen.items():
                state.bids[seat] = int(option.id.split(":")[1])
                state.hands[seat].remove(state.bids[seat])
            if state.solo:
                self._solo_bid(state)
            else:
                self._reveal_bids(state)
        elif phase == "pick":
            seat = state.turn
            self._take(state, seat, int(chosen[seat].id.split(":")[1]), forced=False)
        elif phase == "place":
            seat = state.turn
            self._place(state, seat, chosen[seat].id == "top")

    # -- rules ------------------------------------------------------------------------------

    def _reveal_clients(self, state: WineCellarState) -> None:
        n = state.players
        state.clients = [state.chosen[s] for s in range(n)]
        detail = pb.ClientsEvent(kept=[_pb_client(CLIENTS[c], n) for c in state.clients])
        text = "clients: " + ", ".join(f"seat {s} keeps {c}" for s, c in enumerate(state.clients))
        if state.solo:
            state.eno_client = next(c for c in state.offers[0] if c != state.clients[0])
            detail.eno.CopyFrom(_pb_client(CLIENTS[state.eno_client], n))
            text += f"; Eno gets {state.eno_client}"
        state.log.public(CHANCE_SEAT, "clients", text, detail)
        self._start_round(state)

    def _start_round(self, state: WineCellarState) -> None:
        state.round += 1
        state.phase = "bid"
        state.bids = [0] * state.players
        state.order = []
        state.picked = [False] * state.players

    def _reveal_bids(self, state: WineCellarState) -> None:
        n = state.players
        state.order = sorted(range(n), key=lambda s: -state.bids[s])
        state.log.public(
            CHANCE_SEAT,
            "bids",
            f"round {state.round} bids: "
            + ", ".join(f"seat {s} #{b}" for s, b in enumerate(state.bids))
            + "; pick order "
            + ", ".join(f"seat {s}" for s in state.order),
            pb.BidsEvent(round=state.round, bids=state.bids, order=state.order),
        )
        self._next_picker(state)

    def _solo_bid(self, state: WineCellarState) -> None:
        mine = state.bids[0]
        while len(state.eno_bids) < 2 and state.eno_deck:
            state.eno_bids.append(state.eno_deck.pop(0))  # ruling 6: none left in round 8
        high = max(state.eno_bids)
        eno_first = high > mine
        detail = pb.EnoEvent(round=state.round, bids=[_PB_BOTTLE[i] for i in state.eno_bids], eno_first=eno_first)
        eno = " and ".join(f"#{b}" for b in state.eno_bids)
        if eno_first:
            client = CLIENTS[state.eno_client]
            took = max(state.prizes, key=lambda i: eno_key(BOTTLES[i], client))
            state.prizes.remove(took)
            state.boxed.append(took)
            detail.took.CopyFrom(_PB_BOTTLE[took])
            text = f"round {state.round}: Eno bids {eno}, beats your #{mine} and boxes #{took}"
        else:
            text = f"round {state.round}: Eno bids {eno}; your #{mine} chooses first"
        state.log.public(CHANCE_SEAT, "eno", text, detail)
        state.order = [0]
        if eno_first:
            self._next_picker(state)
        else:
            state.turn = 0
            state.phase = "pick"

    def _next_picker(self, state: WineCellarState) -> None:
        """The next seat in bid order takes a prize (the last one left without a decision)."""
        for seat in state.order:
            if not state.picked[seat]:
                state.turn = seat
                if len(state.prizes) == 1:
                    self._take(state, seat, state.prizes[0], forced=True)
                else:
                    state.phase = "pick"
                return
        self._end_round(state)

    def _take(self, state: WineCellarState, seat: int, bottle: int, forced: bool) -> None:
        state.prizes.remove(bottle)
        state.picked[seat] = True
        state.last_taken = bottle
        state.log.public(
            seat,
            "take",
            f"takes {_bottle_label(bottle)}" + (" (last prize)" if forced else ""),
            pb.TakeEvent(seat=seat, bottle=_PB_BOTTLE[bottle], forced=forced),
        )
        if state.solo and state.prizes:  # you chose first: Eno's prize goes to the box
            state.boxed.extend(state.prizes)
            state.prizes = []
        if state.cellars[seat]:
            state.phase = "place"
        else:
            self._place(state, seat, True, first=True)

    def _place(self, state: WineCellarState, seat: int, top: bool, first: bool = False) -> None:
        bottle = state.last_taken
        cellar = state.cellars[seat]
        if top:
            cellar.insert(0, bottle)
        else:
            cellar.append(bottle)
        end = pb.END_UNSPECIFIED if first else (pb.TOP if top else pb.BOTTOM)
        where = "starts the cellar" if first else ("on top" if top else "at the bottom")
        state.log.public(seat, "place", f"puts {bottle} {where}", pb.PlaceEvent(seat=seat, bottle=bottle, end=end))
        self._next_picker(state)

    def _end_round(self, state: WineCellarState) -> None:
        if state.solo:
            mine = state.bids[0]
            if state.eno_bids:
                eno_first = max(state.eno_bids) > mine
                give = max(state.eno_bids) if eno_first else min(state.eno_bids)
                if state.round < ROUNDS:
                    state.eno_bids.remove(give)
                    state.prizes = sorted([mine, give])
        elif state.round < ROUNDS:
            state.prizes = sorted(state.bids)
        if state.round < ROUNDS:
            self._start_round(state)
        else:
            self._end_game(state)

    def breakdown(self, state: WineCellarState, seat: int) -> Breakdown:
        client = CLIENTS[state.clients[seat]] if state.clients[seat] else None
        return score_cellar([BOTTLES[i] for i in state.cellars[seat]], client, state.players)

    def _end_game(self, state: WineCellarState) -> None:
        n = state.players
        parts = [self.breakdown(state, s) for s in range(n)]
        for s in range(n):
            state.game_scores[s].append(parts[s].total)
        scores = [p.total for p in parts]
        name = title(scores[0]) if state.solo else ""
        state.log.public(
            CHANCE_SEAT,
            "game_end",
            f"game {state.game} scores: "
            + ", ".join(f"seat {s} {v}" for s, v in enumerate(scores))
            + (f" ({name})" if name else ""),
            pb.ScoreEvent(
                game=state.game,
                cellar=[p.cellar for p in parts],
                types=[p.types for p in parts],
                countries=[p.countries for p in parts],
                scores=scores,
                title=name,
            ),
        )
        if state.series and state.game < SERIES_GAMES:
            state.game += 1
            state.past_offers.append(state.offers)  # ruling 8: to the discard pile
            state.past_clients.append(state.clients)
            state.hands = [sorted(c) for c in state.cellars]
            state.prizes = sorted(state.bids)  # ruling 7
            self._start_game(state)
            return
        totals = [sum(g) for g in state.game_scores]
        best = max(totals)
        state.winners = [s for s in range(n) if totals[s] == best]
        state.phase = "over"
        state.log.public(
            CHANCE_SEAT,
            "end",
            "match over: totals "
            + ", ".join(f"seat {s} {v}" for s, v in enumerate(totals))
            + f"; winner{'s' * (len(state.winners) > 1)} "
            + ", ".join(f"seat {s}" for s in state.winners),
            pb.ScoreEvent(game=state.game, scores=totals, winners=state.winners, title=name),
        )

    # -- determinization ----------------------------------------------------------------------

    def sample_world(self, state: WineCellarState, seat: int, chance: Chance) -> WineCellarState:
        """A copy of ``state`` with what ``seat`` cannot see re-drawn uniformly
        (:mod:`arena.games.winecellar.worlds`): in game 1 the other hands (keeping hand sizes
        and, in the series, each hand's number of low-half bottles; from game 2 of the series
        every hand is a known former cellar); the clients the others were dealt and did not (or
        not yet) reveal, in this game and the earlier ones of the series, per shuffle of the
        client deck from the pool minus the clients it has seen since that shuffle, and the
        client deck (the rest, reshuffled); in solo the order of Eno's deck."""
        from arena.games.winecellar.worlds import sample_world

        return sample_world(self, state, seat, chance)

    def world_from_observation(
        self, config: MatchConfig, seat: int, observation: Message, chance: Chance
    ) -> WineCellarState:
        """A world from ``seat``'s observation: everything public and the seat's own hand and
        clients are kept; drawn are the other hands in game 1 (the unseen bottles, by hand size
        and, in the series, each hand's count of low-half bottles), the clients the others were
        dealt and did not (or not yet) reveal (in the series, in every game so far, from the
        seat's earlier clients and the public kept ones), the client deck, and in solo the
        order of Eno's deck. No sealed
        choice is half made: every seat chooses its client at once. Nothing is missing."""
        from arena.games.winecellar.worlds import world_from_observation

        return world_from_observation(self, config, seat, observation, chance)

    # -- views ------------------------------------------------------------------------------

    def observation(self, state: WineCellarState, viewer: int) -> pb.Observation:
        spectator = viewer == SPECTATOR
        n = state.players
        me = max(viewer, 0)
        revealed = state.phase != "client"
        cut = len(split_halves(deck_size(n))[0])
        seats = []
        for s in range(n):
            view = pb.SeatView(
                cellar=[_PB_BOTTLE[i] for i in state.cellars[s]],
                hand_size=len(state.hands[s]),
                bid=state.bids[s] if state.order else 0,
                picked=state.picked[s],
                game_scores=state.game_scores[s],
                total=sum(state.game_scores[s]),
                score_now=self.breakdown(state, s).total if revealed else 0,
            )
            if state.game > 1 and not state.solo:
                view.hand.extend(_PB_BOTTLE[i] for i in state.hands[s])
            elif state.series:
                view.low_in_hand = sum(1 for i in state.hands[s] if i <= cut)
            if revealed:
                view.client.CopyFrom(_pb_client(CLIENTS[state.clients[s]], n))
            seats.append(view)
        if spectator:
            unseen: list[int] = []
        elif state.solo:
            unseen = sorted(state.eno_deck)
        elif state.game == 1:
            unseen = sorted(i for s in range(n) if s != viewer for i in state.hands[s])
        else:
            unseen = []
        obs = pb.Observation(
            seat=me,
            spectator=spectator,
            players=n,
            series=state.series,
            game=state.game,
            games=SERIES_GAMES if state.series else 1,
            round=state.round,
            phase=state.phase,
            hand=[] if spectator else [_PB_BOTTLE[i] for i in state.hands[viewer]],
            prizes=[_PB_BOTTLE[i] for i in state.prizes],
            offer=[] if spectator else [_pb_client(CLIENTS[c], n) for c in state.offers[viewer]],
            seats=seats,
            order=state.order,
            turn=state.turn if state.phase in ("pick", "place") else 0,
            unseen=[_PB_BOTTLE[i] for i in unseen],
            deck_cards=deck_size(n),
            over=state.over,
            winners=state.winners,
        )
        if state.phase == "place":
            obs.taken.CopyFrom(_PB_BOTTLE[state.last_taken])
        if state.series:
            if not spectator:
                obs.earlier_offers.extend(c for game in state.past_offers for c in game[viewer])
            obs.earlier_clients.extend(c for game in state.past_clients for c in game)
            obs.client_deck = len(state.client_deck)
            cycle = client_cycles(n, len(state.pool), state.game)[-1]
            obs.client_discards = 2 * n * (len(cycle) - 1)
        if state.solo:
            if state.eno_client:
                obs.eno_client.CopyFrom(_pb_client(CLIENTS[state.eno_client], n))
            obs.eno_bids.extend(_PB_BOTTLE[i] for i in state.eno_bids)
            obs.eno_deck = len(state.eno_deck)
            obs.boxed.extend(_PB_BOTTLE[i] for i in state.boxed)
            if state.over:
                obs.title = title(state.game_scores[0][-1])
        if spectator:
            obs.hands.extend(pb.Hands(bottles=[_PB_BOTTLE[i] for i in h]) for h in state.hands)
            obs.eno_deck_cards.extend(_PB_BOTTLE[i] for i in state.eno_deck)
            obs.offers.extend(pb.Offer(clients=[_pb_client(CLIENTS[c], n) for c in o]) for o in state.offers)
            obs.client_deck_cards.extend(state.client_deck)
        return obs

    def score(self, state: WineCellarState) -> Result:
        totals = [sum(g) for g in state.game_scores]
        if state.solo:
            summary = f"solo score {totals[0]}: {title(totals[0])}"
        else:
            winners = ", ".join(map(str, state.winners))
            summary = f"winner{'s' if len(state.winners) > 1 else ''}: seat {winners} with {max(totals)}"
            if state.series:
                summary += " over 3 games"
        return Result.ranked(totals, totals, summary)


GAME = WineCellar()
"""Wine Cellar: see :mod:`arena.games.winecellar.game` for the rules and rulings."""
