"""The worker's Celery consumer, made to survive a Redis restart (``worker_consumer``).

When the broker connection is lost, Celery collects it (kombu closes its channel and sockets
without waiting on them) and reconnects. Celery 5.7 then also closes the collected connection,
and with the Redis transport that second close undoes what collecting left working: the first
close gave up early on the dead socket, the second one finishes and drops the channel's
connection pool. Tasks that were running during the outage are acknowledged on that channel
when they end; with no pool left, kombu builds a new one from a transport that collecting
already detached and raises ``AttributeError`` (``'NoneType' object has no attribute
'hostname'``). The second close can fail the same way itself. Celery does not expect either
error: the worker stopped with "Unrecoverable error" in 4 of 4 probe runs of a dozen Redis
restarts (after 0 to 11 of them), and every tournament then waited for a worker that was gone.

So the collected connection is not closed a second time, which is what Celery before 5.7 did:
collecting has closed its sockets already, and its channel stays usable for the running tasks'
acknowledgements (a fresh connection from its pool once Redis is back).
``tests/test_worker_reconnect.py`` restarts Redis under a busy worker.
"""

from __future__ import annotations

import logging
import warnings

from celery.exceptions import CPendingDeprecationWarning
from celery.worker.consumer import Consumer as CeleryConsumer


class Consumer(CeleryConsumer):
    def on_connection_error_after_connected(self, exc: BaseException) -> None:
        if self.connection is not None:
            # An attribute of this lost connection only; the reconnect makes a new one.
            self.connection.close = _already_collected
        with warnings.catch_warnings():
            # Celery warns at every reconnect (a dozen lines at WARNING) that it may one day
            # cancel the running tasks on a connection loss. We keep them running on purpose
            # (worker_cancel_long_running_tasks_on_connection_loss=False, workers.app): a batch
            # waits out a Redis outage and stores what it played when Redis is back.
            warnings.filterwarnings("ignore", category=CPendingDeprecationWarning)
            super().on_connection_error_after_connected(exc)


def _already_collected() -> None:
    """The lost connection's ``close``: collecting it did the closing."""


class _AckLostWithTheBroker(logging.Filter):
    """Celery logs a batch that ends while Redis is away as CRITICAL "Couldn't ack", with a
    traceback (an outside chaos probe): yet nothing is lost. The message stays unacknowledged,
    the broker delivers it again after the visibility timeout, and a batch played twice stores
    each match once. So it is one WARNING saying that, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.CRITICAL and str(record.msg).startswith("Couldn't ack"):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg = (
                "a batch ended while the broker was away, so its message could not be acknowledged "
                "(%r: %r): the broker delivers it again after the visibility timeout, and its matches "
                "are stored once"
            )
            record.exc_info, record.exc_text = None, None
        return True


# The logger Celery's requests acknowledge their messages with (celery.worker.request).
logging.getLogger("celery.worker.request").addFilter(_AckLostWithTheBroker())
