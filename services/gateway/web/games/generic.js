// The fallback for any game: its view as a readable list (cards drawn as
// cards), every legal action as a button labelled in words, each choice
// (a combination of cards, a word) as a form from its JSON Schema, and the
// log as "Name: event, fields".
import { cardLabel as label, cardNode, cardShort, parseCard } from "../cards.js";
import { objectForm } from "../schemaform.js";

export const title = null;

const SKIP = new Set(["game", "options", "seat"]);
const WORDS = { en: { send: "Send", hand: "Your hand", actions: "Your moves" }, fr: { send: "Envoyer", hand: "Votre main", actions: "Vos coups" } };

function words(s) { return String(s).replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase(); }

/** "7 of hearts" for a French card; other codes in words. */
export function cardLabel(code, lang) { return label(code, lang); }

function isCard(v) { return typeof v === "string" && parseCard(v) !== null; }

/** A value in words: cards as "7♥", lists joined, objects as "key value". */
export function valueText(v, names) {
  if (v === null || v === undefined) return "—";
  if (isCard(v)) return cardShort(v);
  if (Array.isArray(v)) return v.map((x) => valueText(x, names)).join(" ");
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${words(k)} ${valueText(x, names)}`).join(", ");
  return String(v);
}

function valueNode(v, names) {
  if (isCard(v)) return cardNode(v);
  if (Array.isArray(v) && v.length && v.every(isCard)) {
    const d = document.createElement("span");
    d.className = "hand";
    d.append(...v.map((c) => cardNode(c)));
    return d;
  }
  const s = document.createElement("span");
  s.textContent = valueText(v, names);
  return s;
}

/** A seat's public line: its card count or score when the view has one per seat. */
export function seatSummary(view, seat) {
  const s = Array.isArray(view.seats) ? view.seats.find((x) => x && typeof x === "object" && x.seat === seat) : null;
  const parts = [];
  const cards = s?.cards ?? view.hand_sizes?.[seat];
  if (typeof cards === "number") parts.push(`${cards} 🂠`);
  const score = s?.score ?? view.scores?.[seat] ?? view.totals?.[seat];
  if (typeof score === "number") parts.push(`${score} pts`);
  return parts.join(" · ");
}

/** The view's fields as a list (the own hand apart, in the moves). */
export function renderBoard(view, ctx) {
  const box = document.createElement("div");
  box.className = "generic";
  const dl = document.createElement("dl");
  for (const [k, v] of Object.entries(view)) {
    if (SKIP.has(k) || k === "hand" || k === "result") continue;
    const dt = document.createElement("dt");
    dt.textContent = words(k);
    const dd = document.createElement("dd");
    dd.append(valueNode(v, ctx.names));
    dl.append(dt, dd);
  }
  box.append(dl);
  return box;
}

/** A legal action in words: "play: 7♥, suit H". */
export function actionText(a, names) {
  const rest = Object.entries(a).filter(([k]) => k !== "type");
  const fields = rest.map(([k, v]) => (k === "seat" && typeof v === "number" ? `${words(k)} ${names[v] ?? v}` : `${words(k)} ${valueText(v, names)}`));
  return words(a.type) + (fields.length ? ": " + fields.join(", ") : "");
}

/** The hand (cards, not clickable), one button per legal action, a form per choice. */
export function renderActions(view, legal, choices, ctx) {
  const L = WORDS[ctx.lang] || WORDS.en;
  const box = document.createElement("div");
  if (Array.isArray(view.hand)) {
    const h = document.createElement("h2");
    h.textContent = L.hand;
    const hand = document.createElement("div");
    hand.className = "hand";
    hand.id = "hand";
    hand.setAttribute("role", "group");
    hand.setAttribute("aria-label", L.hand);
    for (const c of view.hand) {
      const plays = legal.filter((a) => Object.values(a).includes(c));
      hand.append(cardNode(c, plays.length === 1 ? { onClick: () => ctx.send(plays[0]), extra: "playable" } : {}));
    }
    box.append(h, hand);
  }
  const moves = document.createElement("div");
  moves.className = "moves";
  for (const a of legal) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.type;
    b.textContent = actionText(a, ctx.names);
    b.addEventListener("click", () => ctx.send(a));
    moves.append(b);
  }
  box.append(moves);
  (choices || []).forEach((ch, i) => {
    const form = document.createElement("form");
    form.className = "choice";
    form.dataset.choice = ch.type;
    const h = document.createElement("p");
    h.textContent = ch.hint || words(ch.type);
    const f = objectForm(ch.schema, { labeller: (v) => (isCard(v) ? label(v, ctx.lang) : String(v)), idPrefix: `choice${i}` });
    const send = document.createElement("button");
    send.type = "submit";
    send.textContent = `${L.send}: ${words(ch.type)}`;
    form.append(h, f.node, send);
    form.addEventListener("submit", (ev) => { ev.preventDefault(); ctx.send({ type: ch.type, ...f.read() }); });
    box.append(form);
  });
  return box;
}

/** "Ana: card played, card 7♥". */
export function describe(e, names) {
  const who = e.seat === null || e.seat === undefined ? "" : (names[e.seat] ?? `#${e.seat + 1}`) + ": ";
  const d = e.data || {};
  const fields = Object.entries(d)
    .filter(([, v]) => v !== null && v !== undefined && !(typeof v === "object" && !Array.isArray(v)))
    .map(([k, v]) => `${words(k)} ${valueText(v, names)}`);
  return who + words(e.type) + (fields.length ? " — " + fields.join(", ") : "");
}
