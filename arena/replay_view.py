"""The replay viewer's data and its self-contained HTML page.

A record holds the seed and every choice, not the observations: :func:`replay_data` replays it
through the engine (records replay deterministically) and captures, before every decision step
and at the end, each seat's observation and the spectator's, the decisions open at that step
with their legal options, the choices, their times, the failures and strikes, and the event log
with who may see each event. :func:`render_html` inlines that data, the stylesheet and the small
plain JavaScript viewer (``arena/viewer/``, package data) into one page that works offline from
``file://``: ``arena replay FILE --html OUT.html`` writes it, the web UI serves the same page.

The data holds everything (the spectator's view included): only hand it to someone who may see
the whole match (the record file itself, or a tournament that has ended).
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from arena.engine import SPECTATOR, Event, Game
from arena.record import MatchRecord, ReplayMismatch, replay

MAX_OPTIONS_SHOWN = 200
"""Legal options listed per decision (the count is always given)."""


def message_json(message: Message) -> dict[str, Any]:
    """A protobuf message as JSON with every field present (zeros included: a seat's score of 0
    is information), field names as in the .proto."""
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def event_json(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": event.seat, "kind": event.kind, "text": event.text}
    out["to"] = None if event.to is None else sorted(event.to)
    return out


def replay_data(game: Game, record: MatchRecord, *, title: str = "") -> dict[str, Any]:
    """Everything the viewer shows, frame by frame (one frame per decision step, then the end).

    Raises :class:`ReplayMismatch` if the record does not reproduce (its decisions or its
    result, as ``arena replay`` checks it); the result shown is the one replayed."""
    replayed = replay(game, record)  # checks the whole record first: a clear error, not a half replay
    config = game.config(int(record.config["players"]), record.config.get("options", {}))
    state = game.new_match(config, record.seed)
    players = config.players
    viewers = [SPECTATOR, *range(players)]
    failures: dict[int, list[dict[str, Any]]] = {}
    for f in record.failures:
        failures.setdefault(f.decision, []).append({"seat": f.seat, "verdict": f.verdict, "detail": f.detail})
    strikes: dict[int, list[dict[str, Any]]] = {}
    for s in record.strikes:
        strikes.setdefault(s.decision, []).append({"seat": s.seat, "late_ms": round(s.late_ms, 1)})

    def observations() -> dict[str, Any]:
        seen = {str(v): message_json(game.observe(state, v)) for v in viewers}
        # The spectator is no seat: its observation's seat is the field's default (0), which the
        # panel showed as "seat 0", as if it were seat 0's view.
        seen[str(SPECTATOR)].pop("seat", None)
        return seen

    frames: list[dict[str, Any]] = []
    entries = record.decisions
    i = 0
    while i < len(entries):
        step = entries[i].step
        pending = {d.seat: d for d in state.pending}
        decisions = []
        choices = {}
        while i < len(entries) and entries[i].step == step:
            entry = entries[i]
            decision = pending[entry.seat]
            chosen = decision.find(entry.choice)
            decisions.append(
                {
                    "index": i,
                    "seat": entry.seat,
                    "kind": entry.kind,
                    "options": [{"id": o.id, "label": o.label} for o in decision.options[:MAX_OPTIONS_SHOWN]],
                    "option_count": len(decision.options),
                    "choice": entry.choice,
                    "choice_label": chosen.label if chosen is not None else "",
                    "ms": round(entry.ms, 3),
                    "by": entry.by,
                    "failures": failures.pop(i, []),
                    "strikes": strikes.pop(i, []),
                }
            )
            choices[entry.seat] = entry.choice
            i += 1
        frames.append({"step": step, "events_end": len(state.log), "obs": observations(), "decisions": decisions})
        game.apply(state, choices)
    result = game.result(state)
    if result is None:  # replay already checked this
        raise ReplayMismatch("the record ends before the match does")
    leftover = [f for index in sorted(failures) for f in failures[index]]  # start-up (-1) and beyond
    frames.append(
        {
            "step": len(frames),
            "events_end": len(state.log),
            "obs": observations(),
            "decisions": [],
            "end": True,
            "failures": leftover,
        }
    )
    if frames and failures.get(-1):
        frames[0]["failures"] = failures[-1]
    return {
        "title": title or f"{game.meta.name}: match {record.match_id}",
        "game": {"id": game.meta.id, "name": game.meta.name, "version": game.meta.version},
        "match_id": record.match_id,
        "seed": record.seed,
        "config": record.config,
        "seats": record.seats,
        "players": players,
        # The engine's result (equal to the record's in scores and ranks: replay checked them),
        # never text the record alone claims.
        "result": {**replayed.to_json(), "forfeited": record.forfeited},
        "failures": [f.to_json() for f in record.failures],
        "events": [event_json(e) for e in state.log.events],
        "frames": frames,
        "spectator": True,
    }


def public_data(
    game: Game,
    match_id: str,
    seats: list[str],
    summary: dict[str, Any],
    events: list[dict[str, Any]],
    *,
    title: str = "",
) -> dict[str, Any]:
    """What a match of a tournament still running may show (the API's rule): its summary and
    its public events, nothing that determines hidden information (no seed, no observations,
    no choices: the same deal is still being played in the group's other seat rotations)."""
    return {
        "title": title or f"{game.meta.name}: match {match_id}",
        "game": {"id": game.meta.id, "name": game.meta.name, "version": game.meta.version},
        "match_id": match_id,
        "seats": [{"bot": bot} for bot in seats],
        "players": len(seats),
        "summary": summary,
        "events": events,
        "frames": [],
        "spectator": False,
    }


GENERATOR = '<meta name="generator" content="Arena replay viewer">'
"""In the head of every page :func:`render_html` writes (how ``arena replay --html`` knows a
file it may overwrite)."""


def is_export(path: Path) -> bool:
    """Whether the file looks like a replay page Arena wrote (its generator tag, or an earlier
    version's viewer element, near its start)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return False
    return GENERATOR.encode() in head or b'<main id="replay">' in head


def asset(name: str) -> str:
    return (resources.files("arena") / "viewer" / name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no "</", no "<!--")."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")


def render_html(data: dict[str, Any], *, header: str = "") -> str:
    """One self-contained page: the viewer's CSS and JavaScript inlined, the data as JSON.

    ``header`` is trusted HTML put above the viewer (the web UI's navigation)."""
    parts = {
        "title": html.escape(str(data.get("title", "replay"))),
        "header": header,
        "css": asset("viewer.css"),
        "data": script_json(data),
        "js": asset("viewer.js"),
    }
    # One pass: a value is never scanned for another placeholder.
    return re.sub(r"\{\{(\w+)\}\}", lambda m: parts[m.group(1)], asset("viewer.html"))
