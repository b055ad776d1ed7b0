// Mau Mau (docs/games/maumau.md): the board, the hand as card buttons, a
// suit picker after a Jack, the "Mau" / "Mau Mau" announcement, draw,
// keep, call-outs, and the log in words.
import { SUITS, SYMBOL, backNode, cardLabel as label, cardNode, cardShort, suitName } from "../cards.js";
import { fill, seatName } from "../i18n.js";

export const title = "Mau Mau";

const W = {
  en: {
    start: "The game starts.", dealt: "Round {0}: {1} deals, {2} turned up.", wish: "{0} wishes {1}.",
    plays: "{0} plays {1}", and_wishes: " and wishes {0}", says: " — “{0}!”", draws: "{0} draws {1}",
    draws_cards: "{0} draws {1}", penalty: " (penalty)", callout_pen: " (called out)", ace_pen: " (ace)",
    reshuffled: "The discard pile is shuffled into the talon.", kept: "{0} keeps the drawn card.",
    called: "{0} calls out {1}, who forgot “{2}”.", scored: "Round {0} is over: {1}.", won: "{0} goes out",
    blocked: "blocked round", ended: "The game is over: {0} wins.", timed_out: "{0}'s clock ran out: a stand-in plays.",
    returned: "{0} is back.", left: "{0} left the table: a bot plays the seat.", cards_n: "{0} cards", card_1: "1 card", discard: "Discard pile", talon: "Talon", wish_is: "Suit to play: {0}",
    penalty_is: "Penalty: draw {0}", round: "Round {0}", totals: "Totals", target: "first to {0} points ends the game",
    hand: "Your hand", draw: "Draw", take_penalty: "Take the penalty ({0} cards)", keep: "Keep the card",
    pick_suit: "Which suit do you wish?", cancel: "Cancel", say: "Say “{0}”", callout: "Call out {0} (“{1}” forgotten)",
    points: "{0} points", talon_n: "{0} cards", skipped: "Skipped: {0}", window: "{0} forgot to say “{1}”.",
    wish_first: "Name the suit of the first Jack:", hidden_hand: "{0}'s cards",
  },
  fr: {
    start: "La partie commence.", dealt: "Manche {0} : {1} donne, {2} retourné.", wish: "{0} demande {1}.",
    plays: "{0} joue {1}", and_wishes: " et demande {0}", says: " — « {0} ! »", draws: "{0} pioche {1}",
    draws_cards: "{0} pioche {1}", penalty: " (pénalité)", callout_pen: " (dénoncé)", ace_pen: " (as)",
    reshuffled: "La défausse est mélangée sous le talon.", kept: "{0} garde la carte piochée.",
    called: "{0} dénonce {1}, qui a oublié « {2} ».", scored: "Fin de la manche {0} : {1}.", won: "{0} sort",
    blocked: "manche bloquée", ended: "La partie est finie : {0} gagne.", timed_out: "Le temps de {0} est écoulé : un remplaçant joue.",
    returned: "{0} est de retour.", left: "{0} a quitté la table : un robot joue la place.", cards_n: "{0} cartes", card_1: "1 carte", discard: "Défausse", talon: "Talon", wish_is: "Couleur à jouer : {0}",
    penalty_is: "Pénalité : piocher {0}", round: "Manche {0}", totals: "Totaux", target: "la partie finit à {0} points",
    hand: "Votre main", draw: "Piocher", take_penalty: "Prendre la pénalité ({0} cartes)", keep: "Garder la carte",
    pick_suit: "Quelle couleur demandez-vous ?", cancel: "Annuler", say: "Dire « {0} »", callout: "Dénoncer {0} (« {1} » oublié)",
    points: "{0} points", talon_n: "{0} cartes", skipped: "Passé : {0}", window: "{0} a oublié de dire « {1} ».",
    wish_first: "Nommez la couleur du premier valet :", hidden_hand: "Cartes de {0}",
  },
};
const WORD = { mau: "Mau", maumau: "Mau Mau" };

function w(lang, key, ...args) {
  const s = (W[lang] || W.en)[key] ?? W.en[key];
  return fill(s, args, lang);
}

/** "7 of hearts" / "7 de cœur". */
export function cardLabel(code, lang) { return label(code, lang); }


/** A short line under a seat's name: its card count and total. */
export function seatSummary(view, seat, ctx) {
  const obj = Array.isArray(view.seats) ? view.seats.find((x) => x && typeof x === "object" && x.seat === seat) : null;
  const n = view.hand_sizes?.[seat] ?? obj?.cards;
  const parts = [];
  if (n !== undefined && n !== null) parts.push(n === 1 ? w(ctx.lang, "card_1") : w(ctx.lang, "cards_n", n));
  const total = view.totals?.[seat];
  if (total !== undefined) parts.push(w(ctx.lang, "points", total));
  return parts.join(" · ");
}

function pile(title, node) {
  const div = document.createElement("div");
  div.className = "pile";
  const h = document.createElement("span");
  h.textContent = title;
  div.append(node, h);
  return div;
}

/** The discard's top card, the talon, the wished suit, the penalty, the scores. */
export function renderBoard(view, ctx) {
  const L = ctx.lang;
  const box = document.createElement("div");
  box.className = "moves";
  box.append(pile(w(L, "discard"), cardNode(view.discard_top)));
  box.append(pile(w(L, "talon"), backNode(w(L, "talon") + ": " + w(L, "talon_n", view.talon_size))));
  const facts = document.createElement("dl");
  const fact = (k, v) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    facts.append(dt, dd);
  };
  fact(w(L, "round", view.round), w(L, "target", view.target_score));
  if (view.wish) fact("", w(L, "wish_is", `${SYMBOL[view.wish]} ${suitName(view.wish, L)}`));
  if (view.penalty) fact("", w(L, "penalty_is", view.penalty));
  if (view.callout) fact("", w(L, "window", seatName(ctx.names, view.callout.offender), WORD[view.callout.missed]));
  if (view.skipped?.length) fact("", w(L, "skipped", view.skipped.map((s) => seatName(ctx.names, s)).join(", ")));
  box.append(facts);
  return box;
}

function suitPicker(ctx, onPick, titleKey) {
  const div = document.createElement("div");
  div.className = "picker";
  div.setAttribute("role", "group");
  const p = document.createElement("p");
  p.textContent = w(ctx.lang, titleKey);
  p.id = "suit-picker-title";
  div.setAttribute("aria-labelledby", p.id);
  div.append(p);
  for (const s of SUITS) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.suit = s;
    b.className = s === "H" || s === "D" ? "red" : "black";
    b.textContent = `${SYMBOL[s]} ${suitName(s, ctx.lang)}`;
    b.addEventListener("click", () => onPick(s));
    div.append(b);
  }
  return div;
}

/** Your hand as buttons (a playable card is enabled), then draw / keep / call-outs. */
export function renderActions(view, legal, choices, ctx) {
  const L = ctx.lang;
  const box = document.createElement("div");
  const plays = legal.filter((a) => a.type === "play");
  const announce = plays.find((a) => a.announce)?.announce;
  if (ctx.ui.announce === undefined) ctx.ui.announce = false;
  const pick = (candidates, suit) => {
    const want = candidates.filter((a) => (suit ? a.suit === suit : true));
    const said = want.find((a) => Boolean(a.announce) === ctx.ui.announce);
    return said || want[0];
  };
  if (ctx.ui.jack) {
    const jackPlays = plays.filter((a) => a.card === ctx.ui.jack);
    box.append(suitPicker(ctx, (s) => ctx.send(pick(jackPlays, s)), "pick_suit"));
    const c = document.createElement("button");
    c.type = "button";
    c.textContent = w(L, "cancel");
    c.addEventListener("click", () => { delete ctx.ui.jack; ctx.rerender(); });
    box.append(c);
  }
  const wishes = legal.filter((a) => a.type === "wish");
  if (wishes.length) box.append(suitPicker(ctx, (s) => ctx.send(wishes.find((a) => a.suit === s)), "wish_first"));
  const h = document.createElement("h2");
  h.textContent = w(L, "hand");
  box.append(h);
  const hand = document.createElement("div");
  hand.className = "hand";
  hand.id = "hand";
  hand.setAttribute("role", "group");
  hand.setAttribute("aria-label", w(L, "hand"));
  for (const card of view.hand || []) {
    const mine = plays.filter((a) => a.card === card);
    const extra = (mine.length ? "playable" : "") + (view.drawn === card ? " drawn" : "");
    hand.append(cardNode(card, {
      extra,
      disabled: !mine.length,
      onClick: () => {
        if (mine.some((a) => a.suit)) { ctx.ui.jack = card; ctx.rerender(); return; }
        ctx.send(pick(mine));
      },
    }));
  }
  box.append(hand);
  const moves = document.createElement("div");
  moves.className = "moves";
  if (announce) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "toggle";
    b.id = "announce";
    b.setAttribute("aria-pressed", String(ctx.ui.announce));
    b.textContent = w(L, "say", WORD[announce]);
    b.addEventListener("click", () => { ctx.ui.announce = !ctx.ui.announce; ctx.rerender(); });
    moves.append(b);
  }
  for (const a of legal) {
    let text = null;
    if (a.type === "draw") text = view.penalty ? w(L, "take_penalty", view.penalty) : w(L, "draw");
    else if (a.type === "keep") text = w(L, "keep");
    else if (a.type === "callout") text = w(L, "callout", seatName(ctx.names, a.seat), WORD[view.callout?.missed] || "Mau");
    if (!text) continue;
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.type;
    b.textContent = text;
    b.addEventListener("click", () => ctx.send(a));
    moves.append(b);
  }
  box.append(moves);
  return box;
}

/** One log line in words, with the names at the table; null for nothing to say. */
export function describe(e, names, lang) {
  const d = e.data || {};
  const who = e.seat === null || e.seat === undefined ? "" : seatName(names, e.seat);
  switch (e.type) {
    case "GameStarted": {
      const deal = d.deal || {};
      return w(lang, "start") + (deal.upcard ? " " + w(lang, "dealt", deal.round ?? 1, seatName(names, deal.dealer), cardShort(deal.upcard, lang)) : "");
    }
    case "RoundDealt": return w(lang, "dealt", d.round, seatName(names, d.dealer), cardShort(d.upcard, lang));
    case "SuitWished": return w(lang, "wish", who, `${SYMBOL[d.suit]} ${suitName(d.suit, lang)}`);
    case "CardPlayed": {
      let s = w(lang, "plays", who, cardShort(d.card, lang));
      if (d.suit) s += w(lang, "and_wishes", `${SYMBOL[d.suit]} ${suitName(d.suit, lang)}`);
      if (d.announce) s += w(lang, "says", WORD[d.announce]);
      return s;
    }
    case "CardsDrawn": {
      const what = Array.isArray(d.cards) ? d.cards.map((c) => cardShort(c, lang)).join(" ") || "0" : String(d.count ?? "?");
      const why = { penalty: "penalty", callout: "callout_pen", ace: "ace_pen" }[d.reason];
      return w(lang, "draws", who, what) + (why ? w(lang, why) : "");
    }
    case "TalonReshuffled": return w(lang, "reshuffled");
    case "DrawnCardKept": return w(lang, "kept", who);
    case "CalledOut": return w(lang, "called", who, seatName(names, d.offender), WORD[d.missed] || d.missed);
    case "RoundScored": {
      const pts = (d.points || []).map((p, i) => (p === null ? null : `${seatName(names, i)} ${p}`)).filter(Boolean).join(", ");
      const head = d.winner === null || d.winner === undefined ? w(lang, "blocked") : w(lang, "won", seatName(names, d.winner));
      return w(lang, "scored", d.round, `${head} — ${pts}`);
    }
    case "GameEnded": return w(lang, "ended", (d.winners || []).map((s) => seatName(names, s)).join(", "));
    case "TurnTimedOut": return w(lang, "timed_out", seatName(names, d.seat ?? e.seat));
    case "SeatReturned": return w(lang, "returned", seatName(names, d.seat ?? e.seat));
    case "SeatLeft": return w(lang, "left", seatName(names, d.seat ?? e.seat));
    default: return e.type;
  }
}
