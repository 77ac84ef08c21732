"""GetBot's recent failures (referee.service.FailureLog): a running tournament's records are read
from where the last call stopped, and only those naming a verdict are parsed. An outside
operator probe found each call re-read every record of a running tournament: 5.5-12 s and
hundreds of MB of the service per call at 7,000-13,000 records."""

from __future__ import annotations

from arena.record import FailureEntry, MatchRecord
from arena.tournament import TournamentSpec
from referee import service
from referee.service import FailureLog
from referee.store import Store
from tests.services import redis_server


def record(index: int, failed: bool) -> MatchRecord:
    failures = [FailureEntry(seat=1, decision=index % 5, verdict="timeout", detail=f"late {index}")] if failed else []
    return MatchRecord(
        match_id=f"t:m{index:06d}",
        game="rolldice",
        game_version="1",
        config={"players": 2, "options": {}},
        seed=index,
        seats=[{"bot": "steady"}, {"bot": "flaky"}],
        failures=failures,
        tournament={"index": index},
    )


def test_a_running_tournaments_failures_are_read_from_where_the_last_call_stopped(tmp_path, monkeypatch):
    parsed: list[str] = []
    loads = MatchRecord.loads
    monkeypatch.setattr(service.MatchRecord, "loads", staticmethod(lambda line: parsed.append(line) or loads(line)))
    with redis_server(tmp_path) as server:
        store = Store(server.url)
        spec = TournamentSpec(game="rolldice", bots=["steady", "flaky"], players=2, repeats=100, seed=1)
        assert store.create_tournament("t", spec, 200, 1)
        store.store_matches("t", [(i, record(i, failed=i % 10 == 3)) for i in range(0, 60)])
        log = FailureLog()
        first = log.read(store, "t", ended=False)
        assert [f[1] for f in first] == [f"t:m{i:06d}" for i in (3, 13, 23, 33, 43, 53)]
        assert first[0] == ("flaky", "t:m000003", 3, "timeout", "late 3")
        assert len(parsed) == 6  # records with no failure are not parsed

        parsed.clear()
        store.store_matches("t", [(i, record(i, failed=i % 10 == 3)) for i in range(100, 130)])
        store.store_matches("t", [(i, record(i, failed=i % 10 == 3)) for i in range(60, 80)])
        second = log.read(store, "t", ended=False)
        assert [f[1] for f in second] == [f"t:m{i:06d}" for i in (3, 13, 23, 33, 43, 53, 63, 73, 103, 113, 123)]
        assert len(parsed) == 5  # only the records stored since the first call

        parsed.clear()
        assert log.read(store, "t", ended=True) == second
        assert log.complete  # read after the end: nothing more will come
        store.store_matches("t", [(150, record(153, failed=True))])  # (cannot happen after an end)
        assert log.read(store, "t", ended=True) == second and parsed == []
