"""The CLI's logging is :mod:`arena.logs` (it lives below the CLI so workers use it too)."""

from arena.logs import JsonFormatter, StderrHandler, log_failures, setup_logging

__all__ = ["JsonFormatter", "StderrHandler", "log_failures", "setup_logging"]
