"""The operator's settings (``ARENA_*`` variables, the service's limits): read in one place, a
typo a clear error naming it (never a traceback, a silent clamp, or a half-created tournament)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.config import ConfigError, env_number, env_seconds
from tests.cli_run import arena
from tests.services import redis_server
from workers import settings

ROOT = Path(__file__).resolve().parent.parent


def test_a_whole_number_setting_is_its_default_when_unset_or_blank(monkeypatch):
    monkeypatch.delenv("ARENA_TEST_N", raising=False)
    assert env_number("ARENA_TEST_N", 16, minimum=1) == 16
    monkeypatch.setenv("ARENA_TEST_N", "  ")
    assert env_number("ARENA_TEST_N", 16, minimum=1) == 16
    monkeypatch.setenv("ARENA_TEST_N", " 8 ")
    assert env_number("ARENA_TEST_N", 16, minimum=1) == 8
    monkeypatch.setenv("ARENA_TEST_N", "0")
    assert env_number("ARENA_TEST_N", 30, minimum=0) == 0


@pytest.mark.parametrize("raw", ["abc", "1.5", "8 matches", "0", "-3", "1e3"])
def test_a_whole_number_setting_refuses_anything_else_by_name(monkeypatch, raw):
    monkeypatch.setenv("ARENA_TEST_N", raw)
    with pytest.raises(ConfigError, match=rf"^ARENA_TEST_N='{raw}': expected a whole number of at least 1$"):
        env_number("ARENA_TEST_N", 16, minimum=1)


def test_a_seconds_setting_takes_decimals(monkeypatch):
    monkeypatch.setenv("ARENA_TEST_S", "2.5")
    assert env_seconds("ARENA_TEST_S", 60.0, minimum=1) == 2.5
    monkeypatch.delenv("ARENA_TEST_S")
    assert env_seconds("ARENA_TEST_S", 60.0, minimum=1) == 60.0


@pytest.mark.parametrize("raw", ["1m", "nan", "inf", "-inf", "0.5", "-1", ""])
def test_a_seconds_setting_refuses_units_non_numbers_and_too_little(monkeypatch, raw):
    monkeypatch.setenv("ARENA_TEST_S", raw)
    if not raw:  # blank is unset
        assert env_seconds("ARENA_TEST_S", 60.0, minimum=1) == 60.0
        return
    with pytest.raises(ConfigError, match=r"^ARENA_TEST_S=.*: expected a number of seconds of at least 1$"):
        env_seconds("ARENA_TEST_S", 60.0, minimum=1)


@pytest.mark.parametrize(
    ("variable", "raw"),
    [
        ("ARENA_QUEUE_WINDOW", "0"),
        ("ARENA_MATCHES_PER_PROCESS", "lots"),
        ("ARENA_LEASE_SECONDS", "1m"),
        ("ARENA_MATCH_SECONDS", "nan"),
        ("ARENA_VISIBILITY_TIMEOUT", "-5"),
        ("ARENA_STALL_SECONDS", "soon"),
    ],
)
def test_the_worker_settings_check_names_the_bad_one(monkeypatch, variable, raw):
    monkeypatch.setenv(variable, raw)
    with pytest.raises(ConfigError, match=rf"^{variable}="):
        settings.check()


def test_a_visibility_timeout_given_on_the_command_line_is_not_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("ARENA_VISIBILITY_TIMEOUT", "-5")
    settings.check(visibility_given=True)


@pytest.mark.parametrize(
    ("variable", "raw", "expected"),
    [
        ("ARENA_QUEUE_WINDOW", "abc", "a whole number of at least 1"),
        ("ARENA_MATCHES_PER_PROCESS", "x", "a whole number of at least 1"),
        ("ARENA_LEASE_SECONDS", "1m", "a number of seconds of at least 1"),
        ("ARENA_RETENTION_DAYS", "-1", "a whole number from 0 to 36500 (0 keeps them for good)"),
        # Past what Redis takes as a lifetime: every finalisation failed (an outside operator probe).
        ("ARENA_RETENTION_DAYS", "999999999999", "a whole number from 0 to 36500 (0 keeps them for good)"),
        ("ARENA_STALL_SECONDS", "0", "a number of seconds of at least 1"),
    ],
)
def test_arena_worker_stops_at_its_start_on_a_bad_setting(variable, raw, expected):
    # A broker nobody listens on: the setting is checked before the broker is dialled.
    done = arena("worker", "--broker", "redis://127.0.0.1:1/0", env={variable: raw})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"arena worker: error: {variable}={raw!r}: expected {expected}"


@pytest.mark.parametrize(
    ("variable", "raw", "expected"),
    [
        ("ARENA_QUEUE_WINDOW", "abc", "a whole number of at least 1"),
        # The client ran to its end with it (a README probe).
        ("ARENA_STALL_SECONDS", "abc", "a number of seconds of at least 1"),
    ],
)
def test_a_distributed_tournament_with_a_bad_setting_is_refused_before_it_is_created(tmp_path, variable, raw, expected):
    with redis_server(tmp_path) as server:
        done = arena(
            "tournament", "--game", "rolldice", "--repeats", "1", "--broker", server.url,
            "--out", str(tmp_path / "runs"), env={variable: raw},
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert f"{variable}={raw!r}: expected {expected}" in done.stderr
        assert "Traceback" not in done.stderr
        assert server.client().keys("arena:*") == []  # nothing half-made: no queued tournament left behind


@pytest.mark.parametrize(
    ("variable", "raw"),
    [("ARENA_STALL_SECONDS", "1m"), ("ARENA_LEASE_SECONDS", "x"), ("ARENA_MATCH_SECONDS", "x")],
)
def test_arena_serve_stops_at_its_start_on_a_bad_setting(variable, raw):
    """Every ARENA_* setting: a README probe's bad ARENA_LEASE_SECONDS started the service, whose
    stall check (the workers' code) then failed every 2 s for good."""
    done = arena("serve", "--redis", "redis://127.0.0.1:1/0", "--port", "0", env={variable: raw})
    assert done.returncode == 2, done.stderr
    expected = f"{variable}={raw!r}: expected a number of seconds of at least 1"
    assert done.stderr.strip() == f"arena serve: error: {expected}"


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--rate", "-1", "--rate -1: expected calls per second, 0 or more (0 = unlimited)"),
        ("--rate", "nan", "--rate nan: expected calls per second, 0 or more (0 = unlimited)"),
        ("--burst", "0", "--burst 0: expected at least 1 call"),
        ("--grace", "-2", "--grace -2: expected seconds, 0 or more"),
    ],
)
def test_arena_serve_refuses_a_rate_limit_or_grace_that_makes_no_sense(flag, value, expected):
    done = arena("serve", "--redis", "redis://127.0.0.1:1/0", "--port", "0", flag, value, env={})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"arena serve: error: {expected}"


@pytest.mark.parametrize("value", ["0", "-1"])
def test_arena_worker_refuses_a_visibility_timeout_under_a_second(value):
    done = arena("worker", "--broker", "redis://127.0.0.1:1/0", "--visibility-timeout", value, env={})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"arena worker: error: --visibility-timeout must be at least 1 second, got {value}"


def test_the_worker_says_which_settings_it_runs_with(monkeypatch):
    for variable in ("ARENA_QUEUE_WINDOW", "ARENA_VISIBILITY_TIMEOUT", "ARENA_LEASE_SECONDS", "ARENA_MATCH_SECONDS"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("ARENA_MATCHES_PER_PROCESS", "32")
    monkeypatch.setenv("ARENA_LEASE_SECONDS", "2.5")
    monkeypatch.setenv("ARENA_STALL_SECONDS", "90")
    assert settings.summary() == (
        "32 remote matches a process, queue window 16, visibility timeout 3600 s, leases 2.5 s, "
        "a match at most 3600 s, stall check after 90 s"
    )
    assert "visibility timeout 120 s" in settings.summary(visibility=120)
