"""The Redis store: tournaments, match records, progress counters, leaderboards, bots, leases.

Key schema (version 1; every key starts with ``arena:v1:`` so a future layout can live beside it):

======================================== ====== ===============================================
key                                      type   holds
======================================== ====== ===============================================
``tournaments``                          zset   tournament ids by creation time
``t:{id}``                               hash   spec (JSON), status, total, done, batches, created,
                                                finished, error; owner, game_version, size, tail,
                                                window, next, groups, started, ended,
                                                fan_out_after, once:started, once:finished
``t:{id}:matches``                       hash   match index -> ``@GROUP:POSITION``, the record's
                                                place in a group (a record stored alone,
                                                Zstandard or zlib, as earlier versions did, is
                                                read too)
``t:{id}:groups``                        hash   group number -> the JSON lines of records stored
                                                together, one Zstandard frame; then, from
                                                this version's workers, a line of each
                                                record's tally entry (``arena.tallied``)
``t:{id}:events``                        stream one entry per store of matches, for followers:
                                                ``indices``, their ``group`` and, unless they
                                                are the whole group in order, their positions
                                                in it (``at``); earlier versions wrote
                                                ``indices`` alone
``t:{id}:cancel``                        string set when the tournament is cancelled
``t:{id}:finalizing``                    string set once, by the batch that stored the last match
                                                (or the first to finalise a cancelled one); a
                                                cancel or stop after it is refused
``t:{id}:leaderboard``                   string the leaderboard (JSON), written by finalisation
``owner:{name}:active``                  set    the owner's queued or running tournaments (ended
                                                ones leave it at the owner's next creation)
``active``                               set    every queued or running tournament (pruned
                                                as they end; read by the sweeper and metrics)
``game:{game}:all``                      zset   every tournament id of a game -> creation time
``game:{game}:tournaments``              zset   finalised tournament ids of a game
``game:{game}:leaderboard``              string the game's leaderboard across tournaments (JSON)
``game:{game}:changes``                  string tournaments counted into that board (a board is
                                                stored only if none was counted meanwhile)
``game-index:v1``                        string set once every tournament made before the
                                                games' own indexes is in ``game:{game}:all``
``t:{id}:summary``                       string what the game's leaderboard keeps of a complete
                                                tournament (JSON: bots, group win matrices,
                                                tallies); never expires, unlike its records
``bots``                                 hash   bot name -> registration (JSON)
``workers``                              zset   worker node -> until when it was last said alive
                                                (Redis's clock; ``arena worker`` says so every 10 s)
``services``                             zset   ``arena serve`` node (host:pid:PID namespace) ->
                                                until when it was last said alive (every 2 s,
                                                for 10 s): a second service is told in the log
``bot_counts``                           hash   owner name -> how many bots it registered (kept
                                                with every registration; counted from ``bots`` once
                                                where it is missing)
``bot_reads``                            hash   a bot name as it reads (:func:`read_as`) ->
                                                the name: no two read alike (made from
                                                ``bots`` once where it is missing)
``bot_folds``                            hash   its forerunner, left as it was: keyed by an
                                                older fold (runs of ``_ . -`` as one ``-``);
                                                no longer read or written
``owners``                               hash   owner name -> account (JSON: operator, created)
``bot:{name}:tournaments``               zset   a registered bot's newest tournaments (id ->
                                                creation time; at most ``BOT_TOURNAMENTS``)
``tokens``                               hash   sha256(token) -> owner name (tokens are never stored)
``lease:{endpoint}``                     zset   lease id -> expiry, Redis's time (per-bot
                                                concurrency)
``t:{id}:inflight``                      hash   batch number -> ``q SEQ TIME SOURCE`` (sent,
                                                waiting; SOURCE claimed it), ``r SEQ TIME
                                                [SOURCE]`` (running; TIME is its heartbeat;
                                                SOURCE: the batch whose worker took it) or
                                                ``p SEQ ...`` (parked: no live worker plays its
                                                game version); TIME is Redis's
``t:{id}:filled:{batch}``                string a refill's reply, kept an hour (a worker that
                                                lost it gets the same batches)
``parked``                               hash   a tournament with parked batches -> its game and
                                                the version they wait for
``versions``                             zset   each "game version" a live worker plays -> until
                                                when
``sweep:{id}``                           string the stall check's claim (lapses after
                                                ``ARENA_STALL_SECONDS``)
``hosted:...``                           —      hosted bots' archives, versions and logs
                                                (:mod:`referee.hosted.versions`)
``seq``                                  string sequence number of the last batch message sent
``started``                              string highest sequence number a worker has started
======================================== ====== ===============================================

Bounded queues (the window). A tournament's batches are numbered ``0 .. batches-1`` (batch
``b`` holds matches ``b*size`` up to ``(b+1)*size``, but the last ``size`` matches are split
into ``tail`` smaller batches: :func:`batch_range`); ``t:{id}`` holds ``size``, ``tail``,
``batches``, ``window`` and ``next`` (the next batch number to send). At most ``window`` batches of a
tournament are queued or running at once, each recorded in ``t:{id}:inflight``: a batch that
finishes removes its entry and claims the next batch numbers in the same script
(:meth:`Store.finish_batch`), so the queue holds O(window) messages per tournament, never
O(matches), and tournaments take turns in the FIFO queue (each finishing batch queues its
successor behind every other tournament's waiting batches). Every message carries a global
sequence number; a worker starting a batch records the highest it has started
(:meth:`Store.start_batch`). The queue is FIFO, so a batch still marked ``q`` whose sequence
number is below that mark, or with an empty queue, was popped and never started: lost
(:meth:`Store.lost_batches`), found by reading this tournament's few keys, never the queue.
A worker playing remote matches keeps its K slots busy by taking queued batches of the same
tournament itself (:meth:`Store.steal`; their queued messages are then skipped as superseded).
Everything a batch's worker claims (successors, stolen batches) names that batch as its source;
a worker that dies is redelivered its batch (acks are late), which sends again whatever its
source claimed and did not see through (:meth:`Store.orphans`).

Storing matches, counting them and deciding who finalises happen in one Lua script: a record is
stored only if its index is new (a redelivered batch never double-counts), ``done`` moves only
with a newly stored record, and exactly one caller sees ``done == total`` and gets to finalise.
Nothing is counted as done before it is written. A tournament the store no longer holds (a
``FLUSHALL``) gets nothing: the script writes nothing and the caller gets
:class:`TournamentMissing`. A worker stores its records in groups (about
50): the group's lines are one Zstandard frame in ``t:{id}:groups`` and each record's entry in
``t:{id}:matches`` says where it is in which group. Compressed together, RollDice records take
a third of the memory and a worker half the CPU to store them, against a frame each; a reader
decompresses each group it needs once.

Status changes are Lua scripts too, so none can overwrite another: ``queued -> running`` only
from ``queued``; ``cancelled``, ``stopped`` and ``complete`` are terminal (a cancel that lands as
a batch starts stays cancelled; a cancel of an ended tournament changes nothing and leaves no
key). Once the cancel flag is set no record is stored any more, so ``done`` stops moving and the
leaderboard of a cancelled tournament is exactly what was played before the cancel. Creating a
tournament checks the owner's running-tournament limit and reserves a place in one script.

Clocks. Workers share no clock, so whatever one process's time is compared with another's
is Redis's (``TIME``, read in the scripts that write or judge it): lease expiries, and the
window entries' times that :meth:`Store.lost_batches` judges. A worker's clock 100 s ahead
dropped the other workers' live leases (a bot with a limit of 2 got 3 matches at once); one
60 s behind looked dead to the stall check, and its batch was played twice. Timestamps kept
for humans and listings (``created``, ``started``, ``ended``, ``finished``, an owner's or a
bot's ``created``, the scores of ``tournaments`` and ``game:{game}:tournaments``) are the
writer's own wall clock: nothing waits on them, expires by them or judges liveness by them.

Records of finished tournaments expire after ``retention_days`` (default 30, or the
``ARENA_RETENTION_DAYS`` environment variable of the workers; 0 = keep forever); tournament
metadata and leaderboards are kept. Durability is Redis's: run it with AOF
(``appendonly yes``, ``appendfsync everysec``), see the README.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import uuid
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis
import zstandard
from redis import _parsers

from arena.config import env_number
from arena.record import MatchRecord
from arena.tallied import GroupTally, TallyEntry
from arena.tournament import TournamentSpec


class StoreRefusesWrites(redis.ResponseError, redis.ConnectionError):
    """Redis refusing what it cannot persist (``MISCONF``: a full disk, a failed save): an outage
    of the store, as a restart is, waited out and retried, never a crash or an internal error.
    As a plain ResponseError it made every worker exit with Celery's "Unrecoverable error" (kombu
    acknowledging a batch), and clients were told INTERNAL (an outside operator probe)."""


# redis-py names a reply error's class by its first word; MISCONF is not among them.
_parsers.BaseParser.EXCEPTION_CLASSES["MISCONF"] = StoreRefusesWrites

PREFIX = "arena:v1:"
FOLLOW_RECORDS = 1000
"""Records a follower reads at once, about (:meth:`Store.follow_lines`): whole stores, each a
worker's group (50 built-in matches, or the few remote ones of one flush)."""
GROUP_GUESS = 50
"""Records a store is guessed to hold before any is read (a worker's group of built-in matches)."""
BOT_TOURNAMENTS = 100  # a bot's newest tournaments kept in its index (bot:{name}:tournaments)
MAX_RETENTION_DAYS = 36_500
"""A hundred years: beyond what Redis takes as a key's lifetime (999999999999 days passed the
start and made every finalisation fail; an outside operator probe). 0 keeps forever."""
DEFAULT_RETENTION_DAYS = env_number(
    "ARENA_RETENTION_DAYS", 30, minimum=0, maximum=MAX_RETENTION_DAYS, note=" (0 keeps them for good)"
)

_STORE_MATCHES = """
-- KEYS: matches, tournament, events, finalizing, cancel, groups
-- ARGV: the group (its records' lines, compressed together), then their indices in its order.
-- Returns new1, done1, finalize1, new2, ... : each record stored only if its index is new,
-- counted only if stored, and finalize set for the one store that completes the tournament;
-- or false, writing nothing, if the store has no such tournament.
-- A record is stored as a reference into the group, '@GROUP:POSITION'; the group is kept if
-- it holds at least one stored record.
local total = tonumber(redis.call('HGET', KEYS[2], 'total'))
-- Gone (a FLUSHALL, a Redis started without its data): storing would recreate pieces of it
-- (its counters, records nobody will read) and then fail on the missing total.
if not total then return false end
-- A cancelled or ended tournament stores nothing more: its results are final.
local closed = redis.call('EXISTS', KEYS[5]) == 1
local new = {}
local stored = {}
local positions = {}
local group
if not closed then group = redis.call('HINCRBY', KEYS[2], 'groups', 1) end
-- Which indices are new: one HMGET and one HSET for the group (a command per record was most
-- of the script's time), in chunks that Lua's unpack takes; an index twice in one group is
-- stored at its first position only.
local CHUNK = 2000
local seen = {}
local refs = {}
local prefix = closed and '' or ('@' .. group .. ':')
for first = 2, #ARGV, CHUNK do
  local last = math.min(first + CHUNK - 1, #ARGV)
  local have = closed and {} or redis.call('HMGET', KEYS[1], unpack(ARGV, first, last))
  for i = first, last do
    local index = ARGV[i]
    if not closed and not have[i - first + 1] and not seen[index] then
      seen[index] = true
      new[#new + 1] = 1
      stored[#stored + 1] = index
      positions[#positions + 1] = i - 2
      refs[#refs + 1] = index
      refs[#refs + 1] = prefix .. (i - 2)
    else
      new[#new + 1] = 0
    end
  end
end
for first = 1, #refs, CHUNK do
  redis.call('HSET', KEYS[1], unpack(refs, first, math.min(first + CHUNK - 1, #refs)))
end
if #stored > 0 then redis.call('HSET', KEYS[6], group, ARGV[1]) end
-- Counted once for the call (a command per record was a third of the script's time): nothing
-- else runs inside a script, so a record's count is the count before the call plus the
-- records stored up to it here.
local done
if #stored > 0 then
  done = redis.call('HINCRBY', KEYS[2], 'done', #stored) - #stored
else
  done = tonumber(redis.call('HGET', KEYS[2], 'done'))
end
local out = {}
local tried = false
for k = 1, #new do
  done = done + new[k]
  local finalize = 0
  if new[k] == 1 and not tried and done >= total then
    tried = true
    if redis.call('SET', KEYS[4], '1', 'NX') then
      finalize = 1
    end
  end
  out[#out + 1] = new[k]
  out[#out + 1] = done
  out[#out + 1] = finalize
end
-- One event for the records stored here (a follower reads one entry, not one per match),
-- naming their group, so a follower reads the group without looking each record up; and
-- their positions in it, unless they are all of it, in order (the common case).
if #stored > 0 then
  if #stored == #ARGV - 1 then
    redis.call('XADD', KEYS[3], '*', 'indices', table.concat(stored, ','), 'group', group)
  else
    redis.call('XADD', KEYS[3], '*', 'indices', table.concat(stored, ','), 'group', group,
      'at', table.concat(positions, ','))
  end
end
return out
"""

ENDED = ("complete", "cancelled", "stopped")
PLAYED_OUT = "every match played and stored: it is being finalised, so nothing is left to cancel"
"""Why a live tournament whose every match is stored refuses a cancel (:data:`_TRANSITION`)."""
"""Terminal statuses; before them a tournament is ``queued`` then ``running``."""

_ACTIVE_PRUNE = """
local function active_count(set_key, prefix)
  for _, id in ipairs(redis.call('SMEMBERS', set_key)) do
    local status = redis.call('HGET', prefix .. id, 'status')
    if status ~= 'queued' and status ~= 'running' then
      redis.call('SREM', set_key, id)
    end
  end
  return redis.call('SCARD', set_key)
end
"""

_CREATE = (
    _ACTIVE_PRUNE
    + """
-- KEYS: tournament, tournaments zset, owner's active set, everyone's active set, the game's zset
-- ARGV: created, spec, total, batches, owner, limit (0: none), id, tournament key prefix, then
-- pairs of (hash key, field) that must exist (the hosted versions the tournament plays).
-- Returns 1 (created), 0 (the id exists), -n (the owner has n active, at the limit), or
-- {-1, k} (the k-th required pair is gone).
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 9, #ARGV, 2 do
  if redis.call('HEXISTS', ARGV[i], ARGV[i + 1]) == 0 then return {-1, (i - 9) / 2} end
end
-- pruned at every creation, with a limit or not (an operator's has none): the set holds the
-- live tournaments and those ended since the owner's last creation, not every one ever made
local n = active_count(KEYS[3], ARGV[8])
local limit = tonumber(ARGV[6])
if limit > 0 and n >= limit then return -n end
redis.call('HSET', KEYS[1], 'created', ARGV[1], 'spec', ARGV[2], 'status', 'queued', 'total', ARGV[3],
           'done', 0, 'batches', ARGV[4], 'owner', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[7])
redis.call('ZADD', KEYS[5], ARGV[1], ARGV[7])
if ARGV[5] ~= '' then redis.call('SADD', KEYS[3], ARGV[7]) end
redis.call('SADD', KEYS[4], ARGV[7])
return 1
"""
)


def read_as(name: str) -> str:
    """A name as it reads: letter case and every ``_ . -`` fold away (a run of them was kept as
    one ``-``, and an outside probe registered ``alicebot`` beside ``alice-bot``). The same fold
    as the store's scripts' (``_FOLD``), for names checked outside them."""
    return re.sub(r"[_.-]", "", name.lower())


# A name as it reads, in the scripts: :func:`read_as`.
_FOLD = """
local function fold(name)
  return (string.gsub(string.lower(name), '[_.%-]', ''))
end
"""

_ADD_OWNER = (
    """
-- KEYS: owners, tokens ; ARGV: name, account (JSON), the token's hash
-- Creates an owner unless the name is taken (0) or another reads like it ({-2, that name}):
-- owners are few and made by an operator, so every name is compared.
"""
    + _FOLD
    + """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local folded = fold(ARGV[1])
for _, known in ipairs(redis.call('HKEYS', KEYS[1])) do
  if fold(known) == folded then return {-2, known} end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
return 1
"""
)

_ADD_BOT = (
    """
-- KEYS: bots, bot_counts, bot_reads ; ARGV: name, registration (JSON), owner, limit (0 = none)
-- Registers a bot unless the name is taken (0), another differs from it only in letter case and
-- _ . - ({-2, that name}), or the owner has ``limit`` bots already (-1). bot_reads: a name's
-- folded form -> the name, made here from every registered name once: for bots registered
-- before it, and before the fold dropped every _ . - (bot_folds holds the older fold's forms).
-- Names registered then that now read alike are all kept; the index names one of them.
"""
    + _FOLD
    + """if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  for _, known in ipairs(redis.call('HKEYS', KEYS[1])) do
    redis.call('HSETNX', KEYS[3], fold(known), known)
  end
end
local like = redis.call('HGET', KEYS[3], fold(ARGV[1]))
if like then return {-2, like} end
local count = redis.call('HGET', KEYS[2], ARGV[3])
if count then
  count = tonumber(count)
else  -- registered before counts were kept: count once
  count = 0
  for _, raw in ipairs(redis.call('HVALS', KEYS[1])) do
    if cjson.decode(raw)['owner'] == ARGV[3] then count = count + 1 end
  end
end
local limit = tonumber(ARGV[4])
if limit > 0 and count >= limit then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], count + 1)
redis.call('HSET', KEYS[3], fold(ARGV[1]), ARGV[1])
return 1
"""
)

_REPLACE_TOKENS = """
-- KEYS: owners, tokens ; ARGV: owner, the new token's hash
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -1 end
local all = redis.call('HGETALL', KEYS[2])
local revoked = 0
for i = 1, #all, 2 do
  if all[i + 1] == ARGV[1] then redis.call('HDEL', KEYS[2], all[i]); revoked = revoked + 1 end
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return revoked
"""

_WORKER_SEEN = """
-- KEYS: workers, versions ; ARGV: node, seconds it counts as alive, then the "game version"
-- labels the node plays. Redis's clock: one for every host.
local now = tonumber(redis.call('TIME')[1])
local until_ = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], until_, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 3, #ARGV do
  local seen = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[i]) or '0')
  if seen < until_ then redis.call('ZADD', KEYS[2], until_, ARGV[i]) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return 1
"""

_VERSION_ALIVE = """
-- KEYS: versions ; ARGV: a "game version" label. Whether a live worker node plays it.
local until_ = redis.call('ZSCORE', KEYS[1], ARGV[1])
return until_ and tonumber(until_) >= tonumber(redis.call('TIME')[1]) and 1 or 0
"""

_SERVICE_SEEN = """
-- KEYS: services ; ARGV: node, seconds it counts as alive. Notes the node alive until then (by
-- Redis's clock, one for every host) and returns the other nodes alive.
local now = tonumber(redis.call('TIME')[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
local others = {}
for _, node in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if node ~= ARGV[1] then others[#others + 1] = node end
end
return others
"""

_WORKERS_ALIVE = """
-- KEYS: workers. How many nodes said they were alive within their time.
return redis.call('ZCOUNT', KEYS[1], tonumber(redis.call('TIME')[1]), '+inf')
"""

_SAVE_IF_UNCHANGED = """
-- KEYS: the game's change counter, its leaderboard ; ARGV: the counter as read, the board
-- Stores the board only if no tournament was counted in since the counter was read.
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
return 1
"""

_TRANSITION = """
-- KEYS: tournament, cancel flag, finalizing ; ARGV: new status, 'flag' to set the cancel flag, now
-- Moves a live (queued or running) tournament to a new status; returns {the status it has
-- after, 1 if this call moved it else 0}, or false for no such tournament.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return false end
local live = status == 'queued' or status == 'running'
if ARGV[1] == 'running' then
  if status == 'queued' then
    redis.call('HSET', KEYS[1], 'status', 'running', 'started', ARGV[3])
    return {'running', 1}
  end
  return {status, 0}
end
if not live then return {status, 0} end
-- Every match is stored (the last store claimed finalisation): nothing is left to cancel or
-- stop, and finalisation, already under way, counts the results in. A cancel accepted here
-- came too late to keep them out of the game's board (an outside races probe: 19 of 20).
if ARGV[2] == 'flag' and redis.call('EXISTS', KEYS[3]) == 1 then return {status, 0} end
if ARGV[2] == 'flag' then redis.call('SET', KEYS[2], '1') end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
if ARGV[1] == 'complete' or ARGV[1] == 'cancelled' or ARGV[1] == 'stopped' then
  redis.call('HSET', KEYS[1], 'ended', ARGV[3])
end
return {ARGV[1], 1}
"""

_FINISH = """
-- KEYS: tournament, cancel flag ; ARGV: status wanted (complete or stopped), now
-- Finalisation's last word: cancelled stays cancelled (terminal), otherwise the status wanted.
-- A stopped tournament (the SPRT decided) stays stopped too.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return false end
if status ~= 'cancelled' and status ~= 'stopped' then
  status = ARGV[1]
end
redis.call('HSET', KEYS[1], 'status', status, 'finished', ARGV[2])
return status
"""

_REDIS_NOW = """
-- Redis's clock, the one every worker shares (their own may disagree by minutes): NOW, the
-- time as a string of seconds with 6 decimals (window entries, lease expiries), and
-- now_plus(seconds). A script that reads TIME and then writes needs effects replication: the
-- default since Redis 5 (which streams need anyway), the only mode since 7; asked for here in
-- case a server was configured otherwise (a no-op since 7).
redis.replicate_commands()
local clock = redis.call('TIME')
local NOW = clock[1] .. '.' .. string.format('%06d', tonumber(clock[2]))
local function now_plus(seconds)
  return string.format('%.6f', tonumber(clock[1]) + tonumber(clock[2]) / 1000000 + tonumber(seconds))
end
"""

_TAKE_LEASE = """
-- take(lease, limit, seconds) on the lease zset KEYS[1]: 1 if fewer than limit leases are live
-- (the lapsed ones dropped first) and this one now expires seconds from NOW, else 0.
local function take(lease, limit, seconds)
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', NOW)
  if redis.call('ZCARD', KEYS[1]) < tonumber(limit) then
    redis.call('ZADD', KEYS[1], now_plus(seconds), lease)
    return 1
  end
  return 0
end
"""

_ACQUIRE = (
    _REDIS_NOW
    + _TAKE_LEASE
    + """
-- KEYS: lease zset ; ARGV: lease seconds, limit, lease id. Returns 1 (granted) or 0.
return take(ARGV[3], ARGV[2], ARGV[1])
"""
)

_RENEW = (
    _REDIS_NOW
    + _TAKE_LEASE
    + """
-- KEYS: lease zset ; ARGV: lease seconds, lease id, limit. Returns 1 (held) or 0 (lost).
-- A lease still there moves its expiry on: a lapsed lease nobody has dropped yet still holds
-- its slot (every acquire drops lapsed leases before counting), so keeping it over-grants
-- nothing. One that is gone (dropped after lapsing while its worker stalled, or Redis
-- restarted empty) is taken again if the bot has room, as acquire would; else it is lost.
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now_plus(ARGV[1]), ARGV[2])
  return 1
end
return take(ARGV[2], ARGV[3], ARGV[1])
"""
)

_LEASES = (
    _REDIS_NOW
    + """
-- KEYS: lease zset. The live leases' count (the lapsed ones dropped).
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', NOW)
return redis.call('ZCARD', KEYS[1])
"""
)


_FILL = (
    _REDIS_NOW
    + """
-- KEYS: tournament, inflight, cancel, seq, reply ; ARGV: finished batch ('' for none), its seq,
-- source (who claims: the finished batch's number, or a name), the caller's token ('' for none)
-- A finished batch leaves the window (only the copy it was sent as: a superseded copy changes
-- nothing); then, for a live tournament, the next batch numbers are claimed until the window
-- is full, each entry naming its source. Returns batch1, seq1, batch2, seq2, ... : the
-- messages the caller must send. The reply is kept an hour under the caller's token: a caller
-- that lost it (the connection dropped after the script ran) and asks again with the same token
-- gets the same batches to send; anyone else asks anew.
if ARGV[4] ~= '' then
  local kept = redis.call('GET', KEYS[5])
  if kept then
    local reply = cjson.decode(kept)
    if reply[1] == ARGV[4] then return reply[2] end
  end
end
if ARGV[1] ~= '' then
  local entry = redis.call('HGET', KEYS[2], ARGV[1])
  if not entry then return {} end
  local seq = string.match(entry, '^%a (%d+)')
  if seq ~= ARGV[2] then return {} end
  redis.call('HDEL', KEYS[2], ARGV[1])
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {} end
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return {} end
local batches = tonumber(redis.call('HGET', KEYS[1], 'batches') or '0')
local window = tonumber(redis.call('HGET', KEYS[1], 'window') or '1')
local nxt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
local out = {}
local inflight = redis.call('HLEN', KEYS[2])
while nxt < batches and inflight < window do
  local seq = redis.call('INCR', KEYS[4])
  redis.call('HSET', KEYS[2], nxt, 'q ' .. seq .. ' ' .. NOW .. ' ' .. ARGV[3])
  out[#out + 1] = nxt
  out[#out + 1] = seq
  nxt = nxt + 1
  inflight = inflight + 1
end
redis.call('HSET', KEYS[1], 'next', nxt)
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[5], cjson.encode({ARGV[4], out}), 'EX', 3600)
end
return out
"""
)

_ORPHANS = (
    _REDIS_NOW
    + """
-- KEYS: inflight, seq ; ARGV: source
-- The batches a source claimed and has not seen through: claimed and perhaps never sent (it
-- died between claiming and sending), or taken to play itself (stolen, see _STEAL). They get
-- new sequence numbers, to be sent again; a copy sent or playing after all is then superseded.
-- Called when the source's own batch is delivered again. Returns batch1, seq1, ...
local out = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local state, _, _, source = string.match(entries[i + 1], '^(%a) (%d+) (%S+) ?(%S*)')
  if source == ARGV[1] and state ~= 'p' then  -- a parked batch was sent and waits (_PARK)
    local seq = redis.call('INCR', KEYS[2])
    redis.call('HSET', KEYS[1], entries[i], 'q ' .. seq .. ' ' .. NOW .. ' ' .. ARGV[1])
    out[#out + 1] = entries[i]
    out[#out + 1] = seq
  end
end
return out
"""
)

_START_BATCH = (
    _REDIS_NOW
    + """
-- KEYS: tournament, inflight, cancel, started ; ARGV: batch, seq, the caller's wall-clock time
-- (only for the tournament's ``started`` field, for humans; the entry's time is Redis's).
-- Returns 'cancelled', 'done' (no such batch in flight: it finished), 'superseded' (sent again
-- since: the newer copy plays) or 'play' (the batch is marked running, the mark raised).
if redis.call('EXISTS', KEYS[3]) == 1 then return 'cancelled' end
local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return 'done' end
if string.match(entry, '^%a (%d+)') ~= ARGV[2] then return 'superseded' end
redis.call('HSET', KEYS[2], ARGV[1], 'r ' .. ARGV[2] .. ' ' .. NOW)
if tonumber(redis.call('GET', KEYS[4]) or '0') < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[4], ARGV[2])
end
if redis.call('HGET', KEYS[1], 'status') == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'started', ARGV[3])
end
return 'play'
"""
)

_HEARTBEAT = (
    _REDIS_NOW
    + """
-- KEYS: inflight ; ARGV: batch, seq. A running batch says it is alive (its copy only).
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then return 0 end
local state, seq, _, source = string.match(entry, '^(%a) (%d+) (%S+) ?(%S*)')
if state == 'r' and seq == ARGV[2] then
  local tail = source ~= '' and (' ' .. source) or ''
  redis.call('HSET', KEYS[1], ARGV[1], 'r ' .. ARGV[2] .. ' ' .. NOW .. tail)
  return 1
end
return 0
"""
)

_STEAL = (
    _REDIS_NOW
    + """
-- KEYS: inflight, cancel, seq ; ARGV: source, the states it takes ('q' queued, 'p' parked)
-- A worker with free slots takes the lowest-numbered queued (or parked: it plays the version
-- the tournament is pinned to, or it would not be playing it) batch of the tournament to play
-- itself: the entry becomes running under a new sequence number (the queued message is then
-- superseded, skipped when it comes) and names the taker's own batch as its source, so the
-- taker's redelivery sends it again should the taker die. Returns {batch, seq} or false.
if redis.call('EXISTS', KEYS[2]) == 1 then return false end
local best
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  if string.find(ARGV[2], string.sub(entries[i + 1], 1, 1), 1, true) then
    local number = tonumber(entries[i])
    if best == nil or number < best then best = number end
  end
end
if best == nil then return false end
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], best, 'r ' .. seq .. ' ' .. NOW .. ' ' .. ARGV[1])
return {best, seq}
"""
)

_LOST = (
    _REDIS_NOW
    + """
-- KEYS: inflight, started, queue ; ARGV: stale seconds
-- The window's entries that are neither waiting in the queue nor alive (see lost_batches),
-- judged against Redis's clock, which wrote every entry's time. Returns number1, entry1, ...
local started = tonumber(redis.call('GET', KEYS[2]) or '0')
local queued = redis.call('LLEN', KEYS[3])
local oldest = tonumber(NOW) - tonumber(ARGV[1])
local out = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local state, seq, at = string.match(entries[i + 1], '^(%a) (%d+) (%S+)')
  local popped = state == 'q' and (tonumber(seq) < started or queued == 0)
  local dead = state == 'r' and tonumber(at) < oldest
  if popped or dead then
    out[#out + 1] = entries[i]
    out[#out + 1] = entries[i + 1]
  end
end
return out
"""
)

_RESEND = (
    _REDIS_NOW
    + """
-- KEYS: inflight, seq ; ARGV: batch, the entry as the caller judged it lost
-- A lost batch gets a new sequence number (its old copy, should it ever start, is superseded);
-- nothing happens if the entry changed since it was judged. Returns the new seq or false.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return false end
local seq = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], 'q ' .. seq .. ' ' .. NOW)
return seq
"""
)


_PARK = (
    _REDIS_NOW
    + """
-- KEYS: inflight, cancel, parked ; ARGV: batch, seq, tournament, the game version it waits for
-- A worker of another game version sets a queued batch aside: its entry becomes parked
-- ('p seq time source'), which the stall check leaves alone (see _LOST), and the tournament is
-- listed under ``parked`` until a worker of that version (or the tournament's end) sends its
-- parked batches again (_UNPARK). Returns 'parked', or 'cancelled', 'done' or 'superseded'
-- as _START_BATCH would, or 'superseded' for a running batch (then nothing is parked).
if redis.call('EXISTS', KEYS[2]) == 1 then return 'cancelled' end
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then return 'done' end
local state, seq, _, source = string.match(entry, '^(%a) (%d+) (%S+) ?(%S*)')
if seq ~= ARGV[2] then return 'superseded' end
-- Running: this is a second delivery of a message another worker plays (the stall check sends
-- it again should that worker have died).
if state == 'r' then return 'superseded' end
local tail = source ~= '' and (' ' .. source) or ''
redis.call('HSET', KEYS[1], ARGV[1], 'p ' .. seq .. ' ' .. NOW .. tail)
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
return 'parked'
"""
)

_UNPARK = (
    _REDIS_NOW
    + """
-- KEYS: inflight, seq, parked ; ARGV: tournament
-- Every parked batch of the tournament goes back to the queue under a new sequence number (a
-- copy parked later with the old one is then superseded); the tournament leaves ``parked``.
-- Returns batch1, seq1, ... : the messages the caller must send.
local out = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local state, _, _, source = string.match(entries[i + 1], '^(%a) (%d+) (%S+) ?(%S*)')
  if state == 'p' then
    local seq = redis.call('INCR', KEYS[2])
    local tail = source ~= '' and (' ' .. source) or ''
    redis.call('HSET', KEYS[1], entries[i], 'q ' .. seq .. ' ' .. NOW .. tail)
    out[#out + 1] = entries[i]
    out[#out + 1] = seq
  end
end
redis.call('HDEL', KEYS[3], ARGV[1])
return out
"""
)


@dataclass(frozen=True)
class Batch:
    """A batch message to send: its number in the tournament and its sequence number."""

    number: int
    seq: int


class ActiveLimit(Exception):
    """The owner already has as many running tournaments as allowed."""

    def __init__(self, active: int) -> None:
        super().__init__(f"{active} tournaments running")
        self.active = active


class Missing(LookupError):
    """A field a new tournament requires (a hosted version it plays) is gone."""

    def __init__(self, key: str, field: str) -> None:
        super().__init__(f"{key} has no {field}")
        self.key = key
        self.field = field


class TournamentMissing(LookupError):
    """The store no longer holds the tournament (its keys were lost: a ``FLUSHALL``, a Redis
    started without its data); nothing was written. Its matches have nowhere to go."""


@dataclass(frozen=True)
class Stored:
    new: bool  # False: this match was stored before (a redelivery)
    done: int
    finalize: bool  # True for exactly one caller: the one that stored the last match


COMPRESSION = 1
"""Zstandard's level 1, not its default 3: on the records of every game (two repeats of each
with its default bots) 14% less time to compress in all and 1.6% smaller, no game's records
more than 1.3% larger. Stored blobs of either level read the same."""
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # every Zstandard frame starts so; a zlib stream never does
_codecs = threading.local()  # a Zstandard (de)compressor serves one thread at a time


def compress_line(line: str) -> bytes:
    """JSON lines as stored (a group's, joined by newlines). Zstandard, not zlib: 5 against 13
    µs a RollDice record to compress (2 against 3 to decompress), at about the same size (392
    against 369 bytes)."""
    compressor = getattr(_codecs, "compressor", None)
    if compressor is None:
        compressor = _codecs.compressor = zstandard.ZstdCompressor(level=COMPRESSION)
    return compressor.compress(line.encode())


def decompress_line(blob: bytes) -> str:
    """A stored record's JSON line, whichever way it was compressed."""
    if not blob.startswith(ZSTD_MAGIC):
        return zlib.decompress(blob).decode()
    decompressor = getattr(_codecs, "decompressor", None)
    if decompressor is None:
        decompressor = _codecs.decompressor = zstandard.ZstdDecompressor()
    return decompressor.decompress(blob).decode()


def _group_tally(parts: list[str], bots: Sequence[str]) -> list[TallyEntry] | None:
    """The tally entries of a group's records (its lines, ``parts``), if its last line holds
    them for these bots, one per record."""
    if len(parts) < 2 or not GroupTally.is_line(parts[-1]):
        return None
    tally = GroupTally.decode(parts[-1])
    if tally is None or tally.bots != list(bots) or len(tally.entries) != len(parts) - 1:
        return None
    return tally.entries


TAIL_PARTS = 4
"""The last ``size`` matches of a tournament are played in this many smaller batches."""


def _layout(total: int, size: int, tail: int) -> tuple[int, int, int]:
    """(matches in full-size batches, how many such batches, the size of a tail batch)."""
    head = max(0, total - size) if tail > 1 else total
    return head, -(-head // size), -(-size // tail)


def batch_range(batch: int, total: int, size: int, tail: int = TAIL_PARTS) -> range:
    """The schedule indices of batch ``batch``: batches of ``size`` in schedule order, except
    that the last ``size`` matches are split into ``tail`` batches. Worker processes take
    batches as they come free, so at the end of a tournament one of them can be left with a
    whole batch to play while the others wait: smaller last batches shorten that wait (with
    two processes and 500-match batches, about 50 ms of a 1.1 s tournament). ``tail`` 1 is
    the layout of tournaments planned before the split (no ``tail`` field)."""
    head, head_batches, part = _layout(total, size, tail)
    if batch < head_batches:
        return range(batch * size, min(head, (batch + 1) * size))
    start = head + (batch - head_batches) * part
    return range(start, min(total, start + part))


def batch_count(total: int, size: int, tail: int = TAIL_PARTS) -> int:
    """How many batches :func:`batch_range` makes of ``total`` matches."""
    head, head_batches, part = _layout(total, size, tail)
    return head_batches + -(-(total - head) // part)


class LookAlike(Exception):
    """A bot name that differs from a registered one only in letter case and ``_ . -``: on a
    leaderboard the two read as one bot (an outside probe registered ``ALICE-BOT`` beside
    ``alice-bot``). ``args[0]``: the registered name."""


class TooManyBots(Exception):
    """An owner has registered as many bots as it may (``Store.add_bot``'s ``limit``)."""


class Store:
    """Arena's data in Redis (see the module docstring for the schema)."""

    def __init__(self, url: str, *, retention_days: int = DEFAULT_RETENTION_DAYS, socket_timeout: float = 30.0) -> None:
        self.url = url
        self.retention_days = retention_days
        self.socket_timeout = socket_timeout  # how long a reply is waited for
        self._pid = -1
        self._client: Any = None

    @property
    def redis(self) -> Any:
        """The client (typed Any: redis-py's return types are unions of every reply shape)."""
        # Connections are made in the process that uses them (never inherited across fork).
        if self._client is None or self._pid != os.getpid():
            # Threads share a store: the client is published after its scripts (a thread that
            # sees it uses them at once), and the pid after the client (a thread that sees a new
            # client with an old pid makes one more, harmlessly).
            client = redis.Redis.from_url(
                self.url,
                socket_timeout=self.socket_timeout,
                socket_connect_timeout=min(5.0, self.socket_timeout),
                health_check_interval=30,
            )
            self._store_matches = client.register_script(_STORE_MATCHES)
            self._create = client.register_script(_CREATE)
            self._transition = client.register_script(_TRANSITION)
            self._finish = client.register_script(_FINISH)
            self._acquire = client.register_script(_ACQUIRE)
            self._renew = client.register_script(_RENEW)
            self._leases = client.register_script(_LEASES)
            self._lost = client.register_script(_LOST)
            self._fill = client.register_script(_FILL)
            self._start_batch = client.register_script(_START_BATCH)
            self._heartbeat = client.register_script(_HEARTBEAT)
            self._resend = client.register_script(_RESEND)
            self._orphans = client.register_script(_ORPHANS)
            self._steal = client.register_script(_STEAL)
            self._park = client.register_script(_PARK)
            self._unpark = client.register_script(_UNPARK)
            self._save_if_unchanged = client.register_script(_SAVE_IF_UNCHANGED)
            self._add_bot = client.register_script(_ADD_BOT)
            self._add_owner = client.register_script(_ADD_OWNER)
            self._replace_tokens = client.register_script(_REPLACE_TOKENS)
            self._worker_seen = client.register_script(_WORKER_SEEN)
            self._workers_alive = client.register_script(_WORKERS_ALIVE)
            self._service_seen = client.register_script(_SERVICE_SEEN)
            self._version_alive = client.register_script(_VERSION_ALIVE)
            self._client = client
            self._pid = os.getpid()
        return self._client

    def key(self, *parts: object) -> str:
        return PREFIX + ":".join(str(p) for p in parts)

    def ping(self) -> bool:
        return bool(self.redis.ping())

    def worker_seen(self, node: str, seconds: float, versions: Sequence[tuple[str, str]] = ()) -> None:
        """A worker node says it is alive, for ``seconds`` more (by Redis's clock), and which
        (game, version) pairs it plays (:meth:`version_alive`)."""
        _ = self.redis
        labels = [f"{game} {version}" for game, version in versions]
        self._worker_seen(keys=[self.key("workers"), self.key("versions")], args=[node, seconds, *labels])

    def service_seen(self, node: str, seconds: float) -> list[str]:
        """An ``arena serve`` says it is alive for ``seconds`` more (by Redis's clock); returns
        the other services that said so within their time."""
        _ = self.redis
        return sorted(n.decode() for n in self._service_seen(keys=[self.key("services")], args=[node, seconds]))

    def service_gone(self, node: str) -> None:
        """A service that stops (or one found dead) is no longer counted."""
        self.redis.zrem(self.key("services"), node)

    def other_version_alive(self, game: str, version: str) -> bool:
        """Whether a live worker node plays another version of the game than ``version`` (a
        mixed fleet, whose nodes park each other's batches)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.time()
        pipe.zrange(self.key("versions"), 0, -1, withscores=True)
        (now, _), labels = pipe.execute()
        prefix = f"{game} ".encode()
        mine = prefix + version.encode()
        return any(label.startswith(prefix) and label != mine and until >= now for label, until in labels)

    def version_alive(self, game: str, version: str) -> bool:
        """Whether a live worker node plays this version of the game (it said so within its
        time): a batch pinned to it is then left to that node, not parked."""
        _ = self.redis
        return bool(self._version_alive(keys=[self.key("versions")], args=[f"{game} {version}"]))

    def workers_alive(self) -> int:
        """How many worker nodes said they were alive within their time."""
        _ = self.redis
        return int(self._workers_alive(keys=[self.key("workers")]))

    def waiting_without_workers(self, seconds: float) -> list[str]:
        """Tournaments queued longer than ``seconds`` (by the writer's clock) while no worker
        node is alive on this store: a service pointed at another database than its workers, or
        no worker started (they would wait forever, without a word)."""
        if self.workers_alive():
            return []
        now = time.time()
        waiting = []
        for tournament_id in self.active_ids():
            status, created = self.redis.hmget(self.key("t", tournament_id), "status", "created")
            if status == b"queued" and created is not None and now - float(created) > seconds:
                waiting.append(tournament_id)
        return waiting

    def setting_warnings(self) -> list[str]:
        """What in the server's settings puts Arena's data at risk (README, "Redis persistence an
        operator must enable"): no append-only file (a restart loses every write since the last
        snapshot) or an eviction policy (Redis would drop queued batches and records under
        memory pressure). Empty where the server will not say (a managed Redis may refuse
        CONFIG)."""
        try:
            settings = (
                self.redis.config_get("appendonly")
                | self.redis.config_get("appendfsync")
                | self.redis.config_get("maxmemory-policy")
            )
        except redis.ResponseError:
            return []
        found = {
            str(k.decode() if isinstance(k, bytes) else k): v.decode() if isinstance(v, bytes) else str(v)
            for k, v in settings.items()
        }
        warnings = []
        if found.get("appendonly", "yes") != "yes":
            warnings.append("Redis runs without appendonly: a restart loses every write since its last snapshot")
        elif found.get("appendfsync", "everysec") == "no":  # the README's check said so; it was not made
            warnings.append(
                "Redis's appendfsync is no: a crash of the machine loses what the system had not yet written "
                "(Arena needs everysec or always)"
            )
        policy = found.get("maxmemory-policy", "noeviction")
        if policy != "noeviction":
            warnings.append(
                f"Redis's maxmemory-policy is {policy}: under memory pressure it would evict queued batches "
                "and records (Arena needs noeviction)"
            )
        return warnings

    # -- tournaments --------------------------------------------------------------------------

    def create_tournament(
        self,
        tournament_id: str,
        spec: TournamentSpec,
        total: int,
        batches: int,
        owner: str = "",
        *,
        limit: int = 0,
        requires: Sequence[tuple[str, str]] = (),
    ) -> bool:
        """Record a new tournament; False if the id exists already (nothing is overwritten).

        With ``limit``, the owner may have at most that many queued or running tournaments:
        the check and the reservation are one script, so a burst of creations cannot pass it
        together (:class:`ActiveLimit` says how many are running). ``requires``: (hash key,
        field) pairs that must exist, checked in the same step (:class:`Missing` names the first
        gone): a hosted version deleted as the tournament is created is never played."""
        _ = self.redis
        result = self._create(
            keys=[
                self.key("t", tournament_id),
                self.key("tournaments"),
                self.key("owner", owner, "active"),
                self.key("active"),
                self.key("game", spec.game, "all"),
            ],
            args=[
                time.time(),
                json.dumps(spec.to_json()),
                total,
                batches,
                owner,
                limit,
                tournament_id,
                self.key("t", ""),
                *(part for pair in requires for part in pair),
            ],
        )
        if isinstance(result, list):
            raise Missing(*requires[int(result[1])])
        if result < 0:
            raise ActiveLimit(-result)
        return bool(result == 1)

    def active_tournaments(self, owner: str) -> int:
        """The owner's queued or running tournaments (all of them, however old)."""
        ids = [t.decode() for t in self.redis.smembers(self.key("owner", owner, "active"))]
        pipe = self.redis.pipeline(transaction=False)
        for tournament_id in ids:
            pipe.hget(self.key("t", tournament_id), "status")
        return sum(1 for status in pipe.execute() if status in (b"queued", b"running"))

    def tournament(self, tournament_id: str) -> dict[str, Any] | None:
        raw = self.redis.hgetall(self.key("t", tournament_id))
        if not raw:
            return None
        data = {k.decode(): v.decode() for k, v in raw.items()}
        data["id"] = tournament_id
        for name in ("total", "done", "batches"):
            data[name] = int(data.get(name, 0))
        data["spec"] = json.loads(data["spec"])
        data["cancelled"] = self.is_cancelled(tournament_id)
        return data

    def spec(self, tournament_id: str) -> TournamentSpec:
        raw = self.redis.hget(self.key("t", tournament_id), "spec")
        if raw is None:
            raise KeyError(tournament_id)
        return TournamentSpec.from_json(json.loads(raw))

    def note_bot_tournament(self, bots: list[str], tournament_id: str, created: float) -> None:
        """Index a new tournament under each registered bot it enters (its newest
        ``BOT_TOURNAMENTS`` kept): a bot's recent failures are looked for there, not among the
        service's newest tournaments of anyone."""
        pipe = self.redis.pipeline(transaction=False)
        for bot in bots:
            key = self.key("bot", bot, "tournaments")
            pipe.zadd(key, {tournament_id: created})
            pipe.zremrangebyrank(key, 0, -BOT_TOURNAMENTS - 1)
        pipe.execute()

    def seed_dealt(self, game: str, seed: int) -> str | None:
        """The tournament of ``game`` that was dealt by the chosen ``seed`` (noted by
        :meth:`note_seed`), while the store holds it; None if none."""
        raw = self.redis.hget(self.key("seeds", game), str(seed))
        if raw is None:
            return None
        earlier = raw.decode()
        return earlier if self.redis.hexists(self.key("t", earlier), "spec") else None

    def note_seed(self, game: str, seed: int, tournament_id: str) -> None:
        self.redis.hset(self.key("seeds", game), str(seed), tournament_id)

    def bot_tournaments(self, bot: str, limit: int) -> list[str]:
        """The bot's newest tournaments, newest first (those created since they are indexed)."""
        return [t.decode() for t in self.redis.zrevrange(self.key("bot", bot, "tournaments"), 0, limit - 1)]

    def tournaments(self, limit: int = 100) -> list[str]:
        return [t.decode() for t in self.redis.zrevrange(self.key("tournaments"), 0, limit - 1)]

    def newest_of_game(self, game: str, limit: int = 100) -> list[str]:
        """The game's newest tournaments, newest first (its own index: a game with 2 tournaments
        among 20,000 reads 2)."""
        return [t.decode() for t in self.redis.zrevrange(self.key("game", game, "all"), 0, limit - 1)]

    def index_games(self, chunk: int = 1000) -> int:
        """Put every tournament created before the games' own indexes existed into its game's
        (once: a marker says it is done); returns how many were indexed."""
        marker = self.key("game-index", "v1")
        if self.redis.exists(marker):
            return 0
        done = start = 0
        while ids := self.redis.zrange(self.key("tournaments"), start, start + chunk - 1, withscores=True):
            start += len(ids)
            read = self.redis.pipeline(transaction=False)
            for tournament_id, _ in ids:
                read.hget(self.key("t", tournament_id.decode()), "spec")
            write = self.redis.pipeline(transaction=False)
            for (tournament_id, created), spec in zip(ids, read.execute(), strict=True):
                if spec is not None:
                    write.zadd(self.key("game", json.loads(spec)["game"], "all"), {tournament_id: created})
                    done += 1
            write.execute()
        self.redis.set(marker, "1")
        return done

    def active_ids(self) -> list[str]:
        """Every queued or running tournament, however old (ended ones are pruned here)."""
        return self.active_and_unboarded()[0]

    def cancelled_without_board(self) -> list[str]:
        return self.active_and_unboarded()[1]

    def active_and_unboarded(self) -> tuple[list[str], list[str]]:
        """(:meth:`active_ids`, the cancelled tournaments whose board is not stored yet), in one
        read. The first batch that sees a cancel stores its board; with no batch to run (its
        message lost in the broker: an outside chaos probe) none ever would, so such a
        tournament stays in ``active`` for the stall check (workers.sweeper)."""
        ids = [t.decode() for t in self.redis.smembers(self.key("active"))]
        pipe = self.redis.pipeline(transaction=False)
        for tournament_id in ids:
            pipe.hget(self.key("t", tournament_id), "status")
            pipe.exists(self.key("t", tournament_id, "leaderboard"))
        read = pipe.execute()
        live, unboarded, ended = [], [], []
        for tournament_id, status, boarded in zip(ids, read[::2], read[1::2], strict=True):
            if status in (b"queued", b"running"):
                live.append(tournament_id)
            elif status == b"cancelled" and not boarded:
                unboarded.append(tournament_id)
            else:
                ended.append(tournament_id)
        if ended:
            self.redis.srem(self.key("active"), *ended)
        return sorted(live), sorted(unboarded)

    def tournament_page(self, start: int, count: int) -> list[str]:
        """Tournament ids, newest first, from position ``start``."""
        return [t.decode() for t in self.redis.zrevrange(self.key("tournaments"), start, start + count - 1)]

    def tournament_at(self, position: int) -> tuple[str, float] | None:
        """(tournament id, creation time) at this position, newest first (None past the end)."""
        found = self.redis.zrevrange(self.key("tournaments"), position, position, withscores=True)
        return (found[0][0].decode(), float(found[0][1])) if found else None

    def tournaments_before(
        self, cursor: tuple[float, str] | None, count: int, *, game: str = ""
    ) -> list[tuple[str, float]]:
        """Up to ``count`` (tournament id, creation time), newest first, after ``cursor`` (the
        last (creation time, id) a page ended with; None: from the newest). The cursor is a place
        in the order, not a position: tournaments created meanwhile shift no page. Ties in
        creation time are ordered as ZREVRANGE orders them, by id descending. With ``game``,
        that game's tournaments only (its own index)."""
        key = self.key("game", game, "all") if game else self.key("tournaments")
        if cursor is None:
            found = self.redis.zrevrange(key, 0, count - 1, withscores=True)
            return [(t.decode(), float(score)) for t, score in found]
        created, last = cursor
        out: list[tuple[str, float]] = []
        skip = 0
        while len(out) < count:
            # The same creation time as the cursor's, or older; those of the cursor's time that
            # come before it (ids not below it) are skipped. A float's repr reads back exactly.
            found = self.redis.zrevrangebyscore(key, repr(created), "-inf", start=skip, num=count, withscores=True)
            if not found:
                break
            skip += len(found)
            for member, score in found:
                tournament_id = member.decode()
                if float(score) == created and tournament_id >= last:
                    continue
                out.append((tournament_id, float(score)))
        return out[:count]

    def first_to(self, tournament_id: str, what: str) -> bool:
        """True for the first caller only, of every worker and every copy of a message (a field
        ``once:WHAT`` of the tournament set if absent): for what must be counted once though
        its step may run twice (a batch sent again, a finalisation sent again)."""
        return bool(self.redis.hsetnx(self.key("t", tournament_id), f"once:{what}", 1))

    def mark_running(self, tournament_id: str) -> None:
        """queued -> running, once, when the first batch starts (never over a cancel)."""
        self._move(tournament_id, "running")

    def _move(self, tournament_id: str, status: str, flag: bool = False) -> str | None:
        moved = self._transition_to(tournament_id, status, flag)
        return None if moved is None else moved[0]

    def _transition_to(self, tournament_id: str, status: str, flag: bool = False) -> tuple[str, bool] | None:
        """(the status after, whether this call moved it), or None for no such tournament."""
        _ = self.redis
        keys = [
            self.key("t", tournament_id),
            self.key("t", tournament_id, "cancel"),
            self.key("t", tournament_id, "finalizing"),
        ]
        after = self._transition(keys=keys, args=[status, "flag" if flag else "", time.time()])
        return None if after is None else (after[0].decode(), bool(after[1]))

    def cancel(self, tournament_id: str) -> str | None:
        """Cancel a queued or running tournament. Returns its status afterwards (``cancelled``,
        or the status it had already ended with, untouched, or ``running`` for one whose every
        match is stored: it is being finalised), or None if there is no such tournament. Only a
        live tournament with matches left gets the cancel flag."""
        return self._move(tournament_id, "cancelled", flag=True)

    def cancel_live(self, tournament_id: str) -> bool | None:
        """Cancel a queued or running tournament: True for the one call that cancelled it, False
        if it had ended already (cancelled by another call too), None if there is no such one."""
        moved = self._transition_to(tournament_id, "cancelled", flag=True)
        return None if moved is None else moved[1]

    def stop(self, tournament_id: str) -> str | None:
        """Stop a tournament that has its answer (an SPRT decided): like cancel, status stopped."""
        return self._move(tournament_id, "stopped", flag=True)

    def finish(self, tournament_id: str, status: str) -> str | None:
        """Finalisation's status (complete, or stopped); a cancelled tournament stays cancelled.
        Returns the status it ends with."""
        _ = self.redis
        keys = [self.key("t", tournament_id), self.key("t", tournament_id, "cancel")]
        after = self._finish(keys=keys, args=[status, time.time()])
        return None if after is None else after.decode()

    def claim_finalize(self, tournament_id: str) -> bool:
        """True for exactly one caller: who finalises (a cancelled tournament has no last store)."""
        return bool(self.redis.set(self.key("t", tournament_id, "finalizing"), "1", nx=True))

    def is_cancelled(self, tournament_id: str) -> bool:
        return bool(self.redis.exists(self.key("t", tournament_id, "cancel")))

    # -- matches ------------------------------------------------------------------------------

    def store_match(self, tournament_id: str, index: int, record: MatchRecord) -> Stored:
        """Store a record once (idempotent by index), count it and say who finalises."""
        return self.store_matches(tournament_id, [(index, record)])[0]

    def store_matches(self, tournament_id: str, records: list[tuple[int, MatchRecord]]) -> list[Stored]:
        """Several records in one round trip (each stored and counted atomically, as above)."""
        return self.store_lines(tournament_id, [(index, record.dumps()) for index, record in records])

    def store_lines(
        self, tournament_id: str, lines: list[tuple[int, str]], tally: GroupTally | None = None
    ) -> list[Stored]:
        """:meth:`store_matches` for records serialised already (``record.dumps()``): a worker
        serialises each record where it plays it and stores groups from a thread of its own,
        which then only compresses (Zstandard releases the GIL) and waits on Redis. ``tally``:
        the records' tally entries, in the same order, kept with them (the group's last line),
        so a follower need not parse the records to tally them (:meth:`follow_lines`)."""
        _ = self.redis  # (re)connect and register the scripts in this process
        if not lines:
            return []
        keys = [
            self.key("t", tournament_id, "matches"),
            self.key("t", tournament_id),
            self.key("t", tournament_id, "events"),
            self.key("t", tournament_id, "finalizing"),
            self.key("t", tournament_id, "cancel"),
            self.key("t", tournament_id, "groups"),
        ]
        # One frame for the group, a line after another: a JSON line holds no newline.
        joined = "\n".join(line for _, line in lines)
        if joined.count("\n") != len(lines) - 1:
            raise ValueError("a record's line holds a newline: not a line of record.dumps()")
        if tally is not None:
            if len(tally.entries) != len(lines):
                raise ValueError(f"{len(tally.entries)} tally entries for {len(lines)} records")
            joined += "\n" + tally.encode()
        group = compress_line(joined)
        flat = self._store_matches(keys=keys, args=[group, *(index for index, _ in lines)])
        if flat is None:
            raise TournamentMissing(f"no tournament {tournament_id} in the store: {len(lines)} records not stored")
        return [Stored(bool(flat[i]), int(flat[i + 1]), bool(flat[i + 2])) for i in range(0, len(flat), 3)]

    def stored_indices(self, tournament_id: str, indices: list[int]) -> set[int]:
        """Which of these match indices are stored already (one round trip)."""
        if not indices:
            return set()
        # One command for the batch (a pipeline of HEXISTS costs a command each to pack and
        # parse); the stored records come back too, which happens on a redelivery only.
        found = self.redis.hmget(self.key("t", tournament_id, "matches"), indices)
        return {i for i, blob in zip(indices, found, strict=True) if blob is not None}

    def match(self, tournament_id: str, index: int) -> MatchRecord | None:
        line = self.match_lines(tournament_id, [index]).get(index)
        return None if line is None else MatchRecord.loads(line)

    def matches_at(self, tournament_id: str, indices: list[int]) -> list[MatchRecord]:
        """The stored records with these indices, in that order (two round trips: the entries, then
        their groups)."""
        return [MatchRecord.loads(line) for line in self.match_lines_at(tournament_id, indices)]

    def match_lines_at(self, tournament_id: str, indices: list[int]) -> list[str]:
        """The same records as their JSON lines (``record.dumps()``: what a run directory
        writes, without parsing and serialising them again)."""
        return list(self.match_lines(tournament_id, indices).values())

    def match_lines(self, tournament_id: str, indices: list[int]) -> dict[int, str]:
        """Index -> JSON line of the stored records among these indices, in their order."""
        if not indices:
            return {}
        blobs = self.redis.hmget(self.key("t", tournament_id, "matches"), indices)
        return self._lines(tournament_id, zip(indices, blobs, strict=True))

    def _lines(self, tournament_id: str, stored: Iterable[tuple[int, bytes | None]]) -> dict[int, str]:
        """Index -> JSON line of stored values (references into groups, or records stored alone
        as earlier versions did), in their order; each group read and decompressed once."""
        return self._read(tournament_id, stored)[0]

    def _read(
        self, tournament_id: str, stored: Iterable[tuple[int, bytes | None]], bots: Sequence[str] | None = None
    ) -> tuple[dict[int, str], dict[int, TallyEntry]]:
        """:meth:`_lines`, and index -> tally entry of the records whose group has its tally for
        these ``bots`` (see :meth:`follow_lines`)."""
        lines: dict[int, str] = {}
        references: dict[int, tuple[bytes, int]] = {}
        order: list[int] = []
        for index, blob in stored:
            if blob is None:
                continue
            order.append(index)
            if blob.startswith(b"@"):
                group, _, at = blob[1:].partition(b":")
                references[index] = (group, int(at))
            else:
                lines[index] = decompress_line(blob)
        entries: dict[int, TallyEntry] = {}
        if not references:
            return lines, entries
        names = sorted({group for group, _ in references.values()})
        frames = self.redis.hmget(self.key("t", tournament_id, "groups"), names)
        groups = {n: decompress_line(f).split("\n") for n, f in zip(names, frames, strict=True) if f is not None}
        tallies = {n: _group_tally(parts, bots) for n, parts in groups.items()} if bots is not None else {}
        for index, (name, position) in references.items():
            if name in groups:  # gone only if its retention ended meanwhile
                lines[index] = groups[name][position]
                if (tally := tallies.get(name)) is not None:
                    entries[index] = tally[position]
        return {index: lines[index] for index in order if index in lines}, entries

    def stored_match_indices(self, tournament_id: str) -> list[int]:
        """The indices of the stored matches, in schedule order (no record is read)."""
        return sorted(int(k) for k in self.redis.hkeys(self.key("t", tournament_id, "matches")))

    def match_lines_in_order(self, tournament_id: str, total: int, chunk: int = 1000) -> Iterator[str]:
        """The JSON lines of the stored records of schedule indices 0..total-1, in that order,
        read ``chunk`` at a time (any number of them in bounded memory)."""
        for start in range(0, total, chunk):
            yield from self.match_lines_at(tournament_id, list(range(start, min(start + chunk, total))))

    def tallied_in_order(
        self, tournament_id: str, total: int, bots: Sequence[str], chunk: int = 1000
    ) -> Iterator[TallyEntry | str]:
        """What a tally takes of each stored record of schedule indices 0..total-1, in that order,
        ``chunk`` at a time: the tally entry its worker stored (for these ``bots``), else the
        record's JSON line."""
        key = self.key("t", tournament_id, "matches")
        for start in range(0, total, chunk):
            indices = list(range(start, min(start + chunk, total)))
            lines, entries = self._read(tournament_id, zip(indices, self.redis.hmget(key, indices), strict=True), bots)
            for index, line in lines.items():
                entry = entries.get(index)
                yield line if entry is None else entry

    def matches_in_order(self, tournament_id: str, total: int, chunk: int = 1000) -> Iterator[MatchRecord]:
        """The stored records of schedule indices 0..total-1, in that order, ``chunk`` at a time."""
        return (MatchRecord.loads(line) for line in self.match_lines_in_order(tournament_id, total, chunk))

    def matches(self, tournament_id: str) -> list[MatchRecord]:
        """Every stored record of a tournament, in schedule order."""
        raw = self.redis.hgetall(self.key("t", tournament_id, "matches"))
        lines = self._lines(tournament_id, sorted((int(k), v) for k, v in raw.items()))  # indices are unique
        return [MatchRecord.loads(line) for line in lines.values()]

    def follow_lines(
        self,
        tournament_id: str,
        cursor: str = "0",
        block_ms: int = 1000,
        records: int = FOLLOW_RECORDS,
        bots: Sequence[str] | None = None,
    ) -> tuple[str, list[int], dict[int, str], dict[int, TallyEntry]]:
        """What was stored after ``cursor`` (a stream id; "0" for the start): (the new cursor,
        the indices stored, index -> JSON line of those still kept, index -> tally entry of
        those whose group has its tally and numbers ``bots``, the tournament's list of bots, as
        the follower does). Whole stores are read until about ``records`` records are in hand
        or none is left (waiting up to ``block_ms`` for the first). An event names its group:
        the group is read once for all its records, where :meth:`match_lines` looks every
        record up first; an event of an earlier version (indices alone) is read that way."""
        key = self.key("t", tournament_id, "events")
        indices: list[int] = []
        placed: list[tuple[bytes, list[int], Sequence[int]]] = []  # (group, indices, positions)
        unplaced: list[int] = []
        count = max(1, records // GROUP_GUESS)
        block = block_ms if block_ms > 0 else None  # XREAD's BLOCK 0 would wait forever
        while len(indices) < records:
            entries = self.redis.xread({key: cursor}, block=block, count=count)
            read, before = 0, len(indices)
            for _, items in entries or []:
                for entry_id, fields in items:
                    read += 1
                    cursor = entry_id.decode()
                    if b"indices" not in fields:  # one match an entry, as the first versions wrote
                        indices.append(int(fields[b"index"]))
                        unplaced.append(indices[-1])
                        continue
                    stored = [int(i) for i in fields[b"indices"].split(b",")]
                    indices += stored
                    group = fields.get(b"group")
                    if group is None:
                        unplaced += stored
                        continue
                    at = fields.get(b"at")
                    positions: Sequence[int] = (
                        [int(p) for p in at.split(b",")] if at is not None else range(len(stored))
                    )
                    placed.append((group, stored, positions))
            if read < count:  # none left
                break
            # More may be waiting: as many stores as the records still wanted, at the size seen.
            per_store = (len(indices) - before) / read
            count = max(1, math.ceil((records - len(indices)) / per_store))
            block = None
        found: dict[int, str] = {}
        tallied: dict[int, TallyEntry] = {}
        if placed:
            names = sorted({group for group, _, _ in placed})
            frames = self.redis.hmget(self.key("t", tournament_id, "groups"), names)
            groups = {n: decompress_line(f).split("\n") for n, f in zip(names, frames, strict=True) if f is not None}
            tallies = {n: _group_tally(parts, bots) for n, parts in groups.items()} if bots is not None else {}
            for group, stored, positions in placed:
                parts = groups.get(group)
                if parts is None:  # gone only if its retention ended meanwhile
                    continue
                found.update(zip(stored, [parts[p] for p in positions], strict=True))
                if (tally := tallies.get(group)) is not None:
                    tallied.update(zip(stored, [tally[p] for p in positions], strict=True))
        if unplaced:
            found.update(self.match_lines(tournament_id, unplaced))
            found = {index: found[index] for index in indices if index in found}
        return cursor, indices, found, tallied

    def expire_matches(self, tournament_id: str) -> None:
        if self.retention_days > 0:
            seconds = self.retention_days * 86400
            for suffix in ("matches", "groups", "events"):
                self.redis.expire(self.key("t", tournament_id, suffix), seconds)

    # -- the window of batches in flight (bounded queues) ------------------------------------

    def plan_batches(self, tournament_id: str, size: int, window: int) -> tuple[int, int]:
        """Fix a tournament's batching (once: a redelivered fan-out keeps the first plan);
        returns (size, batch count). See :func:`batch_range` for the layout."""
        key = self.key("t", tournament_id)
        total = int(self.redis.hget(key, "total") or 0)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hsetnx(key, "size", size)
        pipe.hsetnx(key, "window", max(1, window))
        pipe.hsetnx(key, "tail", TAIL_PARTS)
        pipe.execute()
        size, tail = (int(v) for v in self.redis.hmget(key, "size", "tail"))
        batches = batch_count(total, size, tail)
        self.redis.hset(key, "batches", batches)
        return size, batches

    def fill(
        self, tournament_id: str, finished: tuple[int, int] | None = None, source: str = "fan-out", token: str = ""
    ) -> list[Batch]:
        """Claim batch numbers up to the window (after ``finished`` = (batch, seq) leaves it);
        the caller sends one message per batch returned. ``source`` names the claimer (the
        finished batch's number, or e.g. ``fan-out``): see :meth:`orphans`. Asked again with its
        ``token`` (its reply was lost), it returns the same batches (see ``_FILL``)."""
        _ = self.redis
        keys = [
            self.key("t", tournament_id),
            self.key("t", tournament_id, "inflight"),
            self.key("t", tournament_id, "cancel"),
            self.key("seq"),
            self.key("t", tournament_id, "filled", "" if finished is None else str(finished[0])),
        ]
        done = ("", "") if finished is None else finished
        flat = self._fill(keys=keys, args=[*done, source, token])
        return [Batch(int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2)]

    def finish_batch(
        self, tournament_id: str, batch: int, seq: int, source: str | None = None, token: str = ""
    ) -> list[Batch]:
        """A batch is done (every match of it stored): it leaves the window and its successors
        are claimed (see :meth:`fill`) in the name of ``source`` (default: the batch). Asked
        again with the same ``token``, it returns the same successors: the caller's retry after
        a reply lost to a dropped connection (else they were claimed and never sent)."""
        return self.fill(tournament_id, (batch, seq), str(batch) if source is None else source, token)

    def steal(self, tournament_id: str, source: str, states: str = "qp") -> Batch | None:
        """Take a batch of the tournament in one of ``states`` (``q`` queued, ``p`` parked) to
        play in this worker (see ``_STEAL``)."""
        _ = self.redis
        keys = [self.key("t", tournament_id, "inflight"), self.key("t", tournament_id, "cancel"), self.key("seq")]
        taken = self._steal(keys=keys, args=[source, states])
        return None if not taken else Batch(int(taken[0]), int(taken[1]))

    def orphans(self, tournament_id: str, source: str) -> list[Batch]:
        """Batches ``source`` claimed that have not started, with new sequence numbers: what a
        redelivered claimer sends again (it may have died between claiming and sending)."""
        _ = self.redis
        keys = [self.key("t", tournament_id, "inflight"), self.key("seq")]
        flat = self._orphans(keys=keys, args=[source])
        return [Batch(int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2)]

    def start_batch(self, tournament_id: str, batch: int, seq: int) -> str:
        """``play``, ``cancelled``, ``done`` or ``superseded`` (see ``_START_BATCH``)."""
        _ = self.redis
        keys = [
            self.key("t", tournament_id),
            self.key("t", tournament_id, "inflight"),
            self.key("t", tournament_id, "cancel"),
            self.key("started"),
        ]
        return str(self._start_batch(keys=keys, args=[batch, seq, time.time()]).decode())

    def heartbeat(self, tournament_id: str, batch: int, seq: int) -> bool:
        _ = self.redis
        return bool(self._heartbeat(keys=[self.key("t", tournament_id, "inflight")], args=[batch, seq]))

    def inflight(self, tournament_id: str) -> dict[int, str]:
        """The tournament's window: batch number -> entry (at most ``window`` of them)."""
        raw = self.redis.hgetall(self.key("t", tournament_id, "inflight"))
        return {int(k): v.decode() for k, v in raw.items()}

    def lost_batches(self, tournament_id: str, queue: str, stale_seconds: float) -> dict[int, str]:
        """Batches of the window that are neither waiting in the queue nor alive: sent but
        popped and never started (sequence number below the highest started, or the queue is
        empty), or running without a heartbeat for ``stale_seconds`` (their worker died).
        Reads this tournament's window, two counters and the queue's length: O(window), however
        long the queue is. Judged in one script, on Redis's clock: the one that timed the
        heartbeats (a stall check whose clock is ahead of Redis's would find live batches dead)."""
        _ = self.redis
        keys = [self.key("t", tournament_id, "inflight"), self.key("started"), queue]
        flat = self._lost(keys=keys, args=[stale_seconds])
        return {int(flat[i]): flat[i + 1].decode() for i in range(0, len(flat), 2)}

    def mark_fan_out(self, tournament_id: str) -> None:
        """Note, as a tournament's fan-out message is sent, the last batch sequence number sent
        before it (``fan_out_after``): :meth:`fan_out_lost` judges that message by it."""
        sent = int(self.redis.get(self.key("seq")) or 0)
        self.redis.hset(self.key("t", tournament_id), "fan_out_after", sent)

    def fan_out_lost(self, tournament_id: str, queue: str) -> bool:
        """A tournament never planned (no ``size``) whose fan-out message no longer waits: the
        queue is empty, or a batch sent after it has started (the queue is first in, first out),
        as :meth:`lost_batches` judges a batch. O(1), however long the queue is."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(self.key("t", tournament_id), "size", "fan_out_after")
        pipe.get(self.key("started"))
        pipe.llen(queue)
        (size, after), started, waiting = pipe.execute()
        return size is None and (waiting == 0 or int(started or 0) > int(after or 0))

    def resend(self, tournament_id: str, batch: int, entry: str) -> Batch | None:
        """A new sequence number for a lost batch (None if its entry changed meanwhile)."""
        _ = self.redis
        keys = [self.key("t", tournament_id, "inflight"), self.key("seq")]
        seq = self._resend(keys=keys, args=[batch, entry])
        return None if seq is None else Batch(batch, int(seq))

    def park(self, tournament_id: str, batch: int, seq: int, game: str, version: str) -> str:
        """Set a batch aside for a worker of ``game``'s version ``version`` (see ``_PARK``):
        ``parked``, or ``cancelled``, ``done`` or ``superseded`` as :meth:`start_batch` says."""
        _ = self.redis
        keys = [self.key("t", tournament_id, "inflight"), self.key("t", tournament_id, "cancel"), self.key("parked")]
        return str(self._park(keys=keys, args=[batch, seq, tournament_id, f"{game} {version}"]).decode())

    def parked(self) -> dict[str, tuple[str, str]]:
        """The tournaments with parked batches: id -> (game, the version they wait for)."""
        found = {}
        for key, value in self.redis.hgetall(self.key("parked")).items():
            game, _, version = value.decode().partition(" ")
            found[key.decode()] = (game, version)
        return found

    def unpark(self, tournament_id: str) -> list[Batch]:
        """The tournament's parked batches, back in its window as queued, to be sent (``_UNPARK``)."""
        _ = self.redis
        keys = [self.key("t", tournament_id, "inflight"), self.key("seq"), self.key("parked")]
        flat = self._unpark(keys=keys, args=[tournament_id])
        return [Batch(int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2)]

    def batch_indices(self, tournament_id: str, batch: int) -> list[int]:
        raw = self.redis.hmget(self.key("t", tournament_id), "size", "total", "tail")
        size, total, tail = int(raw[0]), int(raw[1]), int(raw[2] or 1)
        return list(batch_range(batch, total, size, tail))

    # -- leaderboards -------------------------------------------------------------------------

    def save_leaderboard(self, tournament_id: str, board: dict[str, Any]) -> None:
        self.redis.set(self.key("t", tournament_id, "leaderboard"), json.dumps(board))

    def leaderboard(self, tournament_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(self.key("t", tournament_id, "leaderboard"))
        return None if raw is None else json.loads(raw)

    def add_game_tournament(self, game: str, tournament_id: str) -> None:
        """Count a complete tournament into its game's leaderboard (and its change counter,
        which :meth:`save_game_leaderboard` compares), in one transaction."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.zadd(self.key("game", game, "tournaments"), {tournament_id: time.time()})
        pipe.incr(self.key("game", game, "changes"))
        pipe.execute()

    def game_changes(self, game: str) -> int:
        """How many times a tournament was counted into the game's leaderboard: a board computed
        after reading this holds every tournament counted up to it."""
        return int(self.redis.get(self.key("game", game, "changes")) or 0)

    def game_tournaments(self, game: str, latest: int = 0) -> list[str]:
        """The game's complete tournaments counted in, oldest first; the ``latest`` only (0: all)."""
        ids = self.redis.zrange(self.key("game", game, "tournaments"), -latest if latest else 0, -1)
        return [t.decode() for t in ids]

    def save_summary(self, tournament_id: str, summary: dict[str, Any]) -> None:
        self.redis.set(self.key("t", tournament_id, "summary"), json.dumps(summary))

    def summary(self, tournament_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(self.key("t", tournament_id, "summary"))
        return None if raw is None else json.loads(raw)

    def save_game_leaderboard(self, game: str, board: dict[str, Any], *, as_of: int | None = None) -> bool:
        """Store the game's leaderboard; with ``as_of`` (:meth:`game_changes` read before it
        was computed) only if no tournament was counted in since, else False: two finalisations
        at once must not let the board computed first, without the other's tournament, be the
        one that stays."""
        text = json.dumps(board)
        if as_of is None:
            self.redis.set(self.key("game", game, "leaderboard"), text)
            return True
        _ = self.redis  # the scripts are registered with the client
        keys = [self.key("game", game, "changes"), self.key("game", game, "leaderboard")]
        return bool(self._save_if_unchanged(keys=keys, args=[as_of, text]))

    def game_leaderboard(self, game: str) -> dict[str, Any] | None:
        raw = self.redis.get(self.key("game", game, "leaderboard"))
        return None if raw is None else json.loads(raw)

    # -- per-bot concurrency (lease semaphore) ------------------------------------------------

    def acquire(self, endpoint: str, limit: int, lease_seconds: float) -> str | None:
        """A lease id if fewer than ``limit`` leases on ``endpoint`` are live, else None.

        Leases expire by themselves, so a worker that dies cannot hold a slot for longer than
        ``lease_seconds``; a live holder extends its lease with :meth:`renew`. Expiries are
        set and judged on Redis's clock, never a worker's: a worker whose clock is ahead would
        drop the others' live leases, one behind would give its own up at once.
        """
        _ = self.redis
        lease = uuid.uuid4().hex
        ok = self._acquire(keys=[self.key("lease", endpoint)], args=[lease_seconds, limit, lease])
        return lease if ok else None

    def renew(self, endpoint: str, lease: str, lease_seconds: float, limit: int) -> bool:
        """Extend a held lease to ``lease_seconds`` from now (Redis's now, as every expiry).

        A lease that is gone (it lapsed while its holder could not renew, and another acquire
        dropped it; or Redis restarted without its data) is taken again when fewer than
        ``limit`` are live. False: it is lost, the slot went to someone else meanwhile, and the
        holder's match now runs beyond the bot's limit until it ends.
        """
        _ = self.redis
        return bool(self._renew(keys=[self.key("lease", endpoint)], args=[lease_seconds, lease, limit]))

    def release(self, endpoint: str, lease: str) -> None:
        self.redis.zrem(self.key("lease", endpoint), lease)

    def leases(self, endpoint: str) -> int:
        """The live leases on ``endpoint`` (lapsed ones are dropped)."""
        _ = self.redis
        return int(self._leases(keys=[self.key("lease", endpoint)]))

    # -- bots ---------------------------------------------------------------------------------

    def add_bot(self, name: str, data: dict[str, Any], *, limit: int = 0) -> bool:
        """Register a bot; False if the name is taken (nothing is overwritten). With a ``limit``,
        :class:`TooManyBots` if its owner has that many already (checked and counted in one
        step: two registrations at once cannot both take the last place)."""
        _ = self.redis  # the scripts are registered with the client
        added = self._add_bot(
            keys=[self.key("bots"), self.key("bot_counts"), self.key("bot_reads")],
            args=[name, json.dumps(data), data["owner"], limit],
        )
        if isinstance(added, list):
            raise LookAlike(added[1].decode())
        if added == -1:
            raise TooManyBots(f"{data['owner']} has {limit} bots, the most an owner may register")
        return bool(added)

    def save_bot(self, name: str, data: dict[str, Any]) -> None:
        """Overwrite a bot's whole registration (for a change of some fields while others may
        change too, :meth:`update_bot`)."""
        self.redis.hset(self.key("bots"), name, json.dumps(data))

    def update_bot(self, name: str, changes: dict[str, Any]) -> dict[str, Any] | None:
        """Set these fields of a bot's registration, leaving the others as they are at that
        moment; returns the registration after (None: no such bot). A read-modify-write under
        WATCH, retried if the registrations changed meanwhile (redis-py's ``transaction``): two
        updates at once (an endpoint change and a disable) never revert each other's field."""
        key = self.key("bots")

        def change(pipe: Any) -> dict[str, Any] | None:
            raw = pipe.hget(key, name)
            if raw is None:
                return None
            data: dict[str, Any] = {**json.loads(raw), **changes}
            pipe.multi()
            pipe.hset(key, name, json.dumps(data))
            return data

        result: dict[str, Any] | None = self.redis.transaction(change, key, value_from_callable=True)
        return result

    def bot_count(self, owner: str) -> int:
        """How many bots the owner has registered: as counted by :meth:`add_bot`, or, for an
        owner whose bots all came before counts were kept, counted from the registrations (it
        said 0: an upgrade probe's ``arena admin owners``)."""
        counted = self.redis.hget(self.key("bot_counts"), owner)
        if counted is not None:
            return int(counted)
        return sum(1 for _, bot in self.bots() if bot.get("owner") == owner)

    def bot(self, name: str) -> dict[str, Any] | None:
        raw = self.redis.hget(self.key("bots"), name)
        return None if raw is None else json.loads(raw)

    def bots(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for name, raw in sorted(self.redis.hgetall(self.key("bots")).items()):
            yield name.decode(), json.loads(raw)

    # -- owners and tokens --------------------------------------------------------------------

    def add_owner(self, name: str, operator: bool, token_hash: str) -> bool:
        """Create an owner with a token (by its hash); False if the name is taken,
        :class:`LookAlike` if another owner's differs from it only in ``_ -`` (``team_a`` and
        ``team-a`` would read as one owner)."""
        _ = self.redis
        account = json.dumps({"operator": operator, "created": time.time()})
        added = self._add_owner(keys=[self.key("owners"), self.key("tokens")], args=[name, account, token_hash])
        if isinstance(added, list):
            raise LookAlike(added[1].decode())
        return bool(added)

    def replace_tokens(self, name: str, token_hash: str) -> int:
        """Give an existing owner this token (by its hash) instead of every token it had, in one
        step; returns how many were revoked (-1: no such owner)."""
        _ = self.redis
        return int(self._replace_tokens(keys=[self.key("owners"), self.key("tokens")], args=[name, token_hash]))

    def owners(self) -> list[tuple[str, dict[str, Any]]]:
        """Every owner's name and account, by name (an operator's listing; tokens are not here)."""
        accounts = sorted(self.redis.hgetall(self.key("owners")).items())
        return [(name.decode(), json.loads(raw)) for name, raw in accounts]

    def owner(self, name: str) -> dict[str, Any] | None:
        raw = self.redis.hget(self.key("owners"), name)
        return None if raw is None else json.loads(raw)

    def owner_of_token(self, token_hash: str) -> str | None:
        raw = self.redis.hget(self.key("tokens"), token_hash)
        return None if raw is None else raw.decode()
