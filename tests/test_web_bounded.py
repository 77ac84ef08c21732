"""What an outside probe of the web UI found: a game's page read every tournament ever stored
(3-5 s a view with 20,000), on the threads the gRPC API and its health check run on (40
anonymous visitors made health NOT_SERVING); a cancelled tournament's last update was the
board so far, not the published one; a busy 503 said when to retry in its text only."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from aiohttp.test_utils import make_mocked_request

from arena.tournament import TournamentSpec
from arena.v1 import arena_pb2
from referee.errors import exhausted
from referee.live import FINAL_WAIT_SECONDS, has_ended
from referee.store import Store
from referee.web import WebUI
from tests.services import redis_server


def spec(game: str, seed: int) -> TournamentSpec:
    return TournamentSpec(game=game, bots=("random", "heuristic"), players=2, seed=seed)


def test_a_games_tournaments_come_from_its_own_index(tmp_path):
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        for n in range(300):  # a busy game
            store.create_tournament(f"s{n:03d}", spec("skyfive", n), 2, 1)
        for n in range(2):  # and a quiet one
            store.create_tournament(f"k{n}", spec("karakum", n), 2, 1)
        read: list[str] = []
        original = store.tournament

        def counted(tournament_id: str):  # type: ignore[no-untyped-def]
            read.append(tournament_id)
            return original(tournament_id)

        store.tournament = counted  # type: ignore[method-assign]
        web = WebUI(store, service=None)
        listed = web._tournaments("karakum", 50)
        assert [t.id for t in listed] == ["k1", "k0"]
        assert read == ["k1", "k0"]  # it read the game's two, not the 302 stored
        assert [t.id for t in web._tournaments("skyfive", 3)] == ["s299", "s298", "s297"]
        assert store.tournaments_before(None, 5, game="karakum") == [
            (t, store.redis.zscore(store.key("tournaments"), t)) for t in ("k1", "k0")
        ]

        # Tournaments stored before the index: indexed once, at the service's start.
        for game in ("skyfive", "karakum"):
            store.redis.delete(store.key("game", game, "all"))
        assert store.newest_of_game("karakum") == []
        assert store.index_games() == 302
        assert store.newest_of_game("karakum") == ["k1", "k0"]
        assert len(store.newest_of_game("skyfive", 1000)) == 300
        assert store.index_games() == 0  # once


def test_the_pages_run_on_threads_of_their_own():
    web = WebUI(store=None, service=None)  # type: ignore[arg-type]
    name = asyncio.run(web.blocking(lambda: threading.current_thread().name))
    assert name.startswith("arena-web")


def test_a_busy_503_says_when_to_retry_in_its_header():
    web = WebUI(store=None, service=None)  # type: ignore[arg-type]

    async def busy(request):  # type: ignore[no-untyped-def]
        raise exhausted("the server is busy replaying other matches: retry in 2s", 2.0)

    response = asyncio.run(web.errors(make_mocked_request("GET", "/matches/x"), busy))
    assert response.status == 503 and response.headers["Retry-After"] == "2"


@pytest.mark.parametrize(
    ("status", "board", "ago", "ended"),
    [
        ("running", None, 0, False),
        ("complete", None, 999, False),  # a complete tournament's board always comes
        ("complete", {"leaderboard": []}, 0, True),
        ("cancelled", None, 1, False),  # its finalisation is on its way: wait for the board
        ("cancelled", {"leaderboard": []}, 1, True),
        ("stopped", None, 1, False),
        ("cancelled", None, FINAL_WAIT_SECONDS + 1, True),  # no worker finalised it: give up
    ],
)
def test_a_cancelled_tournament_ends_with_its_published_board(status, board, ago, ended):
    now = time.time()
    assert has_ended({"status": status, "ended": str(now - ago)}, board, now) is ended


def test_watchers_of_a_cancelled_tournament_get_the_published_board(tmp_path):
    """The live view (WatchTournament, shared by every watcher) keeps following a cancelled
    tournament until its board is published, and ends with that board."""
    from referee.live import LiveBoards

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        tournament = spec("skyfive", 1)
        store.create_tournament("t1", tournament, 2, 1)
        store.cancel("t1")

        async def watch() -> list[arena_pb2.TournamentUpdate]:
            loop = asyncio.get_running_loop()

            async def blocking(fn, *args):  # type: ignore[no-untyped-def]
                return await loop.run_in_executor(None, fn, *args)

            live = LiveBoards(store, blocking, asyncio.Event(), poll=0.05)
            updates: list[arena_pb2.TournamentUpdate] = []

            async def publish_later() -> None:
                await asyncio.sleep(0.5)
                board = {"game": "skyfive", "players": 2, "matches": 0, "leaderboard": [], "status": "cancelled"}
                store.save_leaderboard("t1", {**board, "warning": "PUBLISHED"})

            task = asyncio.get_running_loop().create_task(publish_later())
            async for update in live.watch("t1", tournament):
                updates.append(update)
            await task
            return updates

        updates = asyncio.run(watch())
    assert updates[-1].final and updates[-1].leaderboard.warning == "PUBLISHED"
    assert all(not u.final for u in updates[:-1])


def test_a_page_board_nobody_polls_is_dropped(tmp_path, monkeypatch):
    """Boards of running tournaments whose pages were closed used to stay until a poll saw the
    tournament end, which might never come."""
    import referee.web as web_module

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        for n in range(3):
            store.create_tournament(f"t{n}", spec("skyfive", n), 2, 1)
        web = WebUI(store, service=None)
        web._board_so_far("t0", spec("skyfive", 0))
        web._board_so_far("t1", spec("skyfive", 1))
        assert set(web._live) == {"t0", "t1"}
        monkeypatch.setattr(web_module, "PAGE_BOARD_IDLE_SECONDS", 0.0)
        time.sleep(0.01)
        web._board_so_far("t2", spec("skyfive", 2))
        assert set(web._live) == {"t2"}


def test_a_watch_rides_out_a_redis_restart(tmp_path):
    """`arena tournaments watch` ended with exit 1 (which says "cancelled") when Redis restarted
    under a tournament that itself rode the restart out; it watches again and ends with it."""
    import os
    import subprocess
    import sys

    from referee.auth import create_owner
    from tests.cli_run import ROOT
    from tests.services import service, wait_for, workers

    with (
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=1),
        service(redis.url, tmp_path) as srv,
    ):
        store = Store(redis.url)
        token = create_owner(store, "alice")
        env = {"ARENA_SERVER": srv.address, "ARENA_TOKEN": token, "PYTHONPATH": str(ROOT)}
        created = subprocess.run(
            [
                sys.executable,
                "-m",
                "arena",
                "tournaments",
                "create",
                "--game",
                "skyfive",
                "--bots",
                "random,heuristic",
                "--repeats",
                "150",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            cwd=ROOT,
            timeout=60,
        )
        assert created.returncode == 0, created.stderr
        tournament_id = created.stdout.strip().split()[0]
        watch = subprocess.Popen(
            [sys.executable, "-m", "arena", "tournaments", "watch", tournament_id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env},
            cwd=ROOT,
        )
        wait_for(lambda: store.tournament(tournament_id)["done"] >= 10, 120, "progress")
        redis.restart(downtime=2.0)
        out, err = watch.communicate(timeout=240)
    assert watch.returncode == 0, err
    assert "watching again" in err and f"{tournament_id}: complete" in out


def test_a_ctrl_c_stops_the_watching_and_says_the_tournament_goes_on(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from referee.auth import create_owner
    from tests.cli_run import ROOT
    from tests.services import service

    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        token = create_owner(Store(redis.url), "alice")
        env = {**os.environ, "ARENA_SERVER": srv.address, "ARENA_TOKEN": token, "PYTHONPATH": str(ROOT)}
        args = ["tournaments", "create", "--game", "skyfive", "--bots", "random,heuristic", "--watch"]
        watch = subprocess.Popen(
            [sys.executable, "-m", "arena", *args], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        assert watch.stderr is not None
        first = watch.stderr.readline()  # its first progress line: watching (no worker: it stays queued)
        assert ": queued 0/" in first, first
        watch.send_signal(signal.SIGINT)
        _, err = watch.communicate(timeout=60)
    tournament_id = first.split(":")[0]
    assert watch.returncode == 130
    assert f"stopped watching; {tournament_id} goes on in the service" in err
    assert f"arena tournaments watch {tournament_id}" in err
