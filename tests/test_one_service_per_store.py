"""One ``arena serve`` per store: each service keeps its own per-owner rate and challenge
limits, so a second one on the same store is told in both services' logs (an outside races
probe ran two unwarned: one owner held four challenges against the README's two)."""

from __future__ import annotations

import signal
import socket

from referee.store import Store
from tests.services import redis_server, service, wait_for

WARNING = "another arena serve uses this store"


def test_a_second_service_on_a_store_is_told_in_both_logs_and_a_stopped_one_is_not(tmp_path):
    host = socket.gethostname()
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        with service(redis.url, tmp_path) as first:
            assert WARNING not in first.log.read_text()
            first_node = f"{host}:{first.process.pid}"
            with service(redis.url, tmp_path) as second:
                second_node = f"{host}:{second.process.pid}"
                assert f"{WARNING} ({first_node})" in second.log.read_text()  # at its start
                wait_for(lambda: f"{WARNING} ({second_node})" in first.log.read_text(), 30, "the first's warning")
            # Stopped, the second is no longer counted; the first said it once.
            assert store.service_seen("probe:1", 5) == [first_node]
            assert first.log.read_text().count(WARNING) == 1
            store.service_gone("probe:1")
            first.process.send_signal(signal.SIGKILL)  # no chance to take its note back
            first.process.wait(30)
        assert store.service_seen("probe:2", 5) == [first_node]  # counted alive for a while
        store.service_gone("probe:2")
        # Restarted on this host at once: the killed one's note is no other service.
        with service(redis.url, tmp_path) as again:
            assert WARNING not in again.log.read_text()
            assert store.service_seen("probe:3", 5) == [f"{host}:{again.process.pid}"]
