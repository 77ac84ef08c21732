"""Text a bot chose, as a record may hold it: records are read by other owners, in terminals
and pages, so a bot's words there are made printable and short."""

from __future__ import annotations


def printable(text: str, limit: int = 300) -> str:
    """``text`` with control characters (a terminal's escape sequences) made spaces, cut to
    ``limit`` characters with a note of its full length."""
    clean = "".join(c if c.isprintable() else " " for c in text)
    return clean if len(clean) <= limit else clean[:limit] + f"…({len(clean)} chars)"


def shown_output(text: str) -> str:
    """A program's output as a terminal may show it: each line behind ``| `` (no line of it can
    pass for the lines around it), control characters but the tab escaped as ``\\xNN`` (a
    terminal obeys them: clear the screen, colours, a cursor sent back over a line)."""
    return "\n".join("| " + "".join(map(_shown_char, line)) for line in text.replace("\r\n", "\n").split("\n"))


def _shown_char(c: str) -> str:
    if c.isprintable() or c == "\t":
        return c
    return f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
