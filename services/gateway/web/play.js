// A table's page: seats, board, your hand and moves, the live log, the result.
import { api, follow, forgetSeat, loadModule, savedSeat, saveSeat } from "./api.js";
import { lang, setupLanguage, t } from "./i18n.js";
import { resultTable } from "./result.js";

const $ = (id) => document.getElementById(id);
const table = decodeURIComponent(location.pathname.split("/").pop());
let seat = savedSeat(table); // {token, seat, name} or null
let info = null; // GET /tables/{T}
let current = null; // GET /tables/{T}/view
let mod = null; // the game's module
let stop = null; // stops the stream
const ui = {}; // a game module's own state across renders (a picker open, a toggle)
const log = []; // events seen, in order
let refreshTimer = null;
let shownState = null; // the table and view the page last drew, as JSON

function names() {
  const out = [];
  for (const s of info?.seats || []) out[s.seat] = s.name || (s.kind === "free" ? t("free") : t("seat_n", s.seat + 1));
  for (const s of current?.view?.seats || []) if (s && typeof s === "object" && s.name) out[s.seat] = s.name;
  return out;
}

function showError(msg) { $("error").textContent = msg || ""; }

// Actions go one after the other: a click while the previous action is on
// its way waits for it (and for the view it brings) instead of being lost.
// A move on its way disables the moves until its answer: a second click
// (a double-click on a card) is dropped, not sent again.
let pending = Promise.resolve();
let inFlight = false;
function send(action) {
  if (inFlight) return pending;
  inFlight = true;
  markBusy();
  pending = sendNow(action).finally(() => { inFlight = false; markBusy(); });
  return pending;
}

// Busy moves are marked (aria-disabled, greyed by CSS) rather than
// `disabled`: a disabled button would drop a keyboard player's focus.
function markBusy() {
  const box = $("actions");
  box.setAttribute("aria-busy", String(inFlight));
  box.classList.toggle("busy", inFlight);
  for (const b of box.querySelectorAll("button, input, select, textarea")) {
    if (inFlight) b.setAttribute("aria-disabled", "true");
    else b.removeAttribute("aria-disabled");
  }
}

// What was picked for this move (a Jack's suit picker open, the "Mau"
// toggle) is cleared when the move is sent, not when its answer comes back:
// the stream may already have shown the next turn by then, and the person
// started picking the next move (clearing it then made a "Mau Mau" unsaid).
// A refused move gets its picks back, unless new ones were made meanwhile.
async function sendNow(action) {
  showError("");
  const picked = { ...ui };
  for (const k of Object.keys(ui)) delete ui[k];
  try {
    const cid = "web-" + Math.random().toString(36).slice(2) + Date.now().toString(36);
    // No expected_version: the person's move is their intent, and the
    // table may have moved on since the view was drawn (a bot's simultaneous
    // écart, another seat's bid). The server applies it if it is still legal
    // when it arrives, and refuses it with a clear error otherwise.
    await api(`/tables/${table}/actions`, { method: "POST", token: seat.token,
      body: { action, command_id: cid } });
  } catch (err) {
    showError(err.message);
    if (!Object.values(ui).some(Boolean)) Object.assign(ui, picked);
    shownState = null; // a refused move: redraw (the error, the picks given back)
  }
  // An applied move brings a new version, so the view that shows it is drawn
  // once, whether the stream's echo or this refresh fetches it first.
  await refresh();
}

function ctx() {
  return { lang, t, seat: seat ? seat.seat : null, names: names(), send, ui, rerender: render, info };
}

function clockText(deadline) {
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  return t("seconds_left", left);
}

function renderSeats() {
  const box = $("seats");
  box.replaceChildren();
  const n = names();
  const v = current?.view;
  const awaiting = new Set(current?.must_act || current?.awaiting || []);
  const away = new Set(current?.away || []);
  for (const s of info.seats) {
    const div = document.createElement("div");
    div.className = "seat" + (awaiting.has(s.seat) ? " turn" : "") + (seat && seat.seat === s.seat ? " me" : "");
    div.dataset.seat = s.seat;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = n[s.seat] + (s.kind === "bot" ? ` (${t("bot")})` : "");
    div.append(name);
    const extra = v && mod?.seatSummary ? mod.seatSummary(v, s.seat, ctx()) : "";
    if (extra) {
      const p = document.createElement("div");
      p.textContent = extra;
      div.append(p);
    }
    if (away.has(s.seat) && (current?.status || info.status) !== "finished") { // no stand-in after the end
      const p = document.createElement("div");
      p.textContent = t("away") + " — " + t("stand_in");
      div.append(p);
    }
    if (awaiting.has(s.seat)) {
      const p = document.createElement("div");
      p.textContent = seat && seat.seat === s.seat ? t("your_turn") : t("turn_of", n[s.seat]);
      div.append(p);
    }
    const deadline = current?.deadlines?.[s.seat];
    if (deadline) {
      const c = document.createElement("div");
      c.className = "clock";
      c.dataset.deadline = deadline;
      c.textContent = clockText(deadline);
      div.append(c);
    }
    box.append(div);
  }
}

function renderResult() {
  const r = current?.result || info?.result;
  const box = $("result");
  if (!r) { box.hidden = true; return; }
  box.hidden = false;
  const n = names();
  const h = document.createElement("h2");
  h.textContent = t("result");
  const tbl = resultTable(r, (i) => n[i]);
  const p = document.createElement("p");
  p.textContent = t("game_over");
  const again = document.createElement("p"); // the game move by move, from this seat (replay.js)
  const a = document.createElement("a");
  a.id = "replay-link";
  a.href = `/replay/${encodeURIComponent(table)}` + (seat ? `?seat=${seat.seat}` : "");
  a.textContent = t("replay_game");
  again.append(a);
  box.replaceChildren(h, p, tbl, again);
}

function renderLog() {
  const ol = $("log");
  const n = names();
  ol.replaceChildren();
  for (const e of log) {
    const text = mod?.describe ? mod.describe(e, n, lang) : null;
    if (!text) continue;
    const li = document.createElement("li");
    li.dataset.version = e.version;
    li.textContent = text;
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

function renderJoin() {
  const free = info.seats.filter((s) => s.kind === "free");
  const box = $("join");
  box.hidden = Boolean(seat) || info.status !== "waiting" || !free.length;
  if (box.hidden) return;
  const sel = $("join-seat");
  const was = sel.value;
  sel.replaceChildren(...free.map((s) => new Option(t("seat_n", s.seat + 1), String(s.seat))));
  if (was && free.some((s) => String(s.seat) === was)) sel.value = was;
  if (!$("join-name").value) $("join-name").value = localStorage.getItem("tapis.name") || "";
}

// What a person is typing or ticking in the moves survives the re-render
// each event brings (a bot playing while you pick your écart): inputs are
// keyed by their form's kind, their name and (checkboxes) their value.
function inputKey(el) {
  const f = el.closest("form");
  const kind = f ? f.dataset.combo || f.dataset.text || f.dataset.choice || "" : "";
  return `${kind}|${el.name}|${el.type === "checkbox" ? el.value : ""}`;
}

function keepInputs(root) {
  const saved = new Map();
  for (const el of root.querySelectorAll("input, select, textarea")) {
    saved.set(inputKey(el), el.type === "checkbox" ? el.checked : el.value);
  }
  const focused = root.contains(document.activeElement) && document.activeElement.matches("input, select, textarea")
    ? inputKey(document.activeElement) : null;
  return () => {
    for (const el of root.querySelectorAll("input, select, textarea")) {
      const key = inputKey(el);
      if (!saved.has(key)) continue;
      if (el.type === "checkbox") el.checked = saved.get(key);
      else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === saved.get(key))) el.value = saved.get(key);
      if (key === focused) el.focus();
    }
  };
}

// A keyboard player's focus survives the re-render each event brings: it
// goes back to the same control (the same card, move or suit), to a suit
// picker that just opened, or else to the first usable move; when there is
// none (not your turn) it waits on the moves box, and moves on to the first
// usable control when your turn comes.
function controlKey(el) {
  if (el.id) return `#${CSS.escape(el.id)}`;
  for (const k of ["card", "action", "suit"]) {
    if (el.dataset[k] !== undefined) return `[data-${k}="${CSS.escape(el.dataset[k])}"]`;
  }
  return null;
}

function keepFocus(root) {
  const el = document.activeElement;
  if (!el || !root.contains(el) || el.matches("input, select, textarea")) return () => {};
  const key = el === root ? null : controlKey(el);
  const hadPicker = Boolean(root.querySelector(".picker"));
  return () => {
    if (root.hidden) return;
    const usable = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea";
    const picker = hadPicker ? null : root.querySelector(".picker button:not([disabled])");
    const same = key ? root.querySelector(`${key}:not([disabled])`) : null;
    const target = picker || same || root.querySelector(usable);
    // no scrolling: someone reading the log on a phone stays where they are
    if (target) target.focus({ preventScroll: true });
    else { root.tabIndex = -1; root.focus({ preventScroll: true }); }
  };
}

function render() {
  if (!info) return;
  document.body.dataset.version = current?.version ?? info.version;
  document.body.dataset.status = current?.status || info.status;
  $("title").textContent = `${mod?.title || info.game} · ${table}`;
  let status;
  if (info.status === "waiting") status = t("waiting_players");
  else if ((current?.status || info.status) === "finished") status = t("game_over");
  else status = seat ? t("seated_as", seat.seat + 1) : t("spectating");
  $("status").textContent = status;
  renderJoin();
  renderSeats();
  const v = current?.view;
  const c = ctx();
  $("board").replaceChildren(...(v && mod ? [mod.renderBoard(v, c)] : []));
  const moves = [];
  if (v && mod && seat) moves.push(mod.renderActions(v, current.legal_actions || [], current.choices || [], c));
  if (seat && (current?.away || []).includes(seat.seat) && current.status === "playing") {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("back");
    b.addEventListener("click", async () => {
      try { await api(`/tables/${table}/back`, { method: "POST", token: seat.token }); } catch (e) { showError(e.message); }
      refresh();
    });
    moves.push(b);
  }
  const restore = keepInputs($("actions"));
  const refocus = keepFocus($("actions"));
  $("actions").replaceChildren(...moves);
  $("actions").hidden = !seat;
  restore();
  refocus();
  markBusy();
  // Leave goes once the game is over (there is nothing left to leave)
  const over = (current?.status || info.status) === "finished";
  $("leave").hidden = !seat || over || !$("leave-confirm").hidden;
  if (!seat || over) $("leave-confirm").hidden = true;
  renderResult();
  renderLog();
}

async function refresh() {
  const asked = seat; // the seat (or none) this view is fetched for
  try {
    const [i, v] = await Promise.all([
      api(`/tables/${table}`),
      api(`/tables/${table}/view`, { token: asked?.token }),
    ]);
    if (seat !== asked) return refresh(); // left or joined meanwhile: that view is not this page's any more
    // two refreshes may cross (one after an action, one after an event):
    // never go back to an older version than the one shown
    if (current && v.version < current.version && v.seat === current.seat) return;
    info = i;
    current = v;
    // Nothing new (the stream's echo of a move this page already fetched the
    // view for): keep the controls, only add to the log. Redrawing them would
    // swap the button under a pointer between its press and its release,
    // and that click would be lost.
    const state = JSON.stringify([i, v, seat?.token ?? null]);
    if (state === shownState) { renderLog(); return; }
    shownState = state;
  } catch (err) {
    if ((err.status === 403 || err.status === 401) && asked) { // a token this table does not know: watch instead
      if (seat !== asked) return refresh(); // already dropped (left here, or revoked)
      dropSeat();
      startStream();
      return refresh();
    }
    if (err.status === 404) { showError(t("no_table")); return; }
    showError(err.message);
  }
  render();
}

// The seat's token is no longer this table's (left here, in another tab or
// elsewhere): forget it — only it, not a newer seat another tab of this
// browser took since, which this page then plays — or watch.
function dropSeat() {
  const gone = seat.token;
  forgetSeat(table, gone);
  const kept = savedSeat(table);
  seat = kept && kept.token !== gone ? kept : null;
  current = null; // the left seat's view: its hand goes with it
  log.length = 0;
  for (const k of Object.keys(ui)) delete ui[k];
  showError(seat ? "" : t("seat_gone"));
}

function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 120);
}

function startStream() {
  stop?.();
  const seen = new Set(log.map((e) => e.version));
  stop = follow(table, seat?.token, log.length ? log[log.length - 1].version : 0, {
    event(e) {
      if (!seen.has(e.version)) { seen.add(e.version); log.push(e); }
      refreshSoon();
    },
    resync() { refreshSoon(); },
    state(up) { if (!up) showError(t("connection_lost")); else if ($("error").textContent === t("connection_lost")) showError(""); },
    error(err) {
      if ([401, 403].includes(err.status) && seat) { // revoked: the seat was left
        dropSeat();
        render(); // at once: no hand, no moves
        startStream();
        refresh();
      } else showError(err.message);
    },
  });
}

let joining = false; // a join on its way: a second click takes no second seat (nor shows "taken")

async function joinSubmit(ev) {
  ev.preventDefault();
  if (joining || seat) return;
  joining = true;
  const btn = $("join-form").querySelector("button[type=submit]");
  btn.disabled = true;
  const name = $("join-name").value.trim() || "player";
  localStorage.setItem("tapis.name", name);
  try {
    const j = await api(`/tables/${table}/join`, { method: "POST", body: { name, seat: Number($("join-seat").value) } });
    seat = { token: j.token, seat: j.seat, name };
    saveSeat(table, seat);
    log.length = 0;
    showError("");
    startStream(); // again, as the seat: its own cards in the log
    await refresh();
  } catch (err) {
    showError(err.message);
  } finally {
    joining = false;
    btn.disabled = false;
  }
}

// The stream may tell this page the seat was left (revoked) before the
// answer to its own leave comes back: the page then already watches.
async function leave() {
  const mine = seat;
  try {
    await api(`/tables/${table}/leave`, { method: "POST", token: mine.token });
  } catch (err) {
    showError(t("leave_failed", err.message));
    return;
  }
  forgetSeat(table, mine.token);
  if (seat === mine) {
    seat = null;
    current = null;
    render(); // at once: no hand, no moves
    log.length = 0;
    startStream();
  }
  showError(t("left"));
  await refresh();
}

// Leave asks first, in the page (keyboard: the question takes the focus on
// its Cancel; Escape cancels too): one click must not give the seat up.
function askLeave() {
  $("leave").hidden = true;
  $("leave-confirm").hidden = false;
  $("leave-no").focus();
}
function closeLeave(refocus = true) {
  $("leave-confirm").hidden = true;
  $("leave").hidden = !seat;
  if (refocus && !$("leave").hidden) $("leave").focus();
}

async function main() {
  setupLanguage(render);
  $("join-form").addEventListener("submit", joinSubmit);
  $("leave").addEventListener("click", askLeave);
  $("leave-no").addEventListener("click", () => closeLeave());
  $("leave-confirm").addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeLeave(); });
  $("leave-yes").addEventListener("click", () => { closeLeave(false); leave(); });
  try {
    info = await api(`/tables/${table}`);
  } catch (err) {
    showError(err.status === 404 ? t("no_table") : err.message);
    return;
  }
  mod = await loadModule(info.game);
  await refresh();
  startStream();
  setInterval(() => {
    for (const c of document.querySelectorAll(".clock[data-deadline]")) c.textContent = clockText(Number(c.dataset.deadline));
  }, 1000);
}

main();
