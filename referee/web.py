"""The read-only web UI: games, leaderboards, tournaments (live) and the replay viewer.

Served by ``arena serve --http-port`` from the same process and event loop as the gRPC service,
with aiohttp: its server starts on the loop that is already running ``grpc.aio`` (an
``AppRunner`` and a ``TCPSite``, no second thread, no ASGI server such as uvicorn wanting to
own the loop, as Starlette would need), it is one dependency, and it ships a test client.

Privacy: a visitor is anonymous, so they see exactly what the API shows an owner of none of
the bots (the same code answers: :class:`referee.service.ArenaService`'s match listing and
match detail are called with an anonymous caller). While a tournament runs: no event of a
match until every seat rotation of its deal has been played (then public events only), no
record, no seat's observation, no bot's failures or forfeits, a leaderboard without failures;
once it has ended, the spectator's view (the full replay), or, for a record the engine cannot
replay (an older game version's), its summary, why, and the record as stored.

The full replay page is built once per match in a replay process and kept gzip-compressed in
the service's match cache (``referee.match_cache``); who may see it is checked per request.

Store calls are blocking (redis-py) and run on the loop's executor, as in the service.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import html
import logging
import math
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeVar

from aiohttp import web
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from arena import leaderboard as boards
from arena.engine import Game
from arena.leaderboard_view import interval_end, rank_text
from arena.record import MatchRecord, ReplayMismatch
from arena.registry import games, get_game
from arena.replay_view import asset, public_data, render_html, replay_data, script_json
from arena.tournament import TournamentSpec
from arena.v1 import arena_pb2
from referee import views
from referee.auth import Caller
from referee.errors import STORE_DOWN, STORE_RETRY_SECONDS, ApiError, shown
from referee.live import catch_up, has_ended
from referee.match_cache import Sized
from referee.store import Store

log = logging.getLogger(__name__)
T = TypeVar("T")

ANONYMOUS = Caller(name="\x00web visitor", operator=False)
"""The web's caller: no owner has this name (owners are validated names), not an operator."""
PAGE_SIZE = 25
WEB_THREADS = 8
"""Threads the pages' store reads run on, apart from the API's 32."""
PAGE_BOARD_IDLE_SECONDS = 600.0
"""A running tournament's page board not polled for this long is dropped (rebuilt if asked)."""
PAGE_COMPRESSION = 6
"""gzip level of cached replay pages: 0.17 s of the 5.4 s an 8-player Wine Cellar series' page takes."""


def as_json(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def rules_markdown(game: Game) -> str:
    """The game's rules.md, the text ``arena rules`` prints after its header."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        return (resources.files(package) / "rules.md").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return ""


def esc(value: object) -> str:
    return html.escape(str(value))


def page(title: str, body: str, *, script: str = "") -> web.Response:
    nav = '<header class="nav"><b>Arena</b><a href="/">games</a><a href="/tournaments">tournaments</a></header>'
    text = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        # Laid out for the screen's width: a phone drew these pages 980 px wide, shrunk.
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<style>{asset('viewer.css')}</style></head><body>{nav}<main>{body}</main>"
        + (f"<script>{script}</script>" if script else "")
        + "</body></html>"
    )
    return web.Response(text=text, content_type="text/html")


def leaderboard_table(rows: list[dict[str, Any]], *, failures: bool) -> str:
    """Rows as a table, the rating's interval drawn as an error bar on a common scale; ``#`` is
    the range of ranks the intervals allow (``1–3``; one number when settled)."""
    if not rows:
        return '<p class="muted">no rated games yet</p>'
    # The common scale spans every bound and rating; an open end (None: the results set no
    # bound) runs the bar to the scale's edge, and a row open at both ends has no bar at all.
    ends = [(interval_end(r.get("ci_low")), interval_end(r.get("ci_high"))) for r in rows]
    values = [v for (lo, hi), r in zip(ends, rows, strict=True) for v in (lo, hi, float(r["rating"])) if v is not None]
    low, high = min(values), max(values)
    span = (high - low) or 1.0

    def x(value: float | None, edge: float) -> float:
        return edge if value is None else round(100 * (float(value) - low) / span, 2)

    out = ['<table class="leaderboard"><tr><th>#</th><th>bot</th><th class="num">rating</th><th>interval</th>']
    out.append('<th class="num">games</th><th class="num">mean rank</th>')
    out.append("<th>failures</th></tr>" if failures else "</tr>")
    for r, (ci_low, ci_high) in zip(rows, ends, strict=True):
        if ci_low is None and ci_high is None:  # no game against another bot: no rating at all
            rating, bar, interval = "-", "", "no bound"
        else:
            left, right = x(ci_low, 0.0), x(ci_high, 100.0)
            interval = f"{'-∞' if ci_low is None else ci_low} .. {'∞' if ci_high is None else ci_high}"
            rating = r["rating"]
            bar = (
                f'<div class="bar" title="{esc(interval)}">'
                f'<div class="range" style="left:{left}%;width:{round(right - left, 2)}%"></div>'
                f'<div class="point" style="left:{x(r["rating"], 50.0)}%"></div></div>'
            )
        out.append(
            f'<tr data-bot="{esc(r["bot"])}"><td>{esc(rank_text(r))}</td><td>{esc(r["bot"])}</td>'
            f'<td class="num">{esc(rating)}</td><td>{bar}<span class="muted">{esc(interval)}</span></td>'
            f'<td class="num">{esc(r.get("games", 0))}</td>'
            f'<td class="num">{esc(r.get("mean_rank") or "")}</td>'
        )
        if failures:
            shown = ", ".join(f"{esc(k)}: {esc(v)}" for k, v in sorted((r.get("failures") or {}).items()))
            out.append(f"<td>{shown or '<span class=muted>none</span>'}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


class _PageBoard:
    """A running tournament's board so far, for its page: the running sums and how far into
    the stored matches they are."""

    def __init__(self, spec: TournamentSpec) -> None:
        self.lock = threading.Lock()
        self.cursor = "0"
        self.tally = boards.Tally(spec)
        self.polled = time.monotonic()


class WebUI:
    """The pages and their JSON, over the store, answering through the API's own code."""

    def __init__(self, store: Store, service: Any) -> None:
        self.store = store
        self.service = service  # referee.service.ArenaService: the same privacy code as the API
        # Running tournaments' boards so far, followed as WatchTournament follows them
        # (referee.live): each poll reads only the newly stored matches and adds them to a
        # running tally; no record is kept. Dropped when the tournament ends.
        self._live: dict[str, _PageBoard] = {}
        self._live_lock = threading.Lock()  # the dict only: each board has its own lock
        self._pool = ThreadPoolExecutor(max_workers=WEB_THREADS, thread_name_prefix="arena-web")

    async def blocking(self, fn: Callable[..., T], *args: Any) -> T:
        # The pages' own threads: anonymous visitors never take the threads the gRPC API and
        # its health check run on (40 reloading a slow page made health NOT_SERVING).
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def app(self) -> web.Application:
        # A trailing slash (/tournaments/ID/) goes to the page without it, not to a 404.
        slashes = web.normalize_path_middleware(append_slash=False, remove_slash=True)
        app = web.Application(middlewares=[slashes, self.errors])
        app.add_routes(
            [
                web.get("/", self.games_page),
                web.get("/games/{game}", self.game_page),
                web.get("/tournaments", self.tournaments_page),
                web.get("/tournaments/{tid}", self.tournament_page),
                web.get("/matches/{ref}", self.match_page),
                web.get("/matches/{ref}/record.json", self.match_record),
                web.get("/api/games/{game}/leaderboard", self.game_leaderboard_json),
                web.get("/api/tournaments/{tid}", self.tournament_json),
                web.get("/api/tournaments/{tid}/matches", self.matches_json),
            ]
        )
        return app

    @web.middleware
    async def errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            response: web.StreamResponse = await handler(request)
            return response
        except ApiError as exc:
            status = {"NOT_FOUND": 404, "INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 409}.get(exc.code.name, 503)
            # A 503 with a delay (busy replaying) says when to come back, as the store's does.
            headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))} if exc.retry_after else {}
            return error_response(request, status, exc.message, headers)
        except STORE_DOWN:  # Redis down or restarting: as the gRPC API says it, not a 500 and a traceback
            return error_response(
                request,
                503,
                f"the store is unavailable; retry in {STORE_RETRY_SECONDS:g}s",
                {"Retry-After": str(round(STORE_RETRY_SECONDS))},
            )
        except web.HTTPException as exc:
            if exc.status < 400 or exc.text is None:
                raise
            return error_response(request, exc.status, exc.text.strip(), dict(exc.headers))

    def _game(self, game_id: str) -> Game:
        if game_id not in games():
            raise web.HTTPNotFound(text=f"no game {shown(game_id)}\n")
        return get_game(game_id)

    # -- games --------------------------------------------------------------------------------

    async def games_page(self, request: web.Request) -> web.Response:
        rows = []
        for game_id, game in games().items():
            meta = game.meta
            players = (
                f"{meta.min_players}"
                if meta.min_players == meta.max_players
                else f"{meta.min_players}-{meta.max_players}"
            )
            rows.append(
                f'<tr><td><a href="/games/{esc(game_id)}">{esc(meta.name)}</a></td><td>{players}</td>'
                f"<td>{esc(', '.join(meta.flags))}</td><td>{esc(meta.summary)}</td></tr>"
            )
        body = (
            '<h1>Games</h1><div class="panel"><table id="games"><tr><th>game</th><th>players</th><th>nature</th>'
            f"<th>in short</th></tr>{''.join(rows)}</table></div>"
        )
        return page("Arena: games", body)

    async def game_page(self, request: web.Request) -> web.Response:
        game = self._game(request.match_info["game"])
        meta = game.meta
        board = await self.blocking(self.store.game_leaderboard, meta.id)
        # The API's GetLeaderboard(game): across ended tournaments, failures included.
        rows = as_json(views.leaderboard(board or {"game": meta.id}))["rows"]
        listing = await self.blocking(self._tournaments, meta.id, 50)
        tournaments = "".join(
            f'<tr><td><a href="/tournaments/{esc(t.id)}">{esc(t.id)}</a></td>'
            f'<td><span class="badge {esc(t.status)}">{esc(t.status)}</span></td><td>{t.done}/{t.total}</td>'
            f"<td>{esc(', '.join(t.bots))}</td></tr>"
            for t in listing
        )
        options = "".join(
            f"<li><code>{esc(o.key)}={esc(o.allowed())}</code> (default {esc(o.default)}): {esc(o.help)}</li>"
            for o in meta.options
        )
        body = (
            f"<h1>{esc(meta.name)}</h1><p>{esc(meta.summary)}</p>"
            f'<div class="panel"><h2>Leaderboard across tournaments</h2><div id="leaderboard">'
            f"{leaderboard_table(rows, failures=True)}</div></div>"
            f'<div class="panel"><h2>Tournaments</h2><table id="tournaments"><tr><th>id</th><th>status</th>'
            f"<th>matches</th><th>bots</th></tr>{tournaments}</table></div>"
            f'<div class="panel" id="rules"><h2>Rules</h2><p>Players: {meta.min_players}-{meta.max_players}; '
            f"version {esc(meta.version)}</p>{f'<ul>{options}</ul>' if options else ''}"
            f'<pre class="rules">{esc(rules_markdown(game))}</pre></div>'
        )
        return page(f"Arena: {meta.name}", body)

    async def game_leaderboard_json(self, request: web.Request) -> web.Response:
        game = self._game(request.match_info["game"])
        board = await self.blocking(self.store.game_leaderboard, game.meta.id)
        return web.json_response(as_json(views.leaderboard(board or {"game": game.meta.id})))

    # -- tournaments --------------------------------------------------------------------------

    def _tournaments(self, game: str, limit: int) -> list[arena_pb2.Tournament]:
        """Newest first, as ListTournaments (whose answer is public): the game's own index, so a
        page reads its ``limit`` tournaments, not every tournament of every game (3-5 s a view
        with 20,000 stored)."""
        ids = self.store.newest_of_game(game, limit) if game else self.store.tournaments(limit)
        return [views.tournament(info) for info in map(self.store.tournament, ids) if info]

    async def tournaments_page(self, request: web.Request) -> web.Response:
        listing = await self.blocking(self._tournaments, "", 100)
        rows = "".join(
            f'<tr><td><a href="/tournaments/{esc(t.id)}">{esc(t.id)}</a></td><td>{esc(t.game)}</td>'
            f'<td><span class="badge {esc(t.status)}">{esc(t.status)}</span></td><td>{t.done}/{t.total}</td>'
            f"<td>{esc(', '.join(t.bots))}</td></tr>"
            for t in listing
        )
        body = (
            '<h1>Tournaments</h1><div class="panel"><table id="tournaments"><tr><th>id</th><th>game</th>'
            f"<th>status</th><th>matches</th><th>bots</th></tr>{rows}</table></div>"
        )
        return page("Arena: tournaments", body)

    def _tournament_state(self, tournament_id: str) -> dict[str, Any]:
        """What WatchTournament sends (the board of the matches so far, without failures while
        it runs; the final board once it has ended), plus the seat statistics."""
        info = self.service._tournament_info(tournament_id)
        spec = TournamentSpec.from_json(info["spec"])
        final_board = self.store.leaderboard(tournament_id)
        ended = has_ended(info, final_board)
        if ended:
            with self._live_lock:
                self._live.pop(tournament_id, None)
        board = final_board if ended and final_board else self._board_so_far(tournament_id, spec)
        return {
            "tournament": as_json(views.tournament(info)),
            "leaderboard": as_json(views.leaderboard(board, tournament_id, failures=ended)),
            "seats": board.get("seats", []),
            "final": ended,
        }

    def _board_so_far(self, tournament_id: str, spec: TournamentSpec) -> dict[str, Any]:
        now = time.monotonic()
        with self._live_lock:
            live = self._live.get(tournament_id)
            if live is None:
                live = self._live[tournament_id] = _PageBoard(spec)
            live.polled = now
            # A board nobody polls any more (its page closed before the tournament ended) goes.
            for idle in [t for t, board in self._live.items() if now - board.polled > PAGE_BOARD_IDLE_SECONDS]:
                del self._live[idle]
        with live.lock:  # one tournament's catching up holds up no other's
            live.cursor = catch_up(self.store, tournament_id, live.cursor, live.tally)  # far behind: over polls
            return live.tally.board()

    async def tournament_json(self, request: web.Request) -> web.Response:
        return web.json_response(await self.blocking(self._tournament_state, request.match_info["tid"]))

    async def matches_json(self, request: web.Request) -> web.Response:
        numbers = (request.query.get("offset", "0"), request.query.get("limit", str(PAGE_SIZE)))
        # ASCII digits only (int() also takes '٣' and spaces), and no more than a page token's.
        if not all(re.fullmatch(r"[0-9]{1,9}", n) for n in numbers):
            raise web.HTTPBadRequest(text="offset and limit are numbers\n")
        offset = int(numbers[0])
        limit = min(100, max(1, int(numbers[1])))
        query = arena_pb2.ListMatchesRequest(
            tournament_id=request.match_info["tid"], bot=request.query.get("bot", ""), offset=offset, limit=limit
        )
        listing = await self.blocking(self.service._list_matches, query, ANONYMOUS)
        return web.json_response(as_json(listing))

    async def tournament_page(self, request: web.Request) -> web.Response:
        tournament_id = request.match_info["tid"]
        state = await self.blocking(self._tournament_state, tournament_id)
        bots = state["tournament"]["bots"]
        options = "".join(f'<option value="{esc(b)}">{esc(b)}</option>' for b in bots)
        body = (
            f'<h1>Tournament {esc(tournament_id)}</h1><div class="panel" id="progress-panel">'
            '<p class="verdict" id="stale" role="status" hidden></p>'
            f'<div id="status"></div><div class="progress"><div id="progress" style="width:0"></div></div></div>'
            '<div class="panel"><h2>Leaderboard</h2><div id="leaderboard"></div></div>'
            '<div class="panel"><h2>Seats</h2><div id="seats"></div></div>'
            '<div class="panel"><h2>Matches</h2><div class="pager"><label>bot <select id="bot-filter">'
            f'<option value="">all</option>{options}</select></label><button id="page-first">first</button>'
            '<button id="page-prev">previous</button><span id="page-label"></span><button id="page-next">next</button>'
            '<button id="page-last">last</button></div><div id="matches"></div></div>'
        )
        # The data with every < and > escaped: an entrant named '<!--<script>' put the parser in
        # a state where the element's own </script> closed nothing (the page drew nothing).
        data = f"var TOURNAMENT = {script_json(tournament_id)}; var INITIAL = {script_json(state)};\n"
        return page(
            f"Arena: tournament {tournament_id}", body, script=data + asset("tournament.js").replace("</", "<\\/")
        )

    # -- a match ------------------------------------------------------------------------------

    async def match_page(self, request: web.Request) -> web.Response:
        ref = request.match_info["ref"]
        facts = await self.blocking(self.service._match_facts, ref, ANONYMOUS)
        detail = await self.service._match_detail(facts)
        notices = [e.text for e in detail.events if e.kind == "notice" and e.seat == -1]
        if detail.spectator:
            # The full replay: the same page for every visitor once the tournament has ended
            # (privileged), so it is built once and kept compressed in the match cache.
            build = functools.partial(self.service.match_cache.in_process, spectator_page, facts.ref, facts.record)
            spectator = await self.service.cached(("page", facts.ref, *facts.replay_key), build)
            if spectator.page:
                return await self.html_response(request, spectator.page)
            notices.append(spectator.problem)
        text = await self.blocking(self._public_html, facts.ref, detail, notices)
        return web.Response(text=text, content_type="text/html")

    async def html_response(self, request: web.Request, page: bytes) -> web.Response:
        """A gzip-compressed page as it is (to a client that takes gzip: browsers), else inflated."""
        headers = {"Vary": "Accept-Encoding"}
        if accepts_gzip(request.headers.get("Accept-Encoding", "")):
            headers["Content-Encoding"] = "gzip"
            return web.Response(body=page, content_type="text/html", charset="utf-8", headers=headers)
        text = await self.blocking(gzip.decompress, page)
        return web.Response(body=text, content_type="text/html", charset="utf-8", headers=headers)

    def _public_html(self, ref: str, detail: arena_pb2.MatchDetail, notices: list[str]) -> str:
        """No replay: the tournament runs (public events at most), or the record cannot be
        replayed here (an older game version's): the API's notice says why, above the viewer."""
        tournament_id, _, match_id = ref.rpartition(":")
        nav = match_nav(tournament_id)
        summary = as_json(detail.summary)
        info = self.service._tournament_info(tournament_id)
        game = get_game(info["spec"]["game"])
        events = [
            {"seat": e.seat, "kind": e.kind, "text": e.text, "to": None}
            for e in detail.events
            if not detail.spectator and e.kind != "notice"  # a spectator's log is not public
        ]
        seats = [s["bot"] for s in summary["seats"]]
        data = public_data(game, match_id, seats, summary, events, title=f"match {ref}")
        note = "".join(f"<p>{esc(text[:1].upper() + text[1:])}.</p>" for text in notices)
        if detail.record_json:
            note += f'<p><a id="record-download" href="/matches/{esc(ref)}/record.json" download>the record</a></p>'
        if note:
            nav += f'<div class="panel" id="match-note">{note}</div>'
        return render_html(data, header=nav)

    async def match_record(self, request: web.Request) -> web.Response:
        """The match's record as stored (what ``arena matches get --record`` writes), once the
        API gives it to a visitor: when its tournament has ended (no replay needed)."""
        ref = request.match_info["ref"]
        facts = await self.blocking(self.service._match_facts, ref, ANONYMOUS)
        if not facts.privileged:
            raise web.HTTPConflict(text="the record is served when the tournament ends\n")
        name = facts.ref.replace(":", "-")
        return web.Response(
            text=facts.record.dumps() + "\n",
            content_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}.json"'},
        )


def error_response(request: web.Request, status: int, message: str, headers: dict[str, str]) -> web.Response:
    """An error as one line of text (the API, scripts), or to a browser asking for a page, that
    line on a page with the web UI's navigation (a bare text page left it no way back)."""
    headers = {k: v for k, v in headers.items() if k.lower() not in ("content-type", "content-length")}
    if request.path.startswith("/api/") or "text/html" not in request.headers.get("Accept", ""):
        return web.Response(status=status, text=f"{message}\n", headers=headers)
    shown = page(f"Arena: {status}", f'<div class="panel" id="error"><p>{esc(message)}</p></div>')
    return web.Response(status=status, text=shown.text, content_type="text/html", headers=headers)


def match_nav(tournament_id: str, record_of: str = "") -> str:
    """The match page's navigation; with ``record_of`` (a finished match's ref, whose full replay
    this is), a link to download its record as stored."""
    record = (
        f'<a id="record-link" href="/matches/{esc(record_of)}/record.json" download>record</a>' if record_of else ""
    )
    return (
        '<header class="nav"><b>Arena</b><a href="/">games</a><a href="/tournaments">tournaments</a>'
        f'<a href="/tournaments/{esc(tournament_id)}">tournament {esc(tournament_id)}</a>{record}</header>'
    )


@dataclass(frozen=True)
class SpectatorPage:
    """A match's full replay page, gzip-compressed (26 MB of HTML for an 8-player Wine Cellar
    series, 0.5 MB compressed: its observations repeat), or why the record does not replay."""

    page: bytes
    problem: str


def spectator_page(ref: str, record: MatchRecord) -> Sized[SpectatorPage]:
    """Built in a replay process of the match cache (the expensive part: every seat's view at
    every step)."""
    try:
        data = replay_data(get_game(record.game), record, title=f"match {ref}")
    except ReplayMismatch as exc:  # e.g. its result is not the one its moves give
        problem = f"this record does not replay ({exc}): no events"
        return Sized(SpectatorPage(b"", problem), len(problem))
    text = render_html(data, header=match_nav(ref.rpartition(":")[0], record_of=ref))
    del data  # the replay's frames are most of its memory: gone before compressing
    page = gzip.compress(text.encode(), compresslevel=PAGE_COMPRESSION, mtime=0)  # the same bytes each time
    return Sized(SpectatorPage(page, ""), len(page))


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip: named (or else ``*``) and not with q=0."""
    weights: dict[str, float] = {}
    for item in header.split(","):
        coding, _, params = item.strip().partition(";")
        q = params.strip().lower().removeprefix("q=").strip()
        try:
            weights[coding.strip().lower()] = float(q) if q else 1.0
        except ValueError:
            weights[coding.strip().lower()] = 0.0
    return weights.get("gzip", weights.get("*", 0.0)) > 0


class NotHttp1(logging.Filter):
    """aiohttp's ERROR with a traceback for bytes that are not an HTTP/1 request (a gRPC client
    dialled the web port, a scanner) becomes one WARNING line: the client's mistake, answered
    with a 400, not the service's failure."""

    def filter(self, record: logging.LogRecord) -> bool:
        from aiohttp.http_exceptions import HttpProcessingError

        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            prefix = error.message.split(":", 1)[0].strip() if error.message else ""
            http2 = "PRI" in prefix
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            why = (
                "an HTTP/2 (gRPC?) client at the web UI's port, answered 400"
                if http2
                else f"not an HTTP/1 request ({prefix or type(error).__name__}), answered 400"
            )
            record.msg = f"{record.getMessage()}: {why}"
            record.args = None
            record.exc_info = record.exc_text = None
        return True


_NOT_HTTP1 = NotHttp1()


async def start_web(store: Store, service: Any, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve the UI on the running loop; returns the runner (``cleanup()`` stops it) and the
    bound port (``port`` 0: any free one)."""
    logging.getLogger("aiohttp.server").addFilter(_NOT_HTTP1)  # a set: added once however often
    runner = web.AppRunner(WebUI(store, service).app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_address=True)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    server = site._server
    sockets = getattr(server, "sockets", None) or []
    bound = sockets[0].getsockname()[1] if sockets else port
    return runner, int(bound)
