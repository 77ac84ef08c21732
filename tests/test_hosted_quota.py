"""What an owner may keep of hosted bots' code on a shared service: a bot keeps at most
MAX_VERSIONS versions and an owner MAX_OWNER_BYTES of uploads (one owner's padded uploads once
filled Redis for everyone); DeleteBotVersion forgets one, never the active version nor one a
live tournament plays. A real ``arena serve`` (its uploads tried in the real sandbox) on a
private redis-server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.hosted_cmd import archive_bytes
from arena.tournament import TournamentSpec
from arena.v1 import arena_pb2
from bots.registry import bot_names
from referee.auth import create_owner
from referee.hosted import versions
from referee.store import Store
from tests.services import redis_server, service
from tests.test_hosted_service import arena, bot_dir

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("bubblewrap")]


def variant(tmp: Path, i: int) -> Path:
    """The hostile bot's well-behaved code, with a file that makes version ``i`` its own."""
    place = tmp / f"v{i}"
    if place.exists():
        return place / "src-well"
    directory = bot_dir(place, "well")
    (directory / "variant.txt").write_text(f"variant {i}\n")
    return directory


def live_tournament(store: Store, tournament_id: str, address: str) -> None:
    """A running tournament whose spec plays ``address`` (as CreateTournament stores one)."""
    spec = {"game": "rolldice", "bots": ["hostile", "random"], "addresses": {"hostile": address}}
    store.redis.hset(store.key("t", tournament_id), mapping={"status": "running", "spec": json.dumps(spec)})
    store.redis.sadd(store.key("active"), tournament_id)


def test_versions_and_bytes_are_capped_and_deleting_a_version_makes_room(tmp_path):
    with redis_server(tmp_path) as redis, service(redis.url, tmp_path) as srv:
        store = Store(redis.url)
        alice = create_owner(store, "alice")
        first = arena(srv.address, alice, "bots", "submit", "--name", "hostile", str(variant(tmp_path, 0)))
        assert first.returncode == 0, first.stderr
        active = first.stdout.split("version ")[1].split()[0]
        # Up to the cap, as uploads would have stored them (their trials left out).
        stored = [active]
        for i in range(1, versions.MAX_VERSIONS):
            data = archive_bytes(variant(tmp_path, i))
            stored.append(
                versions.save_version(store, "hostile", "alice", versions.check_upload(data), data)["version"]
            )
        assert len(versions.versions(store, "hostile")) == versions.MAX_VERSIONS
        # One more is refused before its trial, saying what to do; the same content again is no
        # new version.
        refused = arena(srv.address, alice, "bots", "submit", "--name", "hostile", str(variant(tmp_path, 99)))
        assert refused.returncode == 1
        assert f"bot 'hostile' keeps {versions.MAX_VERSIONS} versions, the most: delete one" in refused.stderr
        again = arena(srv.address, alice, "bots", "submit", "--name", "hostile", str(variant(tmp_path, 3)))
        assert again.returncode == 0, again.stderr
        # Never the active version, nor one a live tournament plays; another owner's bot not at all.
        no = arena(srv.address, alice, "bots", "delete-version", "hostile", active[:10])
        assert no.returncode == 1 and "is the active version of bot 'hostile': activate another first" in no.stderr
        live_tournament(store, "rolldice-20261205-000000-0000beef", f"hosted:hostile@{stored[3]}")
        no = arena(srv.address, alice, "bots", "delete-version", "hostile", stored[3])
        assert no.returncode == 1 and "tournament rolldice-20261205-000000-0000beef plays version" in no.stderr
        bob = create_owner(store, "bob")
        no = arena(srv.address, bob, "bots", "delete-version", "hostile", stored[5])
        assert no.returncode == 1 and "PERMISSION_DENIED" in no.stderr
        # Any other goes, its archive with it (no other bot keeps that content), and room is made.
        done = arena(srv.address, alice, "bots", "delete-version", "hostile", stored[5][:12])
        assert done.returncode == 0, done.stderr
        said, *left = done.stdout.splitlines()
        assert said == f"hostile: version {stored[5][:12]} deleted; its versions now:"  # it listed the rest only
        assert stored[5][:16] not in done.stdout and len(left) == versions.MAX_VERSIONS - 1
        assert not store.redis.exists(store.key("hosted", "archive", stored[5]))
        assert store.redis.exists(store.key("hosted", "archive", stored[6]))
        added = arena(srv.address, alice, "bots", "submit", "--name", "hostile", str(variant(tmp_path, 99)))
        assert added.returncode == 0, added.stderr
        # A hosted bot has no endpoint to change (its stored code would leave every count).
        moved = arena(srv.address, alice, "bots", "update", "hostile", "--endpoint", "grpc://127.0.0.1:1")
        assert moved.returncode == 1 and "bot 'hostile' is hosted (Arena runs its code)" in moved.stderr
        assert store.bot("hostile")["endpoint"] == "hosted:hostile"
        # Nor a cap of matches at once: it was accepted and echoed, and nothing applied it.
        capped = arena(srv.address, alice, "bots", "update", "hostile", "--max-matches", "3")
        assert capped.returncode == 1 and "a cap of matches at once does not apply to it" in capped.stderr
        assert "max_matches" not in store.bot("hostile")
        # The owner's bytes: nearly all she may keep already taken leaves no room for another
        # upload, to any of her bots.
        store.redis.hset(store.key("hosted", "bytes"), "alice", versions.MAX_OWNER_BYTES - 1000)
        full = arena(srv.address, alice, "bots", "submit", "--name", "fresh", str(variant(tmp_path, 100)))
        assert full.returncode == 1 and "alice's versions take" in full.stderr
        assert store.bot("fresh") is None


def test_a_deleted_versions_archive_stays_while_another_bot_keeps_the_same_content(tmp_path):
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        data = archive_bytes(variant(tmp_path, 1))
        checked = versions.check_upload(data)
        for name in ("one", "two"):
            store.add_bot(
                name, {"owner": "alice", "games": ["rolldice"], "endpoint": f"hosted:{name}", "enabled": True}
            )
            versions.save_version(store, name, "alice", checked, data)
        versions.delete_version(store, "one", checked.version)
        assert versions.versions(store, "one") == [] and store.redis.exists(
            store.key("hosted", "archive", checked.version)
        )
        versions.delete_version(store, "two", checked.version)
        assert not store.redis.exists(store.key("hosted", "archive", checked.version))


def hosted_bot(store: Store, name: str, owner: str = "alice", endpoint: str | None = None) -> None:
    data = {"owner": owner, "games": ["rolldice"], "endpoint": endpoint or f"hosted:{name}", "enabled": True}
    store.add_bot(name, data)


def test_an_owners_bytes_are_counted_once_then_kept_with_every_save_and_delete(tmp_path):
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        # Versions stored before the count was kept, one of them on a bot whose endpoint changed.
        hosted_bot(store, "old")
        hosted_bot(store, "moved", endpoint="grpc://127.0.0.1:1")
        for bot, size in (("old", 1000), ("moved", 500)):
            info = {"version": bot * 8, "created": 0.0, "size": size, "owner": "alice", "games": []}
            store.redis.hset(store.key("hosted", "versions", bot), bot * 8, json.dumps(info))
        assert versions.stored_bytes(store, "alice") == 1500
        data = archive_bytes(variant(tmp_path, 1))
        saved = versions.save_version(store, "old", "alice", versions.check_upload(data), data)
        assert versions.stored_bytes(store, "alice") == 1500 + len(data)
        versions.save_version(store, "old", "alice", versions.check_upload(data), data)  # the same: nothing new
        assert versions.stored_bytes(store, "alice") == 1500 + len(data)
        versions.delete_version(store, "old", saved["version"])
        versions.delete_version(store, "moved", "moved" * 8)
        assert versions.stored_bytes(store, "alice") == 1000 and versions.stored_bytes(store, "bob") == 0


def test_uploads_at_once_cannot_pass_the_limits_together(tmp_path):
    import threading

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        hosted_bot(store, "many")
        uploads = [archive_bytes(variant(tmp_path, i)) for i in range(8)]
        size = max(len(data) for data in uploads)

        def race(**limits: int) -> list[str]:
            outcomes: list[str] = []

            def save(data: bytes) -> None:
                try:
                    versions.save_version(store, "many", "alice", versions.check_upload(data), data, **limits)
                    outcomes.append("stored")
                except versions.NoRoom:
                    outcomes.append("no room")

            threads = [threading.Thread(target=save, args=(data,)) for data in uploads]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            return sorted(outcomes)

        assert race(max_versions=3) == ["no room"] * 5 + ["stored"] * 3
        assert len(versions.versions(store, "many")) == 3
        for info in versions.versions(store, "many"):
            versions.delete_version(store, "many", info["version"])
        assert race(max_bytes=2 * size + size // 2) == ["no room"] * 6 + ["stored"] * 2
        assert versions.stored_bytes(store, "alice") <= 2 * size + size // 2


def test_an_owners_hosted_output_is_kept_within_a_daily_budget(tmp_path):
    """One chatty hosted bot once added about 10 GB of logs a day per worker; past its owner's
    daily budget a seat keeps a line saying so, and another owner's seats are not touched."""
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        text = "x" * 1000
        kept = [versions.save_log(store, f"t:m00000{i}", 0, "alice", "chatty", text, budget=2500) for i in range(4)]
        assert kept == [True, True, False, False]
        logs = versions.logs(store, "t:m000003", 1)
        assert (
            logs[0]["text"]
            == "[arena: output not kept: alice's hosted seats kept 2500 bytes of output today (UTC), the most]"
        )
        assert (logs[0]["owner"], logs[0]["bot"], logs[0]["seat"]) == ("alice", "chatty", 0)
        assert versions.logs(store, "t:m000001", 1)[0]["text"] == text
        assert versions.save_log(store, "t:m000009", 0, "bob", "quiet", text, budget=2500)  # bob's own budget
        assert 0 < store.redis.ttl(store.key("hosted", "log", "t:m000003", 0)) <= versions.LOG_DAYS * 86400
        # Anyone may enter alice's bot: carol's tournaments spend a budget of their own, never the
        # day of logs alice's own tournaments have (carol's large tournament used it all up).
        entered = [
            versions.save_log(store, f"u:m00000{i}", 0, "alice", "chatty", text, budget=2500, entered_by="carol")
            for i in range(3)
        ]
        assert entered == [True, True, False]
        assert versions.logs(store, "u:m000002", 1)[0]["text"] == (
            "[arena: output not kept: alice's hosted seats kept 2500 bytes of output today (UTC) in tournaments "
            "carol created, the most]"
        )
        assert not versions.save_log(store, "t:m000008", 0, "alice", "chatty", text, budget=2500, entered_by="alice")


def test_deleting_activating_and_creating_a_tournament_are_each_one_step(tmp_path):
    """Deleting a version checks that it is neither active nor played, activating one that it
    still exists, and storing a tournament that the versions it plays still exist, each in the
    step that acts: an API probe suspected that a version deleted between a CreateTournament's
    read of the active version and its store was played by the tournament (checked in Python
    before the delete, and not at all when storing)."""
    from referee.auth import Caller
    from referee.players import make_player
    from referee.service import ArenaService, RateLimiter
    from referee.store import Missing

    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        hosted_bot(store, "racy")
        v1, v2 = (
            versions.save_version(store, "racy", "alice", versions.check_upload(data), data)["version"]
            for data in (archive_bytes(variant(tmp_path, i)) for i in (1, 2))
        )
        versions.activate(store, "racy", v1)
        with pytest.raises(versions.VersionInUse) as used:
            versions.delete_version(store, "racy", v1)
        assert used.value.tournament is None
        # A tournament stored to play v2 keeps it, also once cancelled until its board is stored.
        spec = TournamentSpec(
            game="rolldice", bots=("racy", "random"), players=2, addresses={"racy": f"hosted:racy@{v2}"}
        )
        assert store.create_tournament("t-v2", spec, 2, 0, requires=versions.required(store, spec.addresses))
        with pytest.raises(versions.VersionInUse) as used:
            versions.delete_version(store, "racy", v2)
        assert used.value.tournament == "t-v2"
        store.redis.hset(store.key("t", "t-v2"), "status", "cancelled")
        with pytest.raises(versions.VersionInUse):
            versions.delete_version(store, "racy", v2)
        store.redis.set(store.key("t", "t-v2", "leaderboard"), "{}")
        # The interleaving: a creation read v1 as active; its owner activated v2, then deleted v1.
        versions.activate(store, "racy", v2)
        # Damaged live tournaments (a spec that is no JSON object, a key that is no hash) play no
        # version: they refuse no delete (they made every delete an error: a review probe).
        store.redis.hset(store.key("t", "bad-json"), mapping={"status": "running", "spec": "{not json"})
        store.redis.hset(store.key("t", "bad-null"), mapping={"status": "running", "spec": "null"})
        store.redis.set(store.key("t", "bad-type"), "a string")
        store.redis.sadd(store.key("active"), "bad-json", "bad-null", "bad-type")
        versions.delete_version(store, "racy", v1)
        store.redis.srem(store.key("active"), "bad-json", "bad-null", "bad-type")
        stale = TournamentSpec(
            game="rolldice", bots=("racy", "random"), players=2, addresses={"racy": f"hosted:racy@{v1}"}
        )
        with pytest.raises(Missing):
            store.create_tournament("t-v1", stale, 2, 0, requires=versions.required(store, stale.addresses))
        assert store.tournament("t-v1") is None and "t-v1" not in store.active_ids()
        with pytest.raises(versions.NoSuchVersion):
            versions.activate(store, "racy", v1)
        assert versions.active_version(store, "racy") == v2
        # The service reads the active version again and creates the tournament with it.
        submitted: list[TournamentSpec] = []
        service = ArenaService(
            store,
            lambda _id, spec: submitted.append(spec),
            make_player,
            builtin_bots=bot_names,
            limiter=RateLimiter(0, 1),
        )
        v3 = versions.save_version(
            store, "racy", "alice", versions.check_upload(data := archive_bytes(variant(tmp_path, 3))), data
        )["version"]
        versions.activate(store, "racy", v3)
        create = store.create_tournament
        raced = []

        def racing(*args: object, **kwargs: object) -> bool:
            if not raced:  # between the read of v3 as active and the store: v2 active, v3 gone
                raced.append(True)
                versions.activate(store, "racy", v2)
                versions.delete_version(store, "racy", v3)
            return create(*args, **kwargs)  # type: ignore[arg-type]

        store.create_tournament = racing  # type: ignore[method-assign]
        request = arena_pb2.CreateTournamentRequest(game="rolldice", bots=["racy", "random"], repeats=1)
        made = service._create_tournament(request, Caller("alice", False))
        assert raced and [s.addresses["racy"] for s in submitted] == [f"hosted:racy@{v2}"]
        assert store.tournament(made.id)["spec"]["addresses"]["racy"] == f"hosted:racy@{v2}"


@pytest.mark.usefixtures("bubblewrap")
def test_two_first_uploads_of_a_new_bot_by_its_owner_are_two_versions(tmp_path, monkeypatch):
    # The second read "no such bot" before its trial, then failed as "exists already" after it,
    # its version lost (an outside hosted-bot probe).
    import asyncio
    import time

    from referee.auth import Caller
    from referee.players import make_player
    from referee.service import ArenaService, RateLimiter

    def quick_trial(checked, game_id, owner, stopped=None) -> None:  # the trial passes, slowly
        try:
            time.sleep(0.3)
        finally:
            versions.TRIALS.release(owner)

    monkeypatch.setattr(versions, "trial_holding_slot", quick_trial)
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        create_owner(store, "alice")
        service = ArenaService(store, lambda *_: None, make_player, builtin_bots=bot_names, limiter=RateLimiter(0, 1))
        uploads = [archive_bytes(variant(tmp_path, i)) for i in (1, 2)]

        async def chunks(data: bytes):
            yield arena_pb2.BotUploadChunk(name="twin", data=data)

        async def both() -> list:
            submit = ArenaService.SubmitBotVersion.__wrapped__  # type: ignore[attr-defined]
            return await asyncio.gather(*(submit(service, chunks(d), Caller("alice", False)) for d in uploads))

        made = asyncio.run(both())
        assert sorted(v.version for v in made) == sorted(versions.check_upload(d).version for d in uploads)
        assert store.bot("twin")["owner"] == "alice"
        assert len(versions.versions(store, "twin")) == 2


def test_a_versions_games_are_those_its_upload_chose(tmp_path):
    # `submit --games skyfive` played skyfive until the version was activated again, which took
    # the manifest's games back (an outside hosted-bot probe).
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        directory = variant(tmp_path, 1)
        manifest = directory / "arena-bot.toml"
        manifest.write_text(manifest.read_text().replace('games = ["rolldice"]', 'games = ["rolldice", "skyfive"]'))
        data = archive_bytes(directory)
        checked = versions.check_upload(data)
        assert versions.save_version(store, "hostile", "alice", checked, data, games=["skyfive"])["games"] == [
            "skyfive"
        ]
        (stored,) = versions.versions(store, "hostile")
        assert stored["games"] == ["skyfive"]
        # The same content with another choice takes it; with none, the choice made stays.
        versions.save_version(store, "hostile", "alice", checked, data, games=["rolldice"])
        versions.save_version(store, "hostile", "alice", checked, data)
        assert [v["games"] for v in versions.versions(store, "hostile")] == [["rolldice"]]


@pytest.mark.usefixtures("bubblewrap")
def test_the_bot_plays_its_active_versions_games_whatever_the_upload_order(tmp_path, monkeypatch):
    # The same content again with other --games rewrote the active version's games but not the
    # bot's (an outside review): the bot and its active version now agree after every upload.
    import asyncio

    from referee.auth import Caller
    from referee.players import make_player
    from referee.service import ArenaService, RateLimiter

    def passing_trial(checked, game_id, owner, stopped=None) -> None:
        versions.TRIALS.release(owner)

    monkeypatch.setattr(versions, "trial_holding_slot", passing_trial)
    directory = variant(tmp_path, 1)
    manifest = directory / "arena-bot.toml"
    manifest.write_text(manifest.read_text().replace('games = ["rolldice"]', 'games = ["rolldice", "skyfive"]'))
    data = archive_bytes(directory)
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        create_owner(store, "alice")
        service = ArenaService(store, lambda *_: None, make_player, builtin_bots=bot_names, limiter=RateLimiter(0, 1))
        submit = ArenaService.SubmitBotVersion.__wrapped__  # type: ignore[attr-defined]

        async def upload(games: list[str], activate: bool = False) -> None:
            async def chunks():
                yield arena_pb2.BotUploadChunk(name="duo", data=data, games=games, activate=activate)

            await submit(service, chunks(), Caller("alice", False))

        def both() -> tuple[list[str], list[str]]:
            (version,) = versions.versions(store, "duo")
            return store.bot("duo")["games"], version["games"]

        asyncio.run(upload(["skyfive"]))
        assert both() == (["skyfive"], ["skyfive"])
        asyncio.run(upload(["rolldice"]))  # the active version's games chosen anew
        assert both() == (["rolldice"], ["rolldice"])
        asyncio.run(upload([], activate=True))  # no choice: the version keeps its own
        assert both() == (["rolldice"], ["rolldice"])


@pytest.mark.usefixtures("bubblewrap")
def test_uploads_in_progress_are_bounded_per_owner_and_in_all(tmp_path, monkeypatch):
    # Each holds its archive and files in memory while it waits for its trial: 20 tiny uploads
    # that unpack to 95 MB each took the service to 2 GiB (an outside review).
    import asyncio

    from referee import service as service_module
    from referee.auth import Caller
    from referee.errors import ApiError
    from referee.players import make_player
    from referee.service import ArenaService, RateLimiter

    monkeypatch.setattr(versions, "TRIALS", versions.TrialSlots(2))
    monkeypatch.setattr(versions, "TRIAL_WAIT", 1.0)
    monkeypatch.setattr(service_module, "UPLOADS_AT_ONCE", 3)
    for owner in ("alice", "bob"):
        versions.TRIALS.acquire(owner, 0)  # their trials run: their uploads wait
    data = archive_bytes(variant(tmp_path, 1))
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        service = ArenaService(store, lambda *_: None, make_player, builtin_bots=bot_names, limiter=RateLimiter(0, 1))
        submit = ArenaService.SubmitBotVersion.__wrapped__  # type: ignore[attr-defined]

        async def upload(owner: str, name: str) -> str:
            async def chunks():
                yield arena_pb2.BotUploadChunk(name=name, data=data)

            try:
                await submit(service, chunks(), Caller(owner, False))
            except ApiError as exc:
                return str(exc)
            return "stored"

        async def burst() -> list[str]:
            first = [asyncio.create_task(upload("alice", f"a{i}")) for i in range(3)]
            await asyncio.sleep(0.2)
            later = [asyncio.create_task(upload("bob", f"b{i}")) for i in range(2)]
            return await asyncio.gather(*first, *later)

        said = asyncio.run(burst())
    for owner in ("alice", "bob"):
        versions.TRIALS.release(owner)
    assert said[2] == "alice has 2 uploads in progress, the most: retry in 10s"  # refused at once
    assert said[4] == "3 uploads are in progress, the most: retry in 10s"
    assert all("trial match still ran after 1 s" in s for s in (said[0], said[1], said[3]))


@pytest.mark.usefixtures("bubblewrap")
def test_an_upload_waiting_for_its_trial_when_the_service_stops_is_told_unavailable(tmp_path, monkeypatch):
    # It launched a new jail after SIGTERM, and a trial the stop ended was INVALID_ARGUMENT on
    # field data, as if the archive were bad (an outside review).
    import asyncio

    import grpc

    from referee.auth import Caller
    from referee.errors import ApiError
    from referee.players import make_player
    from referee.service import ArenaService, RateLimiter

    monkeypatch.setattr(versions, "TRIALS", versions.TrialSlots(2))
    versions.TRIALS.acquire("alice", 0)  # her trial runs
    data = archive_bytes(variant(tmp_path, 1))
    with redis_server(tmp_path) as redis:
        service = ArenaService(
            Store(redis.url), lambda *_: None, make_player, builtin_bots=bot_names, limiter=RateLimiter(0, 1)
        )

        async def stopped_while_waiting() -> ApiError:
            async def chunks():
                yield arena_pb2.BotUploadChunk(name="late", data=data)

            upload = asyncio.create_task(
                ArenaService.SubmitBotVersion.__wrapped__(service, chunks(), Caller("alice", False))  # type: ignore[attr-defined]
            )
            await asyncio.sleep(0.5)
            assert not upload.done()
            service.state.shutting_down.set()
            with pytest.raises(ApiError) as refused:
                await upload
            return refused.value

        error = asyncio.run(stopped_while_waiting())
    versions.TRIALS.release("alice")
    assert error.code == grpc.StatusCode.UNAVAILABLE and "shutting down" in str(error)


def test_an_upload_that_sends_nothing_or_too_slowly_is_ended_and_frees_its_place(tmp_path, monkeypatch):
    """An upload's place is taken when its call opens: 8 streams that sent no chunk held every
    owner's uploads off for as long as they stayed open (an outside probe). A silence of
    UPLOAD_SILENCE seconds, or chunks past UPLOAD_SECONDS in all, end it with
    DEADLINE_EXCEEDED, and the place is free again."""
    import threading
    import time

    import grpc

    from referee import service as service_module
    from tests.services import in_process_service
    from tests.test_service import Api, code_of

    monkeypatch.setattr(service_module, "UPLOAD_SILENCE", 1.0)
    monkeypatch.setattr(service_module, "UPLOAD_SECONDS", 3.0)
    done = threading.Event()

    def silent():  # type: ignore[no-untyped-def]
        done.wait(60)
        yield from ()

    def trickle():  # type: ignore[no-untyped-def]
        while not done.is_set():
            yield arena_pb2.BotUploadChunk(name="slow", data=b"x")
            time.sleep(0.4)

    not_an_archive = [arena_pb2.BotUploadChunk(name="late", data=b"not an archive")]
    with redis_server(tmp_path) as redis:
        token = create_owner(Store(redis.url), "alice")
        with in_process_service(redis.url, monkeypatch) as address:
            alice = Api(address, token)
            submit = alice.stub.SubmitBotVersion
            try:
                held = [submit.future(silent(), metadata=alice.metadata, timeout=30) for _ in range(2)]
                time.sleep(0.3)  # both opened
                assert code_of(alice.SubmitBotVersion, iter(not_an_archive))[::2] == (
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "alice has 2 uploads in progress, the most: retry in 10s",
                )
                for call in held:
                    assert (call.exception(30).code(), call.exception().details()) == (
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        "the upload sent no chunk for 1 s: it was ended (an upload open holds one of the few places "
                        "uploads share); send its chunks without a pause",
                    )
                assert code_of(alice.SubmitBotVersion, iter(not_an_archive))[::2] == (
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "not a .tar.gz or .zip archive",
                )
                slow = submit.future(trickle(), metadata=alice.metadata, timeout=30)
                assert (slow.exception(30).code(), slow.exception().details()) == (
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    "the upload was not sent within 3 s: it was ended; send the archive in less time",
                )
            finally:
                done.set()
