"""Every game's match can be watched: for each game of the registry, at its default player count
and at another count or with a variant's options, a seeded match of built-in bots is exported as
the replay page and walked in headless chromium (Debian's, through Selenium) as a watcher walks
it, with the keyboard, in the spectator's view and in every seat's view.

At every step walked: no JavaScript error, no "undefined", "NaN" or "[object Object]" on the
page, and a seat's view shows nothing that seat may not know. That last check compares the page
with the viewer's own data (:func:`arena.replay_view.replay_data`, the engine's observation of
each seat): every word drawn in seat s's view must come from what s may know at that step (its
observation, the events it sees, its own decisions, the page's own wording), and no option or
hidden string only another seat (or the spectator) has may appear. The word check also keeps
pieces legible: a Prey card once showed three letters of its suit ("for"), no numbers. At the
end, the scores panel shows the record's result in every view.

One browser for the whole file (its tests run on one xdist worker); a bounded number of steps
per game (the first ones and the last ones), so the file stays well under a minute."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arena.cli.common import default_players
from arena.engine import Game
from arena.record import MatchRecord
from arena.registry import games, get_game
from arena.replay_view import render_html, replay_data
from arena.runner import play_match
from referee.players import make_player
from tests.services import headless_chrome

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("viewer_all_games")]

STEPS = 6
"""Steps walked per view from the start (arrow right), and again back from the end (End, then
arrow left): a full walk of every game takes minutes."""

SEED = 7
BAD_WORDS = ("undefined", "NaN", "[object Object]")
VIEWER = Path(__file__).resolve().parent.parent / "arena" / "viewer"

# Errors thrown by the page, from its first line on (installed before any page script runs).
ERROR_HOOK = (
    "window.__errors = [];"
    "window.addEventListener('error', function (e) { window.__errors.push(String(e.message) + ' @' + e.lineno); });"
)

# Walks the page with keyboard events (the viewer's own key handler) in one view, returning
# after every key the frame shown, the text of every text node of the viewer, the text as laid
# out and the observation's field names still spelt with underscores (a field is named in words).
WALK = """
var view = arguments[0], keys = arguments[1];
var select = document.getElementById('view');
select.value = String(view); select.dispatchEvent(new Event('change'));
function press(k) { document.body.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true})); }
function texts() {
  var walker = document.createTreeWalker(document.getElementById('replay'), NodeFilter.SHOW_TEXT), out = [];
  while (walker.nextNode()) out.push(walker.currentNode.nodeValue);
  return out.join('\\n');
}
var seen = [];
keys.forEach(function (k) {
  press(k);
  var shown = document.getElementById('replay').innerText;  /* laid out, as a watcher sees it */
  var labels = Array.from(document.querySelectorAll('#observation .k, #observation .sub > .muted'))
    .map(function (e) { return e.textContent; }).filter(function (t) { return t.indexOf('_') >= 0; });
  seen.push([parseInt(document.getElementById('step-label').getAttribute('data-frame'), 10), texts(), shown, labels]);
});
return {seen: seen, errors: window.__errors};
"""

TOKEN = re.compile(r"[a-z]+|\d+")


def tokens(text: Any) -> set[str]:
    return set(TOKEN.findall(str(text).lower()))


def norm(text: Any) -> str:
    """As the viewer may show a value: words lowercased, underscores as spaces."""
    return str(text).lower().replace("_", " ")


def leaves(value: Any) -> Iterator[Any]:
    """Every key and every plain value of an observation (as JSON)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    elif value is not None:
        yield value
        if isinstance(value, float):
            yield round(value * 1000) / 1000  # as the viewer rounds it


def page_words(data: dict[str, Any]) -> set[str]:
    """What every view shows: the viewer's own wording (its string literals and its page), the
    title, the game, the seats' bots and the step numbers."""
    words = tokens((VIEWER / "viewer.html").read_text())
    for literal in re.findall(r'"([^"\\]*)"', (VIEWER / "viewer.js").read_text()):
        words |= tokens(literal)
    words |= tokens(data["title"]) | tokens(json.dumps(data["game"])) | tokens(json.dumps(data["seats"]))
    return words | {str(n) for n in range(len(data["frames"]) + 1)}


def configs() -> list[tuple[str, int, dict[str, Any]]]:
    """Every game at its default player count, and at another count or with a variant's
    options where it has one."""
    out: list[tuple[str, int, dict[str, Any]]] = []
    for game_id, game in sorted(games().items()):
        meta = game.meta
        default = default_players(game)
        out.append((game_id, default, {}))
        variant = next((v for v in meta.variants if v.options), None)
        if variant is not None:
            counts = list(variant.players or range(meta.min_players, meta.max_players + 1))
            out.append((game_id, 3 if 3 in counts else counts[-1], dict(variant.options)))
        elif default != meta.max_players:
            other = 3 if meta.min_players <= 3 <= meta.max_players and default != 3 else meta.max_players
            out.append((game_id, other, {}))
    return out


def played(game: Game, players: int, options: dict[str, Any]) -> MatchRecord:
    """A seeded match of built-in bots (heuristic and random in turn)."""
    specs = ["heuristic" if seat % 2 == 0 else "random" for seat in range(players)]
    seats = [make_player(spec, game.meta.id) for spec in specs]
    return play_match(game, game.config(players, options), SEED, seats)


@pytest.fixture(scope="module")
def browser(chromium) -> Iterator[webdriver.Chrome]:
    driver = headless_chrome(chromium, {"browser": "ALL"})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ERROR_HOOK})
    try:
        yield driver
    finally:
        driver.quit()


def opened(browser: webdriver.Chrome, tmp_path: Path, data: dict[str, Any]) -> int:
    """The page exported and opened in the browser; its size in bytes."""
    page = tmp_path / "replay.html"
    page.write_text(render_html(data), encoding="utf-8")
    browser.get_log("browser")  # forget earlier pages' messages
    browser.get(page.as_uri())
    return page.stat().st_size


def walk_keys(frames: int) -> tuple[list[str], list[int]]:
    """The keys pressed and the frame each one shows: Home, right arrows, End, left arrows."""
    ahead = min(STEPS, frames) - 1
    back = min(STEPS - 1, max(0, frames - 1 - ahead))
    keys = ["Home", *["ArrowRight"] * ahead, "End", *["ArrowLeft"] * back]
    expected = [*range(ahead + 1), frames - 1, *range(frames - 2, frames - 2 - back, -1)]
    return keys, expected


def allowed_for(data: dict[str, Any], frame: int, seat: int, words: set[str]) -> tuple[set[str], str]:
    """What seat ``seat`` may read at ``frame``: the words, and the text they come from."""
    f = data["frames"][frame]
    sealed = len(f["decisions"]) > 1

    def visible(event: dict[str, Any]) -> bool:
        return event["to"] is None or seat in event["to"]

    known: list[Any] = list(leaves(f["obs"][str(seat)]))
    known += [e["text"] for e in data["events"][: f["events_end"]] if visible(e)]
    if not sealed and frame + 1 < len(data["frames"]):
        # Another seat's decision taken alone shows what the seat then saw it do: that seat's
        # events of the next step, none other.
        deciders = {d["seat"] for d in f["decisions"]} - {seat}
        upcoming = data["events"][f["events_end"] : data["frames"][frame + 1]["events_end"]]
        known += [e["text"] for e in upcoming if visible(e) and e["seat"] in deciders]
    for d in f["decisions"]:
        known += [
            d["kind"],
            d["ms"],
            d["by"],
            *(x["verdict"] for x in d["failures"]),
            *(x["late_ms"] for x in d["strikes"]),
        ]
        if d["seat"] == seat:
            known += [d["option_count"], *(x["detail"] for x in d["failures"])]
            known += [part for o in d["options"] for part in (o["id"], o["label"])]
    for x in f.get("failures", []):
        known += [x["verdict"], *([x["detail"]] if x["seat"] == seat else [])]
    if f.get("end"):
        known.append(json.dumps(data["result"]))
    allowed = set(words)
    for item in known:
        allowed |= tokens(norm(item))
    return allowed, "\n".join(norm(item) for item in known)


def secrets_for(data: dict[str, Any], frame: int, seat: int, words: set[str], known: str) -> set[str]:
    """Strings only another seat or the spectator has at ``frame`` (its options, hidden values
    of its observation, events sent to others), which seat ``seat`` has nowhere."""
    f = data["frames"][frame]
    found: set[str] = set()
    for d in f["decisions"]:
        if d["seat"] != seat:
            found |= {norm(part) for o in d["options"] for part in (o["id"], o["label"])}
    for viewer, observation in f["obs"].items():
        if viewer != str(seat):
            found |= {norm(x) for x in leaves(observation) if isinstance(x, str)}
    found |= {norm(e["text"]) for e in data["events"][: f["events_end"]] if e["to"] is not None and seat not in e["to"]}
    return {x for x in found if len(x) >= 4 and re.search("[a-z]", x) and x not in words and x not in known}


def leaks(data: dict[str, Any], frame: int, seat: int, text: str, words: set[str]) -> list[str]:
    """What seat ``seat``'s rendered view at ``frame`` shows that the seat may not know."""
    allowed, known = allowed_for(data, frame, seat, words)
    shown = norm(text)
    strange = sorted(tokens(shown) - allowed)
    hidden = sorted(
        x for x in secrets_for(data, frame, seat, words, known) if re.search(rf"(?<!\w){re.escape(x)}(?!\w)", shown)
    )
    return [f"unknown word {w!r}" for w in strange[:5]] + [f"hidden {h!r}" for h in hidden[:5]]


@pytest.mark.parametrize(
    ("game_id", "players", "options"), configs(), ids=lambda v: v if isinstance(v, str) else str(v or "")
)
def test_every_step_of_every_view_can_be_watched(browser, tmp_path, game_id, players, options):
    game = get_game(game_id)
    record = played(game, players, options)
    data = replay_data(game, record)
    began = time.monotonic()
    size = opened(browser, tmp_path, data)
    words = page_words(data)
    keys, expected = walk_keys(len(data["frames"]))
    result = [float(x) for x in record.result["scores"]]
    problems = []
    for view in [-1, *range(players)]:
        walked = browser.execute_script(WALK, view, keys)
        assert [frame for frame, *_ in walked["seen"]] == expected, f"view {view}: the keys moved the wrong frames"
        assert not walked["errors"], walked["errors"]
        for frame, text, shown, labels in walked["seen"]:
            problems += [f"view {view}, frame {frame}: {w!r} shown" for w in BAD_WORDS if w in shown]
            problems += [f"view {view}, frame {frame}: field {label!r} not in words" for label in labels]
            if view >= 0:
                problems += [f"seat {view}, frame {frame}: {x}" for x in leaks(data, frame, view, text, words)]
        # The last step with the real keyboard: End shows the result, a number per seat.
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
        spans = browser.find_elements(By.CSS_SELECTOR, "#scores .score")
        shown_scores = [float(s.text) for s in sorted(spans, key=lambda s: int(s.get_attribute("data-seat")))]
        assert shown_scores == result, f"view {view}: scores {shown_scores}, the record says {result}"
    severe = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    assert not problems, problems[:10]
    took = time.monotonic() - began
    print(f"{game_id} {players}p {options}: {size} bytes, {len(data['frames'])} frames, walked in {took:.2f} s")


def test_prey_cards_show_their_numbers(browser, tmp_path):
    """A Prey card ({suit, predator, prey}, no value) shows its suit and both numbers, in a
    seat's own hand: not three letters of its suit."""
    game = get_game("prey")
    record = played(game, 3, {})
    data = replay_data(game, record)
    opened(browser, tmp_path, data)
    hand = data["frames"][0]["obs"]["0"]["hand"]
    browser.execute_script(WALK, 0, ["Home"])
    chips = browser.execute_script(
        "var kv = document.querySelector('#observation .kv'); var keys = kv.querySelectorAll(':scope > .k');"
        "for (var i = 0; i < keys.length; i++) if (keys[i].textContent === 'hand')"
        "  return Array.from(keys[i].nextElementSibling.querySelectorAll('.card')).map(function (c) {"
        "    return c.textContent; });"
    )
    assert chips == [f"{c['suit']} · predator {c['predator']} · prey {c['prey']}" for c in hand]


def test_friendly_fishing_shows_the_scores_as_they_stand(browser, tmp_path):
    """Friendly Fishing's observation holds each seat's final score if the game ended now
    (collections[].final_score): the scores panel shows it at every step, not "no scores"."""
    game = get_game("friendlyfishing")
    data = replay_data(game, played(game, 3, {}))
    opened(browser, tmp_path, data)
    frames = len(data["frames"])
    expected = [[float(c["final_score"]) for c in frame["obs"]["-1"]["collections"]] for frame in data["frames"][:-1]]
    assert any(any(scores) for scores in expected)  # the scores move during the match
    for n in (0, frames // 2, frames - 2):
        browser.execute_script(WALK, -1, ["Home", *["ArrowRight"] * n])
        spans = browser.find_elements(By.CSS_SELECTOR, "#scores .score")
        assert [float(s.text) for s in sorted(spans, key=lambda s: int(s.get_attribute("data-seat")))] == expected[n]
