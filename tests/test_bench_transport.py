"""bench.bench_transport runs end to end on a small budget and reports what the README quotes
(no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json

from bench.bench_transport import main


def test_the_transport_bench_reports_every_part_of_a_decision(capsys):
    assert main(["--decisions", "200", "--rounds", "1", "--concurrency", "1", "--per-match", "10"]) == 0
    report = json.loads(capsys.readouterr().out)
    for kind in ("tcp", "unix"):
        run = report[kind]
        # The echo sends messages of the match's own request size: a RollDice request carries
        # the events since the seat's last decision, more than the 300 bytes once assumed.
        assert run["request_bytes"] > 300
        assert run["decisions"] >= 150  # a target of 350 points: about 200 decisions
        for key in (
            "match_vs_echo",
            "match_vs_echo_two_servers",
            "bot_servers_vs_echo_two_servers",
            "echo_two_servers_with_referee_work_vs_echo_two_servers",
            "match_vs_echo_two_servers_with_referee_work",
            "match_vs_echo_interleaved",
            "match_vs_echo_two_servers_interleaved",
        ):
            assert 0 < run[key] < 10, (kind, key, run[key])
        # The match and the echo in turns: slices of a tenth of the decisions (at least 10).
        assert run["interleaved_slices"] >= 5
        assert run["match_vs_echo_interleaved_p10"] <= run["match_vs_echo_interleaved"]
        assert run["match_vs_echo_interleaved"] <= run["match_vs_echo_interleaved_p90"]
        assert run["match_vs_echo_interleaved_each_round"] == [run["match_vs_echo_interleaved"]]
        # And against two echo servers alternating, the match's own pattern.
        two = run["match_vs_echo_two_servers_interleaved"]
        assert (
            run["match_vs_echo_two_servers_interleaved_p10"] <= two <= run["match_vs_echo_two_servers_interleaved_p90"]
        )
        assert run["match_vs_echo_two_servers_interleaved_each_round"] == [two]
        assert run["referee_between_requests_us"] > 0
        assert run["match_write_p50_us"] > 0 and run["echo_two_servers_write_p50_us"] > 0
    (row,) = report["concurrency_20ms_bots"]
    assert (row["matches"], row["timeouts"], row["failures"]) == (1, 0, 0)
