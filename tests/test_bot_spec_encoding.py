"""A bot spec that is not UTF-8 (bytes argv keeps as surrogate escapes) is refused when ``--bots``
is read: it reached the protocol's UTF-8 strings at the match's start, a traceback (an outside
probe: ``arena play`` wrote no record; ``arena tournament`` left its run ``interrupted``)."""

from __future__ import annotations

import os

import pytest

from arena.cli import UsageError
from arena.cli.common import split_bots
from tests.cli_run import arena

BAD_PATH = os.fsdecode(b"/srv/bots/b\xc3\xb8t\xff")  # "bøt" and a byte that is no UTF-8
# The byte escaped, not sent to the terminal as it is.
REFUSED = "--bots 'hosted:/srv/bots/bøt\\udcff': not valid UTF-8 (a bot's path or address must be)"


def test_split_bots_refuses_a_spec_that_is_not_utf8():
    with pytest.raises(UsageError) as refused:
        split_bots(f"hosted:{BAD_PATH},heuristic")
    assert str(refused.value) == REFUSED
    with pytest.raises(UsageError, match="grpc://h\\\\udcff:1"):
        split_bots("random," + os.fsdecode(b"grpc://h\xff:1"))
    assert split_bots("hosted:/srv/bots/bøt,heuristic") == ["hosted:/srv/bots/bøt", "heuristic"]


def test_play_refuses_a_hosted_path_that_is_not_utf8(tmp_path):
    record = tmp_path / "match.json"
    done = arena("play", "--game", "rolldice", "--bots", f"hosted:{BAD_PATH},heuristic", "--record", str(record))
    assert (done.returncode, done.stderr) == (2, f"arena play: error: {REFUSED}\n")
    assert not record.exists()


def test_tournament_refuses_a_hosted_path_that_is_not_utf8(tmp_path):
    out = tmp_path / "run"
    done = arena(
        "tournament", "--game", "rolldice", "--bots", f"hosted:{BAD_PATH},heuristic",
        "--repeats", "1", "--workers", "1", "--out", str(out),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (2, f"arena tournament: error: {REFUSED}\n")
    assert not out.exists()  # refused before the run was made
