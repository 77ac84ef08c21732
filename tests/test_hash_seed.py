"""Same seed + same decisions = same match in every process: Python salts the hashes of strings
per process (``PYTHONHASHSEED``), so a set of strings iterated where a move or an event depends on
the order would play differently from one run to the next. ``tests/test_contract.py`` replays in
one process and cannot see that; here every game's heuristic self-play is digested in processes
of different hash seeds; the random bot, which picks by position, shows an option order taken
from such a set. An outside probe found Frenzy Falls's heuristic doing just that (a set
of card names, and a trial card taken back by equality instead of position)."""

from __future__ import annotations

import os
import subprocess
import sys

from arena.registry import games
from tests.services import ROOT


def test_every_games_heuristic_plays_the_same_match_under_any_hash_seed():
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.hash_seed_digest"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hash_seed},
        )
        # a set of two strings iterates alike under two hash seeds half the time: four seeds
        for hash_seed in ("0", "1", "6", "4242")
    ]
    digests = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        digests.append(dict(line.split() for line in out.splitlines()))
    assert sorted(digests[0]) == sorted(games())
    differ = sorted(game for game in digests[0] if len({d[game] for d in digests}) > 1)
    assert differ == [], f"moves depend on the hash seed in {differ}"
