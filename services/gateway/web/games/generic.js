// The fallback for any game: its view as a readable list (cards drawn as
// cards), every legal action as a button labelled in words, each choice
// (a combination of cards, a word) as a form from its JSON Schema, and the
// log as "Name: event, fields".
import { cardLabel as label, cardNode, cardShort, parseCard } from "../cards.js";
import { objectForm } from "../schemaform.js";

export const title = null;

const SKIP = new Set(["game", "options", "seat"]);
const WORDS = {
  en: { send: "Send", hand: "Your hand", actions: "Your moves", not_legal: "That is not one of your moves." },
  fr: { send: "Envoyer", hand: "Votre main", actions: "Vos coups", not_legal: "Ce n’est pas un de vos coups." },
};

function words(s) { return String(s).replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase(); }

/** "7 of hearts" for a French card; other codes in words. */
export function cardLabel(code, lang) { return label(code, lang); }

function isCard(v) { return typeof v === "string" && parseCard(v) !== null; }

/** A value in words: cards as "7♥", lists joined, objects as "key value". */
export function valueText(v, names) {
  if (v === null || v === undefined) return "—";
  if (isCard(v)) return cardShort(v);
  if (Array.isArray(v)) return v.map((x) => valueText(x, names)).join(v.some((x) => x && typeof x === "object") ? "; " : " ");
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

/**
 * Action types listed as many combinations of cards (more than 12 actions
 * of the type, each with a list of card codes under one key, e.g. an écart):
 * type -> that key. They get one form of checkboxes instead of a button each.
 */
export function comboTypes(legal) {
  const out = new Map();
  const byType = new Map();
  for (const a of legal) byType.set(a.type, [...(byType.get(a.type) || []), a]);
  for (const [type, list] of byType) {
    if (list.length <= 12) continue;
    const key = Object.keys(list[0]).find((k) => list.every((a) => Array.isArray(a[k]) && a[k].every((c) => typeof c === "string")));
    if (key) out.set(type, key);
  }
  return out;
}

function comboForm(type, key, list, ctx, L) {
  const form = document.createElement("form");
  form.className = "choice";
  form.dataset.combo = type;
  const h = document.createElement("p");
  h.textContent = `${words(type)}: ${words(key)} (${list[0][key].length})`;
  form.append(h);
  const cards = [...new Set(list.flatMap((a) => a[key]))];
  const boxes = cards.map((c) => {
    const l = document.createElement("label");
    l.style.display = "inline-block";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = key;
    box.value = c;
    box.setAttribute("aria-label", label(c, ctx.lang));
    l.append(box, " ", cardShort(c));
    form.append(l);
    return box;
  });
  const others = Object.keys(list[0]).filter((k) => k !== "type" && k !== key);
  const selects = others.map((k) => {
    const l = document.createElement("label");
    l.append(words(k) + " ");
    const sel = document.createElement("select");
    sel.name = k;
    const values = [...new Set(list.map((a) => JSON.stringify(a[k])))];
    for (const v of values) {
      const parsed = JSON.parse(v);
      sel.append(new Option(k === "to" || k === "seat" ? (ctx.names[parsed] ?? v) : valueText(parsed, ctx.names), v));
    }
    l.append(sel);
    form.append(l);
    return [k, sel];
  });
  const err = document.createElement("span");
  err.className = "error";
  err.setAttribute("role", "alert");
  const send = document.createElement("button");
  send.type = "submit";
  send.textContent = `${L.send}: ${words(type)}`;
  form.append(send, err);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const picked = boxes.filter((b) => b.checked).map((b) => b.value).sort().join(",");
    const match = list.find((a) => [...a[key]].sort().join(",") === picked &&
      selects.every(([k, sel]) => JSON.stringify(a[k]) === sel.value));
    if (match) ctx.send(match);
    else err.textContent = L.not_legal;
  });
  return form;
}

/** A legal action listed with empty strings (a word to write, e.g. a clue) as a text form. */
function textForm(a, blanks, ctx, L) {
  const form = document.createElement("form");
  form.className = "moves";
  form.dataset.text = a.type;
  const inputs = blanks.map((k) => {
    const l = document.createElement("label");
    l.append(`${words(a.type)}: ${words(k)} `);
    const inp = document.createElement("input");
    inp.name = k;
    inp.required = true;
    l.append(inp);
    form.append(l);
    return inp;
  });
  const b = document.createElement("button");
  b.type = "submit";
  b.dataset.action = a.type;
  b.textContent = `${L.send}: ${words(a.type)}`;
  form.append(b);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    ctx.send({ ...a, ...Object.fromEntries(inputs.map((i) => [i.name, i.value.trim()])) });
  });
  return form;
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
  const combos = comboTypes(legal);
  for (const [type, key] of combos) box.append(comboForm(type, key, legal.filter((a) => a.type === type), ctx, L));
  for (const a of legal) {
    if (combos.has(a.type)) continue;
    const blanks = Object.keys(a).filter((k) => k !== "type" && a[k] === "");
    if (blanks.length) { moves.append(textForm(a, blanks, ctx, L)); continue; } // free text: a word
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
