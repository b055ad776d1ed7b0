// A finished game's replay (docs/api.md, "Replay"): step through it move by
// move — buttons, a slider, the arrow keys, Home and End — from a seat or
// the spectator's place, with the cards that seat saw then. The board and
// the hand are drawn by the game's own module (games/*.js) as the table's
// page draws them, with no move to offer; the move is told in words by the
// module's `describe`, as in the table's log. The URL keeps `?seat=&at=`
// (the API's seat number and version), so a position can be shared.
import { api, loadModule } from "./api.js";
import { resultTable } from "./result.js";
import { fill, lang, seatName, setupLanguage, t } from "./i18n.js";

const W = {
  en: {
    replay: "Replay", seen_from: "Seen from", spectator: "Spectator (no hand)", seat_of: "Seat {0}: {1}",
    status_spectator: "Replay of a finished game, as a spectator: nobody's cards.",
    status_seat: "Replay of a finished game, seen from {0}'s seat: the cards that seat saw.",
    first: "First move", prev: "Previous move", next: "Next move", last: "Last move", move: "Move",
    position: "Move {0} of {1} (version {2})", keys: "Keys: ← → one move, Home / End the first / the last.",
    this_move: "This move", hidden_move: "A move this seat did not see.", hand: "Hand",
    table: "The table's page", not_finished: "This game is not over yet: it can be replayed once it ends.",
  },
  fr: {
    replay: "Revoir la partie", seen_from: "Vue de", spectator: "Spectateur (aucune main)", seat_of: "Place {0} : {1}",
    status_spectator: "Une partie finie, revue en spectateur : les cartes de personne.",
    status_seat: "Une partie finie, revue depuis la place de {0} : les cartes que cette place voyait.",
    first: "Premier coup", prev: "Coup précédent", next: "Coup suivant", last: "Dernier coup", move: "Coup",
    position: "Coup {0} sur {1} (version {2})", keys: "Touches : ← → un coup, Début / Fin le premier / le dernier.",
    this_move: "Ce coup", hidden_move: "Un coup que cette place n’a pas vu.", hand: "Main",
    table: "La page de la table", not_finished: "Cette partie n’est pas finie : elle se revoit une fois terminée.",
  },
};
function w(key, ...args) { return fill((W[lang] || W.en)[key] ?? W.en[key], args, lang); }

const $ = (id) => document.getElementById(id);
const table = decodeURIComponent(location.pathname.split("/").pop());
let info = null; // GET /tables/{T}
let mod = null; // the game's module
let seat = null; // the seat whose view is shown; null: the spectator
let step = null; // the step shown (GET /tables/{T}/replay)
let steps = []; // the versions at which a move ends: the positions of the replay
let wanted = null; // {seat, version} asked last: an answer to an older ask is not drawn
const answers = new Map(); // "seat:version" -> step, for going back and forth

function names() {
  const out = [];
  for (const s of info?.seats || []) out[s.seat] = s.name || t("seat_n", s.seat + 1);
  for (const s of step?.view?.view?.seats || []) if (s && typeof s === "object" && s.name) out[s.seat] = s.name;
  return out;
}

function showError(msg) { $("error").textContent = msg || ""; }

function fromUrl() {
  const q = new URLSearchParams(location.search);
  const num = (v) => (/^\d{1,15}$/.test(v || "") ? Number(v) : null);
  return { seat: num(q.get("seat")), at: num(q.get("at")) };
}

/** Show the step ending at `version` (inside a move: that move's end) as the current seat saw it. */
async function show(version) {
  const ask = { seat, version };
  wanted = ask;
  const key = `${seat}:${version}`;
  let got = answers.get(key);
  if (!got) {
    const q = new URLSearchParams({ at: String(version) });
    if (seat !== null) q.set("seat", String(seat));
    try {
      got = await api(`/tables/${encodeURIComponent(table)}/replay?${q}`);
    } catch (err) {
      if (wanted !== ask) return;
      if (err.status === 409) showError(w("not_finished"));
      else if (err.status === 404) showError(t("no_table"));
      else if (err.status === 422 && err.code === "bad_seat" && seat !== null) { seat = null; show(version); }
      else if (err.status === 422 && err.code === "bad_version" && version !== 1) show(1);
      else showError(err.message);
      return;
    }
    answers.set(key, got);
    answers.set(`${got.seat}:${got.version}`, got);
  }
  if (wanted !== ask) return; // a newer step was asked for meanwhile
  wanted = { seat, version: got.version };
  step = got;
  steps = got.steps;
  showError("");
  render();
}

function index() {
  const i = steps.indexOf(wanted?.version ?? step?.version);
  return i < 0 ? 0 : i;
}

function goTo(i) {
  if (!steps.length) return;
  const v = steps[Math.max(0, Math.min(steps.length - 1, i))];
  if (wanted && wanted.version === v && wanted.seat === seat) return;
  show(v);
}

function pickSeat() {
  const sel = $("seat-pick");
  const n = names();
  const opts = [new Option(w("spectator"), "")];
  for (const s of info.seats) opts.push(new Option(w("seat_of", s.seat + 1, n[s.seat]), String(s.seat)));
  sel.replaceChildren(...opts);
  sel.value = seat === null ? "" : String(seat);
}

function ctx() {
  // read-only: the modules draw the hand with no legal move, and nothing is sent
  return { lang, t, seat, names: names(), send: () => Promise.resolve(), ui: {}, rerender: render, info, readOnly: true };
}

function renderSeats() {
  const box = $("seats");
  const n = names();
  const v = step.view;
  const turn = new Set(v.must_act?.length ? v.must_act : v.awaiting || []);
  box.replaceChildren(...info.seats.map((s) => {
    const div = document.createElement("div");
    div.className = "seat" + (turn.has(s.seat) ? " turn" : "") + (seat === s.seat ? " me" : "");
    div.dataset.seat = s.seat;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = n[s.seat] + (s.kind === "bot" ? ` (${t("bot")})` : "");
    div.append(name);
    const extra = v.view && mod?.seatSummary ? mod.seatSummary(v.view, s.seat, ctx()) : "";
    if (extra) {
      const p = document.createElement("div");
      p.textContent = extra;
      div.append(p);
    }
    if (turn.has(s.seat)) {
      const p = document.createElement("div");
      p.textContent = t("turn_of", n[s.seat]);
      div.append(p);
    }
    return div;
  }));
}

function renderResult() {
  const r = step.result;
  const box = $("result");
  box.hidden = !r;
  if (!r) { box.replaceChildren(); return; }
  const n = names();
  const h = document.createElement("h2");
  h.textContent = t("result");
  const p = document.createElement("p");
  p.textContent = t("game_over");
  box.replaceChildren(h, p, resultTable(r, (i) => seatName(n, i)));
}

function renderMove() {
  const n = names();
  const lines = step.events.map((e) => (mod?.describe ? mod.describe(e, n, lang) : null)).filter(Boolean);
  const items = (lines.length ? lines : [w("hidden_move")]).map((text) => {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  });
  $("move-events").replaceChildren(...items);
}

function renderControls() {
  const i = index();
  const last = steps.length - 1;
  const text = w("position", step.move, steps.length, step.version);
  $("position").textContent = text;
  const slider = $("slider");
  slider.max = String(last);
  slider.value = String(step.move - 1);
  slider.setAttribute("aria-valuetext", text);
  for (const [id, off] of [["first", i === 0], ["prev", i === 0], ["next", i === last], ["last", i === last]]) {
    // aria-disabled, not disabled: a disabled button would drop a keyboard player's focus
    if (off) $(id).setAttribute("aria-disabled", "true");
    else $(id).removeAttribute("aria-disabled");
  }
}

function label() {
  $("controls-h").textContent = w("replay");
  $("seat-pick-label").textContent = w("seen_from");
  for (const id of ["first", "prev", "next", "last"]) $(id).setAttribute("aria-label", w(id));
  $("slider").setAttribute("aria-label", w("move"));
  $("keys").textContent = w("keys");
  $("move-h").textContent = w("this_move");
  $("actions").setAttribute("aria-label", w("hand"));
  $("to-table").textContent = w("table");
}

function render() {
  if (!info) return;
  label();
  $("title").textContent = `${mod?.title || info.game} · ${table}`;
  if (!step) return;
  pickSeat();
  const n = names();
  $("status").textContent = seat === null ? w("status_spectator") : w("status_seat", seatName(n, seat));
  $("controls").hidden = false;
  $("move").hidden = false;
  const v = step.view.view;
  const c = ctx();
  renderControls();
  renderMove();
  renderSeats();
  $("board").replaceChildren(...(v && mod ? [mod.renderBoard(v, c)] : []));
  $("actions").replaceChildren(...(v && mod && seat !== null ? [mod.renderActions(v, [], [], c)] : []));
  $("actions").hidden = seat === null;
  renderResult();
  const q = new URLSearchParams();
  if (seat !== null) q.set("seat", String(seat));
  q.set("at", String(step.version));
  history.replaceState(null, "", `${location.pathname}?${q}`);
  // set last: a test (or a reader) seeing this version sees the whole page drawn for it
  document.body.dataset.seat = seat === null ? "" : String(seat);
  document.body.dataset.version = String(step.version);
}

async function main() {
  setupLanguage(render);
  const start = fromUrl();
  seat = start.seat;
  $("to-table").href = `/play/${encodeURIComponent(table)}`;
  $("first").addEventListener("click", () => goTo(0));
  $("prev").addEventListener("click", () => goTo(index() - 1));
  $("next").addEventListener("click", () => goTo(index() + 1));
  $("last").addEventListener("click", () => goTo(steps.length - 1));
  $("slider").addEventListener("input", () => goTo($("slider").valueAsNumber));
  $("seat-pick").addEventListener("change", () => {
    seat = $("seat-pick").value === "" ? null : Number($("seat-pick").value);
    show(step ? step.version : 1);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey || !steps.length) return;
    if (ev.target instanceof Element && ev.target.closest("input, select, textarea")) return; // their own keys
    const to = { ArrowLeft: index() - 1, ArrowRight: index() + 1, Home: 0, End: steps.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    goTo(to);
  });
  try {
    info = await api(`/tables/${encodeURIComponent(table)}`);
  } catch (err) {
    showError(err.status === 404 ? t("no_table") : err.message);
    return;
  }
  if (seat !== null && seat >= info.players) seat = null;
  mod = await loadModule(info.game);
  render();
  if (info.status !== "finished") { showError(w("not_finished")); return; }
  await show(start.at ?? 1);
}

main();
