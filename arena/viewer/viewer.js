/* Arena replay viewer: plain JavaScript, no libraries. Reads the JSON in #replay-data (see
   arena/replay_view.py) and draws one frame (a decision step, or the end) at a time. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var root = document.getElementById("replay");
  var frame = 0, view = data.spectator ? -1 : -2, timer = null;

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function seatName(s) {
    if (s < 0) return "table";
    var b = data.seats[s] ? data.seats[s].bot : "?";
    return "seat " + s + " (" + b + ")";
  }
  function fmt(x) {
    if (typeof x === "boolean") return x ? "yes" : "no";
    return typeof x === "number" ? String(Math.round(x * 1000) / 1000) : String(x);
  }

  /* ---- cards and the generic renderer ---------------------------------------------------- */
  var CARDY = /hand|card|deck|pile|played|stack|discard|face_up|trick|meld|risk/i;
  var PLAIN = /size|count|score|taken|left|total|number|known/i;  /* numbers about cards, not cards */
  function colourClass(c) { return "c-" + String(c).toLowerCase(); }
  function colourName(c) { return String(c).toLowerCase().replace(/_/g, " "); }
  /* A coloured card says its colour in words too ("4 of red"), for a screen reader and a
     tooltip: red and green side by side differed by their colour alone. */
  function card(v, colour) {
    var c = el("span", { cls: "card" + (colour ? " " + colourClass(colour) : "") });
    c.textContent = v === undefined || v === null ? "?" : String(v);
    if (colour) named(c, String(v) === String(colour) ? colourName(colour) : c.textContent + " of " + colourName(colour));
    return c;
  }
  function named(c, text) { c.title = text; c.setAttribute("aria-label", text); return c; }
  function isCardObject(o) {
    return o && typeof o === "object" && !Array.isArray(o) && ("colour" in o || "color" in o || "suit" in o) &&
      Object.keys(o).length <= 4;
  }
  function cardObject(o) {
    var colour = o.colour || o.color || o.suit;
    /* A card known by other fields than a value (a Prey card: its suit, predator and prey
       numbers) shows them all, in its colour: three letters of its suit would hide them. */
    if (!("value" in o || "rank" in o || "number" in o) && Object.keys(o).length > 1) {
      var chip = flatChip(o);
      chip.className += " " + colourClass(colour);
      return chip;
    }
    var v = "value" in o ? o.value : ("rank" in o ? o.rank : ("number" in o ? o.number : ""));
    /* Its words: "4 of red" and any other field ("4 of red, points 2"), not its JSON. */
    var rest = Object.keys(o).filter(function (k) {
      return ["colour", "color", "suit", "value", "rank", "number"].indexOf(k) < 0 && o[k] !== null && o[k] !== "" && o[k] !== false;
    }).map(function (k) { return ", " + k.replace(/_/g, " ") + " " + fmt(o[k]); }).join("");
    var c = card(v === "" ? String(colour).slice(0, 3) : v, colour);
    return named(c, (!colour ? c.textContent : v === "" ? colourName(colour) : c.title) + rest);
  }
  /* A small object of plain values (a card as {toy, back}, a wall slot as {id, filled, card,
     ...}): one chip, its words first, then each number or set flag with its name (unset flags
     and empty words left out); the whole object in its tooltip. */
  function isFlatObject(o) {
    if (!o || typeof o !== "object" || Array.isArray(o)) return false;
    var ks = Object.keys(o);
    return ks.length > 0 && ks.length <= 6 && ks.every(function (k) { return o[k] === null || typeof o[k] !== "object"; });
  }
  function flatChip(o) {
    var ks = Object.keys(o).filter(function (k) { return o[k] !== null && o[k] !== false && o[k] !== ""; });
    var words = ks.filter(function (k) { return typeof o[k] === "string"; })
      .map(function (k) { return o[k].toLowerCase().replace(/_/g, " "); })
      .concat(ks.filter(function (k) { return typeof o[k] !== "string"; })
        .map(function (k) { return k.replace(/_/g, " ") + " " + fmt(o[k]); }));
    var c = el("span", { cls: "card chip", text: words.join(" · ") || "-" });
    c.title = JSON.stringify(o);
    return c;
  }
  var SEATLIKE = /seat|player|table|board|scores|claimed|hands/i;
  function counts(o) {  /* {counts: [..]}: card multiset by rank 1..n */
    var span = el("span");
    var any = false;
    o.counts.forEach(function (n, i) { for (var k = 0; k < n; k++) { span.appendChild(card(i + 1)); any = true; } });
    if (!any) span.appendChild(el("span", { cls: "muted", text: "none" }));
    return span;
  }
  function generic(value, key, depth) {
    depth = depth || 0;
    if (value === null || value === undefined) return el("span", { cls: "muted", text: "-" });
    if (Array.isArray(value)) {
      if (!value.length) return el("span", { cls: "muted", text: "none" });
      if (value.every(isCardObject)) return el("span", null, value.map(cardObject));
      if (!SEATLIKE.test(key || "") && value.every(isFlatObject)) return el("span", null, value.map(flatChip));
      if (value.every(function (x) { return typeof x !== "object"; })) {
        if (CARDY.test(key || "") && !PLAIN.test(key || "")) return el("span", null, value.map(function (x) { return card(x); }));
        return el("span", { text: value.map(fmt).join(", ") });
      }
      var list = el("div");
      value.forEach(function (item, i) {
        var label = SEATLIKE.test(key || "") ? seatName(i) : String(key).replace(/_/g, " ") + " " + i;  /* as a field is named */
        list.appendChild(el("div", { cls: "sub" }, [el("div", { cls: "muted", text: label }), generic(item, key, depth + 1)]));
      });
      return list;
    }
    if (typeof value === "object") {
      if (isCardObject(value)) return cardObject(value);
      if (Array.isArray(value.counts) && Object.keys(value).length === 1) return counts(value);
      var kv = el("div", { cls: "kv" });
      Object.keys(value).forEach(function (k) {
        kv.appendChild(el("div", { cls: "k", text: k.replace(/_/g, " ") }));
        kv.appendChild(el("div", { cls: /score/i.test(k) ? "score" : "" }, [generic(value[k], k, depth + 1)]));
      });
      return kv;
    }
    return el("span", { text: fmt(value) });
  }

  /* ---- game tables -------------------------------------------------------------------------- */
  var TABLES = {};
  TABLES.skyfive = function (o) {
    var box = el("div");
    box.appendChild(el("div", null, [
      el("span", { cls: "pile", text: "draw pile: " + o.deck_size }), el("span", { cls: "pile", text: "removed: " + o.removed_count }),
      el("span", { cls: "pile", text: "phase: " + o.phase }), o.buster >= 0 ? el("span", { cls: "verdict", text: "buster: " + seatName(o.buster) }) : null]));
    (o.table || []).forEach(function (t, s) {
      var row = el("div", { cls: "seatrow" + (s === o.turn_seat ? " active" : "") });
      row.appendChild(el("div", { cls: "who" }, [el("b", { text: seatName(s) }), el("div", null, ["score ", el("span", { cls: "score", text: fmt(t.score) })])]));
      var up = el("div", null, (t.face_up || []).map(cardObject));
      if (!(t.face_up || []).length) up.appendChild(el("span", { cls: "muted", text: "no face-up cards" }));
      row.appendChild(up);
      var banked = el("div", { cls: "pile" }, ["banked ", el("b", { text: String(t.banked_count) })]);
      for (var k = 0; k < Math.min(t.banked_count, 6); k++) banked.appendChild(el("span", { cls: "card back", text: " " }));
      row.appendChild(banked);
      box.appendChild(row);
    });
    if (o.deck && o.deck.length) box.appendChild(el("div", null, [el("span", { cls: "muted", text: "next cards (spectator): " }), el("span", null, o.deck.slice(0, 8).map(cardObject))]));
    return box;
  };
  TABLES.rainbow = function (o) {
    var box = el("div");
    var mid = el("div", null, [el("span", { cls: "muted", text: "point piles: " })]);
    (o.middle || []).forEach(function (p, i) {
      var taken = o.middle_taken_by && o.middle_taken_by[i] >= 0 ? " taken by " + seatName(o.middle_taken_by[i]) : "";
      mid.appendChild(el("span", { cls: "pile" }, [card(p.rank), " x" + p.count + " = " + p.total + taken]));
    });
    box.appendChild(mid);
    var trick = el("div", null, [el("span", { cls: "muted", text: "trick " + o.trick + ": " })]);
    (o.played || []).forEach(function (p) {
      var c = p.combo || {};
      var cards = [], n = c.length || 1;
      for (var k = 0; k < n; k++) cards.push(card(c.type === "RUN" ? c.rank + k : c.rank));
      trick.appendChild(el("span", { cls: "pile" }, [seatName(p.seat) + ": " + String(c.type || "").toLowerCase() + " "].concat(cards)));
    });
    box.appendChild(trick);
    for (var s = 0; s < o.players; s++) {
      var hand = o.hands && o.hands[s] ? o.hands[s] : (view === s && o.hand ? o.hand : null);
      var row = el("div", { cls: "seatrow" + (s === o.turn_seat ? " active" : "") });
      row.appendChild(el("div", { cls: "who" }, [el("b", { text: seatName(s) }), el("div", null, ["score ", el("span", { cls: "score", text: fmt((o.scores || [])[s]) })]), (o.out || [])[s] ? el("span", { cls: "badge", text: "out" }) : null]));
      var cards = el("div");
      if (hand) cards.appendChild(counts(hand));
      else for (var k = 0; k < (o.hand_sizes || [])[s]; k++) cards.appendChild(el("span", { cls: "card back", text: " " }));
      row.appendChild(cards);
      if (o.claimed && o.claimed[s]) row.appendChild(el("div", { cls: "pile" }, ["claimed ", counts(o.claimed[s])]));
      box.appendChild(row);
    }
    return box;
  };
  var LIMBS = { RIGHT_ARM: "right arm", LEFT_ARM: "left arm", RIGHT_LEG: "right leg", LEFT_LEG: "left leg" };
  TABLES.getbit = function (o) {
    var box = el("div");
    box.appendChild(el("div", null, ["round " + o.round + (o.outcome && o.outcome !== "OUTCOME_UNSPECIFIED" ? " - " + o.outcome.toLowerCase().replace(/_/g, " ") : "")]));
    var lane = el("div", { cls: "lane" });
    var figs = o.figures || [];
    function figure(f) {
      var who = f.robot ? "robot" : seatName(f.owner);
      var d = el("div", { cls: "fig" + (f.devoured ? " dead" : "") });
      d.style.borderColor = f.colour;
      d.appendChild(el("div", null, [card(f.colour, f.colour), " ", el("b", { text: who })]));
      d.appendChild(el("div", { cls: "muted", text: (f.limbs || []).map(function (l) { return LIMBS[l] || l; }).join(", ") || "no limbs" }));
      var h = el("div", null, ["hand "]);
      if (f.hand_known) (f.hand || []).forEach(function (c) { h.appendChild(card(c, f.colour)); });
      else for (var k = 0; k < f.hand_count; k++) h.appendChild(el("span", { cls: "card back", text: " " }));
      d.appendChild(h);
      if ((f.played || []).length) d.appendChild(el("div", null, ["played "].concat(f.played.map(function (c) { return card(c); }))));
      if (f.chosen) d.appendChild(el("div", null, ["chosen ", card(f.chosen, f.colour)]));
      if (f.devoured) d.appendChild(el("span", { cls: "verdict", text: "devoured" }));
      if (o.winner_figure === f.id && o.outcome && o.outcome !== "OUTCOME_UNSPECIFIED") d.appendChild(el("span", { cls: "badge complete", text: "escaped" }));
      return d;
    }
    (o.line || []).forEach(function (id) { if (figs[id]) lane.appendChild(figure(figs[id])); });
    lane.appendChild(el("div", { cls: "shark", title: "the shark", text: "shark" }));
    box.appendChild(el("div", { cls: "muted", text: "the line, front to back:" }));
    box.appendChild(lane);
    var gone = figs.filter(function (f) { return (o.line || []).indexOf(f.id) < 0; });
    if (gone.length) box.appendChild(el("div", { cls: "lane" }, gone.map(figure)));
    if (o.last_reveal && o.last_reveal.plays && o.last_reveal.plays.length) {
      box.appendChild(el("div", null, ["last reveal: "].concat(o.last_reveal.plays.map(function (p) {
        var f = figs[p.figure] || {}; return card(p.card, f.colour);
      }))));
    }
    return box;
  };

  /* A score per seat: a list of a number per seat (scores, totals, goals, points), or a field
     every seat's view has (table, seats or players: score, else points, total, score_now, fate,
     as the games name it). */
  var SCORE_LISTS = ["scores", "totals", "goals", "points"];
  var SCORE_KEYS = ["score", "points", "total", "score_now", "fate"];
  function perSeat(list) {
    return Array.isArray(list) && list.length === data.players && list.every(function (x) { return typeof x === "number"; });
  }
  function seatScores(rows, keys) {
    if (!Array.isArray(rows) || !rows.length || !rows.every(function (r) { return r && typeof r === "object"; })) return null;
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (rows.every(function (r) { return typeof r[k] === "number"; })) return rows.map(function (r) { return r[k]; });
    }
    return null;
  }
  function scoresOf(o, f) {
    if (f.end && data.result && data.result.scores) return data.result.scores;
    if (!o) return null;
    for (var i = 0; i < SCORE_LISTS.length; i++) if (perSeat(o[SCORE_LISTS[i]])) return o[SCORE_LISTS[i]];
    var found = seatScores(o.table, SCORE_KEYS) || seatScores(o.seats, SCORE_KEYS) || seatScores(o.players, SCORE_KEYS);
    /* Else any other list of one entry per seat, each with a score (Pet Quartet's collections,
       Zooloretto Dice's zoos) or the final score if the game ended now (Friendly Fishing's
       collections). */
    var keys = Object.keys(o);
    for (var k = 0; !found && k < keys.length; k++)
      if (Array.isArray(o[keys[k]]) && o[keys[k]].length === data.players) found = seatScores(o[keys[k]], ["score", "final_score"]);
    return found;
  }

  /* ---- the page ------------------------------------------------------------------------------ */
  var frames = data.frames || [];
  var header = el("div", { cls: "panel" });
  header.appendChild(el("h1", { text: data.title }));
  header.appendChild(el("div", null, [data.game.name + " (" + data.game.id + " " + data.game.version + ") - " +
    data.players + " seats: " + data.seats.map(function (s, i) { return i + ": " + s.bot; }).join(", ")]));
  root.appendChild(header);

  if (!data.spectator) {
    /* A tournament still running: public events only (the API's rule). */
    var summary = data.summary || {};
    root.appendChild(el("div", { cls: "panel", id: "public-note" }, [
      "This match's tournament is still running: at most its public events are shown (none until every ",
      "seat rotation of its deal has been played). The full replay (every seat's view) opens once the tournament has ended."]));
    if (summary.seats) {
      var t = el("table", { id: "summary" }, [el("tr", null, [el("th", { text: "seat" }), el("th", { text: "bot" }), el("th", { cls: "num", text: "score" }), el("th", { cls: "num", text: "rank" })])]);
      summary.seats.forEach(function (s) {
        t.appendChild(el("tr", null, [el("td", { text: String(s.seat) }), el("td", { text: s.bot }), el("td", { cls: "num score", text: fmt(s.score) }), el("td", { cls: "num", text: String(s.rank) })]));
      });
      root.appendChild(el("div", { cls: "panel" }, [el("h2", { text: "result" }), t]));
    }
    var evs = el("div", { cls: "events", id: "events" });
    data.events.forEach(function (e) { evs.appendChild(el("div", { cls: "ev" }, [el("span", { cls: "who", text: seatName(e.seat) }), e.text])); });
    root.appendChild(el("div", { cls: "panel" }, [el("h2", { text: "public events" }), evs]));
    return;
  }

  var controls = el("div", { cls: "panel controls" });
  var prev = el("button", { id: "prev", title: "previous (left arrow)", text: "◀ prev" });
  var play = el("button", { id: "play", title: "play / pause (space)", text: "▶ play" });
  var next = el("button", { id: "next", title: "next (right arrow)", text: "next ▶" });
  var slider = el("input", { id: "slider", type: "range", min: "0", max: String(frames.length - 1), value: "0", "aria-label": "step" });
  /* Read out as it changes (stepping, playing), politely: after what is being said. */
  var label = el("span", { id: "step-label", "aria-live": "polite" });
  var viewSel = el("select", { id: "view", title: "whose view" });
  viewSel.appendChild(el("option", { value: "-1", text: "spectator (everything)" }));
  for (var s = 0; s < data.players; s++) viewSel.appendChild(el("option", { value: String(s), text: "view of " + seatName(s) }));
  [prev, play, next, slider, label, viewSel].forEach(function (c) { controls.appendChild(c); });
  root.appendChild(controls);

  var cols = el("div", { cls: "cols" });
  var left = el("div"), right = el("div");
  cols.appendChild(left); cols.appendChild(right);
  root.appendChild(cols);
  var scoresBox = el("div", { cls: "panel", id: "scores" });
  var tableBox = el("div", { cls: "panel", id: "table" });
  var obsBox = el("div", { cls: "panel", id: "observation" });
  var decBox = el("div", { cls: "panel", id: "decisions" });
  var evBox = el("div", { cls: "panel" });
  var evList = el("div", { cls: "events", id: "events" });
  evBox.appendChild(el("h2", { text: "events" })); evBox.appendChild(evList);
  [scoresBox, tableBox, obsBox].forEach(function (b) { left.appendChild(b); });
  [decBox, evBox].forEach(function (b) { right.appendChild(b); });

  function visible(e) { return e.to === null || view === -1 || e.to.indexOf(view) >= 0; }
  function timing(d) {
    return el("span", { cls: "muted", text: " in " + fmt(d.ms) + " ms" + (d.by !== "bot" ? ", by the " + d.by : "") });
  }
  /* A decision in the spectator's view or in the view of the seat that made it: its legal
     options and its choice. */
  function drawDecision(d) {
    var box = el("div", { cls: "decision" + (d.failures.length ? " failed" : ""), "data-seat": String(d.seat) });
    box.appendChild(el("div", null, [el("b", { text: seatName(d.seat) }), " decides " + d.kind + " - chose ",
      el("b", { cls: "choice", text: d.choice }), d.choice_label ? " (" + d.choice_label + ")" : "", timing(d)]));
    d.failures.forEach(function (x) { box.appendChild(el("div", null, [el("span", { cls: "verdict", text: x.verdict }), x.detail])); });
    d.strikes.forEach(function (x) { box.appendChild(el("div", null, [el("span", { cls: "strike", text: "late " + x.late_ms + " ms" })])); });
    var opts = el("div", { cls: "options" }, [el("span", { cls: "muted", text: d.option_count + " legal option" + (d.option_count === 1 ? "" : "s") + ": " })]);
    d.options.forEach(function (op) { opts.appendChild(el("span", { cls: "opt" + (op.id === d.choice ? " chosen" : ""), title: op.label, text: op.id })); });
    if (d.option_count > d.options.length) opts.appendChild(el("span", { cls: "muted", text: " ..." }));
    box.appendChild(opts);
    decBox.appendChild(box);
  }
  /* Another seat's decision in a seat's view: only what that seat may know. That the other seat
     decided (the kind), never its options (a hidden hand) nor its choice as such; of a decision
     taken alone, what the seat then saw it do (the step's events by that seat visible to the
     view: "plays red 5", not "discards a card" plus the card); of a sealed simultaneous one,
     nothing until it is revealed (the reveal is in the next step's events). */
  function drawOthersDecision(d, f, sealed) {
    var box = el("div", { cls: "decision other" + (d.failures.length ? " failed" : ""), "data-seat": String(d.seat) });
    var line = [el("b", { text: seatName(d.seat) }), " decides " + d.kind];
    var seen = [];
    if (!sealed && frame + 1 < frames.length) {
      for (var i = f.events_end; i < frames[frame + 1].events_end; i++) {
        var e = data.events[i];
        if (e.seat === d.seat && visible(e)) seen.push(e.text);
      }
    }
    if (seen.length) line.push(" - ", el("span", { cls: "seen", text: seen.join("; ") }));
    else line.push(el("span", { cls: "muted hidden-choice", text: sealed ? " - a sealed choice, not shown in this view" : " - its choice is not shown in this view" }));
    line.push(timing(d));
    box.appendChild(el("div", null, line));
    d.failures.forEach(function (x) { box.appendChild(el("div", null, [el("span", { cls: "verdict", text: x.verdict })])); });
    d.strikes.forEach(function (x) { box.appendChild(el("div", null, [el("span", { cls: "strike", text: "late " + x.late_ms + " ms" })])); });
    decBox.appendChild(box);
  }

  function draw() {
    var f = frames[frame];
    var o = f.obs[String(view)];
    slider.value = String(frame);
    label.textContent = (f.end ? "end" : "step " + (frame + 1)) + " of " + (frames.length - 1) + " decision steps";
    keepInAddress();
    label.setAttribute("data-frame", String(frame));

    scoresBox.innerHTML = "";
    var sc = scoresOf(o, f);
    scoresBox.appendChild(el("h2", { text: f.end ? "result" : "scores" }));
    if (sc) {
      var row = el("div");
      sc.forEach(function (x, i) {
        row.appendChild(el("span", { cls: "pile" }, [seatName(i) + ": ", el("span", { cls: "score", "data-seat": String(i), text: fmt(x) }),
          f.end && data.result.ranks ? " (rank " + data.result.ranks[i] + ")" : ""]));
      });
      scoresBox.appendChild(row);
      if (f.end && data.result.summary) scoresBox.appendChild(el("div", { cls: "muted", text: data.result.summary }));
    } else scoresBox.appendChild(el("span", { cls: "muted", text: "no scores in this game's observation" }));

    tableBox.innerHTML = "";
    var render = TABLES[data.game.id];
    tableBox.style.display = render ? "" : "none";
    if (render) { tableBox.appendChild(el("h2", { text: "table" })); tableBox.appendChild(render(o)); }
    obsBox.innerHTML = "";
    obsBox.appendChild(el("h2", { text: view === -1 ? "spectator's observation" : "observation of " + seatName(view) }));
    obsBox.appendChild(generic(o, "", 0));

    decBox.innerHTML = "";
    decBox.appendChild(el("h2", { text: f.end ? "match over" : "decision" + (f.decisions.length > 1 ? "s (simultaneous)" : "") }));
    (f.failures || []).forEach(function (x) {
      var shown = view === -1 || view === x.seat;  /* another seat's failure: its verdict, not its text */
      decBox.appendChild(el("div", { cls: "decision failed" }, [el("span", { cls: "verdict", text: x.verdict }),
        seatName(x.seat) + (shown ? ": " + x.detail : "")]));
    });
    var sealed = f.decisions.length > 1;
    f.decisions.forEach(function (d) {
      if (view === -1 || view === d.seat) drawDecision(d);
      else drawOthersDecision(d, f, sealed);
    });

    evList.innerHTML = "";
    var start = frame > 0 ? frames[frame - 1].events_end : 0, last = null;
    for (var i = 0; i < f.events_end; i++) {
      var e = data.events[i];
      if (!visible(e)) continue;
      last = el("div", { cls: "ev" + (i >= start ? " new" : "") + (e.to ? " private" : "") },
        [el("span", { cls: "who", text: seatName(e.seat) }), e.text, e.to ? el("span", { cls: "muted", text: " (to " + e.to.join(", ") + ")" }) : null]);
      evList.appendChild(last);
    }
    if (last) evList.scrollTop = evList.scrollHeight;
  }
  function go(n) { frame = Math.max(0, Math.min(frames.length - 1, n)); draw(); }
  /* The step and the view in the address (#step=40&view=2): a reload keeps them, and a link
     names a position. Replaced, not pushed: stepping does not fill the browser's history. */
  function keepInAddress() {
    var hash = "#step=" + (frame + 1) + (view >= 0 ? "&view=" + view : "");
    if (location.hash === hash) return;
    try { history.replaceState(null, "", hash); } catch (e) { /* a page that may not change its address */ }
  }
  function fromAddress() {
    var m = /^#step=(\d+)(?:&view=(\d+))?$/.exec(location.hash);
    if (!m) return;
    frame = Math.max(0, Math.min(frames.length - 1, parseInt(m[1], 10) - 1));
    if (m[2] !== undefined && parseInt(m[2], 10) < data.players) {
      view = parseInt(m[2], 10);
      viewSel.value = String(view);
    }
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; play.textContent = "▶ play"; } }
  function toggle() {
    if (timer) { stop(); return; }
    if (frame === frames.length - 1) go(0);
    play.textContent = "❚❚ pause";
    timer = setInterval(function () { if (frame >= frames.length - 1) stop(); else go(frame + 1); }, 600);
  }
  prev.onclick = function () { stop(); go(frame - 1); };
  next.onclick = function () { stop(); go(frame + 1); };
  play.onclick = toggle;
  slider.oninput = function () { stop(); go(parseInt(slider.value, 10)); };
  viewSel.onchange = function () { view = parseInt(viewSel.value, 10); draw(); };
  document.addEventListener("keydown", function (ev) {
    var tag = ev.target && ev.target.tagName;
    /* The view menu keeps the focus after a change, so up/down go on through the views from
       the keyboard (it gave the focus away, and a second arrow did nothing); the page's other
       keys (left/right, Home/End, space) still step and play on it, as elsewhere, also right
       after a view is chosen with the mouse (Home/End chose the first or last view). */
    var pageKey = ev.key === "ArrowRight" || ev.key === "ArrowLeft" || ev.key === "Home" || ev.key === "End" || ev.key === " ";
    if (ev.target === viewSel && pageKey) { /* the page's, below */ }
    else if (tag === "SELECT" || tag === "INPUT") return;  /* the slider and the view menu use their own keys */
    if (tag === "BUTTON" && (ev.key === " " || ev.key === "Enter")) return;  /* a click already */
    if (ev.key === "ArrowRight") { stop(); go(frame + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { stop(); go(frame - 1); ev.preventDefault(); }
    else if (ev.key === " ") { toggle(); ev.preventDefault(); }
    else if (ev.key === "Home") { stop(); go(0); ev.preventDefault(); }
    else if (ev.key === "End") { stop(); go(frames.length - 1); ev.preventDefault(); }
  });
  fromAddress();
  draw();
})();
