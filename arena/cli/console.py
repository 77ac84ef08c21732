"""The CLI's rich console: a closed pipe (``| head``) ends the command with status 141 as the
rest of the CLI does, where rich's own handler exits 1 (which ``arena tournament`` uses for
"cancelled")."""

from __future__ import annotations

from typing import Any


def console(**options: Any) -> Any:
    """A ``rich.console.Console`` (imported here, when a table is printed) whose closed pipe
    raises BrokenPipeError for the CLI's handler (:func:`arena.cli.main`)."""
    from rich.console import Console

    class PipedConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return PipedConsole(**options)
