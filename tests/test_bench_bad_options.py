"""A bench given an option it cannot run with stops at once with argparse's one-line error (exit
2), before it starts a server or plays a match: zeros and negatives ended in tracebacks after the
servers' start-up, or in benches that never ended (an outside audit, F4 and F5)."""

from __future__ import annotations

import importlib

import pytest

CASES = [
    ("bench_remote_tournament", ["--per-process", "0"], "argument --per-process: 0: at least 1"),
    ("bench_remote_tournament", ["--think", "0"], "argument --think: 0: a finite number of seconds above 0"),
    ("bench_remote_tournament", ["--think", "2"], "argument --think: 2: the bots' clock is 2 s a decision"),
    ("bench_remote_tournament", ["--matches", "1"], "argument --matches: 1: at least 2"),
    ("bench_remote_tournament", ["--queue", "--queue-matches", "19"], "argument --queue-matches: 19: at least 20"),
    ("bench_refusal", ["--matches", "1"], "argument --matches: 1: at least 2"),
    ("bench_refusal", ["--rounds", "0"], "argument --rounds: 0: at least 1"),
    ("bench_engine", ["--seconds", "inf"], "argument --seconds: inf: a finite number of seconds above 0"),
    ("bench_engine", ["--seconds", "nan"], "argument --seconds: nan: a finite number of seconds above 0"),
    ("bench_engine", ["--rounds", "-2"], "argument --rounds: -2: at least 1"),
    ("bench_celery", ["--matches", "0"], "argument --matches: 0: at least 20"),
    ("bench_celery", ["--rounds", "0"], "argument --rounds: 0: at least 1"),
    ("bench_service", ["--seconds", "0"], "argument --seconds: 0: a finite number of seconds above 0"),
    ("bench_service", ["--watchers", "-3"], "argument --watchers: -3: at least 1"),
    ("bench_service", ["--watchers", "5", "--repeats", "0"], "argument --repeats: 0: 1..10,000"),
    ("bench_hosted", ["--runs", "0"], "argument --runs: 0: at least 1"),
    ("bench_clock_fairness", ["--limit-ms", "5"], "argument --limit-ms: 5: 20..60,000"),
    ("bench_clock_fairness", ["--concurrency", "1,0"], "argument --concurrency: 0: 1..256"),
    ("bench_clock_fairness", ["--under-ms", "200"], "--under-ms 200 must be below --limit-ms 200"),
    ("bench_search", ["--seconds", "0"], "argument --seconds: 0: a finite number of seconds above 0"),
    ("bench_search", ["--game", "nosuch"], "unknown game(s) nosuch; known games: chicken, "),
    ("bench_bots", ["--matches", "0"], "argument --matches: 0: at least 1"),
    ("bench_tournament", ["--repeats", "0"], "argument --repeats: 0: at least 1"),
    ("bench_tournament", ["--game", "nosuch"], "unknown game 'nosuch'; known games: chicken, "),
    ("bench_tournament", ["--players", "9"], "skyfive plays with 2-6 players, not 9"),
    ("bench_across", ["--sizes", "0"], "argument --sizes: 0: at least 1"),
    ("bench_across", ["--sizes", "abc"], "argument --sizes: 'abc' is not a whole number (at least 1)"),
    ("bench_across", ["--entrants", "0"], "argument --entrants: 0: at least 2"),
    ("bench_across", ["--boards", "16,1"], "argument --boards: 1: at least 2"),
    (
        "bench_across",
        ["--dense-limit-mb", "-5"],
        "argument --dense-limit-mb: -5: a finite number of megabytes, above 0",
    ),
    (
        "bench_across",
        ["--dense-limit-mb", "nan"],
        "argument --dense-limit-mb: nan: a finite number of megabytes, above 0",
    ),
    ("bench_board", ["--bots", "1"], "argument --bots: 1: at least 2"),
    ("bench_match_page", ["--clients", "0"], "argument --clients: 0: at least 1"),
    ("design_threewitches", ["--matches", "0"], "argument --matches: 0: at least 1"),
    ("design_karakum", ["--matches", "0"], "argument --matches: 0: at least 1"),
    ("design_karakum", ["--players", "2", "9"], "argument --players: 9: 2..4"),
    ("design_winecellar", ["--scale", "0.01"], "argument --scale: 0.01: a finite number, at least 0.02"),
    ("design_opensesame", ["--slips", "0,200"], "argument --slips: 200: 0..100"),
    ("design_openseason", ["--variants", "0"], "argument --variants: 0: at least 1"),
    ("search_strength", ["s", "--game", "rolldice", "--workers", "0"], "argument --workers: 0: at least 1"),
    ("search_strength", ["s", "--game", "rolldice", "--players", "9"], "rolldice plays with 1-4 players, not 9"),
]


@pytest.mark.parametrize(("bench", "argv", "message"), CASES, ids=[f"{b} {' '.join(a)}" for b, a, _ in CASES])
def test_a_bad_option_is_refused_at_once_naming_the_range(bench, argv, message, capsys):
    main = importlib.import_module(f"bench.{bench}").main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.split(": error: ", 1)[1].startswith(message), error


@pytest.mark.parametrize("server", ["first_bot", "echo_server"])
def test_a_served_benchs_delay_is_a_finite_number_of_seconds(server):
    """`--delay` of the benches' bot and echo servers (a negative one, nan or inf reached
    asyncio.sleep: inf never answered)."""
    import subprocess
    import sys

    for bad in ("-1", "nan", "inf"):
        ran = subprocess.run(
            [sys.executable, "-m", f"bench.{server}", "--delay", bad], capture_output=True, text=True, timeout=60
        )
        assert ran.returncode == 2, ran.stderr
        assert f"argument --delay: {bad}: a finite number of seconds, at least 0" in ran.stderr, ran.stderr
