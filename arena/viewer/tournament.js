/* A tournament's page: polls /api/tournaments/ID (the API's WatchTournament view) every second
   while it runs and redraws progress, leaderboard and seats; the matches are paged and
   filtered by bot through /api/tournaments/ID/matches. Plain JavaScript, no libraries. */
(function () {
  "use strict";
  var offset = 0, limit = 25, bot = "", knownTotal = 0, shown = INITIAL, matchesRetry = null;
  var FETCH_TIMEOUT_MS = 10000, RETRY_MS = 3000;
  function $(id) { return document.getElementById(id); }
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }
  // An interval's end, or null where the results set no bound (the API sends -Infinity /
  // Infinity there): a bot that never lost has no upper end; one with no game against another
  // bot (a one-player game) has neither, and then no rating either.
  function end(v) { var n = Number(v); return v === null || v === undefined || !isFinite(n) ? null : n; }
  function intervalText(r) {
    var lo = end(r.ci_low), hi = end(r.ci_high);
    if (lo === null && hi === null) { return "no bound"; }
    return (lo === null ? "-\u221e" : lo) + " .. " + (hi === null ? "\u221e" : hi);
  }
  function bar(r, low, span) {
    var lo = end(r.ci_low), hi = end(r.ci_high);
    if (lo === null && hi === null) { return ""; }
    function x(v) { return Math.round(10000 * (v - low) / span) / 100; }
    var left = lo === null ? 0 : x(lo), right = hi === null ? 100 : x(hi);
    return '<div class="bar" title="' + esc(intervalText(r)) + '"><div class="range" style="left:' + left +
      "%;width:" + (Math.round(100 * (right - left)) / 100) + '%"></div><div class="point" style="left:' + x(r.rating) + '%"></div></div>';
  }
  // The ranks the intervals allow (referee: LeaderboardRow.rank_best/rank_worst): "2" when
  // settled, "1–3" when not; the position alone from a referee that does not send them.
  function rankText(r) {
    if (!r.rank_best || !r.rank_worst) { return String(r.rank); }
    return r.rank_best === r.rank_worst ? String(r.rank_best) : r.rank_best + "\u2013" + r.rank_worst;
  }
  function drawBoard(board, final) {
    var rows = board.rows || [];
    if (!rows.length) { $("leaderboard").innerHTML = '<p class="muted">no matches yet</p>'; return; }
    var values = [];
    rows.forEach(function (r) { [end(r.ci_low), end(r.ci_high), r.rating].forEach(function (v) { if (v !== null) { values.push(v); } }); });
    var low = Math.min.apply(null, values), high = Math.max.apply(null, values);
    var span = (high - low) || 1;
    var h = '<table class="leaderboard"><tr><th>#</th><th>bot</th><th class="num">rating</th><th>interval</th><th class="num">games</th><th class="num">mean rank</th><th>failures</th></tr>';
    rows.forEach(function (r) {
      var f = Object.keys(r.failures || {}).sort().map(function (k) { return esc(k) + ": " + r.failures[k]; }).join(", ");
      h += '<tr data-bot="' + esc(r.bot) + '"><td>' + rankText(r) + "</td><td>" + esc(r.bot) + '</td><td class="num">' +
        (end(r.ci_low) === null && end(r.ci_high) === null ? "-" : r.rating) +
        "</td><td>" + bar(r, low, span) + '<span class="muted">' + intervalText(r) + '</span></td><td class="num">' +
        r.games + '</td><td class="num">' + (r.games ? Math.round(r.mean_rank * 1000) / 1000 : "-") + "</td><td>" +
        (final ? (f || '<span class="muted">none</span>') : '<span class="muted">shown when the tournament ends</span>') + "</td></tr>";
    });
    $("leaderboard").innerHTML = h + "</table>" + (board.warning ? '<p class="muted">' + esc(board.warning) + "</p>" : "");
  }
  function drawSeats(seats) {
    if (!seats.length) { $("seats").innerHTML = '<p class="muted">no matches yet</p>'; return; }
    var h = '<table><tr><th>seat</th><th class="num">win rate</th><th class="num">mean rank</th></tr>';
    seats.forEach(function (s) {
      h += "<tr><td>" + s.seat + '</td><td class="num">' + (s.win_rate === null ? "-" : s.win_rate) + '</td><td class="num">' +
        (s.mean_rank === null ? "-" : s.mean_rank) + "</td></tr>";
    });
    $("seats").innerHTML = h + "</table>";
  }
  function draw(state) {
    var t = state.tournament;
    shown = state;
    $("status").innerHTML = '<span class="badge ' + esc(t.status) + '" id="status-badge">' + esc(t.status) + "</span> " +
      esc(t.game) + ", " + esc(t.format) + ", " + t.players + " players - <span id=\"done\">" + t.done + "</span> / " + t.total + " matches";
    $("progress").style.width = (t.total ? 100 * t.done / t.total : 0) + "%";
    drawBoard(state.leaderboard, state.final);
    drawSeats(state.seats || []);
  }
  function loadMatches() {
    var url = "/api/tournaments/" + encodeURIComponent(TOURNAMENT) + "/matches?offset=" + offset + "&limit=" + limit +
      (bot ? "&bot=" + encodeURIComponent(bot) : "");
    clearTimeout(matchesRetry);
    getJSON(url).then(function (page) {
      unreadable("matches", false);
      var h = '<table id="match-table"><tr><th>match</th><th>seats (bot: score, rank)</th><th class="num">decisions</th><th class="num">failures</th></tr>';
      (page.matches || []).forEach(function (m) {
        h += '<tr class="match"><td><a href="/matches/' + encodeURIComponent(m.id) + '">' + esc(m.id.split(":").pop()) + "</a></td><td>" +
          m.seats.map(function (s) { return esc(s.bot) + ": " + s.score + " (" + s.rank + ")" + (s.forfeited ? ' <span class="verdict">forfeited</span>' : ""); }).join(", ") +
          '</td><td class="num">' + m.decisions + '</td><td class="num">' + (m.failures ? '<span class="verdict">' + m.failures + "</span>" : 0) + "</td></tr>";
      });
      $("matches").innerHTML = h + "</table>";
      var total = knownTotal = page.total || 0;
      $("page-label").textContent = total ? (offset + 1) + "-" + Math.min(offset + limit, total) + " of " + total : none();
      $("page-first").disabled = $("page-prev").disabled = offset === 0;
      $("page-next").disabled = $("page-last").disabled = offset + limit >= total;
    }).catch(function (e) {
      // A 503 (the store down: a text body), a timeout or no answer: said and retried, also on a
      // finished tournament's page, which has no status poll to bring the list back.
      if (e && e.message === "gone") { return gone(); }
      unreadable("matches", true);
      clearTimeout(matchesRetry);
      matchesRetry = setTimeout(loadMatches, RETRY_MS);
    });
  }
  // A finished tournament whose records have expired read as one that played none.
  function none() {
    var t = shown.tournament;
    if (bot || offset || !t.done || !shown.final) return "no matches";
    return "no matches stored: this tournament played " + t.done + ", and a finished tournament's records are " +
      "kept for a limited time (the operator's ARENA_RETENTION_DAYS); its leaderboard is kept for good";
  }
  // Shown while the page cannot be brought up to date: it said "running" over stale figures
  // for as long as the service or its store was down, and forever once the tournament was gone.
  function notice(text) {
    $("stale").textContent = text || "";
    $("stale").hidden = !text;
  }
  // What the page last failed to read ("status", "matches"): the notice stays while either fails.
  var failing = {}, isGone = false;
  function unreadable(part, failed) {
    if (failed) { failing[part] = true; } else { delete failing[part]; }
    if (isGone) { return; }
    notice(Object.keys(failing).length ? "Cannot reach the service: the figures below may be out of date; retrying." : "");
  }
  function gone() {
    isGone = true;
    notice("This tournament is no longer stored: the figures below are the last ones read.");
  }
  // A request the service does not answer is given up after a while: with its store hung, the
  // service answered 503 only after about 30 s, and the page said nothing until then.
  function getJSON(url) {
    var ctrl = typeof AbortController === "function" ? new AbortController() : null;
    var timer = ctrl ? setTimeout(function () { ctrl.abort(); }, FETCH_TIMEOUT_MS) : null;
    function done() { clearTimeout(timer); }
    return fetch(url, ctrl ? { signal: ctrl.signal } : {}).then(function (r) {
      if (r.status === 404) { throw new Error("gone"); }
      if (!r.ok) { throw new Error("unavailable"); }
      return r.json();  // the timeout covers reading the body too
    }).then(function (v) { done(); return v; }, function (e) { done(); throw e; });
  }
  function poll() {
    getJSON("/api/tournaments/" + encodeURIComponent(TOURNAMENT)).then(function (state) {
      unreadable("status", false);
      draw(state);
      loadMatches();
      if (!state.final) setTimeout(poll, 1000);
    }).catch(function (e) {
      if (e && e.message === "gone") { return gone(); }
      unreadable("status", true);
      setTimeout(poll, RETRY_MS);
    });
  }
  function lastOffset(total) { return total ? Math.floor((total - 1) / limit) * limit : 0; }
  $("page-first").onclick = function () { offset = 0; loadMatches(); };
  $("page-prev").onclick = function () { offset = Math.max(0, offset - limit); loadMatches(); };
  $("page-next").onclick = function () { offset += limit; loadMatches(); };
  $("page-last").onclick = function () { offset = lastOffset(knownTotal); loadMatches(); };
  $("bot-filter").onchange = function () { bot = this.value; offset = 0; loadMatches(); };
  draw(INITIAL);
  loadMatches();
  if (!INITIAL.final) setTimeout(poll, 1000);
})();
