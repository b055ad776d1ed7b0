// French-suited cards ("10H", "QS", "AC"): symbol, colour and rank text,
// and a spoken label ("7 of hearts" / "7 de cœur") on every card element.
import { lang } from "./i18n.js";

export const SUITS = ["S", "H", "D", "C"];
export const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAME = {
  en: { S: "spades", H: "hearts", D: "diamonds", C: "clubs" },
  fr: { S: "pique", H: "cœur", D: "carreau", C: "trèfle" },
};
const RANK_NAME = {
  en: { J: "jack", Q: "queen", K: "king", A: "ace" },
  fr: { J: "valet", Q: "dame", K: "roi", A: "as" },
};
const RANK_SHORT = { en: { J: "J", Q: "Q", K: "K", A: "A" }, fr: { J: "V", Q: "D", K: "R", A: "A" } };
const CARD_RE = /^(10|[2-9JQKA])([SHDC])$/;

/** `{rank, suit}` of a French card code, or null for any other code. */
export function parseCard(code) {
  const m = CARD_RE.exec(String(code));
  return m ? { rank: m[1], suit: m[2] } : null;
}

/** The suit's name ("hearts" / "cœur"). */
export function suitName(suit, l = lang) { return SUIT_NAME[l][suit] || suit; }

/** "7 of hearts" / "7 de cœur"; other codes as they are, lower-cased words. */
export function cardLabel(code, l = lang) {
  const c = parseCard(code);
  if (!c) return String(code).replace(/_/g, " ").toLowerCase();
  const rank = RANK_NAME[l][c.rank] || c.rank;
  return l === "fr" ? `${rank} de ${SUIT_NAME.fr[c.suit]}` : `${rank} of ${SUIT_NAME.en[c.suit]}`;
}

/** Short text: "7♥", "V♠" in French. */
export function cardShort(code, l = lang) {
  const c = parseCard(code);
  if (!c) return String(code);
  return (RANK_SHORT[l][c.rank] || c.rank) + SYMBOL[c.suit];
}

function colour(suit) { return suit === "H" || suit === "D" ? "red" : "black"; }

/**
 * A card element: a <button> when `onClick` is given (keyboard usable),
 * else a <span role="img">; always with its aria-label.
 */
export function cardNode(code, { onClick, disabled = false, label = cardLabel, extra = "" } = {}) {
  const el = document.createElement(onClick ? "button" : "span");
  const c = parseCard(code);
  el.className = "card " + (c ? colour(c.suit) : "plain") + (extra ? " " + extra : "");
  el.dataset.card = code;
  el.setAttribute("aria-label", label(code));
  if (!onClick) el.setAttribute("role", "img");
  if (c) {
    const r = document.createElement("span");
    r.className = "rank";
    r.textContent = RANK_SHORT[lang][c.rank] || c.rank;
    const s = document.createElement("span");
    s.className = "suit";
    s.textContent = SYMBOL[c.suit];
    r.setAttribute("aria-hidden", "true");
    s.setAttribute("aria-hidden", "true");
    el.append(r, s);
  } else {
    const r = document.createElement("span");
    r.setAttribute("aria-hidden", "true");
    r.textContent = String(code);
    el.append(r);
  }
  if (onClick) {
    el.type = "button";
    el.disabled = disabled;
    el.addEventListener("click", onClick);
  }
  return el;
}

/** A card's back (a count of hidden cards), labelled. */
export function backNode(label) {
  const el = document.createElement("span");
  el.className = "card back";
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", label);
  return el;
}

/** A card inside a sentence: "7♥" coloured, with the full label for screen readers. */
export function inlineCard(code) {
  const el = document.createElement("span");
  const c = parseCard(code);
  el.className = "inline-card" + (c && colour(c.suit) === "red" ? " red" : "");
  el.textContent = cardShort(code);
  el.title = cardLabel(code);
  el.dataset.card = code;
  return el;
}
