"""The referee service: ``arena.v1.ArenaService`` over the Redis store.

Manners: every call is authenticated (see :mod:`referee.auth`); owners change only their own
bots and cancel only their own tournaments (operators may do both); arguments are validated
with precise codes and the offending field; each owner is rate limited (RESOURCE_EXHAUSTED with
a retry delay); handler failures reach clients as INTERNAL with an incident id, never a stack
trace. Store calls are blocking (redis-py), so handlers run them on a thread pool and the event
loop stays free for streams.

Privacy: while a tournament runs, a bot's failures are shown only to its owner (and operators),
and a match shows no event until every seat rotation of its deal (its duplicate group) has been
played, then public events only: a finished match's public events name the cards played, which
the bots of the same deal's other rotations may still hold. The spectator's view (private
events, e.g. dealt hands) and the record are served once the tournament has ended. An operator
gets all of it at once, while the tournament runs too (README, "Manners"). A match's
replayed events are kept for both audiences in the match cache (``referee.match_cache``); which
one a caller gets is decided on every request.

Tournaments are played by the Celery workers: the service validates, stores the spec and hands
it to ``submit`` (composed by the CLI), then follows the store.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
import ipaddress
import logging
import math
import re
import secrets
import threading
import time
import uuid
from collections import Counter, OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import grpc.aio

from arena.clock import DEFAULTS as CLOCK_DEFAULTS
from arena.clock import clock_settings
from arena.config import ConfigError
from arena.engine import SPECTATOR
from arena.hooked_player import HookedPlayer
from arena.ports import MAX_RESPONSE
from arena.protocol import check_endpoint_key, event_message
from arena.record import FailureEntry, MatchRecord, ReplayMismatch, resimulate
from arena.registry import games, get_game
from arena.runner import ErrorPolicy, play_match_async
from arena.tournament import (
    FORMATS,
    TOURNAMENT_ID,
    TournamentSpec,
    canonical_entrant,
    canonical_entrants,
    entrant_bot,
    expand_entrants,
    groups_of,
    match_at,
    new_tournament_id,
    schedule_size,
)
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from bots.registry import all_builtin_names, builtin_names, canonical_spec
from referee import endpoints, metrics, views
from referee.auth import Caller, create_owner, current_caller
from referee.errors import (
    STORE_DOWN,
    ApiError,
    denied,
    exhausted,
    exists,
    invalid,
    not_found,
    precondition,
    shown,
    store_unavailable,
)
from referee.live import LiveBoards, ShuttingDown
from referee.match_cache import MatchCache, ReplaysBusy, Sized
from referee.off_loop import OffLoopPlayer
from referee.remote import RemotePlayer, check_new_address
from referee.store import ENDED, PLAYED_OUT, ActiveLimit, LookAlike, Missing, Store, TooManyBots, read_as

log = logging.getLogger("arena.service")
T = TypeVar("T")

BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,47}")
"""A bot's name, matched whole (``fullmatch``: ``$`` would also match before a final newline)."""
MATCH_ID = re.compile(r"m(?:[0-9]{6}|[1-9][0-9]{6,8})")
"""A match of a tournament: ``m`` and its index in at least 6 digits (``m000003``)."""
PAGE_NUMBER = re.compile(r"[0-9]{1,12}")
"""ASCII digits only: ``str.isdigit`` accepts ``²``, which ``int`` refuses."""
FINISHED = ENDED
MAX_MATCHES = 200_000
TRIAL_SLOT_POLL = 0.2
"""How often an upload waiting for a trial slot looks again (seconds, on the event loop)."""
UPLOADS_PER_OWNER = 2
"""An owner's uploads in progress at once (one in its trial, the next waiting for it)."""
UPLOADS_AT_ONCE = 8
"""Uploads in progress at once in one service, every owner's."""
UPLOAD_SILENCE = 30.0
"""Seconds an upload may go without a chunk, its first included: its place among the uploads in
progress is taken when the call opens (8 streams that sent nothing held every owner's uploads
off, the operators' too, for as long as they were open: an outside probe)."""
UPLOAD_SECONDS = 300.0
"""Seconds an upload's chunks may take in all (an archive is 20 MiB at most: 70 KB/s)."""
MAX_ACTIVE_TOURNAMENTS = 10
MAX_CHALLENGES = 2
WATCH_POLL_SECONDS = 0.25
FAILURE_CACHE = 256
"""Ended tournaments whose failures GetBot keeps in memory."""
REPLAYS_BUSY = 2.0
"""Seconds a caller refused while the match cache's replays are all taken is told to wait."""
API_VERSION = "1.1"

# The maximum of every number a request can carry (documented in arena.proto); anything beyond
# is INVALID_ARGUMENT before anything is built. Together they bound how long one match can hold
# a worker: see ``referee.limits``.
MAX_BOTS = 64
MAX_BOT_SPEC = 100  # characters of one bot name or built-in spec
MAX_OPTIONS = 32
MAX_OPTION_TEXT = 100
MAX_REPEATS = 10_000
MAX_ERROR_BUDGET = 100
MAX_BOT_CONCURRENCY = 64
MAX_ENDPOINT = 256
MAX_LIST = 500
MAX_BOTS_PER_OWNER = 100
"""Bots an owner may register (remote and hosted; operators have no limit): every ListBots
reads every registration, so thousands of one owner's slowed everyone's calls."""
HOSTED_CHUNK = 1024 * 1024
CLOCK_MAXIMA = {
    "decision": 60_000,
    "bank": 600_000,
    "increment": 10_000,
    "startup": 60_000,
    "grace": 10_000,
    "strikes": 10,
}
CLOCK_FIELDS = {
    "decision": "decision_ms",
    "bank": "bank_ms",
    "increment": "increment_ms",
    "startup": "startup_ms",
    "grace": "grace_ms",
    "strikes": "max_strikes",
}

Submit = Callable[[str, TournamentSpec], None]
PlayerFactory = Callable[[str, str], Any]


def too_big(what: str, size: int) -> ApiError:
    """A reply past what gRPC sends (MAX_RESPONSE), said, not gRPC's "Sent message larger than
    max" with an ERROR traceback logged for every try (a RollDice match at target 300,000: an
    outside probe)."""
    return precondition(f"{what}: {size / 2**20:.1f} MiB, more than the {MAX_RESPONSE >> 20} MiB a reply carries")


def _token(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def _token_text(token: str) -> str:
    if not token:
        return ""
    try:
        # Validated: urlsafe_b64decode drops what is not of its alphabet, and "!!!!" read as
        # the first page (an outside probe).
        text = base64.b64decode(token.encode(), altchars=b"-_", validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        text = ""
    if not text:
        raise invalid("page_token", "not a page token this server gave")
    return text


def _token_number(token: str) -> int:
    text = _token_text(token)
    if text and not PAGE_NUMBER.fullmatch(text):
        raise invalid("page_token", "not a page token this server gave")
    return int(text or 0)


def _tournament_cursor(token: str) -> tuple[float, str] | int | None:
    """ListTournaments' page token: ``c:CREATED:ID`` (the last tournament of the previous page;
    None for the first page), or a position as earlier versions gave (an int)."""
    text = _token_text(token)
    if not text:
        return None
    if PAGE_NUMBER.fullmatch(text):
        return int(text)
    kind, _, rest = text.partition(":")
    created, _, last = rest.partition(":")
    try:
        value = float(created)
    except ValueError:
        value = math.nan
    if kind != "c" or not math.isfinite(value) or not TOURNAMENT_ID.fullmatch(last):
        raise invalid("page_token", "not a page token this server gave")
    return value, last


def _match_ref(match_ref: str) -> tuple[str, str]:
    """(tournament id, match id) of ``TOURNAMENT:mNNNNNN``; INVALID_ARGUMENT otherwise."""
    tournament_id, _, match_id = match_ref.rpartition(":")
    if not tournament_id or not MATCH_ID.fullmatch(match_id):
        raise invalid("id", f"expected <tournament id>:<match id> (e.g. skyfive-...:m000012), got {shown(match_ref)}")
    return tournament_id, match_id


def _refused_endpoint(endpoint: str, target: str) -> str:
    """Why the endpoint policy refuses an endpoint, as any owner may be told: never what this
    service's resolver answered for a name (an address inside the operator's network, or
    whether an internal name exists at all), nor the operator's allow list (where the workers
    may dial). A refused address the caller typed is named."""
    if endpoint.startswith("unix:"):
        return f"{shown(endpoint)}: unix sockets are not allowed by the operator's endpoint policy"
    host = target.rpartition(":")[0]
    public = "public addresses, unless the operator allows more"
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:  # a name: whether it resolved, and to what, stays the service's
        return (
            f"{shown(host)} does not resolve to an address the operator's endpoint policy allows ({public}): "
            "register a public name or address"
        )
    return f"{address} is an internal address, which the operator's endpoint policy does not allow ({public})"


def _check_endpoint_key(key: str) -> None:
    """An endpoint key, when one is given, is one (``arena.protocol.ENDPOINT_KEY``); the message
    never quotes it (a secret)."""
    try:
        if key:
            check_endpoint_key(key)
    except ConfigError as exc:
        raise invalid("endpoint_key", str(exc)) from None


def _check_max_matches(value: int) -> None:
    if value > MAX_BOT_CONCURRENCY:
        raise invalid("max_matches", f"max_matches {value}: at most {MAX_BOT_CONCURRENCY} (0 = no cap of your own)")


def _page_size(field_name: str, asked: int, default: int) -> int:
    if asked > MAX_LIST:
        raise invalid(field_name, f"{asked}: at most {MAX_LIST} per page")
    return asked or default


def new_seed() -> int:
    """An unpredictable seed from the OS's randomness (below 2**53: exact in every JSON reader)."""
    return secrets.randbelow(2**53 - 1) + 1


class RateLimiter:
    """A token bucket per owner: ``rate`` calls a second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, owner: str) -> float:
        """0 if the call may go on, else the seconds until it could."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        tokens, last = self._buckets.get(owner, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self._buckets[owner] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self._buckets[owner] = (tokens - 1.0, now)
        return 0.0


@dataclass
class ServiceState:
    shutting_down: asyncio.Event = field(default_factory=asyncio.Event)
    challenges: dict[str, int] = field(default_factory=dict)


def _caller() -> Caller:
    caller = current_caller.get()
    if caller is None:  # the auth interceptor always sets it; this is a wiring error
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "no caller")
    return caller


def unary(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    @functools.wraps(method)
    async def handler(self: ArenaService, request: Any, context: grpc.aio.ServicerContext) -> T:
        try:
            caller = self.admit()
            return await method(self, request, caller)
        except Exception as exc:  # every failure becomes a status (AbortError passes through)
            await self.fail(context, exc)
            raise  # unreachable: fail() aborts

    return handler


def streaming(method: Callable[..., AsyncIterator[T]]) -> Callable[..., AsyncIterator[T]]:
    @functools.wraps(method)
    async def handler(self: ArenaService, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[T]:
        try:
            caller = self.admit()
            async for item in method(self, request, caller):
                yield item
        except Exception as exc:  # every failure becomes a status (AbortError passes through)
            await self.fail(context, exc)

    return handler


def _check_scheduled(info: dict[str, Any], tournament_id: str, match_id: str) -> None:
    """NOT_FOUND for a match number past the tournament's: never scheduled, so neither "not
    played", "expired" nor "(yet)", which is what it was told (an outside web probe)."""
    total = int(info["total"])
    if int(match_id[1:]) >= total:
        has = f"{total} matches (m000000 to m{total - 1:06d})" if total else "no matches"
        raise not_found(f"no match {match_id} in {tournament_id}: it has {has}")


def _unstored(info: dict[str, Any], tournament_id: str, match_id: str, yet: str = "") -> ApiError:
    """NOT_FOUND for a match with no stored record, saying why as the tournament's status tells:
    never scheduled, played and expired since, not played before the tournament ended, or not
    played yet (``yet``: what to expect then)."""
    _check_scheduled(info, tournament_id, match_id)
    kept = "kept ARENA_RETENTION_DAYS days (30 unless the operator set it), its leaderboard for good"
    if info["status"] == "complete":  # every match was played: this one is gone since
        return not_found(f"match {match_id} of {tournament_id} is no longer stored: a tournament's records are {kept}")
    if info["status"] in ENDED:
        return not_found(
            f"no match {match_id} stored in {tournament_id}: not played before it ended, or its record expired "
            f"(records are {kept})"
        )
    return not_found(f"no match {match_id} in {tournament_id} (yet)" + (f": {yet}" if yet else ""))


async def _bounded_upload(chunks: AsyncIterator[T]) -> AsyncIterator[T]:
    """An upload's chunks as they come; DEADLINE_EXCEEDED once none has come for
    ``UPLOAD_SILENCE`` seconds or they have taken ``UPLOAD_SECONDS`` in all, which ends the call
    and frees its place."""
    loop = asyncio.get_running_loop()
    ends = loop.time() + UPLOAD_SECONDS
    stream = aiter(chunks)
    while True:
        wait = min(UPLOAD_SILENCE, ends - loop.time())
        try:
            async with asyncio.timeout(wait):
                chunk = await anext(stream)
        except StopAsyncIteration:
            return
        except TimeoutError:
            if wait < UPLOAD_SILENCE:
                raise ApiError(
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"the upload was not sent within {UPLOAD_SECONDS:g} s: it was ended; send the archive in less time",
                ) from None
            raise ApiError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the upload sent no chunk for {UPLOAD_SILENCE:g} s: it was ended (an upload open holds "
                "one of the few places uploads share); send its chunks without a pause",
            ) from None
        yield chunk


def _match_config(game: Any, players: int, options: Any) -> Any:
    """The game's config for these options; INVALID_ARGUMENT naming the option at fault
    (``options[key]``) where the game's message names one, as tournaments and challenges alike."""
    try:
        return game.config(players, dict(options))
    except ConfigError as exc:
        bad = next((key for key in options if key in str(exc)), None)
        raise invalid(f"options[{bad}]" if bad else "options", str(exc)) from None


class FailureLog:
    """The failures read so far from one tournament's records, and where its store events were
    read up to (the events stream is never trimmed while the records are kept). Only records
    that name a verdict are parsed: every failure has one."""

    READ_AT_ONCE = 5000

    def __init__(self) -> None:
        self.cursor = "0"
        self.found: dict[int, list[tuple[str, str, int, str, str]]] = {}  # match index -> failures
        self.complete = False  # read after the tournament ended: nothing more will come
        self.lock = threading.Lock()  # one reader at a time; the next finds the records read

    def read(self, store: Store, tournament_id: str, *, ended: bool) -> list[tuple[str, str, int, str, str]]:
        """``ended``: the tournament had ended before this call (so every record is stored)."""
        with self.lock:
            while not self.complete:
                cursor, indices, lines, _ = store.follow_lines(
                    tournament_id, self.cursor, block_ms=0, records=self.READ_AT_ONCE
                )
                self.cursor = cursor
                for index, line in lines.items():
                    if '"verdict"' in line:
                        record = MatchRecord.loads(line)
                        self.found[index] = [
                            (record.seats[f.seat]["bot"], record.match_id, f.decision, f.verdict, f.detail)
                            for f in record.failures
                        ]
                if not indices:
                    self.complete = ended
                    break
            return [failure for index in sorted(self.found) for failure in self.found[index]]


class ArenaService(arena_pb2_grpc.ArenaServiceServicer):
    def __init__(
        self,
        store: Store,
        submit: Submit,
        make_player: PlayerFactory,
        *,
        builtin_bots: Callable[[str], list[str]],
        limiter: RateLimiter | None = None,
        state: ServiceState | None = None,
        match_cache: MatchCache | None = None,
    ) -> None:
        self.store = store
        self.submit = submit
        self.make_player = make_player
        self.builtin_bots = builtin_bots
        self.limiter = limiter or RateLimiter(rate=100, burst=200)
        self.state = state or ServiceState()
        self._uploads: Counter[str] = Counter()  # uploads in progress per owner (read on the event loop)
        self.live = LiveBoards(store, self.blocking, self.state.shutting_down, WATCH_POLL_SECONDS)
        self._failures: OrderedDict[str, FailureLog] = OrderedDict()
        self._failures_lock = threading.Lock()
        # Replayed matches (GetMatch's events, the web's replay pages): computed once, on a pool
        # of their own (referee.match_cache).
        self.match_cache = MatchCache.from_environment() if match_cache is None else match_cache

    # -- plumbing ---------------------------------------------------------------------------

    def admit(self) -> Caller:
        caller = _caller()
        wait = self.limiter.take(caller.name)
        if wait:
            raise exhausted(f"rate limit for {caller.name}: retry in {{delay}}", wait)
        return caller

    async def fail(self, context: grpc.aio.ServicerContext, exc: Exception) -> None:
        if isinstance(exc, grpc.aio.AbortError):
            raise exc
        if isinstance(exc, STORE_DOWN):
            # The store is down (or restarting): worth a retry, and no internal detail (its
            # address is in the exception's text) reaches the client.
            # The health check says so once, as it goes down (server._watch_store): not per call.
            log.debug("store unavailable: %s", exc)
            exc = store_unavailable()
        if isinstance(exc, ApiError):
            await context.abort_with_status(exc.status())
        incident = uuid.uuid4().hex[:12]
        log.error("incident %s", incident, exc_info=exc)
        await context.abort(grpc.StatusCode.INTERNAL, f"internal error (incident {incident})")

    async def blocking(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    # -- accounts ---------------------------------------------------------------------------

    @unary
    async def CreateOwner(self, request: arena_pb2.CreateOwnerRequest, caller: Caller) -> arena_pb2.CreateOwnerResponse:
        if not caller.operator:
            raise denied("creating owners is for operators")
        try:
            token = await self.blocking(create_owner, self.store, request.name, request.operator)
        except ValueError as exc:
            if "exists" in str(exc):
                raise exists(str(exc)) from None
            raise invalid("name", str(exc)) from None
        return arena_pb2.CreateOwnerResponse(
            owner=arena_pb2.Owner(name=request.name, operator=request.operator), token=token
        )

    @unary
    async def WhoAmI(self, request: arena_pb2.WhoAmIRequest, caller: Caller) -> arena_pb2.Owner:
        return arena_pb2.Owner(name=caller.name, operator=caller.operator, api_version=API_VERSION)

    # -- bots -------------------------------------------------------------------------------

    def _check_games(self, field_name: str, game_ids: list[str]) -> None:
        """At least one game, each known and listed once (so at most every game once: a list
        of 100,000 repeats once made GetBot take seconds and everyone's ListBots too big)."""
        if not game_ids:
            raise invalid(field_name, "list at least one game the bot plays")
        known = games()
        if len(game_ids) > len(known):
            raise invalid(field_name, f"{len(game_ids)} games listed; there are {len(known)} games, each listed once")
        seen: set[str] = set()
        for i, game_id in enumerate(game_ids):
            if game_id not in known:
                raise invalid(f"{field_name}[{i}]", f"unknown game {shown(game_id)}; known: {', '.join(known)}")
            if game_id in seen:
                raise invalid(f"{field_name}[{i}]", f"game {shown(game_id)} is listed twice")
            seen.add(game_id)

    def _check_endpoint(self, field_name: str, endpoint: str) -> None:
        """A well-formed address the operator's endpoint policy allows (referee.endpoints; the
        workers check it again at every connection). Resolves names: call it off the loop."""
        if len(endpoint) > MAX_ENDPOINT:
            raise invalid(field_name, f"an endpoint has at most {MAX_ENDPOINT} characters")
        if endpoint.startswith("grpc://"):
            host, colon, port = endpoint[len("grpc://") :].rpartition(":")
            if not colon or not host or not re.fullmatch(r"[0-9]+", port):  # ASCII digits ('²'.isdigit())
                raise invalid(field_name, f"bot address {shown(endpoint)}: expected grpc://HOST:PORT")
            if len(port) > 5 or not 1 <= int(port) <= 65535:
                raise invalid(field_name, f"port {shown(port)}: expected 1-65535")
        try:
            target = check_new_address(endpoint)
            (endpoints.current() or endpoints.EndpointPolicy()).check(endpoint)
        except endpoints.EndpointRefused:
            raise invalid(field_name, _refused_endpoint(endpoint, target)) from None
        except ConfigError as exc:
            raise invalid(field_name, str(exc)) from None

    def _check_game_filter(self, game_id: str) -> None:
        """An unknown game is INVALID_ARGUMENT from every call, filters included."""
        if game_id:
            self._game("game", game_id)

    def _own_bot(self, name: str, caller: Caller) -> dict[str, Any]:
        data = self.store.bot(name)
        if data is None:
            raise not_found(f"no bot {shown(name)}")
        if data["owner"] != caller.name and not caller.operator:
            raise denied(f"bot {shown(name)} belongs to another owner")
        return data

    def _builtins(self, game_id: str) -> list[str]:
        """The built-in bots of a game, ``search`` included: what tournaments, challenges and
        DescribeGame accept and list alike (each with or without ``:params``)."""
        return list(dict.fromkeys([*self.builtin_bots(game_id), *builtin_names(game_id)]))

    def _check_new_name(self, name: str) -> None:
        """A name a new bot may take: well-formed, and no built-in bot's (with or without
        parameters), or an owner's bot would stand in for the built-in in others' tournaments."""
        if not BOT_NAME.fullmatch(name):
            raise invalid("name", "bot names are 2-48 of A-Z a-z 0-9 _ . - starting with a letter or digit")
        builtins = all_builtin_names() | {bot for game_id in games() for bot in self.builtin_bots(game_id)}
        # `Random` and `random_` on a leaderboard read as the built-in `random` (the store's
        # fold: only the letter case was, and `random_` registered; an outside probe).
        if read_as(name.split(":")[0]) in {read_as(bot) for bot in builtins}:
            raise invalid("name", f"{shown(name)} is a built-in bot's name")

    @unary
    async def RegisterBot(self, request: arena_pb2.RegisterBotRequest, caller: Caller) -> arena_pb2.Bot:
        self._check_new_name(request.name)
        self._check_games("games", list(request.games))
        _check_max_matches(request.max_matches)
        _check_endpoint_key(request.endpoint_key)
        await self.blocking(self._check_endpoint, "endpoint", request.endpoint)
        data = {
            "owner": caller.name,
            "games": list(request.games),
            "endpoint": request.endpoint,
            "enabled": True,
            "created": time.time(),
            "max_matches": request.max_matches,
        }
        if request.endpoint_key:
            data["endpoint_key"] = request.endpoint_key  # never shown: Bot.endpoint_keyed says it is there
        if not await self.blocking(self._add_bot, request.name, data, caller):
            raise exists(f"bot {shown(request.name)} exists already")
        return views.bot(data, request.name, show_endpoint=True)

    def _add_bot(self, name: str, data: dict[str, Any], caller: Caller) -> bool:
        """Register a bot, within its owner's MAX_BOTS_PER_OWNER (an operator's are not counted
        against a limit): every ListBots reads every registration."""
        try:
            return self.store.add_bot(name, data, limit=0 if caller.operator else MAX_BOTS_PER_OWNER)
        except LookAlike as like:
            raise exists(
                f"bot {shown(name)} reads as {shown(like.args[0])}, which is registered: names must differ in more "
                "than letter case and _ . -"
            ) from None
        except TooManyBots:
            raise precondition(
                f"you have {MAX_BOTS_PER_OWNER} bots, the most an owner may register; change one's endpoint "
                "(arena bots update) or upload a new version of a hosted one instead"
            ) from None

    def _update_bot(self, name: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Change these fields only (atomically: a concurrent change of another field stays)."""
        data = self.store.update_bot(name, changes)
        if data is None:
            raise not_found(f"no bot {shown(name)}")
        return data

    @unary
    async def UpdateBot(self, request: arena_pb2.UpdateBotRequest, caller: Caller) -> arena_pb2.Bot:
        registered = await self.blocking(self._own_bot, request.name, caller)
        if (request.endpoint or request.endpoint_key) and str(registered["endpoint"]).startswith("hosted:"):
            # Its versions stay its own (counted against its owner); an endpoint would make it a
            # remote bot whose stored code no limit sees.
            raise precondition(
                f"bot {shown(request.name)} is hosted (Arena runs its code): it has no endpoint or endpoint key; "
                "upload a new version instead (arena bots submit)"
            )
        changes: dict[str, Any] = {}
        if request.HasField("max_matches"):
            if str(registered["endpoint"]).startswith("hosted:"):
                # Accepted and echoed, it claimed a cap that nothing applies (an outside probe).
                raise precondition(
                    f"bot {shown(request.name)} is hosted: each seat is a sandbox the workers start, "
                    "and a cap of matches at once does not apply to it"
                )
            _check_max_matches(request.max_matches)
            changes["max_matches"] = request.max_matches
        if request.endpoint_key:
            _check_endpoint_key(request.endpoint_key)
            changes["endpoint_key"] = request.endpoint_key
        if request.endpoint:
            await self.blocking(self._check_endpoint, "endpoint", request.endpoint)
            changes["endpoint"] = request.endpoint
        if not changes:  # every field "unchanged": it read as an empty endpoint, a bad address
            raise invalid("endpoint", "nothing to update: give an endpoint, an endpoint_key or max_matches")
        data = await self.blocking(self._update_bot, request.name, changes)
        return views.bot(data, request.name, show_endpoint=True)

    @unary
    async def DisableBot(self, request: arena_pb2.DisableBotRequest, caller: Caller) -> arena_pb2.Bot:
        await self.blocking(self._own_bot, request.name, caller)
        data = await self.blocking(self._update_bot, request.name, {"enabled": False})
        return views.bot(data, request.name, show_endpoint=True)

    @unary
    async def ListBots(self, request: arena_pb2.ListBotsRequest, caller: Caller) -> arena_pb2.ListBotsResponse:
        self._check_game_filter(request.game)
        size = _page_size("page_size", request.page_size, 100)
        after = _token_text(request.page_token)  # the last name of the previous page
        found = await self.blocking(lambda: list(self.store.bots()))
        page = [
            (name, data)
            for name, data in found
            if name > after
            and (not request.game or request.game in data["games"])
            and (not request.owner or request.owner == data["owner"])
        ]
        more = len(page) > size
        page = page[:size]
        return arena_pb2.ListBotsResponse(
            bots=[
                views.bot(data, name, show_endpoint=caller.operator or data["owner"] == caller.name)
                for name, data in page
            ],
            next_page_token=_token(page[-1][0]) if more else "",
        )

    @unary
    async def GetBot(self, request: arena_pb2.GetBotRequest, caller: Caller) -> arena_pb2.BotDetail:
        return await self.blocking(self._bot_detail, request.name, caller)

    def _bot_detail(self, name: str, caller: Caller) -> arena_pb2.BotDetail:
        data = self.store.bot(name)
        if data is None:
            raise not_found(f"no bot {shown(name)}")
        mine = caller.operator or data["owner"] == caller.name
        detail = arena_pb2.BotDetail(bot=views.bot(data, name, show_endpoint=mine))
        for game_id in dict.fromkeys(data["games"]):  # once each, whatever was stored
            board = self.store.game_leaderboard(game_id) or {}
            for row in board.get("leaderboard", []):
                if row["bot"] == name:
                    detail.ratings.append(
                        arena_pb2.GameRating(
                            game=game_id,
                            rating=row["rating"],
                            **views.interval(row),
                            games=row["games"],
                        )
                    )
        if str(data["endpoint"]).startswith("hosted:"):
            from referee.hosted import versions

            for row in versions.version_ratings(self.store, name, data["games"], finished=tuple(FINISHED)):
                detail.version_ratings.append(
                    arena_pb2.VersionRating(
                        version=row["version"],
                        game=row["game"],
                        rating=row["rating"],
                        **views.interval(row),
                        games=row["games"],
                    )
                )
        # The bot's own newest tournaments; then the service's newest, for those created
        # before tournaments were indexed by bot.
        for tournament_id in dict.fromkeys([*self.store.bot_tournaments(name, 20), *self.store.tournaments(20)]):
            info = self.store.tournament(tournament_id)
            # The bot's entrants: itself and its copies (``NAME#2``... of ``NAME*N``).
            if info is None or not any(entrant_bot(entrant) == name for entrant in info["spec"]["bots"]):
                continue
            if not mine and info["status"] not in FINISHED:
                continue  # another owner's errors stay private while the tournament runs
            for bot, match_id, decision, verdict, text in self._failures_of(tournament_id, info):
                if entrant_bot(bot) == name:
                    detail.recent_failures.append(views.failure(tournament_id, match_id, decision, verdict, text))
            if len(detail.recent_failures) >= 20:
                break
        del detail.recent_failures[20:]
        return detail

    def _failures_of(self, tournament_id: str, info: dict[str, Any]) -> list[tuple[str, str, int, str, str]]:
        """Every failure of a tournament's matches: (bot, match id, decision, verdict, detail), in
        schedule order. Read from the tournament's store events on from where the last call
        stopped (:class:`FailureLog`), so a call while a tournament of 200,000 matches runs reads
        only the records stored since; an ended tournament's are read once. A few hundred
        tournaments' worth are kept, least recently used dropped."""
        with self._failures_lock:
            log = self._failures.get(tournament_id)
            if log is None:
                log = self._failures[tournament_id] = FailureLog()
                while len(self._failures) > FAILURE_CACHE:
                    self._failures.popitem(last=False)
            else:
                self._failures.move_to_end(tournament_id)
        return log.read(self.store, tournament_id, ended=info["status"] in FINISHED)

    # -- games ------------------------------------------------------------------------------

    @unary
    async def ListGames(self, request: arena_pb2.ListGamesRequest, caller: Caller) -> arena_pb2.ListGamesResponse:
        return arena_pb2.ListGamesResponse(games=[views.game_info(g.meta) for g in games().values()])

    @unary
    async def DescribeGame(self, request: arena_pb2.DescribeGameRequest, caller: Caller) -> arena_pb2.GameDescription:
        game = self._game("game", request.game)
        return views.game_description(game, self._builtins(game.meta.id))

    def _game(self, field_name: str, game_id: str) -> Any:
        known = games()
        if game_id not in known:
            raise invalid(field_name, f"unknown game {shown(game_id)}; known games: {', '.join(known)}")
        return known[game_id]

    # -- tournaments ------------------------------------------------------------------------

    @unary
    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, caller: Caller
    ) -> arena_pb2.Tournament:
        return await self.blocking(self._create_tournament, request, caller)

    def _create_tournament(self, request: arena_pb2.CreateTournamentRequest, caller: Caller) -> arena_pb2.Tournament:
        from referee.hosted import versions

        game = self._game("game", request.game)
        limit = 0 if caller.operator else MAX_ACTIVE_TOURNAMENTS
        for attempt in range(3):
            spec = self._tournament_spec(game, request, caller)
            tournament_id = new_tournament_id(spec, with_digest=False)
            # A chosen seed deals what it dealt before (match seeds come from the tournament's
            # seed alone, so a local run and the workers' agree): an earlier tournament's records
            # (its owner's at once, anyone's once it ends) would show this one's hands (an outside
            # probe rebuilt a bot's hand and its opponent's that way). That matters where an
            # operator chose it for a rated tournament of registered bots; an owner's own seeded
            # tournament is unrated and of their own bots. Checked, then noted once created (two
            # creations racing on one seed at the same instant are not held apart).
            chosen = bool(request.seed)
            rated_for_others = chosen and caller.operator and bool(spec.addresses)
            if rated_for_others and (earlier := self.store.seed_dealt(spec.game, spec.seed)) is not None:
                raise invalid(
                    "seed",
                    f"seed {spec.seed} dealt tournament {earlier} already: its records would show this one's "
                    "deals to anyone who reads them; choose another seed, or none (an unpredictable one)",
                )
            try:
                created = self.store.create_tournament(
                    tournament_id,
                    spec,
                    schedule_size(spec),
                    0,
                    owner=caller.name,
                    limit=limit,
                    requires=versions.required(self.store, spec.addresses),
                )
                break
            except ActiveLimit as full:
                raise exhausted(
                    f"{caller.name} has {full.active} tournaments running; at most {MAX_ACTIVE_TOURNAMENTS}; "
                    "retry in {delay}",
                    30,
                ) from None
            except Missing:
                # A hosted version read as active was deleted before the tournament was stored
                # (its owner activated another and deleted it meanwhile): read the active ones again.
                if attempt == 2:
                    raise precondition(
                        "a hosted bot's active version kept changing while the tournament was created: create it again"
                    ) from None
        if not created:
            raise exists(f"tournament {tournament_id} exists already")
        if chosen:
            self.store.note_seed(spec.game, spec.seed, tournament_id)
        try:
            self.submit(tournament_id, spec)  # one message: the workers fan the batches out
        except Exception:
            # Never report a failure for a tournament left behind: it is cancelled, not orphaned.
            with contextlib.suppress(Exception):
                self.store.cancel(tournament_id)
            raise
        info = self.store.tournament(tournament_id)
        assert info is not None
        registered = sorted({entrant_bot(bot) for bot in spec.bots} & set(spec.addresses))
        self.store.note_bot_tournament(registered, tournament_id, float(info.get("created", time.time())))
        log.info(
            "tournament created",
            extra={"tournament": tournament_id, "owner": caller.name, "game": spec.game, "matches": info["total"]},
        )
        return views.tournament(info)

    def _tournament_spec(self, game: Any, request: arena_pb2.CreateTournamentRequest, caller: Caller) -> TournamentSpec:
        meta = game.meta
        # Sizes first, from the request's numbers alone: nothing is built for a request refused.
        if len(request.bots) > MAX_BOTS:
            raise invalid("bots", f"{len(request.bots)} bots; at most {MAX_BOTS} per tournament")
        for i, name in enumerate(request.bots):
            if len(name) > MAX_BOT_SPEC:
                raise invalid(f"bots[{i}]", f"a bot name or spec has at most {MAX_BOT_SPEC} characters")
        if len(request.options) > MAX_OPTIONS:
            raise invalid("options", f"{len(request.options)} options; at most {MAX_OPTIONS}")
        for key, value in request.options.items():
            if len(key) > MAX_OPTION_TEXT or len(value) > MAX_OPTION_TEXT:
                raise invalid(
                    f"options[{key[:MAX_OPTION_TEXT]}]",
                    f"option keys and values have at most {MAX_OPTION_TEXT} characters",
                )
        if request.repeats > MAX_REPEATS:
            raise invalid("repeats", f"repeats {request.repeats}: at most {MAX_REPEATS}")
        if request.error_budget > MAX_ERROR_BUDGET:
            raise invalid("error_budget", f"error_budget {request.error_budget}: at most {MAX_ERROR_BUDGET}")
        if request.bot_concurrency > MAX_BOT_CONCURRENCY:
            raise invalid(
                "bot_concurrency", f"bot_concurrency {request.bot_concurrency}: at most {MAX_BOT_CONCURRENCY}"
            )
        clock = self._clock("clock", request.clock if request.HasField("clock") else None)
        players = request.players or min(max(2, meta.min_players), meta.max_players)
        if not meta.min_players <= players <= meta.max_players:
            raise invalid(
                "players", f"{meta.id} plays with {meta.min_players}-{meta.max_players} players, not {players}"
            )
        if request.format_type and request.format_type not in views.FORMAT_NAMES:
            known = ", ".join(f"{number} ({name})" for number, name in sorted(views.FORMAT_NAMES.items()) if number)
            raise invalid("format_type", f"unknown format_type {request.format_type}; known: {known}")
        fmt = views.FORMAT_NAMES.get(request.format_type, "") or request.format or "round-robin"
        if fmt not in FORMATS:
            raise invalid("format", f"unknown format {shown(fmt)}; allowed: {', '.join(FORMATS)}")
        # BOT*N enters N copies (BOT, BOT#2, ...), rated apart, as on the command line.
        entrants: list[tuple[int, str]] = []
        for i, item in enumerate(request.bots):
            try:
                entrants += [(i, name) for name in expand_entrants([item])]
            except ConfigError as exc:
                raise invalid(f"bots[{i}]", str(exc)) from None
            if len(entrants) > MAX_BOTS:
                raise invalid(
                    "bots", f"more than {MAX_BOTS} entrants (BOT*N counts N); at most {MAX_BOTS} per tournament"
                )
        names = tuple(name for _, name in entrants)
        if len(names) < max(2, players):
            raise invalid("bots", f"{players}-player matches need at least {max(2, players)} bots, got {len(names)}")
        if len(set(names)) != len(names):
            twice = next(name for name in names if names.count(name) > 1)
            raise invalid("bots", f"bot {shown(twice)} is listed twice; to let it fill several seats write {twice}*N")
        if request.HasField("repeats") and request.repeats == 0:
            raise invalid("repeats", "repeats must be at least 1")
        repeats = request.repeats or 1
        sized = TournamentSpec(game=meta.id, bots=names, players=players, format=fmt, repeats=repeats)
        total = schedule_size(sized)
        if total > MAX_MATCHES:
            raise invalid("repeats", f"{total} matches; at most {MAX_MATCHES} per tournament")
        entrants, names = self._canonical_entrants(meta.id, entrants)
        config = _match_config(game, players, request.options)
        on_error = request.on_error or "forfeit"
        if on_error not in ("forfeit", "substitute"):
            raise invalid("on_error", f"on_error must be forfeit or substitute, not {shown(on_error)}")
        addresses = {}
        builtins = self._builtins(meta.id)
        # A clock below the defaults makes bots fail (timeouts, forfeits), on their record and
        # in the game's leaderboard: like a seed, only for your own bots and built-ins.
        tighter = [key for key, value in clock.items() if value < CLOCK_DEFAULTS[key]]
        registered = False  # an entrant that may carry what it saw from one match to another
        for i, name in entrants:
            name = entrant_bot(name)  # copies play their bot: check it once per copy, cheaply
            if name in addresses:
                continue
            if name.split(":")[0] in builtins:
                try:
                    self.make_player(name, meta.id)
                except ConfigError as exc:
                    raise invalid(f"bots[{i}]", str(exc)) from None
                continue
            data = self.store.bot(name)
            if data is None:
                raise invalid(
                    f"bots[{i}]", f"unknown bot {shown(name)}: neither registered nor built-in ({', '.join(builtins)})"
                )
            if not data["enabled"]:
                raise precondition(f"bot {shown(name)} is disabled")
            if meta.id not in data["games"]:
                raise invalid(f"bots[{i}]", f"bot {shown(name)} does not play {meta.id}")
            if request.seed and not caller.operator and data["owner"] != caller.name:
                # The seed deals every match: whoever chose it could compute every hand, and
                # write a bot that plays against them knowing them.
                raise invalid(
                    "seed",
                    f"a chosen seed tells its chooser every deal: only a tournament of your own bots and "
                    f"built-in bots may choose one, and {shown(name)} belongs to {shown(data['owner'])}",
                )
            if tighter and not caller.operator and data["owner"] != caller.name:
                key = tighter[0]
                unit = "" if key == "strikes" else " ms"
                raise invalid(
                    f"clock.{CLOCK_FIELDS[key]}",
                    f"{key} {clock[key]}{unit} is below the default {CLOCK_DEFAULTS[key]}: a clock tighter than the "
                    f"default may be set only for a tournament of your own bots and built-in bots (it makes bots "
                    f"fail, on their record and their rating), and {shown(name)} belongs to {shown(data['owner'])}",
                )
            addresses[name] = data["endpoint"]
            # Every registered bot, hosted ones too: a jail leaves nothing writable, yet its seats
            # can keep bits in the host's page cache and signal through file locks (a probe's
            # hosted bot recalled its opponent's Rainbow hand in the next rotation).
            registered = True
            if data["endpoint"].startswith("hosted:"):
                # A hosted bot plays its active version, recorded in the spec (issue 17).
                from referee.hosted import versions

                version = versions.active_version(self.store, name)
                if version is None:
                    raise precondition(f"hosted bot {shown(name)} has no active version")
                addresses[name] = versions.address(name, version)
        spec = TournamentSpec(
            game=meta.id,
            bots=names,
            players=players,
            options=dict(config.options),
            format=fmt,
            repeats=repeats,
            # No seed asked: an unpredictable one (a fixed default would let anyone compute
            # every deal); it is recorded in the spec, so the tournament still replays.
            seed=request.seed or new_seed(),
            on_error=on_error,
            error_budget=request.error_budget or 3,
            clock=clock,
            bot_concurrency=request.bot_concurrency or 4,
            addresses=addresses,
            # A registered bot (remote or hosted) plays every rotation of a deal, often at once:
            # shared deals would show it, from its own seats, the hands and draws its other
            # matches face.
            deals="fresh" if registered else "duplicate",
            # A seed its chooser knew every deal of: the tournament's board, not the game's.
            rated=not request.seed or caller.operator,
        )
        try:
            spec.validate()
        except ConfigError as exc:
            raise invalid("bots", str(exc)) from None
        return spec

    def _canonical_entrants(
        self, game_id: str, entrants: list[tuple[int, str]]
    ) -> tuple[list[tuple[int, str]], tuple[str, ...]]:
        """The entrants (with the index of the request's item each came from) by their bot's
        one spelling, as the spec, the records and the game's leaderboard name them
        (``heuristic:threshold=04`` -> ``heuristic:threshold=4``); owners' bots as named. Two
        spellings of one bot are refused, as one bot listed twice is."""
        spelled: dict[str, str] = {}
        for i, name in entrants:
            bot = entrant_bot(name)
            if bot not in spelled:
                try:
                    spelled[bot] = canonical_spec(bot, game_id)
                except ConfigError as exc:  # a bad spec: make_bot's error, as before
                    raise invalid(f"bots[{i}]", str(exc)) from None
        try:
            names = tuple(canonical_entrants([name for _, name in entrants], spelled.__getitem__))
        except ConfigError as exc:
            raise invalid("bots", str(exc)) from None
        return [(i, name) for (i, _), name in zip(entrants, names, strict=True)], names

    def _clock(self, field_name: str, settings: Any) -> dict[str, int]:
        """Named clock values from a request (unset fields take the defaults), each within
        its maximum; a value of 0 is allowed where the CLI allows it."""
        if settings is None:
            return {}
        values = {name: getattr(settings, f) for name, f in CLOCK_FIELDS.items() if settings.HasField(f)}
        for name, value in values.items():
            where = f"{field_name}.{CLOCK_FIELDS[name]}"
            if value > CLOCK_MAXIMA[name]:
                unit = "" if name == "strikes" else " ms"  # a count, not a time
                raise invalid(where, f"{name} {value}{unit}: at most {CLOCK_MAXIMA[name]}")
            if value == 0 and name in ("decision", "startup"):
                raise invalid(where, f"{name} must be at least 1 ms")
        return values

    def _tournament_info(self, tournament_id: str) -> dict[str, Any]:
        # Only an id of the form the service gives names a tournament: anything else (e.g.
        # 'ID:matches', another key of the tournament) is not looked up at all.
        info = self.store.tournament(tournament_id) if TOURNAMENT_ID.fullmatch(tournament_id) else None
        if info is None:
            raise not_found(f"no tournament {shown(tournament_id)}")
        return info

    @unary
    async def GetTournament(self, request: arena_pb2.GetTournamentRequest, caller: Caller) -> arena_pb2.Tournament:
        return views.tournament(await self.blocking(self._tournament_info, request.tournament_id))

    @unary
    async def CancelTournament(
        self, request: arena_pb2.CancelTournamentRequest, caller: Caller
    ) -> arena_pb2.Tournament:
        info = await self.blocking(self._tournament_info, request.tournament_id)
        if info.get("owner") != caller.name and not caller.operator:
            raise denied(f"tournament {shown(request.tournament_id)} belongs to another owner")
        if info["status"] in FINISHED:
            raise precondition(f"tournament {shown(request.tournament_id)} has already ended ({info['status']})")
        if not await self.blocking(self.store.cancel_live, request.tournament_id):
            # Ended since it was read (another cancel at once, or its last match): one OK only.
            ended = await self.blocking(self._tournament_info, request.tournament_id)
            if ended["status"] not in FINISHED:
                raise precondition(f"tournament {shown(request.tournament_id)} has {PLAYED_OUT}")
            raise precondition(f"tournament {shown(request.tournament_id)} has already ended ({ended['status']})")
        log.info("tournament cancelled", extra={"tournament": request.tournament_id, "by": caller.name})
        return views.tournament(await self.blocking(self._tournament_info, request.tournament_id))

    @unary
    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, caller: Caller
    ) -> arena_pb2.ListTournamentsResponse:
        self._check_game_filter(request.game)
        size = _page_size("limit", request.limit, 50)
        start = _tournament_cursor(request.page_token)

        def listing() -> arena_pb2.ListTournamentsResponse:
            out = arena_pb2.ListTournamentsResponse()
            cursor: tuple[float, str] | None
            if isinstance(start, int):  # a position, from an earlier version: the item before it
                before = self.store.tournament_at(start - 1) if start else None
                if start and before is None:
                    return out
                cursor = None if before is None else (before[1], before[0])
            else:
                cursor = start
            # Newest first, read in chunks after the cursor (the last tournament read: a place
            # in the order, so tournaments created meanwhile shift nothing); a game filter
            # skips others' tournaments.
            while len(out.tournaments) < size:
                chunk = self.store.tournaments_before(cursor, 200, game=request.game)
                if not chunk:
                    return out
                for tournament_id, created in chunk:
                    cursor = (created, tournament_id)
                    info = self.store.tournament(tournament_id)
                    if info and (not request.game or info["spec"]["game"] == request.game):
                        out.tournaments.append(views.tournament(info))
                        if len(out.tournaments) == size:
                            break
            if cursor is not None and self.store.tournaments_before(cursor, 1, game=request.game):
                out.next_page_token = _token(f"c:{cursor[0]!r}:{cursor[1]}")
            return out

        return await self.blocking(listing)

    @streaming
    async def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, caller: Caller
    ) -> AsyncIterator[arena_pb2.TournamentUpdate]:
        info = await self.blocking(self._tournament_info, request.tournament_id)
        spec = TournamentSpec.from_json(info["spec"])
        # One live view per tournament, shared by every watcher (referee.live).
        try:
            async for update in self.live.watch(request.tournament_id, spec):
                yield update
        except ShuttingDown:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down; watch again") from None

    # -- leaderboards -------------------------------------------------------------------------

    @unary
    async def GetLeaderboard(self, request: arena_pb2.GetLeaderboardRequest, caller: Caller) -> arena_pb2.Leaderboard:
        scope = request.WhichOneof("scope")
        if scope == "tournament_id":
            info = await self.blocking(self._tournament_info, request.tournament_id)
            board = await self.blocking(self.store.leaderboard, request.tournament_id)
            if board is None:
                raise precondition(f"tournament {shown(request.tournament_id)} is {info['status']}: no leaderboard yet")
            return views.leaderboard(board, request.tournament_id)
        if scope == "game":
            self._game("game", request.game)
            board = await self.blocking(self.store.game_leaderboard, request.game)
            return views.leaderboard(board or {"game": request.game})
        raise invalid("scope", "give tournament_id or game")

    # -- matches ------------------------------------------------------------------------------

    @unary
    async def ListMatches(self, request: arena_pb2.ListMatchesRequest, caller: Caller) -> arena_pb2.ListMatchesResponse:
        return await self.blocking(self._list_matches, request, caller)

    def _list_matches(self, request: arena_pb2.ListMatchesRequest, caller: Caller) -> arena_pb2.ListMatchesResponse:
        info = self._tournament_info(request.tournament_id)
        limit = _page_size("limit", request.limit, 100)
        start = _token_number(request.page_token) if request.page_token else request.offset
        indices = self.store.stored_match_indices(request.tournament_id)
        if request.bot:
            # Who sat where is in the schedule: filter without decoding a single record.
            spec = TournamentSpec.from_json(info["spec"])
            named = request.bot if request.bot in spec.bots else _spelled_as_entered(request.bot, spec)
            if named in spec.bots:
                wanted = spec.bots.index(named)
                groups = groups_of(spec)
                indices = [i for i in indices if wanted in match_at(spec, groups, i).seats]
            else:
                indices = []
        page = indices[start : start + limit]
        records = self.store.matches_at(request.tournament_id, page)  # only the page is decoded
        mine = self._seat_filter(info, caller)
        return arena_pb2.ListMatchesResponse(
            matches=[views.match_summary(request.tournament_id, r, mine(r) if mine else None) for r in records],
            total=len(indices),
            next_page_token=_token(str(start + limit)) if start + limit < len(indices) else "",
        )

    def _seat_filter(
        self, info: dict[str, Any], caller: Caller
    ) -> Callable[[MatchRecord], Callable[[int], bool]] | None:
        """While a tournament runs, an owner sees failures and forfeits of their own bots only
        (None: everything may be shown)."""
        if caller.operator or info["status"] in FINISHED:
            return None
        spec = info["spec"]
        addresses = spec.get("addresses", {})
        # Registered bots by name; a copy (``NAME#2``) is its bot's, so its owner's.
        names = {entrant_bot(entrant) for entrant in spec["bots"]} & set(addresses)
        owners = {name: (self.store.bot(name) or {}).get("owner") for name in names}

        def for_record(record: MatchRecord) -> Callable[[int], bool]:
            return lambda seat: owners.get(entrant_bot(record.seats[seat]["bot"])) == caller.name

        return for_record

    @unary
    async def GetMatch(self, request: arena_pb2.GetMatchRequest, caller: Caller) -> arena_pb2.MatchDetail:
        facts = await self.blocking(self._match_facts, request.id, caller)
        detail = await self._match_detail(facts)
        if detail.ByteSize() > MAX_RESPONSE:
            raise too_big(f"match {facts.ref}'s record and events", detail.ByteSize())
        return detail

    def _match_facts(self, match_ref: str, caller: Caller) -> MatchFacts:
        """What decides a match's view for this caller now, read from the store (cheap: no
        replay). Asked again on every request: the tournament's status and the deal's other
        rotations change what a caller may see."""
        tournament_id, match_id = _match_ref(match_ref)
        info = self._tournament_info(tournament_id)
        index = int(match_id[1:])
        line = self.store.match_lines(tournament_id, [index]).get(index)
        if line is None:
            raise _unstored(info, tournament_id, match_id)
        record = MatchRecord.loads(line)
        mine = self._seat_filter(info, caller)
        summary = views.match_summary(tournament_id, record, mine(record) if mine else None)
        # While the tournament runs, nothing that determines hidden information goes to anyone
        # but an operator: not the record (its seed deals the same hands to the other seat
        # rotations of its duplicate group), nor private events; and no event at all while
        # any rotation of its group is unplayed: a finished match's public events name the
        # cards played, the very hands that rotation's bots are holding.
        privileged = info["status"] in FINISHED or caller.operator
        held_back = not privileged and not self._deal_played_out(tournament_id, info, index)
        # The record as stored and the engine that replays it decide the replay, nothing else.
        replay_key = (hashlib.blake2b(line.encode(), digest_size=16).digest(), _engine_version(record.game))
        return MatchFacts(f"{tournament_id}:{match_id}", record, summary, privileged, held_back, replay_key)

    async def _match_detail(self, facts: MatchFacts) -> arena_pb2.MatchDetail:
        summary, privileged = facts.summary, facts.privileged
        if facts.held_back:
            return arena_pb2.MatchDetail(summary=summary, events=[_notice(HELD_BACK)], spectator=False)
        replayed = await self.cached(("events", *facts.replay_key), functools.partial(_replayed_events, facts.record))
        if replayed.problem:
            # Served all the same (an older game version's record, say): the summary, the record
            # as stored (once it may be), and why there are no events. Never an INTERNAL error.
            after = "its record is served as stored" if privileged else "its record is served when the tournament ends"
            return arena_pb2.MatchDetail(
                summary=summary,
                record_json=facts.record.dumps() if privileged else "",
                events=[_notice(f"{replayed.problem}; {after}")],
                spectator=False,
            )
        # Only the events are cached, for both audiences; which one this caller gets is
        # decided above, now.
        detail = arena_pb2.MatchDetail.FromString(replayed.spectator if privileged else replayed.public)
        detail.summary.CopyFrom(summary)
        detail.record_json = facts.record.dumps() if privileged else ""
        detail.spectator = privileged
        return detail

    async def cached(self, key: Hashable, compute: Callable[[], Sized[T]]) -> T:
        """A replay's product from the match cache (computed on its own small pool, once);
        RESOURCE_EXHAUSTED while too many replays are queued."""
        try:
            return await self.match_cache.get(key, compute)
        except ReplaysBusy:
            raise exhausted("the server is busy replaying other matches: retry in {delay}", REPLAYS_BUSY) from None

    def _deal_played_out(self, tournament_id: str, info: dict[str, Any], index: int) -> bool:
        """Every seat rotation of the match's duplicate group (indices ``k*g .. k*g+k-1`` for
        ``k`` players: they share one deal seed) is stored: nobody plays that deal any more."""
        players = int(info["spec"]["players"])
        first = index - index % players
        group = [i for i in range(first, first + players) if i < int(info["total"])]
        return len(self.store.stored_indices(tournament_id, group)) == len(group)

    # -- challenge ----------------------------------------------------------------------------

    @streaming
    async def Challenge(
        self, request: arena_pb2.ChallengeRequest, caller: Caller
    ) -> AsyncIterator[arena_pb2.ChallengeEvent]:
        game = self._game("game", request.game)
        data = await self.blocking(self._own_bot, request.bot, caller)
        if not data["enabled"]:
            raise precondition(f"bot {shown(request.bot)} is disabled")
        if game.meta.id not in data["games"]:
            raise invalid("game", f"bot {shown(request.bot)} does not play {game.meta.id}")
        if str(data["endpoint"]).startswith("hosted:"):
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"hosted bots cannot be challenged (yet): bot {shown(request.bot)} is hosted (Arena runs its "
                "code); enter it in a tournament against built-in bots instead",
                field="bot",
            )
        opponents = list(request.opponents) or ["random"]
        players = 1 + len(opponents)
        if not game.meta.min_players <= players <= game.meta.max_players:
            raise invalid(
                "opponents", f"{game.meta.id} plays with {game.meta.min_players}-{game.meta.max_players} players"
            )
        # Opponents are built-in bots, as tournaments take them (`search` too, with or without
        # parameters); never an address (the service would dial whatever it names).
        builtins = self._builtins(game.meta.id)
        for i, name in enumerate(opponents):
            where = f"opponents[{i}]"
            if len(name) > MAX_BOT_SPEC:
                raise invalid(where, f"a built-in bot's spec has at most {MAX_BOT_SPEC} characters")
            if name.split(":")[0] not in builtins:
                raise invalid(where, f"unknown built-in bot {shown(name)}; {game.meta.id}'s: {', '.join(builtins)}")
        config = _match_config(game, players, request.options)
        try:
            seats: list[Any] = [RemotePlayer(data["endpoint"], name=request.bot, key=data.get("endpoint_key") or None)]
        except ConfigError as exc:
            raise invalid("bot", f"bot {shown(request.bot)}: {exc}") from None
        for i, name in enumerate(opponents):
            try:
                # By its one spelling, as a tournament names it (in every seat's start message).
                # Off the service's loop: a thinking bot must hold no other call back.
                seats.append(OffLoopPlayer(self.make_player(canonical_spec(name, game.meta.id), game.meta.id)))
            except ConfigError as exc:
                raise invalid(f"opponents[{i}]", str(exc)) from None
        if self.state.challenges.get(caller.name, 0) >= MAX_CHALLENGES:
            raise exhausted(
                f"{caller.name} already has {MAX_CHALLENGES} challenges running (or their opponents still thinking); "
                "retry in {delay}",
                5,
            )
        self.state.challenges[caller.name] = self.state.challenges.get(caller.name, 0) + 1
        about = {"owner": caller.name, "bot": request.bot, "game": game.meta.id}
        log.info("challenge started", extra=about)
        try:
            # Closed here, so the match is stopped before its opponents are abandoned below.
            async with contextlib.aclosing(self._challenge(game, config, request, seats)) as events:
                async for event in events:
                    yield event
        finally:
            self._end_challenge(caller.name, seats)
            log.info("challenge ended", extra=about)

    def _end_challenge(self, owner: str, seats: list[Any]) -> None:
        """The challenge's opponents are abandoned (a search stops at its next simulation), and
        the owner's slot given back once none of them thinks any more: given back at once, start
        and cancel, again and again, stacked searches of up to 10 minutes each (an outside probe:
        8 at once, the service's every call 200 times slower)."""
        thinking = [t for seat in seats if isinstance(seat, OffLoopPlayer) for t in seat.abandon()]

        def free(_: object = None) -> None:
            self.state.challenges[owner] -= 1

        if thinking:
            asyncio.gather(*thinking).add_done_callback(free)
        else:
            free()

    async def _challenge(
        self, game: Any, config: Any, request: arena_pb2.ChallengeRequest, seats: list[Any]
    ) -> AsyncGenerator[arena_pb2.ChallengeEvent, None]:
        queue: asyncio.Queue[arena_pb2.ChallengeEvent | ApiError | None] = asyncio.Queue()
        shown = 0  # events of the log handled so far
        sent = 0  # of them, those sent to the challenger (its events are numbered by this count)

        def send_visible(events: list[Any]) -> None:
            nonlocal sent
            for event in events:
                if event.visible_to(0):  # the challenger sits in seat 0
                    queue.put_nowait(arena_pb2.ChallengeEvent(event=event_message(sent, event)))
                    sent += 1

        def on_decision(state: Any, entry: Any) -> None:
            nonlocal shown
            # The decision first, then the events it caused (the log grew when it was applied).
            if entry.seat == 0:
                queue.put_nowait(
                    arena_pb2.ChallengeEvent(
                        decision=arena_pb2.ChallengeDecision(
                            index=sent,
                            seat=entry.seat,
                            kind=entry.kind,
                            choice=entry.choice,
                            ms=entry.ms,
                            by=entry.by,
                        )
                    )
                )
            send_visible(state.log.events[shown:])
            shown = len(state.log.events)

        clock = clock_settings(self._clock("clock", request.clock if request.HasField("clock") else None))
        seed = request.seed or new_seed()  # never guessable from the time

        # The deal's own events (before any decision) come right after `started`.
        setup = game.new_match(config, seed).log.events

        def started(message: bot_pb2.MatchStart) -> None:
            nonlocal shown
            queue.put_nowait(arena_pb2.ChallengeEvent(started=message))
            send_visible(setup)
            shown = len(setup)

        def failed(failure: FailureEntry) -> None:
            # Said as it happens, before the moves played for the seat: any seat's, with the
            # decision it failed at (-1 at the start).
            queue.put_nowait(
                arena_pb2.ChallengeEvent(
                    failure=arena_pb2.ChallengeFailure(
                        seat=failure.seat, decision=failure.decision, verdict=failure.verdict, detail=failure.detail
                    )
                )
            )

        async def play() -> None:
            try:
                # Counted as a worker counts its matches: the challenger by what it plays.
                with metrics.match_running(game.meta.id):
                    record = await play_match_async(
                        game,
                        config,
                        seed,
                        [HookedPlayer(seats[0], on_start=started), *seats[1:]],
                        policy=ErrorPolicy("forfeit"),
                        clock=clock,
                        on_decision=on_decision,
                        on_failure=failed,
                        match_id=f"challenge-{uuid.uuid4().hex[:8]}",
                    )
                challenger = seats[0].spec
                metrics.observe_record(
                    record, count_start=False, address=lambda name: challenger if name == request.bot else name
                )
                result = record.result
                finished = bot_pb2.MatchResult(
                    seats=[
                        bot_pb2.SeatResult(
                            seat=s,
                            score=float(result["scores"][s]),
                            rank=result["ranks"][s],
                            forfeited=result["forfeited"][s],
                        )
                        for s in range(len(record.seats))
                    ],
                    summary=result.get("summary", ""),
                )
                final = arena_pb2.ChallengeEvent(finished=finished, record_json=record.dumps())
                if final.ByteSize() > MAX_RESPONSE:
                    # The result all the same, then why there is no record (it ended in gRPC's
                    # "Sent message larger than max", an ERROR traceback and nothing said).
                    queue.put_nowait(arena_pb2.ChallengeEvent(finished=finished))
                    queue.put_nowait(too_big("the challenge's record", final.ByteSize()))
                else:
                    queue.put_nowait(final)
            finally:
                queue.put_nowait(None)

        task = asyncio.get_running_loop().create_task(play())
        stopping = asyncio.ensure_future(self.state.shutting_down.wait())
        try:
            while True:
                # A service stopping ends the challenge with a word, as a watch: cut off at the
                # end of the grace it left an ERROR with a traceback in the log.
                got = asyncio.ensure_future(queue.get())
                await asyncio.wait((got, stopping), return_when=asyncio.FIRST_COMPLETED)
                if not got.done():
                    got.cancel()
                    raise ApiError(
                        grpc.StatusCode.UNAVAILABLE, "the server is shutting down: the challenge ended unfinished"
                    )
                if (event := got.result()) is None:
                    break
                if isinstance(event, ApiError):
                    raise event
                yield event
            await task
        finally:
            stopping.cancel()
            if not task.done():
                task.cancel()

    # -- hosted bots (issue 17; the work is in referee.hosted) --------------------------------

    async def _trial(self, checked: Any, game_id: str, owner: str) -> None:
        """An upload's trial match. Its slot is waited for here, on the event loop, and the match
        plays in a trial thread: waiting in the shared pool, one owner's burst of uploads held its
        threads and stalled every other owner's calls for a minute (an outside hosted-bot probe).
        The match stops when the caller goes or the service stops."""
        from referee.hosted import archive, versions

        loop = asyncio.get_running_loop()
        began = loop.time()
        stopping = ApiError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down: upload again")
        while not versions.TRIALS.try_acquire(owner):
            if self.state.shutting_down.is_set():  # no new jail once the service stops
                raise stopping
            if loop.time() - began >= versions.TRIAL_WAIT:
                busy = versions.TRIALS.busy(owner, versions.TRIAL_WAIT)
                raise exhausted(f"the sandbox is busy with trial matches ({busy}): retry in {{delay}}", 10.0)
            await asyncio.sleep(TRIAL_SLOT_POLL)
        abandoned = threading.Event()

        def stopped() -> bool:
            return abandoned.is_set() or self.state.shutting_down.is_set()

        try:
            await loop.run_in_executor(
                versions.TRIAL_THREADS, versions.trial_holding_slot, checked, game_id, owner, stopped
            )
        except archive.ArchiveError as exc:
            if stopped():  # not the archive's fault: the service stopped its trial
                raise stopping from None
            raise invalid("data", str(exc)) from None
        except asyncio.CancelledError:
            abandoned.set()  # the thread ends its match at the next poll and gives the slot back
            raise

    @unary
    async def SubmitBotVersion(self, request_iterator: Any, caller: Caller) -> arena_pb2.BotVersion:
        # An upload holds its archive and its files in memory (up to 20 + 100 MiB) from its first
        # chunk to its end, its trial's wait included: a few at once, per owner and in all (20
        # tiny uploads that unpack to 95 MB each took the service to 2 GiB; an outside review).
        if self._uploads[caller.name] >= UPLOADS_PER_OWNER:
            raise exhausted(
                f"{caller.name} has {UPLOADS_PER_OWNER} uploads in progress, the most: retry in {{delay}}", 10.0
            )
        if sum(self._uploads.values()) >= UPLOADS_AT_ONCE:
            raise exhausted(f"{UPLOADS_AT_ONCE} uploads are in progress, the most: retry in {{delay}}", 10.0)
        self._uploads[caller.name] += 1
        try:
            return await self._submit_bot_version(request_iterator, caller)
        finally:
            self._uploads[caller.name] -= 1
            if not self._uploads[caller.name]:
                del self._uploads[caller.name]

    async def _submit_bot_version(self, request_iterator: Any, caller: Caller) -> arena_pb2.BotVersion:
        from referee.hosted import archive, jail, versions

        first: arena_pb2.BotUploadChunk | None = None
        data = bytearray()
        async for chunk in _bounded_upload(request_iterator):
            if first is None:
                first = chunk
            if len(chunk.data) > HOSTED_CHUNK:
                raise invalid("data", f"a chunk carries at most {HOSTED_CHUNK // 1024} KiB")
            data += chunk.data
            if len(data) > archive.MAX_PACKED:
                raise invalid("data", f"the archive is more than {archive.MAX_PACKED // archive.MiB} MiB packed")
        if first is None:
            raise invalid("name", "an upload starts with a chunk naming the bot")
        name = first.name
        if not BOT_NAME.fullmatch(name):
            raise invalid("name", "bot names are 2-48 of A-Z a-z 0-9 _ . - starting with a letter or digit")
        existing = await self.blocking(self.store.bot, name)
        if existing is not None:
            if existing["owner"] != caller.name and not caller.operator:
                raise denied(f"bot {shown(name)} belongs to another owner")
            if not str(existing["endpoint"]).startswith("hosted:"):
                raise precondition(f"bot {shown(name)} is a remote bot (registered with an endpoint), not a hosted one")
        else:
            self._check_new_name(name)
        if first.games:  # refused before the archive is looked at
            self._check_games("games", list(first.games))
        try:
            checked = await self.blocking(versions.check_upload, bytes(data))
        except archive.ArchiveError as exc:
            raise invalid("data", str(exc)) from None
        game_ids = list(first.games) or list(checked.manifest.games)
        self._check_games("games", game_ids)
        # Refused before the trial match: an upload that cannot be kept costs the sandbox nothing.
        owner = existing["owner"] if existing is not None else caller.name
        await self.blocking(self._check_room, name, owner, checked.version, len(data), caller)
        for i, game_id in enumerate(game_ids):
            if game_id not in checked.manifest.games:
                raise invalid(f"games[{i}]", f"{shown(game_id)} is not among the manifest's games")
        try:
            jail.check_sandbox()
        except jail.SandboxUnavailable as exc:
            raise precondition(str(exc)) from None
        await self._trial(checked, game_ids[0], caller.name)
        # Every check passed: only now is anything stored.
        if existing is None:
            bot = {"owner": caller.name, "games": game_ids, "endpoint": f"hosted:{name}", "enabled": True}
            if not await self.blocking(self._add_bot, name, {**bot, "created": time.time()}, caller):
                # Made meanwhile: by another first upload of the same owner's (this one is then
                # a version of it, as it would be a moment later), else it is someone else's.
                existing = await self.blocking(self.store.bot, name)
                if (
                    existing is None
                    or existing["owner"] != caller.name
                    or not str(existing["endpoint"]).startswith("hosted:")
                ):
                    raise exists(f"bot {shown(name)} exists already")
        room = 0 if caller.operator else versions.MAX_OWNER_BYTES
        try:  # checked again as it is stored: uploads at once passed the check above together
            info = await self.blocking(
                functools.partial(versions.save_version, max_bytes=room, games=list(first.games)),
                self.store,
                name,
                caller.name,
                checked,
                bytes(data),
            )
        except versions.NoRoom as exc:
            raise precondition(str(exc)) from None
        active = await self.blocking(versions.active_version, self.store, name)
        if first.activate or active is None:
            try:
                await self.blocking(versions.activate, self.store, name, checked.version)
            except versions.NoSuchVersion:  # deleted (by another call of its owner) as it was stored
                raise precondition(f"version {checked.version[:16]} was deleted as it was uploaded") from None
            active = checked.version
        played = list(info["games"])  # the version's: this upload's choice, an earlier one's, the manifest's
        if active == checked.version and sorted(existing["games"] if existing else game_ids) != sorted(played):
            # The games the bot plays are its active version's, as an activation sets them: a
            # version not active changes nothing (a tournament of its new game would fail in
            # every match). This field only: a disable (or any other change) meanwhile stays.
            await self.blocking(self._update_bot, name, {"games": played})
        return await self.blocking(self._bot_version, name, info["version"])

    def _own_hosted_bot(self, name: str, caller: Caller) -> dict[str, Any]:
        """One of the caller's bots whose code Arena hosts: only those have versions."""
        registered = self._own_bot(name, caller)
        if not str(registered["endpoint"]).startswith("hosted:"):
            raise precondition(f"bot {shown(name)} is a remote bot (registered with an endpoint): it has no versions")
        return registered

    def _own_version(self, name: str, version: str, caller: Caller) -> str:
        """The full hash of one of the caller's bot's versions, named by a hash or a prefix."""
        from referee.hosted import versions

        self._own_hosted_bot(name, caller)
        found = versions.resolve(self.store, name, version)
        if found is None:
            why = versions.unresolved(self.store, name, version)
            raise not_found(f"bot {shown(name)} has no version {shown(version)}: {why}")
        return found

    def _check_room(self, name: str, owner: str, version: str, size: int, caller: Caller) -> None:
        """A new version fits: the bot keeps at most MAX_VERSIONS, the owner MAX_OWNER_BYTES of
        uploads (an operator's uploads are not limited). Content already stored is no new version."""
        from referee.hosted import versions

        kept = versions.versions(self.store, name)
        if any(info["version"] == version for info in kept):
            return
        if len(kept) >= versions.MAX_VERSIONS:
            raise precondition(
                f"bot {shown(name)} keeps {versions.MAX_VERSIONS} versions, the most: delete one you no longer "
                f"need first (arena bots delete-version {name} VERSION)"
            )
        if caller.operator:
            return
        used = versions.stored_bytes(self.store, owner)
        if used + size > versions.MAX_OWNER_BYTES:
            raise precondition(
                f"{owner}'s versions take {used} bytes; this one ({size}) would pass the "
                f"{versions.MAX_OWNER_BYTES} an owner may keep: delete versions you no longer need first"
            )
        if self.store.bot(name) is None and self.store.bot_count(owner) >= MAX_BOTS_PER_OWNER:
            raise precondition(f"you have {MAX_BOTS_PER_OWNER} bots, the most an owner may register")

    def _bot_version(self, name: str, version: str) -> arena_pb2.BotVersion:
        from referee.hosted import versions

        found = next(info for info in versions.versions(self.store, name) if info["version"] == version)
        return _version_message(name, found)

    @unary
    async def ListBotVersions(
        self, request: arena_pb2.ListBotVersionsRequest, caller: Caller
    ) -> arena_pb2.ListBotVersionsResponse:
        from referee.hosted import versions

        await self.blocking(self._own_hosted_bot, request.name, caller)
        found = await self.blocking(versions.versions, self.store, request.name)
        return arena_pb2.ListBotVersionsResponse(versions=[_version_message(request.name, info) for info in found])

    @unary
    async def DeleteBotVersion(
        self, request: arena_pb2.DeleteBotVersionRequest, caller: Caller
    ) -> arena_pb2.ListBotVersionsResponse:
        from referee.hosted import versions

        version = await self.blocking(self._own_version, request.name, request.version, caller)
        try:
            await self.blocking(versions.delete_version, self.store, request.name, version)
        except versions.VersionInUse as used:
            if used.tournament is None:
                raise precondition(
                    f"version {version[:16]} is the active version of bot {shown(request.name)}: activate another first"
                ) from None
            raise precondition(
                f"tournament {used.tournament} plays version {version[:16]}: delete it once that has ended"
            ) from None
        found = await self.blocking(versions.versions, self.store, request.name)
        return arena_pb2.ListBotVersionsResponse(versions=[_version_message(request.name, info) for info in found])

    @unary
    async def ActivateBotVersion(
        self, request: arena_pb2.ActivateBotVersionRequest, caller: Caller
    ) -> arena_pb2.BotVersion:
        from referee.hosted import versions

        version = await self.blocking(self._own_version, request.name, request.version, caller)
        try:
            await self.blocking(versions.activate, self.store, request.name, version)
        except versions.NoSuchVersion:
            gone = f"bot {shown(request.name)} has no version {version[:16]}: it was deleted meanwhile"
            raise not_found(gone) from None
        found = next(
            info
            for info in await self.blocking(versions.versions, self.store, request.name)
            if info["version"] == version
        )
        known = games()
        playable = [game_id for game_id in found["games"] if game_id in known]  # the active version's
        await self.blocking(self._update_bot, request.name, {"games": playable})
        return await self.blocking(self._bot_version, request.name, version)

    @unary
    async def GetMatchLogs(self, request: arena_pb2.GetMatchLogsRequest, caller: Caller) -> arena_pb2.MatchLogs:
        return await self.blocking(self._match_logs, request.id, caller)

    def _match_logs(self, match_ref: str, caller: Caller) -> arena_pb2.MatchLogs:
        from referee.hosted import versions

        tournament_id, match_id = _match_ref(match_ref)
        info = self._tournament_info(tournament_id)
        _check_scheduled(info, tournament_id, match_id)
        record = self.store.match(tournament_id, int(match_id[1:]))
        if record is None:
            # Said as GetMatch says it: "(yet)" only while the tournament can still play it.
            raise _unstored(info, tournament_id, match_id, yet="logs are shown once the match is recorded")
        entries = versions.logs(self.store, f"{tournament_id}:{match_id}", len(record.seats))
        shown = [e for e in entries if caller.operator or e["owner"] == caller.name]
        return arena_pb2.MatchLogs(
            # The seat's bot as the record names it: a copy's number kept (``NAME#2``).
            logs=[arena_pb2.SeatLog(seat=e["seat"], bot=record.seats[e["seat"]]["bot"], text=e["text"]) for e in shown]
        )


HELD_BACK = (
    "events are shown when the tournament ends: the same deal is still in play in other seat "
    "rotations of this match's group (its public events are shown once they have all been played)"
)


def _notice(text: str) -> bot_pb2.Event:
    """A match's only event when its events are not shown, saying why (the referee's: seat -1)."""
    return bot_pb2.Event(index=0, seat=-1, kind="notice", text=text)


def _spelled_as_entered(bot: str, spec: TournamentSpec) -> str:
    """A built-in bot as the tournament names it (its one spelling, ``heuristic:threshold=04`` ->
    ``heuristic:threshold=4``, a copy's number kept), for a filter given another spelling; a
    spec that names no bot as given."""
    try:
        return canonical_entrant(bot, lambda name: canonical_spec(name, spec.game))
    except ConfigError:
        return bot


def _replayed(record: MatchRecord) -> tuple[Any, str]:
    """(the final state of a record replayed on this server's engine, "") or (None, why it
    cannot be: a record of another game version, of a game this server lacks, or one that
    does not reproduce)."""
    try:
        game = get_game(record.game)
    except ConfigError:
        return None, f"this record is of game {shown(record.game)}, which this server does not have: no events"
    if record.game_version != game.meta.version:
        return None, (
            f"this record is of {game.meta.id} version {shown(record.game_version)} and cannot be replayed "
            f"on the current version {game.meta.version!r}: no events"
        )
    try:
        return resimulate(game, record), ""
    except ReplayMismatch as exc:
        return None, f"this record does not replay on {game.meta.id} version {game.meta.version!r} ({exc}): no events"


@dataclass(frozen=True)
class MatchFacts:
    """What decides one caller's view of a stored match at this moment (``_match_facts``)."""

    ref: str
    record: MatchRecord
    summary: arena_pb2.MatchSummary
    privileged: bool
    """The tournament has ended, or the caller is an operator: every event and the record."""
    held_back: bool
    """Not privileged and a rotation of the deal is unplayed: no event at all."""
    replay_key: tuple[bytes, str]
    """The stored record's digest and the engine's game version: what decides a replay."""


@dataclass(frozen=True)
class ReplayedEvents:
    """A match's events as both audiences get them (each a serialized MatchDetail holding only
    its events), or why there are none: what the match cache keeps of a GetMatch."""

    spectator: bytes
    public: bytes
    problem: str


def _engine_version(game_id: str) -> str:
    try:
        return get_game(game_id).meta.version
    except ConfigError:
        return ""


def _replayed_events(record: MatchRecord) -> Sized[ReplayedEvents]:
    state, problem = _replayed(record)
    if state is None:
        return Sized(ReplayedEvents(b"", b"", problem), len(problem))
    spectator = arena_pb2.MatchDetail(events=views.events(state.log.events, SPECTATOR)).SerializeToString()
    public = arena_pb2.MatchDetail(events=views.events(state.log.events, -2)).SerializeToString()  # -2: no seat
    return Sized(ReplayedEvents(spectator, public, ""), len(spectator) + len(public))


def _version_message(name: str, info: dict[str, Any]) -> arena_pb2.BotVersion:
    return arena_pb2.BotVersion(
        bot=name,
        version=info["version"],
        created=views.timestamp(info["created"]),
        size=info["size"],
        files=info["files"],
        entry=info["entry"],
        games=info["games"],
        active=info.get("active", False),
    )
