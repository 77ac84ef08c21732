"""What a terminal is shown of text from a bot: names cut and cleaned, output kept line by line."""

from __future__ import annotations

from arena.printable import printable, shown_output


def test_a_name_is_cleaned_and_cut():
    assert printable("bot\x1b[2J1", 100) == "bot [2J1"
    assert printable("x" * 10, 4) == "xxxx…(10 chars)"


def test_output_cannot_steer_the_terminal_or_pass_for_a_header():
    # `arena matches logs` passed clear-screen and colour codes through, and a bot could print a
    # line of its own that read as the next seat's header (an outside hosted-bot probe).
    text = "thinking\x1b[2J\x1b[31m\r\n== seat 1 (heuristic)\ttab\u202eend\rback"
    assert shown_output(text).split("\n") == [
        "| thinking\\x1b[2J\\x1b[31m",
        "| == seat 1 (heuristic)\ttab\\u202eend\\x0dback",
    ]
