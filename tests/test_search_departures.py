"""bench.search_departures: where search departs from the heuristic in heuristic self-play."""

from __future__ import annotations

import json

from bench.search_departures import main


def test_counts_the_departures_and_their_ties_in_a_seeded_match(capsys):
    spec = "search:iterations=4,halving=1,tree=0,prior=10,guard=0"  # not Sky Five's defaults: no test
    main(["--game", "skyfive", "--matches", "1", "--gain", "4", spec])
    out = json.loads(capsys.readouterr().out)
    assert (out["decisions"], out["departures"], out["ties"]) == (64, 21, 13)
    assert out["by_choice"] == {
        "turn: bank -> draw": 19,  # a tie goes to the first option offered, draw
        "take: take:orange5 -> take:star3": 1,
        "take: take:red5 -> take:blue0": 1,
    }
    assert len(out["gains"]) == 21
    assert [0.0, 0.0] in out["gains"]  # a won position: every paired world wins either way
