"""Tournaments: what is played (the spec) and the schedule of matches it expands to.

A tournament is (game, options, bots, players per match, format, repeats, seed, clock, error
policy). :func:`schedule` expands it into :class:`MatchSpec` entries, deterministically: the
same spec always gives the same matches with the same seeds, whatever executor plays them.

* ``round-robin``: every group of k bots (a balanced sample when there are too many groups,
  see :mod:`arena.pairings`), each group playing every seat rotation on one deal seed.
* ``gauntlet``: bot 0 (the challenger) in every group, same duplicate structure.

``repeats`` multiplies the whole schedule with fresh seeds. The seed of a group is derived
from (tournament seed, repeat, group number); every rotation of the group shares it.

Entrants: every entry of ``bots`` is an entrant with its own name, rating and row. One bot can
enter several times as numbered copies, ``heuristic``, ``heuristic#2``, ... (``heuristic*3`` on
the command line): the copies play the same bot and are rated separately, so a 4-player game
can be filled from fewer distinct bots and the spread between copies shows the noise.

A built-in bot enters under its one spelling (:func:`canonical_entrants`, given
``bots.registry.canonical_spec``): ``heuristic:threshold=04`` enters as
``heuristic:threshold=4``, and two spellings of one bot are one entrant listed twice.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, overload

from arena.chance import derive_seed
from arena.clock import check_clock, clock_settings
from arena.config import ConfigError
from arena.engine import Game
from arena.pairings import DEFAULT_MAX_GROUPS, gauntlet, group_count, rotations, round_robin
from arena.record import MatchRecord, Tallied
from arena.registry import get_game
from arena.runner import MATCH_BOUND, Cancelled, ErrorPolicy, Player, play_match_async, run_match

FORMATS = ("round-robin", "gauntlet")
DEALS = ("duplicate", "fresh")
ADDRESSES = ("grpc://", "unix:", "hosted:")
"""How a bot spec that is an address begins (a remote or hosted bot), not a built-in's name."""
REMOTE = ("grpc://", "unix:")
"""How a remote bot's address begins: a bot served elsewhere, whose matches at once a
tournament's ``bot_concurrency`` bounds."""
SPEC_FORMAT = 1

_COPY = re.compile(r"^(.+)#([1-9][0-9]*)$")
_TIMES = re.compile(r"^(.+)\*([0-9]+)$")
MAX_COPIES = 64
MAX_SCHEDULE = 100_000_000
"""Matches a tournament may schedule (the service's own limit is lower): a run keeps a byte per
match (which are done), and a repeat of 10^14 matches died of a MemoryError, left "running"."""
MAX_GROUPS = 1_000_000
"""``max_groups`` at most: a repeat's groups are built and held at once (64 bots at 6 players
are 75 million of them)."""


def entrant_bot(entrant: str) -> str:
    """The bot an entrant plays: its name without a copy number (``heuristic#2`` -> ``heuristic``)."""
    match = _COPY.match(entrant)
    return match.group(1) if match else entrant


def copies(bot: str, count: int) -> list[str]:
    """``count`` entrants of one bot: the bot itself, then ``bot#2`` ... ``bot#count``."""
    return [bot, *(f"{bot}#{n}" for n in range(2, count + 1))]


def expand_entrants(items: list[str]) -> list[str]:
    """Entrant names from a bot list where ``BOT*N`` stands for N copies of BOT."""
    entrants: list[str] = []
    for item in items:
        match = _TIMES.match(item)
        if not match:
            entrants.append(item)
            continue
        count = int(match.group(2))
        if not 1 <= count <= MAX_COPIES:
            raise ConfigError(f"{item!r}: a bot can fill 1 to {MAX_COPIES} entries, not {count}")
        entrants += copies(match.group(1), count)
    return entrants


def canonical_entrant(entrant: str, canonical: Callable[[str], str]) -> str:
    """The entrant with its bot spelled by ``canonical`` (a bot spec -> its one spelling); a
    copy keeps its number (``heuristic:threshold=04#2`` -> ``heuristic:threshold=4#2``)."""
    bot = entrant_bot(entrant)
    return canonical(bot) + entrant[len(bot) :]


def canonical_entrants(entrants: Sequence[str], canonical: Callable[[str], str]) -> list[str]:
    """Every entrant spelled by :func:`canonical_entrant`. Two different spellings of one
    entrant raise ConfigError naming both (a bot entered twice is refused, spelled alike or
    not: ``BOT*N`` enters copies); the same spelling twice is left to
    :meth:`TournamentSpec.validate`, which names it."""
    given: dict[str, str] = {}  # canonical entrant -> its first spelling
    names: list[str] = []
    for entrant in entrants:
        name = canonical_entrant(entrant, canonical)
        first = given.setdefault(name, entrant)
        if first != entrant:
            raise ConfigError(
                f"bots {first!r} and {entrant!r} are one bot, {name!r}; list it once, or write "
                f"{entrant_bot(name)}*N to let it fill several seats"
            )
        names.append(name)
    return names


PlayerFactory = Callable[[str, str], Player]
"""Builds the player for a bot spec in a game: (bot spec, game id) -> Player."""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value)
    )


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


_SPEC_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "game": (lambda v: isinstance(v, str), "a string"),
    "bots": (_strings, "a list of strings"),
    "players": (_whole, "a whole number"),
    "options": (lambda v: isinstance(v, dict), "an object"),
    "format": (lambda v: isinstance(v, str), "a string"),
    "repeats": (_whole, "a whole number"),
    "seed": (_whole, "a whole number"),
    "on_error": (lambda v: isinstance(v, str), "a string"),
    "error_budget": (_whole, "a whole number"),
    "clock": (lambda v: isinstance(v, dict) and all(_whole(x) for x in v.values()), "an object of whole numbers"),
    "sprt": (lambda v: v is None or (isinstance(v, list) and len(v) == 2 and all(map(_number, v))), "two numbers"),
    "max_groups": (_whole, "a whole number"),
    "bot_concurrency": (_whole, "a whole number"),
    "addresses": (
        lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
        "an object of strings",
    ),
    "deals": (lambda v: isinstance(v, str), "a string"),
    "rated": (lambda v: isinstance(v, bool), "true or false"),
}
"""What each field of a spec's JSON form holds (:meth:`TournamentSpec.from_json` checks it)."""


def _required_field(fields: dict[str, Any], name: str) -> Any:
    if name not in fields:
        raise ConfigError(f"malformed tournament spec: {name}: missing")
    return fields[name]


@dataclass(frozen=True)
class TournamentSpec:
    game: str
    bots: tuple[str, ...]
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    format: str = "round-robin"
    repeats: int = 1
    seed: int = 1
    on_error: str = "forfeit"
    error_budget: int = 3
    clock: dict[str, int] = field(default_factory=dict)
    sprt: tuple[float, float] | None = None
    max_groups: int = DEFAULT_MAX_GROUPS
    bot_concurrency: int = 4
    """At most this many matches at once against the same remote bot (distributed runs)."""
    addresses: dict[str, str] = field(default_factory=dict)
    """Where a named bot is served (registered bots of the referee service): name -> address.
    Bots not listed are their own address (a built-in spec or ``grpc://...``)."""
    deals: str = "duplicate"
    """``duplicate``: a group's seat rotations share one deal seed (luck cancels within it).
    ``fresh``: each rotation has its own. A remote bot plays every rotation of its group, often
    at the same time: one that shares memory between its matches would hold, from its seat in
    one rotation, the hand (and, from a rotation ahead, the draws) it faces in another. The
    referee service deals fresh whenever an entrant is a remote bot."""
    rated: bool = True
    """Counted on the game's leaderboard; False for a service tournament whose seed its
    (non-operator) owner chose: its deals were known to the chooser."""

    def address(self, bot: str) -> str:
        """What an entrant plays: a registered bot's address, else its spec (copies share it)."""
        if bot in self.addresses:
            return self.addresses[bot]
        base = entrant_bot(bot)
        return self.addresses.get(base, base)

    def validate(self) -> Game:
        """Check the spec against the game; ConfigError names the first problem."""
        game = get_game(self.game)
        game.config(self.players, self.options)
        if self.format not in FORMATS:
            raise ConfigError(f"unknown format {self.format!r}; allowed: {', '.join(FORMATS)}")
        if len(set(self.bots)) != len(self.bots):
            dupes = sorted({b for b in self.bots if self.bots.count(b) > 1})
            raise ConfigError(
                f"bot {dupes[0]!r} is listed twice; to let it fill several seats write {dupes[0]}*N "
                f"(entrants {dupes[0]}, {dupes[0]}#2, ...)"
            )
        if len(self.bots) < self.players:
            raise ConfigError(f"{self.players}-player matches need at least {self.players} bots, got {len(self.bots)}")
        if len(self.bots) < 2:
            raise ConfigError("a tournament needs at least 2 bots")
        if self.deals not in DEALS:
            raise ConfigError(f"unknown deals {self.deals!r}; allowed: {', '.join(DEALS)}")
        if self.bot_concurrency < 1:
            raise ConfigError(f"bot concurrency must be at least 1, got {self.bot_concurrency}")
        if self.repeats < 1:
            raise ConfigError(f"repeats must be at least 1, got {self.repeats}")
        if not 0 <= self.seed < 2**64:  # the protocol's uint64; the ratings' bootstrap needs >= 0
            raise ConfigError(f"the tournament seed must be a whole number 0..2**64-1, got {self.seed}")
        if self.sprt is not None:
            if self.players < 2:
                raise ConfigError("--sprt needs matches of 2 players or more: one-player matches compare no bots")
            if self.format != "gauntlet":
                raise ConfigError("--sprt needs --format gauntlet (it tests the challenger, the first bot)")
            if not all(math.isfinite(x) and abs(x) <= 2000 for x in self.sprt):
                # Infinity would be written -Infinity, which no JSON reader takes; 2000 Elo is
                # already 99.999% to win.
                low, high = self.sprt
                raise ConfigError(f"--sprt ELO0,ELO1 must be numbers within -2000..2000, got {low},{high}")
            if not self.sprt[0] < self.sprt[1]:
                raise ConfigError(f"--sprt ELO0,ELO1 needs ELO0 < ELO1, got {self.sprt[0]},{self.sprt[1]}")
        if not 1 <= self.max_groups <= MAX_GROUPS:
            raise ConfigError(f"max groups {self.max_groups}: 1..{MAX_GROUPS:,} (a repeat's groups are held at once)")
        try:
            ErrorPolicy(self.on_error, self.error_budget)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        check_clock(self.clock)
        try:
            size = schedule_size(self)
        except ValueError as exc:  # more seats than bots
            raise ConfigError(str(exc)) from None
        if size > MAX_SCHEDULE:
            raise ConfigError(
                f"{size:,} matches (repeats {self.repeats}); a tournament holds at most {MAX_SCHEDULE:,}: "
                "a run keeps a byte per match, so more would not fit in memory"
            )
        return game

    @property
    def policy(self) -> ErrorPolicy:
        return ErrorPolicy(self.on_error, self.error_budget)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["sprt"] = list(self.sprt) if self.sprt else None
        for name in ("deals", "rated"):  # written only when not the default: older specs read the same
            if data[name] == SPEC_DEFAULTS[name]:
                del data[name]
        return {"tournament": SPEC_FORMAT, **data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentSpec:
        """A spec from its JSON form (a run directory's ``tournament.json``, the store's copy),
        every field's type checked: ConfigError names the field (a hand-edited ``"players":
        null`` ended ``--resume`` in a traceback; ``"bots": "ab"`` read as two bots)."""
        if not isinstance(data, dict) or data.get("tournament") != SPEC_FORMAT:
            raise ConfigError("not an arena tournament spec")
        fields = {k: v for k, v in data.items() if k != "tournament"}
        for name, value in fields.items():
            expected = _SPEC_TYPES.get(name)
            if expected is not None and not expected[0](value):
                raise ConfigError(f"malformed tournament spec: {name}: expected {expected[1]}, got {value!r:.60}")
        fields["bots"] = tuple(_required_field(fields, "bots"))
        fields["sprt"] = tuple(fields["sprt"]) if fields.get("sprt") else None
        try:
            return cls(**fields)
        except TypeError as exc:
            raise ConfigError(f"malformed tournament spec: {exc}") from None

    def digest(self) -> str:
        """A short hash of the spec (same spec, same digest)."""
        canonical = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:8]


TOURNAMENT_ID = re.compile(r"[a-z0-9_]{1,64}-[0-9]{8}-[0-9]{6}(?:-[0-9a-f]{8}){1,2}")
"""The ids tournaments are given (:func:`new_tournament_id`), matched whole: the service's
``GAME-YYYYmmdd-HHMMSS-xxxxxxxx`` and the CLI's, with the spec's digest before the random tail.
The service answers anything else as no tournament (and never reaches another key of one)."""


def new_tournament_id(spec: TournamentSpec, *, with_digest: bool) -> str:
    """A new tournament's id: its game, the time, the spec's digest when asked (a CLI run's, which
    names what was run), and a random tail (two runs of one spec started in the same second, the
    same seed, were one tournament on a broker, joined without a word, and one's cancel ended the
    other's)."""
    digest = f"-{spec.digest()}" if with_digest else ""
    return f"{spec.game}-{time.strftime('%Y%m%d-%H%M%S')}{digest}-{secrets.token_hex(4)}"


SPEC_DEFAULTS = {f.name: f.default for f in fields(TournamentSpec)}


@dataclass(frozen=True)
class MatchSpec:
    index: int
    group: int  # duplicate group (across repeats): its matches share one deal seed, unless fresh
    rotation: int
    seats: tuple[int, ...]  # bot index per seat
    seed: int

    @property
    def match_id(self) -> str:
        return f"m{self.index:06d}"

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "group": self.group,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchSpec:
        return cls(
            int(data["index"]),
            int(data["group"]),
            int(data["rotation"]),
            tuple(data["seats"]),
            int(data["seed"]),
        )


def groups_of(spec: TournamentSpec) -> list[tuple[int, ...]]:
    bots, k = len(spec.bots), spec.players
    if spec.format == "gauntlet":
        return gauntlet(bots, k, spec.seed, spec.max_groups)
    return round_robin(bots, k, spec.seed, spec.max_groups)


class Schedule(Sequence[MatchSpec]):
    """Every match of the tournament in schedule order (repeat, group, rotation), each computed
    from its index when it is asked for (:func:`match_at`): a run or a worker holds the groups
    of one repeat, never a list of up to 200,000 matches."""

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self.groups = groups_of(spec)
        self.total = len(self.groups) * spec.players * spec.repeats

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, index: int) -> MatchSpec: ...

    @overload
    def __getitem__(self, index: slice) -> list[MatchSpec]: ...

    def __getitem__(self, index: int | slice) -> MatchSpec | list[MatchSpec]:
        if isinstance(index, slice):
            return [match_at(self.spec, self.groups, i) for i in range(*index.indices(self.total))]
        if index < 0:
            index += self.total
        return match_at(self.spec, self.groups, index)

    def __iter__(self) -> Iterator[MatchSpec]:
        for index in range(self.total):
            yield match_at(self.spec, self.groups, index)


def schedule(spec: TournamentSpec) -> list[MatchSpec]:
    """Every match of the tournament, in a fixed order (repeat, group, rotation), as a list
    (:class:`Schedule` computes them one at a time)."""
    return list(Schedule(spec))


def match_at(spec: TournamentSpec, base: list[tuple[int, ...]], index: int) -> MatchSpec:
    """The scheduled match at ``index``, from the groups of one repeat (``groups_of(spec)``):
    a worker holds the groups, never the whole schedule (up to 200,000 matches)."""
    k = spec.players
    number, rotation = divmod(index, k)
    repeat, g = divmod(number, len(base))
    if not 0 <= repeat < spec.repeats:
        raise IndexError(f"match {index} is not in the schedule")
    deal = (spec.seed, repeat, g) if spec.deals == "duplicate" else (spec.seed, repeat, g, rotation)
    seed = derive_seed(*deal)
    return MatchSpec(index, number, rotation, rotations(base[g])[rotation], seed)


def schedule_size(spec: TournamentSpec) -> int:
    """How many matches :func:`schedule` gives, computed without building anything (so a
    request can be refused on its numbers alone)."""
    return group_count(len(spec.bots), spec.players, spec.format, spec.max_groups) * spec.players * spec.repeats


def scheduled_players(spec: TournamentSpec, match: MatchSpec, make_player: PlayerFactory) -> list[Player]:
    """The players of a scheduled match, one per seat, made by ``make_player``."""
    return [make_player(spec.address(spec.bots[b]), spec.game) for b in match.seats]


async def play_scheduled_async(
    spec: TournamentSpec,
    match: MatchSpec,
    players: Sequence[Player],
    game: Game | None = None,
    *,
    cancelled: Cancelled | None = None,
    match_seconds: float | None = None,
    match_bound: str = MATCH_BOUND,
) -> MatchRecord:
    """Play one scheduled match as a coroutine (the unit of work of every executor): the
    tournament's configuration, seed, policy and clock, ``players`` (from
    :func:`scheduled_players`); the seats named by their bot spec in the tournament, in every
    start message and in the record (never by the address or directory a player was made from:
    an entrant's endpoint is its owner's to see), and the record placed in the tournament.

    ``cancelled`` is the tournament's cancel hook: the match polls it while it runs and raises
    :class:`arena.runner.MatchCancelled` once it says True; ``match_seconds`` and
    ``match_bound`` bound the wait on remote players (see :func:`arena.runner.play_match`)."""
    game = game or get_game(spec.game)
    record = await play_match_async(
        game,
        game.config(spec.players, spec.options),
        match.seed,
        players,
        match_id=match.match_id,
        policy=spec.policy,
        clock=clock_settings(spec.clock),
        cancelled=cancelled,
        match_seconds=match_seconds,
        match_bound=match_bound,
        names=[spec.bots[b] for b in match.seats],
    )
    record.tournament = {"index": match.index, "group": match.group, "rotation": match.rotation}
    return record


def play_scheduled(
    spec: TournamentSpec,
    match: MatchSpec,
    make_player: PlayerFactory,
    game: Game | None = None,
    *,
    cancelled: Cancelled | None = None,
) -> MatchRecord:
    """Play one scheduled match to its end from a plain thread: :func:`play_scheduled_async`,
    run where its players live (see :func:`arena.runner.run_match`); every player is closed
    afterwards."""
    game = game or get_game(spec.game)
    players = scheduled_players(spec, match, make_player)
    try:
        return run_match(play_scheduled_async(spec, match, players, game, cancelled=cancelled), players)
    finally:
        for player in players:
            close = getattr(player, "close", None)
            if close is not None:
                close()


def remote_endpoints(spec: TournamentSpec, match: MatchSpec) -> list[str]:
    """The remote bots' addresses a match plays against, each once, sorted (the order every
    holder of per-bot limits takes them in: no two matches each hold what the other waits for)."""
    return sorted({address for b in match.seats if (address := spec.address(spec.bots[b])).startswith(REMOTE)})


def seat_bot_indices(spec: TournamentSpec, record: Tallied) -> list[int]:
    """Bot index per seat of a tournament record (seats are named by bot spec)."""
    index = {name: i for i, name in enumerate(spec.bots)}
    return [index[s["bot"]] for s in record.seats]
