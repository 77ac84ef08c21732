"""Celery app and tasks: tournament fan-out in batches, idempotent results, exactly-once finalisation."""
