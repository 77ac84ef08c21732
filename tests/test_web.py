"""The web UI and the replay viewer in a real browser (Debian's chromium, headless, through
Selenium): a real ``arena serve`` with its web UI, a real Redis, a real worker playing real
tournaments. Screenshots are kept as test artefacts (the directory is printed)."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from arena.engine import SPECTATOR
from arena.games.v1 import gasha_pb2, karakum_pb2
from arena.record import MatchRecord, resimulate
from arena.registry import get_game
from arena.rundir import RunDirectory
from arena.v1 import arena_pb2, arena_pb2_grpc
from referee.auth import create_owner
from referee.store import Store
from tests.cli_run import arena
from tests.remote_helpers import bot_process, misbehaving
from tests.services import ROOT, headless_chrome, redis_server, service, wait_for, workers

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    directory = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    directory.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {directory}")
    return directory


@pytest.fixture(scope="module")
def browser(chromium) -> Iterator[webdriver.Chrome]:
    driver = headless_chrome(chromium, {"performance": "ALL", "browser": "ALL"})
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(autouse=True)
def own_browser_messages(request):  # type: ignore[no-untyped-def]
    """A test reads only its own pages' console messages: the browser is the module's, and an
    error page an earlier test opened on purpose (a 404) failed a later test's "no errors"."""
    if "browser" in request.fixturenames:
        request.getfixturevalue("browser").get_log("browser")


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("web")
    with redis_server(tmp) as redis, workers(redis.url, tmp, count=1, concurrency=2), service(redis.url, tmp) as srv:
        store = Store(redis.url)
        token = create_owner(store, "alice", operator=True)  # its seeds leave its tournaments rated
        channel = grpc.insecure_channel(srv.address)
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        metadata = (("authorization", f"Bearer {token}"),)

        def call(method: str, request: Any) -> Any:
            return getattr(stub, method)(request, metadata=metadata, timeout=60)

        def finished(request: arena_pb2.CreateTournamentRequest) -> str:
            tournament = call("CreateTournament", request)
            updates = stub.WatchTournament(
                arena_pb2.WatchTournamentRequest(tournament_id=tournament.id), metadata=metadata
            )
            assert list(updates)[-1].final
            return str(tournament.id)

        ended = {
            "rainbow": finished(
                arena_pb2.CreateTournamentRequest(game="rainbow", bots=["random", "heuristic"], repeats=2, seed=5)
            ),
            "rolldice": finished(
                arena_pb2.CreateTournamentRequest(
                    game="rolldice", bots=["heuristic", "random", "heuristic:threshold=4"], repeats=5, seed=3
                )
            ),
        }
        wait_for(lambda: store.game_leaderboard("rainbow") is not None, 60, "the game leaderboard")
        yield {
            "url": f"http://127.0.0.1:{srv.http_port}",
            "redis": redis.url,
            "store": store,
            "call": call,
            "ended": ended,
        }
        channel.close()


def shoot(browser, path: Path) -> None:
    """A screenshot of the page's top (where the controls and the table are)."""
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(path))


def frame_of(browser) -> int:
    return int(browser.find_element(By.ID, "step-label").get_attribute("data-frame"))


def shown_scores(browser) -> list[float]:
    spans = browser.find_elements(By.CSS_SELECTOR, "#scores .score")
    return [float(s.text) for s in sorted(spans, key=lambda s: int(s.get_attribute("data-seat")))]


def network_bodies(browser) -> list[str]:
    """The bodies of every response the page received since the last call (Chrome's
    performance log, then the DevTools protocol for each body)."""
    bodies = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.responseReceived":
            continue
        request_id = message["params"]["requestId"]
        try:
            body = browser.execute_cdp_cmd("Network.getResponseBody", {"requestId": request_id})
        except Exception:  # e.g. a redirect or a response evicted from the buffer: nothing to search
            continue
        bodies.append(body.get("body", ""))
    return bodies


def test_games_and_game_pages(stack, browser, shots):
    browser.get(stack["url"] + "/")
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#games a")]
    assert {"Sky Five", "Rainbow", "Get Bit!"} <= set(names)
    shoot(browser, shots / "games.png")
    browser.find_element(By.LINK_TEXT, "Rainbow").click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "rules"))
    rules = (ROOT / "arena" / "games" / "rainbow" / "rules.md").read_text()
    first_line = next(line for line in rules.splitlines() if line.strip())
    assert first_line in browser.find_element(By.ID, "rules").text  # the text `arena rules` prints
    rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr[data-bot]")
    assert sorted(r.get_attribute("data-bot") for r in rows) == ["heuristic", "random"]
    assert browser.find_elements(By.CSS_SELECTOR, "#leaderboard .bar .range")  # the interval, drawn
    assert stack["ended"]["rainbow"] in browser.find_element(By.ID, "tournaments").text
    shoot(browser, shots / "game-rainbow.png")
    assert urllib.request.urlopen(stack["url"] + "/api/games/rainbow/leaderboard", timeout=30).status == 200
    browser.find_element(By.LINK_TEXT, "tournaments").click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "tournaments"))
    listed = browser.find_element(By.ID, "tournaments").text
    assert all(tournament_id in listed for tournament_id in stack["ended"].values())
    shoot(browser, shots / "tournaments.png")
    for path, code, says in (
        ("/games/chess", 404, "no game 'chess'"),
        ("/tournaments/nope", 404, "no tournament 'nope'"),
        ("/matches/nope", 400, "expected <tournament id>:<match id>"),
        (f"/matches/{stack['ended']['rainbow']}:m999999", 404, "matches (m000000 to m0000"),  # never scheduled
        (f"/api/tournaments/{stack['ended']['rainbow']}/matches?offset=x", 400, "numbers"),
    ):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(stack["url"] + path, timeout=30)
        assert refused.value.code == code and says in refused.value.read().decode(), path
    # To a browser, an error is a page with the way back (it was a bare line of text).
    browser.get(stack["url"] + "/tournaments/nope")
    assert browser.find_element(By.ID, "error").text == "no tournament 'nope'"
    assert browser.find_element(By.LINK_TEXT, "tournaments")


def test_a_tournament_the_cli_ran_on_the_broker_opens_like_the_services_own(stack, tmp_path):
    # Its id carries the spec's digest before the random tail: it was listed and counted on the
    # game's board, but its page, its matches and GetTournament answered "no tournament".
    out = tmp_path / "run"
    ran = arena(
        "tournament", "--game", "rolldice", "--bots", "random,heuristic", "--repeats", "2", "--seed", "4",
        "--broker", stack["redis"], "--out", str(out),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    _, tournament_id = RunDirectory(out).read_spec()
    assert tournament_id.count("-") == 4  # game, date, time, digest, tail
    with urllib.request.urlopen(f"{stack['url']}/tournaments/{tournament_id}/", timeout=30) as page:
        assert f"Tournament {tournament_id}" in page.read().decode()  # a trailing slash too (it was a 404)
    with urllib.request.urlopen(f"{stack['url']}/api/tournaments/{tournament_id}/matches", timeout=30) as listing:
        assert json.loads(listing.read())["total"] == 4
    with urllib.request.urlopen(f"{stack['url']}/matches/{tournament_id}:m000003", timeout=30) as match:
        assert match.status == 200
    # The run returns once the worker that stored the last record has finalised it (it returned
    # before, and a CI run read "running").
    got = stack["call"]("GetTournament", arena_pb2.GetTournamentRequest(tournament_id=tournament_id))
    assert got.id == tournament_id and got.status == "complete"


def test_an_entrant_named_like_markup_leaves_the_tournament_page_whole(stack, browser, tmp_path):
    """A broker run names its entrants as its command line gave them: '<!--<script>' in the
    inlined data kept the page's own </script> from closing it, and the page drew nothing (an
    outside probe, in chromium)."""
    hostile = "unix:///tmp/x<!--<script>"
    ran = arena(
        "tournament", "--game", "rolldice", "--bots", f"{hostile},random", "--repeats", "1", "--seed", "5",
        "--broker", stack["redis"], "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert ran.returncode in (0, 1), ran.stderr  # the seat that cannot be dialled forfeits
    _, tournament_id = RunDirectory(tmp_path / "run").read_spec()
    browser.get(f"{stack['url']}/tournaments/{tournament_id}")
    wait = WebDriverWait(browser, 30)
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#leaderboard tr[data-bot]"))
    bots = {r.get_attribute("data-bot") for r in browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr[data-bot]")}
    assert bots == {hostile, "random"}
    assert browser.find_element(By.ID, "status-badge").text


def test_tournament_page_pages_and_filters_its_matches(stack, browser, shots):
    tournament_id = stack["ended"]["rolldice"]
    total = len(stack["store"].stored_match_indices(tournament_id))
    browser.get(f"{stack['url']}/tournaments/{tournament_id}")
    wait = WebDriverWait(browser, 30)
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#match-table tr.match"))
    assert browser.find_element(By.ID, "status-badge").text == "complete"
    bots = {r.get_attribute("data-bot") for r in browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr[data-bot]")}
    assert bots == {"heuristic", "random", "heuristic:threshold=4"}
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seats tr")) == 1 + 2  # header + one per seat
    assert browser.find_element(By.ID, "page-label").text.endswith(f"of {total}")
    first_page = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#match-table tr.match a")]
    assert len(first_page) == min(25, total)
    assert total > 25  # two pages
    browser.find_element(By.ID, "page-next").click()
    wait.until(lambda b: b.find_element(By.ID, "page-label").text.startswith("26-"))
    second_page = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#match-table tr.match a")]
    assert len(second_page) == total - 25 and not set(second_page) & set(first_page)
    browser.find_element(By.ID, "page-first").click()
    wait.until(lambda b: b.find_element(By.ID, "page-label").text.startswith("1-"))
    assert not browser.find_element(By.ID, "page-first").is_enabled()
    browser.find_element(By.ID, "page-last").click()  # the newest results, at once
    wait.until(lambda b: b.find_element(By.ID, "page-label").text == f"{(total - 1) // 25 * 25 + 1}-{total} of {total}")
    assert not browser.find_element(By.ID, "page-last").is_enabled()
    Select(browser.find_element(By.ID, "bot-filter")).select_by_value("random")
    wait.until(lambda b: b.find_element(By.ID, "page-label").text.startswith("1-"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#match-table tr.match")
    assert rows and all("random:" in r.text for r in rows)
    with_random = sum(1 for r in stack["store"].matches(tournament_id) if "random" in [s["bot"] for s in r.seats])
    assert browser.find_element(By.ID, "page-label").text.endswith(f"of {with_random}") and with_random < total
    shoot(browser, shots / "tournament-rolldice.png")


def test_a_finished_tournament_whose_records_expired_says_so(stack, browser):
    """Its match list said "no matches", as for a tournament that played none."""
    store: Store = stack["store"]
    tournament = stack["call"](
        "CreateTournament", arena_pb2.CreateTournamentRequest(game="rolldice", bots=["random", "heuristic"])
    )
    wait_for(lambda: store.tournament(tournament.id)["status"] == "complete", 60, "the tournament")
    browser.get(f"{stack['url']}/tournaments/{tournament.id}")
    wait = WebDriverWait(browser, 30)
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#match-table tr.match"))
    for part in ("matches", "groups", "events"):  # as their retention ends
        store.redis.delete(store.key("t", tournament.id, part))
    browser.refresh()
    wait.until(lambda b: b.find_element(By.ID, "page-label").text.startswith("no matches"))
    played = store.tournament(tournament.id)["done"]
    label = browser.find_element(By.ID, "page-label").text
    assert label.startswith(f"no matches stored: this tournament played {played},") and "RETENTION" in label
    Select(browser.find_element(By.ID, "bot-filter")).select_by_index(1)  # a filter that finds none says only that
    wait.until(lambda b: b.find_element(By.ID, "page-label").text == "no matches")


STALE = "Cannot reach the service: the figures below may be out of date; retrying."


def with_matches_listing(browser, answer: str) -> str:
    """Before a page's own script runs, its first two requests for the matches listing get
    ``answer`` (a JavaScript expression of a Promise; ``signal``: the request's abort signal),
    the later ones the service's. The script's id, for Page.removeScriptToEvaluateOnNewDocument."""
    source = (
        "var realFetch = window.fetch, faked = 0; window.fetchedMatches = 0;"
        "window.fetch = function (url, init) {"
        "  var signal = init && init.signal;"
        "  if (String(url).indexOf('/matches?') >= 0 && window.fetchedMatches++ < 2) return " + answer + ";"
        "  return realFetch.apply(this, arguments); };"
    )
    return str(browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})["identifier"])


def test_an_unreadable_matches_listing_says_so_and_retries(stack, browser):
    """The service's own 503 while its store is down is text: the page threw an uncaught
    SyntaxError, and a finished tournament's match list stayed blank with no notice, for good
    (it has no status poll to bring it back); an outside web probe."""
    tournament_id = stack["ended"]["rolldice"]
    unavailable = (
        "Promise.resolve(new Response('the store is unavailable; retry in 2s\\n',"
        " {status: 503, headers: {'Content-Type': 'text/plain', 'Retry-After': '2'}}))"
    )
    script = with_matches_listing(browser, unavailable)
    try:
        browser.get(f"{stack['url']}/tournaments/{tournament_id}")
        wait = WebDriverWait(browser, 15)
        wait.until(lambda b: b.find_element(By.ID, "stale").is_displayed())
        assert browser.find_element(By.ID, "stale").text == STALE
        assert not browser.find_elements(By.CSS_SELECTOR, "#match-table tr.match")
        # Retried (every 3 s): the third request is the service's, and the notice goes.
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#match-table tr.match"))
        wait.until(lambda b: not b.find_element(By.ID, "stale").is_displayed())
        total = len(stack["store"].matches(tournament_id))
        assert browser.find_element(By.ID, "page-label").text == f"1-{min(25, total)} of {total}"
        assert browser.execute_script("return window.fetchedMatches") == 3
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})


def test_a_request_the_service_does_not_answer_times_out(stack, browser):
    """With the store hung (not down) the service answered 503 only after about 30 s, and the
    page said nothing until then: its requests had no time limit. Now one gives up after 10 s."""
    tournament_id = stack["ended"]["rolldice"]
    hung = (
        "new Promise(function (ok, fail) { signal && signal.addEventListener('abort', function () {"
        " fail(new DOMException('aborted', 'AbortError')); }); })"
    )
    script = with_matches_listing(browser, hung)
    try:
        browser.get(f"{stack['url']}/tournaments/{tournament_id}")
        started = browser.execute_script("return performance.now()")
        WebDriverWait(browser, 15, poll_frequency=0.2).until(lambda b: b.find_element(By.ID, "stale").is_displayed())
        waited = browser.execute_script("return performance.now()") - started
        assert 9000 <= waited <= 12000, waited
        assert browser.find_element(By.ID, "stale").text == STALE
        WebDriverWait(browser, 30).until(lambda b: not b.find_element(By.ID, "stale").is_displayed())
        assert browser.find_elements(By.CSS_SELECTOR, "#match-table tr.match")
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})


def test_the_hidden_notice_takes_no_room(stack, browser):
    """.verdict's inline-block overrode the notice's hidden attribute: an empty band, 30 px, over
    every tournament page's status line."""
    browser.get(f"{stack['url']}/tournaments/{stack['ended']['rolldice']}")
    laid_out = browser.execute_script(
        "var e = document.getElementById('stale'), r = e.getBoundingClientRect();"
        "return [e.hidden, getComputedStyle(e).display, r.height, r.width];"
    )
    assert laid_out == [True, "none", 0, 0]


def test_pages_fit_a_phones_width(stack, browser, shots):
    """At 375 px no page scrolls sideways (an outside web probe: a replay's nav pushed its
    record link off the screen; the leaderboards and the tournaments ran past the edge). A
    wide table scrolls within its panel."""
    rainbow = stack["ended"]["rainbow"]
    match_id = stack["store"].match(rainbow, stack["store"].stored_match_indices(rainbow)[0]).match_id
    phone = {"width": 375, "height": 812, "deviceScaleFactor": 1, "mobile": True}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", phone)
    try:
        for path, ready in [
            (f"/matches/{rainbow}:{match_id}", "step-label"),
            (f"/tournaments/{stack['ended']['rolldice']}", "match-table"),
            ("/games/rolldice", "leaderboard"),
            ("/tournaments", "tournaments"),
            ("/", "games"),
        ]:
            browser.get(stack["url"] + path)
            WebDriverWait(browser, 30).until(lambda b, ready=ready: b.find_elements(By.ID, ready))
            # A mobile viewport widens to what overflows it: the page's width is the telling one.
            assert browser.execute_script("return document.documentElement.scrollWidth") == 375, path
            links = browser.find_elements(By.CSS_SELECTOR, "header.nav a")
            assert all(a.rect["x"] >= 0 and a.rect["x"] + a.rect["width"] <= 375 for a in links), path
            if ready == "match-table":  # the leaderboard keeps its width, within its panel
                panel = "var p = document.getElementById('leaderboard').parentElement;"
                assert browser.execute_script(panel + "return p.scrollWidth > p.clientWidth"), path
            shoot(browser, shots / f"phone{path.replace('/', '-')}.png")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def played_out(store: Store, tournament_id: str) -> int | None:
    """The first stored match every seat rotation of whose deal is stored too (the service shows
    a running tournament's match only then), or None."""
    players = int(store.tournament(tournament_id)["spec"]["players"])
    stored = set(store.stored_match_indices(tournament_id))
    groups = ((i, range(i - i % players, i - i % players + players)) for i in sorted(stored))
    return next((i for i, group in groups if all(j in stored for j in group)), None)


def open_match(stack, browser, tournament_id: str, index: int | None = None) -> MatchRecord:
    store: Store = stack["store"]
    index = store.stored_match_indices(tournament_id)[0] if index is None else index
    record = store.match(tournament_id, index)
    assert record is not None
    browser.get(f"{stack['url']}/matches/{tournament_id}:{record.match_id}")
    return record


def test_replay_steps_through_a_match_and_shows_its_scores(stack, browser, shots):
    record = open_match(stack, browser, stack["ended"]["rainbow"])
    wait = WebDriverWait(browser, 30)
    wait.until(lambda b: b.find_elements(By.ID, "step-label"))
    with urllib.request.urlopen(browser.find_element(By.ID, "record-link").get_attribute("href"), timeout=30) as got:
        assert MatchRecord.loads(got.read().decode()).match_id == record.match_id  # the record the page replays
    game = get_game("rainbow")
    # The scores shown at each step are the engine's, replayed independently here.
    config = game.config(int(record.config["players"]), record.config.get("options", {}))
    state = game.new_match(config, record.seed)
    expected = []
    steps: dict[int, dict[int, str]] = {}
    for entry in record.decisions:
        steps.setdefault(entry.step, {})[entry.seat] = entry.choice
    seat_views = []
    for choices in steps.values():
        expected.append([float(x) for x in game.observe(state, SPECTATOR).scores])
        seat_views.append(game.observe(state, 1))
        game.apply(state, choices)
    expected.append([float(x) for x in record.result["scores"]])
    assert frame_of(browser) == 0 and shown_scores(browser) == expected[0]
    body = browser.find_element(By.TAG_NAME, "body")
    for n in range(1, 6):
        body.send_keys(Keys.ARROW_RIGHT)
        assert frame_of(browser) == n and shown_scores(browser) == expected[n]
    browser.find_element(By.ID, "prev").click()
    assert frame_of(browser) == 4 and shown_scores(browser) == expected[4]
    decision = browser.find_element(By.CSS_SELECTOR, "#decisions .decision")
    assert decision.find_element(By.CSS_SELECTOR, ".opt.chosen").text == record.decisions[4].choice
    shoot(browser, shots / "replay-rainbow-step.png")
    body.send_keys(Keys.END)
    last = len(expected) - 1
    assert frame_of(browser) == last and shown_scores(browser) == expected[-1]
    shoot(browser, shots / "replay-rainbow-end.png")
    # Switching seats: a seat's view holds its own hand, never the others' ("hands" is empty).
    browser.find_element(By.ID, "slider").send_keys(Keys.HOME)
    body.send_keys(Keys.ARROW_RIGHT)
    Select(browser.find_element(By.ID, "view")).select_by_value("1")
    observation = browser.find_element(By.ID, "observation").text
    assert "observation of seat 1" in observation and "\nhands\nnone" in observation
    backs = browser.find_elements(By.CSS_SELECTOR, "#table .seatrow .card.back")
    assert len(backs) == seat_views[1].hand_sizes[0] > 0  # seat 0's hand, face down
    private = [e.text for e in state.log.events if e.to is not None and 1 not in e.to]
    events_text = browser.find_element(By.ID, "events").text
    assert private and not any(text in events_text for text in private)
    Select(browser.find_element(By.ID, "view")).select_by_value("-1")
    assert any(text in browser.find_element(By.ID, "events").text for text in private)
    assert "\nhands\nnone" not in browser.find_element(By.ID, "observation").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#table .seatrow .card.back")  # every hand face up
    shoot(browser, shots / "replay-rainbow-spectator.png")
    # Right after a view is chosen, the arrow keys step (the menu kept the focus and took them),
    # and the address keeps the step and the view: a reload (or a link) opens there.
    Select(browser.find_element(By.ID, "view")).select_by_value("1")
    at = frame_of(browser)
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT).perform()  # to whatever has the focus
    assert frame_of(browser) == at + 2 and browser.find_element(By.ID, "view").get_attribute("value") == "1"
    assert browser.current_url.endswith(f"#step={at + 3}&view=1")
    browser.refresh()
    wait.until(lambda b: b.find_elements(By.ID, "step-label"))
    assert frame_of(browser) == at + 2 and browser.find_element(By.ID, "view").get_attribute("value") == "1"
    assert "observation of seat 1" in browser.find_element(By.ID, "observation").text


def test_a_running_tournament_never_shows_hidden_cards(stack, browser, shots):
    store: Store = stack["store"]
    call = stack["call"]
    with bot_process(misbehaving("illegal", "--at", "0")) as address:
        call("RegisterBot", arena_pb2.RegisterBotRequest(name="flaky", games=["rainbow"], endpoint=address))
        tournament = call(
            "CreateTournament",
            arena_pb2.CreateTournamentRequest(
                game="rainbow",
                bots=["flaky", "random", "heuristic"],
                repeats=2000,
                on_error="substitute",
                error_budget=100,
                bot_concurrency=1,
            ),
        )
        check_running(stack, browser, shots, tournament.id)
    # Once ended, the same match page is the full replay with every seat's view, and the
    # failures are shown.
    wait_for(lambda: store.tournament(tournament.id)["status"] == "cancelled", 60, "the cancel")
    # Its page ends with the published board (finalisation, a moment after the cancel).
    wait_for(lambda: store.leaderboard(tournament.id) is not None, 60, "the cancelled tournament's board")
    open_match(stack, browser, tournament.id)
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "view"))
    browser.get(f"{stack['url']}/tournaments/{tournament.id}")
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#match-table tr.match"))
    assert "illegal" in browser.find_element(By.CSS_SELECTOR, '#leaderboard tr[data-bot="flaky"]').text
    shoot(browser, shots / "tournament-ended-failures.png")
    # The replay of a match with a failure highlights the verdict at its decision.
    failed = next(r for r in store.matches(tournament.id) if r.failures)
    failure = failed.failures[0]
    browser.get(f"{stack['url']}/matches/{tournament.id}:{failed.match_id}")
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "view"))
    step = failed.decisions[failure.decision].step
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME, *[Keys.ARROW_RIGHT] * step)
    box = browser.find_element(By.CSS_SELECTOR, f'#decisions .decision.failed[data-seat="{failure.seat}"]')
    assert box.find_element(By.CSS_SELECTOR, ".verdict").text == "illegal"
    assert "by the substitute" in box.text
    shoot(browser, shots / "replay-verdict.png")


def check_running(stack, browser, shots, tournament_id: str) -> None:
    store: Store = stack["store"]
    try:
        wait_for(lambda: store.tournament(tournament_id)["done"] >= 2, 120, "some matches")
        wait_for(lambda: any(r.failures for r in store.matches(tournament_id)), 120, "a failure of the flaky bot")
        browser.get_log("performance")  # forget earlier pages' traffic
        browser.get(f"{stack['url']}/tournaments/{tournament_id}")
        # The live page redraws what it polls: an element read between two redraws is stale.
        wait = WebDriverWait(browser, 30, ignored_exceptions=[StaleElementReferenceException])
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#match-table tr.match"))
        assert browser.find_element(By.ID, "status-badge").text == "running"
        done = int(browser.find_element(By.ID, "done").text)
        wait.until(lambda b: int(b.find_element(By.ID, "done").text) > done)  # live, without reloading
        assert not browser.find_element(By.ID, "stale").is_displayed()
        # The service out of reach: the page says its figures may be stale (it kept "running"
        # over them in silence), and clears that when it reads again.
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/tournaments/*"]})
        wait.until(lambda b: "Cannot reach the service" in b.find_element(By.ID, "stale").text)
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        wait.until(lambda b: not b.find_element(By.ID, "stale").is_displayed())
        # A tournament no longer stored (a 404): said once, and the polling stops.
        browser.execute_script("window.TOURNAMENT = 'rainbow-20000101-000000-00000000';")
        wait.until(lambda b: "no longer stored" in b.find_element(By.ID, "stale").text)
        browser.get_log("browser")  # the blocked requests and the 404 were meant: forgotten here
        shoot(browser, shots / "tournament-running.png")
        pages = [browser.page_source, *network_bodies(browser)]
        # A match whose deal every seat rotation has played: its public events are shown.
        wait_for(lambda: played_out(store, tournament_id) is not None, 120, "a deal played out")
        record = open_match(stack, browser, tournament_id, played_out(store, tournament_id))
        wait.until(lambda b: b.find_elements(By.ID, "public-note"))
        assert not browser.find_elements(By.ID, "view")  # no seat to switch to while it runs
        shown = json.loads(browser.find_element(By.ID, "replay-data").get_attribute("textContent"))
        assert shown["frames"] == [] and "seed" not in shown and not shown["spectator"]  # no observation, no choice
        shoot(browser, shots / "match-running.png")
        pages += [browser.page_source, *network_bodies(browser)]
        final = resimulate(get_game("rainbow"), record)
        hidden = [e.text for e in final.log.events if e.to is not None]
        assert hidden and any("is dealt" in text for text in hidden)
        for text in pages:
            for secret in hidden:
                assert secret not in text
            assert str(record.seed) not in text  # the seed deals the same hands to other rotations
        public = [e.text for e in final.log.events if e.to is None]
        assert any(public[-1] in text for text in pages)  # the public events are shown
        # No bot's failures while it runs (another owner's business), though there are some.
        assert not any("illegal" in text for text in pages)
    finally:
        stack["call"]("CancelTournament", arena_pb2.CancelTournamentRequest(tournament_id=tournament_id))


def test_the_html_export_plays_offline_from_a_file(browser, shots, tmp_path):
    record_path = tmp_path / "skyfive.json"
    out = arena("play", "--game", "skyfive", "--players", "3", "--seed", "4", "--record", str(record_path), "--json")
    assert out.returncode == 0, out.stderr
    page = tmp_path / "skyfive.html"
    out = arena("replay", str(record_path), "--html", str(page))
    assert out.returncode == 0 and page.exists(), out.stderr
    text = page.read_text()
    assert "http://" not in text and "https://" not in text  # nothing to fetch: assets inlined
    record = MatchRecord.loads(record_path.read_text())
    browser.get_log("browser")  # forget earlier pages' messages
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    try:
        browser.get(page.as_uri())
        WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "step-label"))
        assert frame_of(browser) == 0
        browser.find_element(By.ID, "play").click()
        WebDriverWait(browser, 30).until(lambda b: frame_of(b) >= 3)
        browser.find_element(By.ID, "play").click()  # pause
        paused = frame_of(browser)
        shoot(browser, shots / "export-skyfive-playing.png")
        assert frame_of(browser) == paused
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
        assert shown_scores(browser) == [float(x) for x in record.result["scores"]]
        shoot(browser, shots / "export-skyfive-end.png")
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
    finally:
        browser.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )


@pytest.mark.parametrize("game", ["getbit", "llamallama"])
def test_other_games_render_in_the_export(browser, shots, tmp_path, game):
    record_path = tmp_path / f"{game}.json"
    assert arena("play", "--game", game, "--players", "3", "--record", str(record_path), "--json").returncode == 0
    page = tmp_path / f"{game}.html"
    assert arena("replay", str(record_path), "--html", str(page)).returncode == 0
    browser.get_log("browser")
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(4):
        body.send_keys(Keys.ARROW_RIGHT)
    assert frame_of(browser) == 4
    assert browser.find_element(By.ID, "observation").text.strip()
    shoot(browser, shots / f"export-{game}.png")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    # On a phone's width the page itself does not scroll sideways (Get Bit!'s lane did, 618 px
    # wide at 360: an outside web probe); a wide table scrolls within its panel.
    phone = {"width": 360, "height": 780, "deviceScaleFactor": 2, "mobile": True}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", phone)
    try:
        browser.get(page.as_uri())
        WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "step-label"))
        for _ in range(4):
            # A mobile viewport widens to what overflows it: the page's width is the telling one.
            assert browser.execute_script("return document.documentElement.scrollWidth") <= phone["width"]
            browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        shoot(browser, shots / f"export-{game}-phone.png")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def exported(tmp_path: Path, game_id: str, seed: int) -> tuple[Path, MatchRecord, list[dict[int, str]]]:
    """A 3-player match of random bots played and exported with the CLI: the page, the record
    and its decision steps in order (seat -> choice)."""
    record_path, page = tmp_path / f"{game_id}.json", tmp_path / f"{game_id}.html"
    played = arena("play", "--game", game_id, "--players", "3", "--seed", str(seed), "--record", str(record_path))
    assert played.returncode == 0, played.stderr
    assert arena("replay", str(record_path), "--html", str(page)).returncode == 0
    record = MatchRecord.loads(record_path.read_text())
    steps: dict[int, dict[int, str]] = {}
    for entry in record.decisions:
        steps.setdefault(entry.step, {})[entry.seat] = entry.choice
    return page, record, list(steps.values())


def test_scores_in_the_seats_views_and_numbered_coloured_pieces_are_shown(browser, shots, tmp_path):
    """A game whose scores are a field of every seat's view (Karakum: seats[].score) shows them
    in the scores panel, the engine's at every step; a piece with a colour and a number (a
    camel) is a chip of its colour showing its number."""
    page, record, steps = exported(tmp_path, "karakum", 4)
    game = get_game("karakum")
    state = game.new_match(game.config(3), record.seed)
    expected, markets = [], []
    for choices in steps:
        observation = game.observe(state, SPECTATOR)
        expected.append([float(seat.score) for seat in observation.seats])
        markets.append([(camel.colour, camel.number) for camel in observation.market])
        game.apply(state, choices)
    assert any(any(scores) for scores in expected)  # the scores move during the match
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    for n in (0, len(expected) // 2, len(expected) - 1):
        browser.find_element(By.ID, "slider").send_keys(Keys.HOME)
        body.send_keys(Keys.ARROW_RIGHT * n)  # n presses, one WebDriver call (not n round trips)
        assert frame_of(browser) == n and shown_scores(browser) == expected[n]
        chips = browser.execute_script(
            "var kv = document.querySelector('#observation .kv'); var keys = kv.querySelectorAll(':scope > .k');"
            "for (var i = 0; i < keys.length; i++) if (keys[i].textContent === 'market')"
            "  return Array.from(keys[i].nextElementSibling.querySelectorAll('.card'))"
            "    .map(function (c) { return [c.className, c.textContent]; });"
        )
        assert chips == [[f"card c-{karakum_pb2.Good.Name(c).lower()}", str(number)] for c, number in markets[n]]
    shoot(browser, shots / "export-karakum.png")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_small_pieces_are_one_chip_each(browser, tmp_path):
    """A list of small objects of plain values (Gasha's cards: a toy and a back) is drawn as a
    chip per piece, its words first, then each number named: every card of the first deck, in
    order, as the engine's spectator observation holds it."""
    page, record, _ = exported(tmp_path, "gasha", 3)
    game = get_game("gasha")
    deck = game.observe(game.new_match(game.config(3), record.seed), SPECTATOR).decks[0].cards
    expected = [f"{gasha_pb2.Toy.Name(card.toy).lower().replace('_', ' ')} · back {card.back}" for card in deck]
    browser.get(page.as_uri())
    chips = browser.execute_script(
        "var deck = document.querySelector('#observation .kv .sub .kv');"  # decks 0
        "var keys = deck.querySelectorAll(':scope > .k');"
        "for (var i = 0; i < keys.length; i++) if (keys[i].textContent === 'cards')"
        "  return Array.from(keys[i].nextElementSibling.querySelectorAll('.card.chip')).map(function (c) {"
        "    return c.textContent; });"
    )
    assert len(expected) > 10 and chips == expected
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_piece_chip_names_what_is_set_and_leaves_out_unset_flags(browser, tmp_path):
    """Open Season's wall spaces (six plain fields): a chip each, the card first, then the
    numbers and the flags that are set (an empty space: its id and trophies), at the end of a
    match, when walls are full, as the engine holds them."""
    page, record, steps = exported(tmp_path, "openseason", 3)
    game = get_game("openseason")
    state = game.new_match(game.config(3), record.seed)
    for choices in steps[:-1]:
        game.apply(state, choices)
    wall = game.observe(state, SPECTATOR).seats[0].wall

    def chip(space: Any) -> str:
        words = [text.lower().replace("_", " ") for text in (space.card, space.wild) if text]
        words.append(f"id {space.id}")
        words += ["filled yes"] if space.filled else []
        words += ["face down yes"] if space.face_down else []
        words.append(f"trophies {space.trophies}")
        return " · ".join(words)

    browser.get(page.as_uri())
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    browser.find_element(By.ID, "prev").click()  # the last decision step
    chips = browser.execute_script(
        "var seat = document.querySelector('#observation .kv .sub .kv');"  # seats 0
        "var keys = seat.querySelectorAll(':scope > .k');"
        "for (var i = 0; i < keys.length; i++) if (keys[i].textContent === 'wall')"
        "  return Array.from(keys[i].nextElementSibling.querySelectorAll('.card.chip')).map(function (c) {"
        "    return c.textContent; });"
    )
    assert any(space.filled for space in wall) and chips == [chip(space) for space in wall]


def test_replay_html_errors_are_one_line(tmp_path):
    missing = arena("replay", str(tmp_path / "nope.json"), "--html", str(tmp_path / "out.html"))
    assert missing.returncode == 2 and missing.stderr.strip().count("\n") == 0 and "no such file" in missing.stderr
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"record": 1, "game": "skyfive"')
    out = arena("replay", str(corrupt), "--html", str(tmp_path / "out.html"))
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0 and "not JSON" in out.stderr
    assert not (tmp_path / "out.html").exists()


def go_to(browser, view: int, frame: int) -> None:
    """Show ``frame`` in ``view``'s view (the view menu, then the slider, as a user sets them)."""
    Select(browser.find_element(By.ID, "view")).select_by_value(str(view))
    browser.execute_script(
        "var s = document.getElementById('slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
        str(frame),
    )
    assert frame_of(browser) == frame


def page_data(browser) -> dict[str, Any]:
    return json.loads(browser.find_element(By.ID, "replay-data").get_attribute("textContent"))


@pytest.mark.parametrize(("game_id", "seed"), [("vivo", 4), ("rainbow", 1)])
def test_a_seats_view_never_shows_another_seats_options(browser, shots, tmp_path, game_id, seed):
    """In seat 0's view the decision panel shows another seat's decision as that it decided
    (its kind) and what seat 0 then saw it do, never its legal options (its hidden hand);
    the spectator's view shows them all."""
    page, _, _ = exported(tmp_path, game_id, seed)
    browser.get(page.as_uri())
    data = page_data(browser)
    others = [(n, f["decisions"]) for n, f in enumerate(data["frames"]) if f["decisions"] and f["decisions"][0]["seat"]]
    assert len(others) > 5
    for n, decisions in others[:12]:
        (decision,) = decisions
        hidden = {o["id"] for o in decision["options"]}
        assert len(hidden) > 1
        go_to(browser, 0, n)
        panel = browser.find_element(By.ID, "decisions")
        assert not panel.find_elements(By.CSS_SELECTOR, ".opt")  # no option listed
        shown = panel.text
        assert f"seat {decision['seat']}" in shown and decision["kind"] in shown
        assert not [option for option in hidden if option in shown], (n, shown)
        assert f"{decision['option_count']} legal option" not in shown  # nor how many (a hand's suits)
        events = [
            e["text"] for e in data["events"][f_end(data, n) : f_end(data, n + 1)] if e["seat"] == decision["seat"]
        ]
        assert all(text in shown for text in events if text)  # what seat 0 saw it do (public here)
        go_to(browser, -1, n)
        spectator = browser.find_element(By.ID, "decisions").text
        assert all(option in spectator for option in hidden)
    go_to(browser, 0, others[0][0])
    shoot(browser, shots / f"seatview-{game_id}.png")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def f_end(data: dict[str, Any], frame: int) -> int:
    return int(data["frames"][frame]["events_end"])


def test_a_seats_view_of_a_sealed_step_hides_the_others_choices_until_revealed(browser, shots, tmp_path):
    """Get Bit!'s cards are chosen at once and sealed: in seat 0's view of such a step, seat 0's
    own choice and options are shown, seat 1's choice is not (not its card, not its label);
    the next step's events show it revealed."""
    page, _, _ = exported(tmp_path, "getbit", 2)
    browser.get(page.as_uri())
    data = page_data(browser)
    sealed = [n for n, f in enumerate(data["frames"]) if len(f["decisions"]) > 1]
    assert sealed
    for n in sealed[:6]:
        mine = next(d for d in data["frames"][n]["decisions"] if d["seat"] == 0)
        theirs = next(d for d in data["frames"][n]["decisions"] if d["seat"] == 1)
        go_to(browser, 0, n)
        own = browser.find_element(By.CSS_SELECTOR, '#decisions .decision[data-seat="0"]')
        assert own.find_element(By.CSS_SELECTOR, ".opt.chosen").text == mine["choice"]
        other = browser.find_element(By.CSS_SELECTOR, '#decisions .decision[data-seat="1"]')
        assert "sealed" in other.text and theirs["kind"] in other.text
        assert theirs["choice"] not in other.text and theirs["choice_label"] not in other.text
        assert not other.find_elements(By.CSS_SELECTOR, ".opt")
        before = {e["text"] for e in data["events"][: f_end(data, n)]}
        step = data["events"][f_end(data, n) : f_end(data, n + 1)]
        reveals = [e["text"] for e in step if e["seat"] == 1 and e["kind"] == "reveal" and e["text"] not in before]
        if n == sealed[0]:
            assert reveals
        assert not any(text in browser.find_element(By.ID, "events").text for text in reveals)
        if n == sealed[0]:
            shoot(browser, shots / "seatview-getbit-sealed.png")
        go_to(browser, 0, n + 1)  # revealed: in the events seat 0 sees
        assert all(text in browser.find_element(By.ID, "events").text for text in reveals)
        go_to(browser, -1, n)
        assert theirs["choice"] in browser.find_element(By.CSS_SELECTOR, '#decisions .decision[data-seat="1"]').text
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_the_replays_controls_are_named_and_the_view_menu_keeps_the_focus(browser, tmp_path):
    """An outside probe (Chrome's accessibility tree): the slider had no name, the step label
    changed silently, the view menu gave the focus away after one arrow (a second did nothing),
    and a card's suit was its colour alone, its tooltip raw JSON."""
    page, _, _ = exported(tmp_path, "vivo", 4)
    browser.get(page.as_uri())
    slider, label, menu = (browser.find_element(By.ID, i) for i in ("slider", "step-label", "view"))
    assert slider.accessible_name == "step"
    assert label.get_attribute("aria-live") == "polite"
    # The menu from the keyboard: down, down goes through the views, focus kept; left/right
    # step on it as on the page (what giving the focus away was for).
    browser.execute_script("arguments[0].focus()", menu)
    ActionChains(browser).send_keys(Keys.ARROW_DOWN).perform()
    assert menu.get_attribute("value") == "0" and browser.switch_to.active_element == menu
    ActionChains(browser).send_keys(Keys.ARROW_DOWN).perform()
    assert menu.get_attribute("value") == "1" and browser.switch_to.active_element == menu
    assert "observation of seat 1" in browser.find_element(By.ID, "observation").text
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT).perform()
    assert frame_of(browser) == 1 and menu.get_attribute("value") == "1"
    assert browser.switch_to.active_element == menu
    # Home/End go to the first and last step there too, not to the first and last view (a
    # second probe: End chose "view of seat 3" and the step stayed).
    ActionChains(browser).send_keys(Keys.END).perform()
    last = frame_of(browser)
    assert last > 10 and menu.get_attribute("value") == "1"
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert frame_of(browser) == 0 and menu.get_attribute("value") == "1"
    # Every coloured card says its colour in words: "4 of red", never JSON.
    ActionChains(browser).send_keys(Keys.UP, Keys.UP).perform()  # the spectator: every hand
    assert menu.get_attribute("value") == "-1"
    cards = browser.execute_script(
        "return Array.from(document.querySelectorAll('.card[class*=\"c-\"]')).map(function (c) {"
        "  return [c.textContent, c.className.match(/c-(\\w+)/)[1], c.getAttribute('aria-label'), c.title]; });"
    )
    assert len(cards) > 10
    assert all(name == title == f"{text} of {colour}" for text, colour, name, title in cards), cards[:5]
