"""One ``arena serve`` per store: each service keeps its own per-owner rate and challenge
limits, so a second one on the same store is told in both services' logs (an outside races
probe ran two unwarned: one owner held four challenges against the README's two)."""

from __future__ import annotations

import re
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
            (first_node,) = store.service_seen("probe:0", 5)  # host:pid:tag
            store.service_gone("probe:0")
            assert first_node.startswith(f"{host}:{first.process.pid}:")
            with service(redis.url, tmp_path) as second:
                assert f"{WARNING} ({first_node})" in second.log.read_text()  # at its start
                second_node = f"{host}:{second.process.pid}:"
                wait_for(lambda: f"{WARNING} ({second_node}" in first.log.read_text(), 30, "the first's warning")
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
            (node,) = store.service_seen("probe:3", 5)
            assert re.fullmatch(rf"{re.escape(host)}:{again.process.pid}:\d+", node)


def test_services_in_other_pid_namespaces_are_told_apart_and_a_dead_one_of_this_one_is_not_counted(tmp_path):
    """Two containers of one host name noted the same host:pid (each pid 1), or one took the
    other's live note, of another namespace, for its own dead one and deleted it, warning of
    nothing (an outside review). A node names its PID namespace: one of another is counted
    alive; one of this namespace whose pid is gone is dropped."""
    import os
    import subprocess

    from arena.cli.serve_cmd import ServiceNote, gone_from_this_host

    host = socket.gethostname()
    with redis_server(tmp_path) as redis:
        store = Store(redis.url)
        mine = ServiceNote(store)
        assert mine.node == f"{host}:{os.getpid()}:{mine.namespace}" and mine.namespace.isdigit()
        dead = subprocess.Popen(["true"])
        dead.wait()
        gone = f"{host}:{dead.pid}:{mine.namespace}"
        elsewhere = f"{host}:{os.getpid()}:4026000001"  # this pid in another namespace: a live process there
        assert gone_from_this_host(gone, host, mine.namespace)
        assert not gone_from_this_host(elsewhere, host, mine.namespace)
        store.service_seen(gone, 30)
        store.service_seen(elsewhere, 30)
        mine.beat()
        assert mine.told == {elsewhere}
        assert store.service_seen("probe", 5) == sorted([elsewhere, mine.node])  # the dead one dropped
