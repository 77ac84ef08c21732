"""Text a bot chose, as a record may hold it: records are read by other owners, in terminals
and pages, so a bot's words there are made printable and short."""

from __future__ import annotations


def printable(text: str, limit: int = 300) -> str:
    """``text`` with control characters (a terminal's escape sequences) made spaces, cut to
    ``limit`` characters with a note of its full length."""
    clean = "".join(c if c.isprintable() else " " for c in text)
    return clean if len(clean) <= limit else clean[:limit] + f"…({len(clean)} chars)"
