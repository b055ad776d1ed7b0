// The lobby: games, tables (a page at a time), the create form, taking a seat.
import { api, saveSeat } from "./api.js";
import { lang, setupLanguage, t } from "./i18n.js";
import { optionWords } from "./optionlabels.js";
import { objectForm } from "./schemaform.js";

const $ = (id) => document.getElementById(id);
let games = [];
let optionsForm = null;
let status = "waiting";
let next = null;

function game(name) { return games.find((g) => g.name === name); }

/** A game's rules summary in the page's language (`GET /games` gives `en` and `fr`). */
function summaryOf(g) { return (g.summary && (g.summary[lang] || g.summary.en)) || ""; }

function renderGames() {
  const ul = $("games");
  const open = new Set([...ul.querySelectorAll("details[open]")].map((d) => d.closest("li").dataset.game));
  ul.replaceChildren();
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.game = g.name;
    const details = document.createElement("details");
    details.open = open.has(g.name);
    const head = document.createElement("summary");
    const b = document.createElement("strong");
    b.textContent = g.title;
    const range = document.createElement("span");
    range.className = "range";
    range.textContent = " — " + t("players_range", g.min_players, g.max_players);
    head.append(b, range);
    const p = document.createElement("p");
    p.className = "summary rules";
    p.lang = lang;
    p.textContent = summaryOf(g);
    details.append(head, p);
    li.append(details);
    ul.append(li);
  }
  const sel = $("game");
  const was = sel.value;
  sel.replaceChildren(...games.map((g) => new Option(g.title, g.name)));
  if (was && game(was)) sel.value = was;
}

function renderCreateForm() {
  const g = game($("game").value);
  if (!g) return;
  const players = $("players");
  players.min = g.min_players;
  players.max = g.max_players;
  const n = Math.min(Math.max(Number(players.value) || g.min_players, g.min_players), g.max_players);
  players.value = n;
  $("game-summary").textContent = t("players_range", g.min_players, g.max_players);
  const bots = $("bots");
  const kept = [...bots.querySelectorAll("select")].map((s) => s.value);
  bots.replaceChildren(Object.assign(document.createElement("legend"), { textContent: t("seats") }));
  for (let s = 0; s < n; s++) {
    const l = document.createElement("label");
    l.append(t("seat_n", s + 1) + " ");
    const sel = document.createElement("select");
    sel.name = "seat-" + s;
    sel.id = "seat-" + s;
    sel.append(new Option(t("person"), ""));
    for (const st of g.strategies) {
      const k = "strat_" + st; // a strategy the interface knows is named in its language; others keep the server's name
      sel.append(new Option(t("bot_strategy", t("bot"), t(k) === k ? st : t(k)), st));
    }
    const pref = g.strategies.includes("heuristic") ? "heuristic" : g.strategies[0];
    sel.value = kept[s] !== undefined ? kept[s] : (s === 0 ? "" : pref);
    l.append(sel);
    bots.append(l);
  }
  const opts = $("options");
  // the same game drawn again (another player count, the language): what was set stays set
  const same = opts.dataset.game === g.name;
  const set = same ? [...opts.querySelectorAll("input, select")].map((el) => [el.name, el.type === "checkbox" ? el.value : "",
    el.type === "checkbox" ? el.checked : el.value]) : [];
  optionsForm = objectForm(g.options_schema, { skip: [], idPrefix: "opt", seats: n,
    wordsFor: (name) => optionWords(g.name, name, lang) });
  opts.replaceChildren(Object.assign(document.createElement("legend"), { textContent: t("options") }), optionsForm.node);
  opts.dataset.game = g.name;
  for (const [name, box, v] of set) {
    const el = [...opts.querySelectorAll("input, select")].find((e) => e.name === name && (e.type === "checkbox" ? e.value === box : true));
    if (!el) continue;
    if (el.type === "checkbox") el.checked = v;
    else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === v)) el.value = v;
  }
}

/**
 * The first of Players and Turn clock the server would refuse, checked here
 * so the message names the field: `{el, text}`, or null.
 */
function invalidField(g) {
  for (const el of [$("players"), $("turn")]) el.removeAttribute("aria-invalid");
  const p = $("players").value.trim();
  if (!/^\d+$/.test(p) || Number(p) < g.min_players || Number(p) > g.max_players) {
    return { el: $("players"), text: t("bad_players", g.min_players, g.max_players) };
  }
  const turn = $("turn").value.trim();
  if ($("turn").validity.badInput || (turn !== "" && (!/^\d+$/.test(turn) || Number(turn) < 1 || Number(turn) > 600))) {
    return { el: $("turn"), text: t("bad_turn", 1, 600) };
  }
  return null;
}

let creating = false; // a create request on its way: a second click (a double-click) makes no second table

async function create(ev) {
  ev.preventDefault();
  if (creating) return;
  $("create-error").textContent = "";
  const g = game($("game").value);
  const bad = invalidField(g);
  if (bad) {
    bad.el.setAttribute("aria-invalid", "true");
    bad.el.focus();
    $("create-error").textContent = bad.text;
    return;
  }
  const players = Number($("players").value);
  const bots = {};
  for (let s = 0; s < players; s++) {
    const v = $("seat-" + s)?.value;
    if (v) bots[String(s)] = v;
  }
  const turn = $("turn").value;
  const body = { game: g.name, players, options: optionsForm.read(), bots,
                 turn_seconds: turn === "" ? null : Number(turn) };
  creating = true;
  $("create-btn").disabled = true;
  let leaving = false;
  try {
    const info = await api("/tables", { method: "POST", body });
    if (info.status === "waiting") {
      selectStatus("waiting");
    } else {
      leaving = true; // the page moves on: the button stays disabled
      location.href = "/play/" + info.id;
    }
  } catch (err) {
    $("create-error").textContent = err.message;
  } finally {
    if (!leaving) { creating = false; $("create-btn").disabled = false; }
  }
}

function seatLine(info) {
  return info.seats.map((s) => (s.kind === "free" ? t("free") : s.name || s.kind)).join(", ");
}

async function join(info, name, seat) {
  localStorage.setItem("tapis.name", name);
  const body = { name };
  if (seat !== undefined) body.seat = seat;
  const j = await api(`/tables/${info.id}/join`, { method: "POST", body });
  saveSeat(info.id, { token: j.token, seat: j.seat, name });
  location.href = "/play/" + info.id;
}

function tableItem(info) {
  const li = document.createElement("li");
  li.dataset.table = info.id;
  const what = document.createElement("span");
  what.className = "what";
  const g = game(info.game);
  what.textContent = `${g ? g.title : info.game} · ${info.players} · ${seatLine(info)}`;
  li.append(what);
  if (info.status === "waiting" && info.seats.some((s) => s.kind === "free")) {
    const form = document.createElement("form");
    form.className = "moves";
    const label = document.createElement("label");
    label.append(t("your_name") + " ");
    const name = document.createElement("input");
    name.name = "name";
    name.required = true;
    name.maxLength = 40;
    name.value = localStorage.getItem("tapis.name") || "";
    label.append(name);
    const btn = document.createElement("button");
    btn.type = "submit";
    btn.textContent = t("take_seat");
    const err = document.createElement("span");
    err.className = "error";
    err.setAttribute("role", "alert");
    form.append(label, btn, err);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      // one request at a time, and none after the seat is taken (the page is moving on):
      // a double-click must not take two seats
      if (btn.disabled) return;
      btn.disabled = true;
      err.textContent = "";
      try { await join(info, name.value.trim() || "player"); } catch (e) { err.textContent = e.message; btn.disabled = false; }
    });
    li.append(form);
  }
  const watch = document.createElement("a");
  watch.href = "/play/" + info.id;
  watch.textContent = t("watch");
  li.append(watch);
  return li;
}

// ---- The Finished tab: the finished tables still in the lobby (not archived
// yet: the newest), then the archive's history (GET /history), each table once.

/** A seat's name in a finished game: the name given, else "Seat n". */
function seatNameOf(s) { return s.name || t("seat_n", s.seat + 1); }

/** A finished table from the lobby (`GET /tables`) or the history (`GET /history`), drawn alike. */
function finishedItem(g) {
  const li = document.createElement("li");
  li.dataset.table = g.id;
  li.dataset.source = g.source;
  const what = document.createElement("span");
  what.className = "what";
  const info = game(g.game);
  const when = document.createElement("time");
  when.dateTime = new Date(g.when).toISOString();
  when.textContent = new Date(g.when).toLocaleString(lang === "fr" ? "fr-FR" : "en-GB",
    { dateStyle: "medium", timeStyle: "short" });
  when.title = t(g.source === "history" ? "ended_at" : "created_at");
  what.append(`${info ? info.title : g.game} · `, when, ` · ${g.names.join(", ")}`);
  const won = document.createElement("span");
  won.className = "winners";
  won.textContent = g.winners.length ? t("won_by", g.winners.join(", ")) : t("no_winner");
  const replay = document.createElement("a");
  replay.href = "/replay/" + g.id;
  replay.textContent = t("replay_game");
  const table = document.createElement("a");
  table.href = "/play/" + g.id;
  table.textContent = t("table_page");
  li.append(what, won, replay, table);
  return li;
}

/** A lobby table (`TableInfo`, finished) as `finishedItem` draws it. */
function fromLobby(info) {
  const names = info.seats.map(seatNameOf);
  return { id: info.id, game: info.game, source: "lobby", when: info.created, names,
           winners: (info.result?.winners || []).map((s) => names[s]) };
}

/** An archived game (`GET /history` item) as `finishedItem` draws it. */
function fromHistory(h) {
  const names = h.seats.map(seatNameOf);
  return { id: h.table, game: h.game, source: "history", when: h.ended_ms, names,
           winners: h.winners.map((s) => names[s]) };
}

// Where the Finished tab goes on: the lobby's next page (a URL), then the
// history's (`cursor`; `historyStarted` once its first page was asked for).
let finished = { lobbyNext: null, historyNext: null, historyStarted: false, shown: new Set() };

async function loadFinished(more, mine) {
  if (!more) finished = { lobbyNext: null, historyNext: null, historyStarted: false, shown: new Set() };
  const items = [];
  if (!more || finished.lobbyNext) {
    const { data, resp } = await api(more ? finished.lobbyNext : "/tables?status=finished&limit=20", { raw: true });
    if (mine !== loads) return null;
    const m = /<([^>]+)>;\s*rel="next"/.exec(resp.headers.get("Link") || "");
    finished.lobbyNext = m ? m[1] : null;
    items.push(...data.filter((info) => info.status === "finished").map(fromLobby));
  }
  // the lobby's finished tables all shown (no next page): the history follows
  let error = null;
  if (!finished.lobbyNext && (!finished.historyStarted || finished.historyNext) && items.length < 20) {
    const cursor = finished.historyStarted ? "&cursor=" + encodeURIComponent(finished.historyNext) : "";
    try {
      const page = await api(`/history?limit=20${cursor}`);
      if (mine !== loads) return null;
      finished.historyStarted = true;
      finished.historyNext = page.next;
      items.push(...page.items.map(fromHistory));
    } catch (err) {
      if (mine !== loads) return null;
      error = err; // the archive is down (503 archive_unavailable): the lobby's tables still show; More tries again
    }
  }
  const fresh = [];
  for (const g of items) {
    if (finished.shown.has(g.id)) continue; // a table archived a moment ago: in both lists
    finished.shown.add(g.id);
    fresh.push(g);
  }
  return { nodes: fresh.map(finishedItem), error,
           more: Boolean(finished.lobbyNext || finished.historyNext || !finished.historyStarted) };
}

let loads = 0;  // the latest loadTables call: an answer to an earlier one (another tab clicked since) is dropped

async function loadTables(more = false) {
  $("tables-error").textContent = "";
  if (status === "finished") return showFinished(more);
  const url = more && next ? next : `/tables?status=${status}&limit=20`;
  const mine = ++loads;
  try {
    const { data, resp } = await api(url, { raw: true });
    if (mine !== loads) return;
    const link = resp.headers.get("Link");
    const m = link && /<([^>]+)>;\s*rel="next"/.exec(link);
    next = m ? m[1] : null;
    const ul = $("tables");
    if (!more) ul.replaceChildren();
    for (const info of data) ul.append(tableItem(info));
    if (!ul.children.length) {
      const li = document.createElement("li");
      li.textContent = t("no_tables");
      ul.append(li);
    }
    $("more").hidden = !next || (more && !data.length);
  } catch (err) {
    if (mine === loads) $("tables-error").textContent = err.message;
  }
}

async function showFinished(more) {
  const mine = ++loads;
  const ul = $("tables");
  try {
    const got = await loadFinished(more, mine);
    if (got === null) return;
    if (!more) ul.replaceChildren();
    ul.append(...got.nodes);
    if (!ul.children.length && !got.error) {
      const li = document.createElement("li");
      li.textContent = t("no_tables");
      ul.append(li);
    }
    $("more").hidden = !got.more;
    if (got.error) $("tables-error").textContent = got.error.message;
  } catch (err) {
    if (mine === loads) $("tables-error").textContent = err.message;
  }
}

function selectStatus(s) {
  status = s;
  for (const b of document.querySelectorAll("#status-tabs [role=tab]")) b.setAttribute("aria-selected", String(b.dataset.status === s));
  loadTables();
}

async function main() {
  setupLanguage(() => { renderGames(); renderCreateForm(); loadTables(); });
  games = await api("/games");
  renderGames();
  const pref = game("maumau") ? "maumau" : games[0]?.name;
  $("game").value = pref;
  renderCreateForm();
  $("game").addEventListener("change", renderCreateForm);
  $("players").addEventListener("change", renderCreateForm);
  $("create").addEventListener("submit", create);
  for (const b of document.querySelectorAll("#status-tabs [role=tab]")) b.addEventListener("click", () => selectStatus(b.dataset.status));
  $("more").addEventListener("click", () => loadTables(true));
  loadTables();
}

main().catch((err) => { $("tables-error").textContent = err.message; });
