"""Hosted bot versions in the store, the upload pipeline and the workers' unpacked cache.

Keys (under the store's prefix, all ``hosted:``):

=============================== ===============================================================
``hosted:archive:HASH``         the version's archive as uploaded (bytes; immutable)
``hosted:versions:BOT``         hash HASH -> JSON (created, size, files, entry, games, owner:
                                the bot's owner, uploader: who submitted it)
``hosted:active:BOT``           the active version's HASH
``hosted:log:MATCH_ID:SEAT``    a hosted seat's output in that match (JSON: owner, bot, text)
``hosted:bytes``                hash owner -> bytes its bots' versions take (kept with each save
                                and delete; counted once where missing)
=============================== ===============================================================

The bot itself is a registered bot (``bots`` hash) whose endpoint is ``hosted:BOT``; a
tournament records ``hosted:BOT@HASH`` (the version active when it was created) as the
bot's address, and the workers play that version.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import clock
from arena.registry import get_game
from arena.runner import MatchCancelled, play_match
from arena.v1 import bot_pb2
from referee.hosted import archive, manifest
from referee.hosted.jail import IN_LOGS
from referee.hosted.player import HostedPlayer

log = logging.getLogger(__name__)

TRIAL_CLOCK = {"decision": 5000, "bank": 0, "grace": 500, "strikes": 0}
"""The trial's clock; its ``startup`` is a tournament's default (:func:`trial_clock`)."""
LOG_DAYS = 14
LOG_BUDGET = 64 * 1024 * 1024
"""Bytes of its hosted seats' output an owner has kept a day (UTC); past it a seat keeps a line
saying so. At 64 KiB a seat, one chatty bot once added about 10 GB a day per worker."""
TRIAL_WAIT = 60.0
TRIAL_SECONDS = 120.0
"""A trial match's whole time, well within the CLI's 300 s wait: its clock bounds each decision
(5 s), not the match, and an anytime bot in a long game played on for 7 minutes, its client
gone at 300 s and its slot held (an outside hosted-bot probe)."""
TRIAL_SLOTS = 2


class TrialsBusy(Exception):
    """No trial slot came free for this upload within TRIAL_WAIT seconds."""


class TrialSlots:
    """Trial matches at once in one service process (each runs a jail), at most one of them an
    owner's: an owner uploading slow bots one after another waits for its own trial, not for
    everyone's slots (with shared slots alone, one owner's uploads kept another's waiting
    until they were refused)."""

    def __init__(self, slots: int) -> None:
        self._changed = threading.Condition()
        self._free = slots
        self._owners: set[str] = set()

    def acquire(self, owner: str, timeout: float) -> None:
        """Take a slot for ``owner`` within ``timeout`` seconds, else TrialsBusy saying whose
        trial is in the way."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while owner in self._owners or self._free == 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self.busy(owner, timeout)
                self._changed.wait(remaining)
            self._owners.add(owner)
            self._free -= 1

    def try_acquire(self, owner: str) -> bool:
        """Take a slot for ``owner`` if one is free now (a caller that waits elsewhere: the
        service waits on its event loop, never in a thread the other calls need)."""
        with self._changed:
            if owner in self._owners or self._free == 0:
                return False
            self._owners.add(owner)
            self._free -= 1
            return True

    def busy(self, owner: str, waited: float) -> TrialsBusy:
        """Why ``owner`` got no slot in ``waited`` seconds."""
        with self._changed:
            mine = owner in self._owners
        if mine:
            return TrialsBusy(f"your previous upload's trial match still ran after {waited:.0f} s")
        return TrialsBusy(f"every trial slot stayed busy for {waited:.0f} s")

    def release(self, owner: str) -> None:
        with self._changed:
            self._owners.discard(owner)
            self._free += 1
            self._changed.notify_all()


TRIALS = TrialSlots(TRIAL_SLOTS)
TRIAL_THREADS = ThreadPoolExecutor(max_workers=TRIAL_SLOTS, thread_name_prefix="arena-trial")
"""The threads trial matches run in: not the service's shared pool, whose threads every other
call needs (a trial holds one for up to TRIAL_SECONDS)."""


CACHE = Path(tempfile.gettempdir()) / "arena-hosted-cache"
CACHE_BYTES = 4 * 1024 * 1024 * 1024
"""The unpacked versions a machine keeps (bytes of files): a version is unpacked once the least
recently used ones no match plays have made room for it. It only ever grew, deleted versions too
(three 101 KB uploads grew it 300 MiB); then only versions idle an hour went, so a flood within
the hour grew it without bound (an outside probe)."""


@dataclass(frozen=True)
class Checked:
    files: dict[str, bytes]
    manifest: manifest.Manifest
    version: str


def check_upload(data: bytes) -> Checked:
    """Everything short of running it: caps, paths, manifest, compile check (ArchiveError)."""
    files = archive.read_archive(data)
    found = archive.check_files(files)
    return Checked(files, found, archive.content_hash(files))


def trial(checked: Checked, game_id: str, owner: str, stopped: Callable[[], bool] | None = None) -> None:
    """A trial match against ``random`` in the sandbox: the bot must start, answer ``ready`` and
    play without failing, within TRIAL_SECONDS (ArchiveError says what went wrong, with the bot's
    output). ``owner`` is who uploads: one trial of theirs at a time (TrialSlots). ``stopped``
    (polled while it plays) ends it early: the upload abandoned, the service stopping."""
    TRIALS.acquire(owner, TRIAL_WAIT)
    trial_holding_slot(checked, game_id, owner, stopped)


def trial_holding_slot(checked: Checked, game_id: str, owner: str, stopped: Callable[[], bool] | None = None) -> None:
    """The trial of an upload whose owner holds a trial slot, given back when it ends."""
    from bots.registry import make_bot

    try:
        _trial(checked, game_id, make_bot, stopped)
    finally:
        TRIALS.release(owner)


def _trial(checked: Checked, game_id: str, make_bot: Any, stopped: Callable[[], bool] | None) -> None:
    game = get_game(game_id)
    players = min(max(2, game.meta.min_players), game.meta.max_players)
    config = game.config(players, {})
    directory = Path(tempfile.mkdtemp(prefix="arena-trial-"))
    try:
        archive.write_files(checked.files, directory / "bot")
        bot = HostedPlayer(directory / "bot", checked.manifest.entry, name=checked.manifest.name)
        others = [make_bot("random", game_id) for _ in range(players - 1)]
        record = play_match(
            game,
            config,
            1,
            [bot, *others],
            clock=trial_clock(),
            cancelled=stopped,
            match_seconds=TRIAL_SECONDS,
            match_bound="the trial's {seconds:.0f} s (every decision's limit applies too)",
        )
    except MatchCancelled:
        raise archive.ArchiveError(
            "the trial match was stopped: the upload was abandoned or the service stopped"
        ) from None
    finally:
        remove_tree(directory)
    failures = [f for f in record.failures if f.seat == 0]
    if failures:
        failure = failures[0]
        when = "at start-up (no ready)" if failure.decision < 0 else f"at decision {failure.decision}"
        tail = bot.output[-1500:].strip()
        detail = failure.detail.replace(f"; {IN_LOGS}", "")  # a trial has no logs: its output follows
        if failure.verdict == "stall" and failure.decision < 0:
            detail += f" (as a tournament's match allows at the default clock, startup={clock.DEFAULTS['startup']} ms)"
        raise archive.ArchiveError(
            f"trial match against random ({game_id}): {failure.verdict} {when}: {detail}"
            + (f"\nthe bot's output:\n{tail}" if tail and tail[-200:] not in detail else "")
        )


def trial_clock() -> bot_pb2.ClockSettings:
    """The trial's clock, whose start-up allowance is the one a tournament's matches have by
    default: a trial allowing 20 s accepted a bot that took 18 s to start, which then stalled in
    every match at the default 10 s (an outside probe)."""
    return clock.clock_settings({**TRIAL_CLOCK, "startup": clock.DEFAULTS["startup"]})


def remove_tree(directory: Path) -> None:
    """Remove ``directory`` and what it holds, however deep, errors ignored: Python 3.11's
    ``shutil.rmtree`` (and ``os.walk``) recurse once a level and raise RecursionError, which
    ``ignore_errors`` does not cover, about 1,000 levels down; an upload 2,000 deep was an INTERNAL
    error and left its trial's directory behind for good (an outside probe)."""
    try:
        shutil.rmtree(directory, ignore_errors=True)
    except RecursionError:  # the rest level by level, without recursing
        with contextlib.suppress(OSError):
            _remove_deep(directory)


def _remove_deep(directory: Path) -> None:
    """Remove a tree of any depth holding one directory open at a time, each named relative to
    its parent (a deep tree's paths can pass PATH_MAX): down into the first subdirectory left,
    unlinking the files on the way; up through ``..`` once a directory is empty, removing it.
    The first error stops it (OSError)."""
    below: list[str] = []  # the directories the walk went down through, from ``directory``
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        while True:
            with os.scandir(fd) as entries:
                found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
            for name, is_dir in found:
                if not is_dir:
                    os.unlink(name, dir_fd=fd)
            subdirectory = next((name for name, is_dir in found if is_dir), None)
            if subdirectory is not None:
                opened = os.open(subdirectory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                below.append(subdirectory)
            elif below:
                opened = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            else:
                break
            os.close(fd)
            fd = opened
            if subdirectory is None:
                os.rmdir(below.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(directory)


def _key(store: Any, *parts: object) -> str:
    return str(store.key("hosted", *parts))


MAX_VERSIONS = 20
"""Versions a hosted bot keeps (DeleteBotVersion forgets one)."""
MAX_OWNER_BYTES = 256 * 1024 * 1024
"""Bytes of uploads an owner keeps across its bots' versions (operators' uploads: no limit)."""


class NoRoom(Exception):
    """A new version would pass MAX_VERSIONS for its bot or the owner's byte limit."""


# The bytes an owner's versions take (``hosted:bytes``: owner -> bytes), kept with every save
# and delete; where missing (versions stored before it was kept), counted once from the owner's
# bots' versions, whatever their endpoint now.
_OWNER_BYTES = """
local function owner_bytes(bots, counts, prefix, owner)
  local used = redis.call('HGET', counts, owner)
  if used then return tonumber(used) end
  used = 0
  local all = redis.call('HGETALL', bots)
  for i = 1, #all, 2 do
    if cjson.decode(all[i + 1])['owner'] == owner then
      for _, raw in ipairs(redis.call('HVALS', prefix .. all[i])) do used = used + cjson.decode(raw)['size'] end
    end
  end
  return used
end
"""

_SAVE_VERSION = (
    _OWNER_BYTES
    + """
-- KEYS: the bot's versions, the archive, the bots, the owners' bytes
-- ARGV: version, its info (JSON), the archive, owner, size, most versions, most bytes (0: none),
--       the versions keys' prefix
-- Stores a version, its archive and its bytes in one step, unless the same content is already a
-- version of the bot (1, nothing new), the bot has the most versions (-1) or the owner's bytes
-- would pass the most (-2): uploads at once cannot go past either.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[6]) then return -1 end
local used = owner_bytes(KEYS[3], KEYS[4], ARGV[8], ARGV[4])
local size = tonumber(ARGV[5])
if tonumber(ARGV[7]) > 0 and used + size > tonumber(ARGV[7]) then return -2 end
redis.call('SET', KEYS[2], ARGV[3], 'NX')
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[4], used + size)
return 1
"""
)


def save_version(
    store: Any,
    bot: str,
    uploader: str,
    checked: Checked,
    data: bytes,
    *,
    max_versions: int = MAX_VERSIONS,
    max_bytes: int = 0,
    games: Sequence[str] = (),
) -> dict[str, Any]:
    """Store a checked version (idempotent: the same content is the same version) within the
    bot's ``max_versions`` and its owner's ``max_bytes`` (0: no byte limit), else NoRoom. The
    owner is the bot's (an operator may upload a version of another owner's bot: its logs and
    its bytes are still the bot owner's), ``uploader`` who submitted it. ``games``: those the
    upload chose among its manifest's (the bot plays them while the version is active; the
    same content uploaded again with a choice takes the new one), else the manifest's."""
    registered = store.bot(bot)
    owner = registered["owner"] if registered is not None else uploader
    info = {
        "version": checked.version,
        "created": time.time(),
        "size": len(data),
        "files": len(checked.files),
        "entry": checked.manifest.entry,
        "games": list(games) or list(checked.manifest.games),
        "owner": owner,
        "uploader": uploader,
    }
    script = store.redis.register_script(_SAVE_VERSION)
    keys = [
        _key(store, "versions", bot),
        _key(store, "archive", checked.version),
        store.key("bots"),
        _key(store, "bytes"),
    ]
    args = [
        checked.version,
        json.dumps(info),
        data,
        owner,
        len(data),
        max_versions,
        max_bytes,
        _key(store, "versions", ""),
    ]
    saved = script(keys=keys, args=args)
    if saved == -1:
        raise NoRoom(
            f"bot {bot!r} keeps {max_versions} versions, the most: delete one you no longer need first "
            f"(arena bots delete-version {bot} VERSION)"
        )
    if saved == -2:
        raise NoRoom(
            f"{owner}'s versions take {stored_bytes(store, owner)} bytes; this one ({len(data)}) would pass the "
            f"{max_bytes} an owner may keep: delete versions you no longer need first"
        )
    stored: dict[str, Any] = json.loads(store.redis.hget(_key(store, "versions", bot), checked.version))
    if games and stored["games"] != list(games):  # stored before, with another choice: this one now
        stored["games"] = list(games)
        store.redis.register_script(_SET_IF_EXISTS)(
            keys=[_key(store, "versions", bot)], args=[checked.version, json.dumps(stored)]
        )
    return stored


_SET_IF_EXISTS = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
"""


def stored_bytes(store: Any, owner: str) -> int:
    """What the owner's bots' versions take, as uploaded (a version kept by two bots counts
    twice: an upper bound of what its archives take)."""
    script = store.redis.register_script(_OWNER_BYTES + "return owner_bytes(KEYS[1], KEYS[2], ARGV[1], ARGV[2])")
    return int(script(keys=[store.key("bots"), _key(store, "bytes")], args=[_key(store, "versions", ""), owner]))


class VersionInUse(Exception):
    """A version that cannot be deleted: the bot's active one (``tournament`` None), or one a
    queued or running tournament plays (that tournament)."""

    def __init__(self, tournament: str | None) -> None:
        super().__init__(f"played by tournament {tournament}" if tournament else "the active version")
        self.tournament = tournament


_DELETE_VERSION = """
-- KEYS: the bot's versions, the archive, the bots, the owners' bytes, the bot's active version,
-- the active tournaments ; ARGV: the version, the versions keys' prefix, the tournaments' key
-- prefix, the version's address (hosted:BOT@HASH).
-- Returns 1 (deleted), 0 (no such version), -1 (the active version), or {-2, a tournament that
-- plays it}. Forgets the version and its bytes, and its archive unless some bot's versions
-- still name the same content. The checks and the delete are one step: a version activated,
-- or a tournament created to play it, in between cannot lose its archive.
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
if redis.call('GET', KEYS[5]) == ARGV[1] then return -1 end
for _, id in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  local t = ARGV[3] .. id
  local status = redis.pcall('HGET', t, 'status')  -- an error (not a hash) matches no status
  -- queued or running; or cancelled with a batch that may still be playing (no board yet)
  if status == 'queued' or status == 'running'
     or (status == 'cancelled' and redis.call('EXISTS', t .. ':leaderboard') == 0) then
    local spec = redis.call('HGET', t, 'spec')
    local ok, decoded = false, nil
    if spec then ok, decoded = pcall(cjson.decode, spec) end
    -- a spec that is not a JSON object (a damaged key) plays no version: it refuses no delete
    if ok and type(decoded) == 'table' then
      local addresses = decoded['addresses']
      if type(addresses) == 'table' then
        for _, address in pairs(addresses) do
          if address == ARGV[4] then return {-2, id} end
        end
      end
    end
  end
end
local info = cjson.decode(raw)
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HEXISTS', KEYS[4], info['owner']) == 1 then
  redis.call('HINCRBY', KEYS[4], info['owner'], -info['size'])
end
for _, name in ipairs(redis.call('HKEYS', KEYS[3])) do
  if redis.call('HEXISTS', ARGV[2] .. name, ARGV[1]) == 1 then return 1 end
end
redis.call('DEL', KEYS[2])
return 1
"""


def delete_version(store: Any, bot: str, version: str) -> None:
    """Forget one of the bot's versions and its bytes; its archive too, unless another bot keeps
    the same content (archives are stored by content). Refused (:class:`VersionInUse`) for the
    bot's active version and for a version a queued or running tournament plays. One Lua step:
    an activation or a tournament created meanwhile (each one step too, each checking that the
    version exists) and an upload of the same content to another bot cannot lose its archive."""
    script = store.redis.register_script(_DELETE_VERSION)
    keys = [
        _key(store, "versions", bot),
        _key(store, "archive", version),
        store.key("bots"),
        _key(store, "bytes"),
        _key(store, "active", bot),
        store.key("active"),
    ]
    result = script(keys=keys, args=[version, _key(store, "versions", ""), store.key("t", ""), address(bot, version)])
    if result == -1:
        raise VersionInUse(None)
    if isinstance(result, list):
        raise VersionInUse(result[1].decode() if isinstance(result[1], bytes) else result[1])


def address(bot: str, version: str) -> str:
    """What a tournament's spec records as the address of a hosted bot playing this version."""
    return f"hosted:{bot}@{version}"


def required(store: Any, addresses: dict[str, str]) -> list[tuple[str, str]]:
    """The (versions key, version) each hosted address of a tournament plays: what must still
    exist when the tournament is stored (``Store.create_tournament``'s ``requires``)."""
    found = []
    for spec in addresses.values():
        if spec.startswith("hosted:") and "@" in spec:
            bot, _, version = spec[len("hosted:") :].rpartition("@")
            found.append((_key(store, "versions", bot), version))
    return sorted(found)


def versions(store: Any, bot: str) -> list[dict[str, Any]]:
    """The bot's versions, oldest first, each with ``active``."""
    active = active_version(store, bot)
    found = [json.loads(raw) for raw in store.redis.hvals(_key(store, "versions", bot))]
    for info in found:
        info["active"] = info["version"] == active
    return sorted(found, key=lambda info: info["created"])


PREFIX = 8
"""The shortest prefix that names a version."""


def resolve(store: Any, bot: str, version: str) -> str | None:
    """The full hash of ``version`` (a unique prefix of at least PREFIX characters will do)."""
    matches = _matching(store, bot, version)
    return matches[0] if len(matches) == 1 else None


def unresolved(store: Any, bot: str, version: str) -> str:
    """Why ``version`` names no version of ``bot`` (for a ``resolve`` that gave None)."""
    if version and len(version) < PREFIX and any(h.startswith(version) for h in _hashes(store, bot)):
        return f"a version is named by its hash or a prefix of at least {PREFIX} characters ({len(version)} given)"
    found = len(_matching(store, bot, version))
    if found > 1:
        return f"the prefix matches {found} versions: give more characters"
    return "no such version (`arena bots versions` lists them)"


def _hashes(store: Any, bot: str) -> list[str]:
    return [h.decode() if isinstance(h, bytes) else h for h in store.redis.hkeys(_key(store, "versions", bot))]


def _matching(store: Any, bot: str, version: str) -> list[str]:
    return [h for h in _hashes(store, bot) if h == version or (len(version) >= PREFIX and h.startswith(version))]


_ACTIVATE = """
-- KEYS: the bot's versions, its active version ; ARGV: the version. 1 if activated, 0 if the
-- version is gone (deleted since it was named: one step, so no deleted version is made active).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return 1
"""


class NoSuchVersion(Exception):
    """The version to activate is not (or no longer) one of the bot's."""


def activate(store: Any, bot: str, version: str) -> None:
    script = store.redis.register_script(_ACTIVATE)
    if not script(keys=[_key(store, "versions", bot), _key(store, "active", bot)], args=[version]):
        raise NoSuchVersion(f"bot {bot!r} has no version {version[:16]} (deleted meanwhile?)")


def active_version(store: Any, bot: str) -> str | None:
    raw = store.redis.get(_key(store, "active", bot))
    return raw.decode() if isinstance(raw, bytes) else raw


_SAVE_LOG = """
-- KEYS: the seat's log, the owner's bytes of logs today ; ARGV: the log, what to keep past the
-- budget, seconds to keep it, its size, the budget. Returns 1 if the log was kept, 0 if the note.
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used + tonumber(ARGV[4]) > tonumber(ARGV[5]) then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 0
end
redis.call('INCRBY', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[2], 2 * 86400)
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return 1
"""


def save_log(
    store: Any,
    match_id: str,
    seat: int,
    owner: str,
    bot: str,
    text: str,
    *,
    budget: int = LOG_BUDGET,
    entered_by: str = "",
) -> bool:
    """Keep a hosted seat's output for LOG_DAYS, within a ``budget`` of bytes a day (UTC) for
    its owner's seats in tournaments ``entered_by`` created (the owner's, by default); past it, a
    line saying so is kept instead. True if the output was kept. A budget per creator: anyone
    may enter a bot, and another owner's large tournament used up the bot owner's whole day of
    logs, its own tournaments' included (an outside hosted-bot probe)."""
    creator = entered_by or owner
    entry = {"owner": owner, "bot": bot, "seat": seat}
    value = json.dumps({**entry, "text": text})
    where = "" if creator == owner else f" in tournaments {creator} created"
    note = (
        f"[arena: output not kept: {owner}'s hosted seats kept {budget} bytes of output today (UTC){where}, the most]"
    )
    day = time.strftime("%Y%m%d", time.gmtime())
    script = store.redis.register_script(_SAVE_LOG)
    keys = [_key(store, "log", match_id, seat), _key(store, "logbytes", owner, creator, day)]
    kept = script(keys=keys, args=[value, json.dumps({**entry, "text": note}), LOG_DAYS * 86400, len(value), budget])
    return bool(kept)


def version_ratings(store: Any, bot: str, game_ids: list[str], *, finished: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per version and game: one Bradley-Terry fit over the finished tournaments (the latest
    200) that played ``bot``, its versions entered apart (``BOT@VERSION``)."""
    from arena import leaderboard
    from arena.tournament import entrant_bot

    played: dict[str, list[Any]] = {}
    for tournament_id in store.tournaments(200):
        info = store.tournament(tournament_id)
        if info is None or info["status"] not in finished or info["spec"].get("game") not in game_ids:
            continue
        spec = store.spec(tournament_id)
        address = spec.addresses.get(bot, "")
        if not address.startswith(f"hosted:{bot}@"):
            continue
        version = address.rpartition("@")[2]
        summary = store.summary(tournament_id) or leaderboard.tournament_summary(
            spec,
            store.matches_in_order(tournament_id, int(info["total"])),  # read in chunks
        )
        names = {b: f"{b}@{version}" for b in spec.bots if entrant_bot(b) == bot}
        played.setdefault(spec.game, []).append(leaderboard.renamed_summary(summary, names))
    rows = []
    for game_id, tournaments in sorted(played.items()):
        board = leaderboard.across(game_id, tournaments)
        for row in board["leaderboard"]:
            if row["bot"].startswith(f"{bot}@"):
                rows.append({**row, "game": game_id, "version": row["bot"].rpartition("@")[2]})
    return rows


def bot_owner(store: Any, bot: str, info: dict[str, Any]) -> str:
    """Whose a hosted bot's logs are: its owner now (as registered), else the owner recorded
    with the version (before that was the bot's owner, it was the uploader)."""
    registered = store.bot(bot)
    return str(registered["owner"]) if registered is not None else str(info["owner"])


def version_info(store: Any, bot: str, version: str) -> dict[str, Any] | None:
    raw = store.redis.hget(_key(store, "versions", bot), version)
    return json.loads(raw) if raw is not None else None


def logs(store: Any, match_id: str, seats: int) -> list[dict[str, Any]]:
    """The kept output of a match's hosted seats (``seats``: its player count), in seat order:
    one read of the seats' keys (a SCAN for them walked every key in Redis on every call)."""
    keys = [_key(store, "log", match_id, seat) for seat in range(seats)]
    return [json.loads(raw) for raw in store.redis.mget(keys) if raw is not None] if keys else []


# -- the workers' side ----------------------------------------------------------------------------

_store: Any = None
_lock_unpacking = threading.Lock()
_context = threading.local()


def playing(tournament_id: str) -> None:
    """The tournament this thread's matches belong to (the workers say so before each batch):
    seat logs are kept under ``TOURNAMENT:MATCH``, as GetMatch names a match."""
    _context.tournament = tournament_id


def current_tournament() -> str:
    return getattr(_context, "tournament", "")


def configure(store: Any) -> None:
    """The store the workers fetch versions from and keep logs in (set before the pool forks)."""
    global _store
    _store = store


def configured() -> Any:
    return _store


class CacheFull(archive.ArchiveError):
    """A version cannot be unpacked: the cache would pass CACHE_BYTES with what matches play now."""


class Lease:
    """A match's hold on a cached version (a shared lock on its ``.HASH.lock``, released when
    the match's seat is closed, or its process ends): eviction passes over a version held."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.release()


def unpacked(version: str) -> Path:
    """The version's files in this machine's cache (fetched, checked and unpacked once per hash),
    held by no match (:func:`leased` for a match that plays it)."""
    directory, lease = leased(version)
    lease.release()
    return directory


def leased(version: str) -> tuple[Path, Lease]:
    """The version's files in this machine's cache, held until the lease is released: a match
    binds them into its seat's jail. CacheFull when there is no room for them."""
    if _store is None:
        raise archive.ArchiveError("hosted versions need a store (the workers configure one)")
    # Private to the worker's user: a seat reaches its own version through its jail's bind
    # (root binds it before dropping to the seat's uid), no other local account reads any.
    CACHE.mkdir(mode=0o700, exist_ok=True)
    if CACHE.stat().st_mode & 0o077:
        with contextlib.suppress(PermissionError):
            CACHE.chmod(0o700)  # made 0755 by an earlier version
    lease = Lease(_lock(version, fcntl.LOCK_SH))  # before looking: an eviction now waits for it
    try:
        return _unpack(version), lease
    except BaseException:
        lease.release()
        raise


def _lock(version: str, how: int) -> int:
    """A lock (fcntl.flock ``how``) on the version's lock file; a file evicted (unlinked) while
    waiting for it is opened again. BlockingIOError for LOCK_NB when another process holds it."""
    path = CACHE / f".{version}.lock"
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, how)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _unpack(version: str) -> Path:
    directory = CACHE / version
    if directory.is_dir():
        _used(directory)
        return directory
    with _lock_unpacking:
        if directory.is_dir():
            return directory
        data = _store.redis.get(_key(_store, "archive", version))
        if data is None:
            raise archive.ArchiveError(f"no hosted version {version} in the store")
        # Read as the upload was checked, without what macOS adds (the version is named without
        # it, but the archive stored is the upload's: those members are never read, so a link or
        # a size there cannot stop the worker); an earlier Arena's version counted them.
        try:
            files: dict[str, bytes] | None = archive.read_archive(data, stored=True, macos=False)
        except archive.ArchiveError:
            files = None
        if files is None or archive.content_hash(files) != version:
            files = archive.read_archive(data, stored=True)
        if archive.content_hash(files) != version:
            raise archive.ArchiveError(f"hosted version {version}: the stored archive does not match its hash")
        size = disk_bytes(files)
        make_room(size, version)
        staging = Path(tempfile.mkdtemp(prefix=f".{version[:12]}-", dir=CACHE))
        archive.write_files(files, staging)
        _write_atomically(CACHE / f".{version}{SIZE_FILE}", str(size))
        try:
            os.rename(staging, directory)  # atomic: another process may have won; both are equal
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    return directory


def _write_atomically(path: Path, text: str) -> None:
    """Write a small file whole or not at all (another process may read it meanwhile)."""
    staging = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    staging.write_text(text, encoding="utf-8")
    os.replace(staging, path)


def _used(directory: Path) -> None:
    """Mark a cached version as just used (its directory's time: the cache's recency order)."""
    with contextlib.suppress(OSError):
        os.utime(directory)


def make_room(size: int, keep: str = "") -> list[str]:
    """Evict the least recently used cached versions that no match holds until ``size`` more
    bytes fit within CACHE_BYTES (``keep``, being unpacked, stays); the versions evicted.
    CacheFull if the versions held leave no room. Another process may evict at once: each
    eviction takes the version's lock file exclusively first, so only one does it."""
    entries = []
    evicted, doomed = [], []
    for directory in CACHE.iterdir():
        name = directory.name
        if _left_behind(directory):
            doomed.append(directory)
            continue
        if name.startswith(".") and name.endswith(".bytes"):  # an earlier Arena's count of content alone
            with contextlib.suppress(OSError):
                directory.unlink()
            continue
        if name.endswith(".lock") and not (CACHE / name[1 : -len(".lock")]).exists():
            _drop_unused_lock(name[1 : -len(".lock")])
            continue
        if name.startswith(".") or name == keep or not directory.is_dir():
            continue
        sizes = CACHE / f".{name}{SIZE_FILE}"
        try:
            used = directory.stat().st_mtime
            if not sizes.exists():  # unpacked by an older Arena: measured once
                _write_atomically(sizes, str(sum(f.lstat().st_blocks * 512 for f in directory.rglob("*"))))
            entries.append((used, name, int(sizes.read_text(encoding="utf-8"))))
        except (OSError, ValueError):  # a size being written by another process reads ""
            continue
    total = sum(size for _, _, size in entries)
    for _, name, held in sorted(entries):
        if total + size <= CACHE_BYTES:
            break
        try:
            fd = _lock(name, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a match plays it
        gone = CACHE / f".evicted-{name}-{os.getpid()}"
        try:
            os.rename(CACHE / name, gone)
        except OSError:
            os.close(fd)
            continue  # another process took it first
        for path in (CACHE / f".{name}{SIZE_FILE}", CACHE / f".{name}.lock"):
            with contextlib.suppress(OSError):
                path.unlink()
        os.close(fd)
        doomed.append(gone)
        total -= held
        evicted.append(name)
    # Off the caller's thread: a worker unpacks as it makes a seat's player, on the event loop
    # its matches share, and removing a version's files can take a while.
    if doomed:
        threading.Thread(target=_remove, args=(doomed,), name="arena-cache-evict", daemon=True).start()
    if total + size > CACHE_BYTES:
        what = f"version {keep[:12]}" if keep else "a version"
        raise CacheFull(
            f"this worker's cache of unpacked hosted versions is full: {what} needs {_size(size)}, and the "
            f"versions its matches are playing hold {_size(total)} of its {_size(CACHE_BYTES)}"
        )
    return evicted


def _drop_unused_lock(version: str) -> None:
    """The lock file of a version not unpacked (its unpacking failed: no room, a missing or
    damaged archive), unless a seat holds it now (it is being unpacked): they were never removed."""
    try:
        fd = _lock(version, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, OSError):
        return
    try:
        if not (CACHE / version).exists():
            (CACHE / f".{version}.lock").unlink(missing_ok=True)
    finally:
        os.close(fd)


SIZE_FILE = ".disk"
"""Beside a version, what its files take on disk (`.bytes`, an earlier Arena's, counted their
content alone: re-measured, they no longer hold the cache under its bound; an outside review)."""

STAGING_SECONDS = 3600.0
"""A version's staging directory older than this was left by a process that died unpacking it."""


def _left_behind(path: Path) -> bool:
    """An evicted version whose removal ended with its process (the removing thread dies with
    it), or a staging directory such a process left: neither counted nor removed, they outgrew
    the bound (an outside review)."""
    name = path.name
    if name.startswith(".evicted-"):
        return True
    if not name.startswith(".") or name.endswith((SIZE_FILE, ".lock")) or not path.is_dir():
        return False
    try:
        return time.time() - path.stat().st_mtime > STAGING_SECONDS
    except OSError:
        return False


BLOCK = 4096


def disk_bytes(files: dict[str, bytes]) -> int:
    """What unpacked files take on disk: each file and directory at least a 4 KiB block (their
    content alone counted 1,900 one-byte files as 1,961 bytes, on 7.5 MiB of disk)."""
    directories = {path.rpartition("/")[0] for path in files} | {""}
    for path in list(directories):
        while path:
            path = path.rpartition("/")[0]
            directories.add(path)
    return sum(-(-len(content) // BLOCK) * BLOCK or BLOCK for content in files.values()) + BLOCK * len(directories)


def _size(size: int) -> str:
    return f"{size / archive.MiB:.1f} MiB"


def _remove(directories: list[Path]) -> None:
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)
