"""Hosted bots end to end (issue 17): the CLI submits over the service's client-streaming RPC,
the service checks the upload and plays its trial match in the real sandbox, versions are
listed and activated, a tournament records the version it played, a real Celery worker plays
the hosted seats in the jail and keeps their output, shown to the owner only."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.v1 import arena_pb2
from referee.auth import create_owner
from referee.hosted import versions
from referee.store import Store
from tests.cli_run import arena as run_arena
from tests.remote_helpers import bot_process, served
from tests.services import redis_server, service, wait_for, workers
from tests.test_service import Api

pytestmark = [pytest.mark.timeout(600), pytest.mark.usefixtures("bubblewrap")]

HOSTILE = Path(__file__).resolve().parent / "bots" / "hosted" / "hostile"


def bot_dir(tmp: Path, behaviour: str) -> Path:
    directory = tmp / f"src-{behaviour}"
    shutil.copytree(HOSTILE, directory)
    (directory / "behaviour.json").write_text(json.dumps({"behaviour": behaviour}))
    return directory


def arena(server: str, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, env={"ARENA_SERVER": server, "ARENA_TOKEN": token})


def test_submit_activate_play_and_read_the_logs(tmp_path):
    with (
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=1, metrics=False),
        service(redis.url, tmp_path) as srv,
    ):
        store = Store(redis.url)
        alice, bob = create_owner(store, "alice"), create_owner(store, "bob")
        address = srv.address

        # A first version: checked, tried in the sandbox, stored, active.
        done = arena(address, alice, "bots", "submit", "--name", "hostile", str(bot_dir(tmp_path, "chatty")))
        assert done.returncode == 0, done.stderr
        v1 = done.stdout.split("version ")[1].split()[0]
        assert done.stdout.strip().endswith("(active)")

        # Refused uploads store nothing: a syntax error, for a new bot and for an existing one.
        broken = bot_dir(tmp_path, "none")
        (broken / "hostile.py").write_text("def broken(:\n")
        keys_before = sorted(store.redis.keys("*hosted*"))
        for name in ("ghost", "hostile"):
            done = arena(address, alice, "bots", "submit", "--name", name, str(broken))
            assert done.returncode == 1
            assert "INVALID_ARGUMENT: compile check: hostile.py, line 1" in done.stderr
            assert "(field data)" in done.stderr
        assert store.bot("ghost") is None
        assert sorted(store.redis.keys("*hosted*")) == keys_before

        # Another owner cannot add versions to alice's bot.
        lingering = bot_dir(tmp_path, "linger")
        manifest = lingering / "arena-bot.toml"
        manifest.write_text(manifest.read_text().replace('games = ["rolldice"]', 'games = ["rolldice", "skyfive"]'))
        done = arena(address, bob, "bots", "submit", "--name", "hostile", str(lingering))
        assert done.returncode == 1 and "PERMISSION_DENIED" in done.stderr

        # A tournament of the first version.
        client = Api(address, alice)
        first = client.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["hostile", "random"], players=2)
        )
        # A hosted bot's seats can keep bits between matches (the host's page cache) and signal
        # to one another (file locks): each rotation gets a deal of its own, as with a remote bot.
        assert first.deals == "fresh"
        wait_for(lambda: store.tournament(first.id)["status"] == "complete", 240, "the first tournament")

        # A second version is stored, not active until activated (by a prefix of its hash).
        done = arena(address, alice, "bots", "submit", "--name", "hostile", str(lingering))
        assert done.returncode == 0, done.stderr
        v2 = done.stdout.split("version ")[1].split()[0]
        assert v2 != v1 and done.stdout.strip().endswith("(stored)")
        listed = arena(address, alice, "bots", "versions", "hostile").stdout.splitlines()
        remote = ("bots", "register", "--name", "far", "--games", "rolldice", "--endpoint", "grpc://127.0.0.1:9")
        assert arena(address, alice, *remote).returncode == 0
        for action in (("versions", "far"), ("activate", "far", "abc"), ("delete-version", "far", "abc")):
            none = arena(address, alice, "bots", *action)  # "no versions", or pointed at `versions`
            assert none.returncode == 1 and "bot 'far' is a remote bot (registered with an endpoint)" in none.stderr
        assert [line.split("\t")[:2] for line in listed] == [[v1[:16], "active"], [v2[:16], "-"]]
        # The bot plays its active version's games: a stored version adds none (a tournament of
        # skyfive would fail in every match), its activation does.
        assert store.bot("hostile")["games"] == ["rolldice"]
        done = arena(address, alice, "bots", "activate", "hostile", v2[:10])
        assert done.returncode == 0 and f"version {v2} is active" in done.stdout
        assert store.bot("hostile")["games"] == ["rolldice", "skyfive"]

        # A tournament records the active version and the worker plays it in the jail.
        created = client.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["hostile", "random"], players=2)
        )
        wait_for(lambda: store.tournament(created.id)["status"] == "complete", 240, "the tournament")
        assert store.tournament(created.id)["spec"]["addresses"] == {"hostile": f"hosted:hostile@{v2}"}
        records = store.matches(created.id)
        assert records and all(record.failures == [] for record in records)

        # Its output, to its owner only.
        record = next(r for r in records if r.match_id == "m000000")
        match_ref = f"{created.id}:m000000"
        seat = next(i for i, s in enumerate(record.seats) if "hostile" in json.dumps(s))
        logs = client.GetMatchLogs(arena_pb2.GetMatchLogsRequest(id=match_ref))
        assert [(entry.seat, entry.bot) for entry in logs.logs] == [(seat, "hostile")]
        assert "LINGER pid" in logs.logs[0].text
        assert list(Api(address, bob).GetMatchLogs(arena_pb2.GetMatchLogsRequest(id=match_ref)).logs) == []
        done = arena(address, alice, "matches", "logs", match_ref)
        assert done.returncode == 0 and "LINGER pid" in done.stdout
        past = arena(address, alice, "matches", "logs", f"{created.id}:m999999")  # it said "(yet)"
        assert past.returncode == 1 and f"it has {len(records)} matches (m000000 to m" in past.stderr
        assert versions.active_version(store, "hostile") == v2

        # The first tournament's seats: 64 KiB of output, then the marker.
        chatty = client.GetMatchLogs(arena_pb2.GetMatchLogsRequest(id=f"{first.id}:m000000")).logs[0].text
        assert "[arena: output truncated at 64 KiB;" in chatty

        # Ratings per version on the bot's page.
        detail = Api(address, bob).GetBot(arena_pb2.GetBotRequest(name="hostile"))
        rated = {(r.version, r.game): r.games for r in detail.version_ratings}
        assert rated == {(v1, "rolldice"): len(store.matches(first.id)), (v2, "rolldice"): len(records)}
        shown = arena(address, bob, "bots", "get", "hostile").stdout  # the text shows them too
        assert f"rolldice version {v1[:16]}:" in shown and f"rolldice version {v2[:16]}:" in shown


def test_where_the_service_cannot_sandbox_an_upload_is_refused_saying_why(tmp_path, monkeypatch):
    import grpc

    from arena.cli.hosted_cmd import chunks
    from referee.errors import bad_request_field
    from referee.hosted import archive

    empty = tmp_path / "no-tools"
    empty.mkdir()
    with redis_server(tmp_path) as redis:
        monkeypatch.setenv("PATH", str(empty))  # the service's: no bwrap on it
        with service(redis.url, tmp_path) as srv:
            monkeypatch.undo()
            store = Store(redis.url)
            client = Api(srv.address, create_owner(store, "alice"))
            data = archive.pack_directory(bot_dir(tmp_path, "none"))
            with pytest.raises(grpc.RpcError) as info:
                client.SubmitBotVersion(chunks("hostile", [], False, data))
            # Broken archives are still told apart before the sandbox is needed.
            with pytest.raises(grpc.RpcError) as broken:
                client.SubmitBotVersion(chunks("hostile", [], False, b"not an archive"))
            assert store.bot("hostile") is None and store.redis.keys("*hosted*") == []
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "sandbox cannot run" in info.value.details() and "bwrap" in info.value.details()
    assert broken.value.code() == grpc.StatusCode.INVALID_ARGUMENT and bad_request_field(broken.value) == "data"


def test_a_hosted_seats_output_is_kept_when_its_match_has_a_remote_seat(tmp_path):
    """A match with a remote seat is played on the worker's event loop thread: its hosted seat's
    output was once kept under the bare match id (no tournament: GetMatchLogs found nothing,
    and tournaments overwrote each other's)."""
    with (
        bot_process(served("random")) as endpoint,
        redis_server(tmp_path) as redis,
        workers(redis.url, tmp_path, count=1, concurrency=1, metrics=False),
        service(redis.url, tmp_path) as srv,
    ):
        store = Store(redis.url)
        alice = create_owner(store, "alice")
        done = arena(srv.address, alice, "bots", "submit", "--name", "hostile", str(bot_dir(tmp_path, "linger")))
        assert done.returncode == 0, done.stderr
        client = Api(srv.address, alice)
        client.RegisterBot(arena_pb2.RegisterBotRequest(name="alice-remote", games=["rolldice"], endpoint=endpoint))
        created = client.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="rolldice", bots=["hostile*2", "alice-remote"], players=3)
        )
        wait_for(lambda: store.tournament(created.id)["status"] == "complete", 240, "the tournament")
        records = store.matches(created.id)
        assert records and all(record.failures == [] for record in records)
        for record in records:
            logs = client.GetMatchLogs(arena_pb2.GetMatchLogsRequest(id=f"{created.id}:{record.match_id}")).logs
            # Each seat named as the record names it: the copy by its number (both read "hostile").
            seats = sorted((i, s["bot"]) for i, s in enumerate(record.seats) if s["bot"].startswith("hostile"))
            assert [(entry.seat, entry.bot) for entry in logs] == seats, record.match_id
            assert {bot for _, bot in seats} == {"hostile", "hostile#2"}
            assert all("LINGER pid" in entry.text for entry in logs)
        assert not [key for key in store.redis.keys("*hosted:log:m0*")]  # nothing under a bare match id
