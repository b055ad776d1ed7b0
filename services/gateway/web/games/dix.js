// DIX (docs/games/dix.md): its own cards drawn with text (colour name and
// number, colour jokers "#", numbered jokers "★", currency "$"), the
// tableau and its total, the auction, the debt being paid, the market, each
// seat's tokens, consolation tokens, collection and score; flip / stop,
// bids and pass, payments and buys as buttons; the log in words.
import { fill, seatName } from "../i18n.js";
export const title = "DIX";

const W = {
  en: {
    colour: { R: "red", Y: "yellow", G: "green", B: "blue" }, colour_short: { R: "red", Y: "yel", G: "grn", B: "blu" },
    number_card: "{0} {1}", colour_joker: "{0} joker (any number)", number_joker: "joker {0} (any colour)", currency: "currency {0}",
    start: "The game starts: {0} plays first.", flipped: "{0} flips {1}.", busted_total: "{0} busts: the total passes 10.",
    busted_currency: "{0} busts: the currency reaches 11.", numbers_taken: "{0} takes {1}.", currency_taken: "{0} takes the currency: {1} {1|token|tokens}.",
    bid_log: "{0} bids {1}.", bid_passed: "{0} passes.", auction_won: "{0} wins {1} for {2}.", joker_taken: "{0} takes {1} for {2}.",
    joker_discarded: "{1} is discarded.", bought: "{0} buys {1} for {2}.", tokens_paid: "{0} pays {1} {1|token|tokens}.",
    consolation_paid: "{0} pays a consolation token.", card_paid: "{0} pays with {1}.", buy_passed: "{0} buys nothing.",
    turn_ended: "{0}'s turn.", final_round: "The deck is empty: last buys, {0}.", ended: "The game is over.", paid_others: " Tokens to {0}.",
    timed_out: "{0}'s clock ran out: a stand-in plays.", seat_back: "{0} is back.", seat_left: "{0} left the table: a bot plays the seat.",
    tokens: "{0} tokens", token_1: "1 token", consolation: "{0} consolation", points: "{0} points", nothing: "nothing",
    deck: "Deck", deck_n: "{0} cards", tableau: "Tableau", total: "Total {0}", currency_sum: "currency {0}", market: "Market",
    discard: "Discard pile", removed: "Out of the game", bank: "Bank: {0} tokens", empty: "empty", phase: "Now: {0}", turn_of: "{0}'s turn",
    auction: "Auction for {0}", high: "highest bid: {0} by {1}", no_bid: "no bid yet", next: "to speak: {0}",
    debt: "{0} pays {1} more for {2}", collection: "{0}: {1}, {2} consolation, {3} points", collections: "Tables of the players",
    flip: "Flip a card", take_numbers: "Stop: take the numbers", take_currency: "Stop: take the currency ({0})",
    bid: "Bid {0}", pass: "Pass", take_joker: "Take the joker", pay_tokens: "Pay {0} tokens", pay_token: "Pay 1 token",
    pay_consolation: "Pay a consolation token", pay_card: "Pay with {0}", buy: "Buy {0} for {1}", no_buy: "Buy nothing",
    bid_title: "Your bid for {0}:", pay_title: "You owe {0}:", buy_title: "Buy a card from the market?",
    ph: { turn: "flip or stop", auction: "an auction", joker_offer: "a joker on offer", payment: "a payment", buy: "a buy",
      final_buy: "the last buys", over: "the game is over" },
  },
  fr: {
    colour: { R: "rouge", Y: "jaune", G: "vert", B: "bleu" }, colour_short: { R: "rou", Y: "jau", G: "ver", B: "ble" },
    number_card: "{1} {0}", colour_joker: "joker {0} (tout nombre)", number_joker: "joker {0} (toute couleur)", currency: "monnaie {0}",
    start: "La partie commence : {0} joue en premier.", flipped: "{0} retourne {1}.", busted_total: "{0} saute : le total dépasse 10.",
    busted_currency: "{0} saute : la monnaie atteint 11.", numbers_taken: "{0} prend {1}.", currency_taken: "{0} prend la monnaie : {1} {1|jeton|jetons}.",
    bid_log: "{0} enchérit {1}.", bid_passed: "{0} passe.", auction_won: "{0} remporte {1} pour {2}.", joker_taken: "{0} prend {1} pour {2}.",
    joker_discarded: "{1} est défaussé.", bought: "{0} achète {1} pour {2}.", tokens_paid: "{0} paie {1} {1|jeton|jetons}.",
    consolation_paid: "{0} paie un jeton de consolation.", card_paid: "{0} paie avec {1}.", buy_passed: "{0} n’achète rien.",
    turn_ended: "Au tour de {0}.", final_round: "Le paquet est vide : derniers achats, {0}.", ended: "La partie est finie.", paid_others: " Jetons pour {0}.",
    timed_out: "Le temps de {0} est écoulé : un remplaçant joue.", seat_back: "{0} est de retour.", seat_left: "{0} a quitté la table : un robot joue la place.",
    tokens: "{0} jetons", token_1: "1 jeton", consolation: "{0} consolation", points: "{0} points", nothing: "rien",
    deck: "Paquet", deck_n: "{0} cartes", tableau: "Tableau", total: "Total {0}", currency_sum: "monnaie {0}", market: "Marché",
    discard: "Défausse", removed: "Hors jeu", bank: "Banque : {0} jetons", empty: "vide", phase: "En cours : {0}", turn_of: "Tour de {0}",
    auction: "Enchère pour {0}", high: "meilleure offre : {0} par {1}", no_bid: "pas encore d’offre", next: "à parler : {0}",
    debt: "{0} doit encore {1} pour {2}", collection: "{0} : {1}, {2} consolation, {3} points", collections: "Jeux des joueurs",
    flip: "Retourner une carte", take_numbers: "S’arrêter : prendre les nombres", take_currency: "S’arrêter : prendre la monnaie ({0})",
    bid: "Enchérir {0}", pass: "Passer", take_joker: "Prendre le joker", pay_tokens: "Payer {0} jetons", pay_token: "Payer 1 jeton",
    pay_consolation: "Payer un jeton de consolation", pay_card: "Payer avec {0}", buy: "Acheter {0} pour {1}", no_buy: "Ne rien acheter",
    bid_title: "Votre offre pour {0} :", pay_title: "Vous devez {0} :", buy_title: "Acheter une carte du marché ?",
    ph: { turn: "retourner ou s’arrêter", auction: "une enchère", joker_offer: "un joker proposé", payment: "un paiement", buy: "un achat",
      final_buy: "les derniers achats", over: "la partie est finie" },
  },
};

function words(lang) { return W[lang] || W.en; }
function w(lang, key, ...args) {
  const s = words(lang)[key] ?? W.en[key];
  return fill(s, args, lang);
}

/** What a code is: {kind, colour, number, value}, or null for an unknown code. */
function parse(code) {
  const m = /^([RYGB])([1-9#])$/.exec(code);
  if (m) return m[2] === "#" ? { kind: "colour_joker", colour: m[1] } : { kind: "number", colour: m[1], number: Number(m[2]) };
  const j = /^\*([1-9])$/.exec(code);
  if (j) return { kind: "number_joker", number: Number(j[1]) };
  const c = /^\$([1-5])$/.exec(code);
  if (c) return { kind: "currency", value: Number(c[1]) };
  return null;
}

/** "red 7" / "7 rouge", "green joker (any number)", "joker 4 (any colour)", "currency 3". */
export function cardLabel(code, lang) {
  const c = parse(code);
  if (!c) return String(code);
  const col = c.colour ? words(lang).colour[c.colour] : "";
  if (c.kind === "number") return w(lang, "number_card", col, c.number);
  if (c.kind === "colour_joker") return w(lang, "colour_joker", col);
  if (c.kind === "number_joker") return w(lang, "number_joker", c.number);
  return w(lang, "currency", c.value);
}

/** Short text in a sentence: "7 red", "# green", "★4", "$3". */
function short(code, lang) {
  const c = parse(code);
  if (!c) return String(code);
  if (c.kind === "number") return `${c.number} ${words(lang).colour[c.colour]}`;
  if (c.kind === "colour_joker") return `# ${words(lang).colour[c.colour]}`;
  if (c.kind === "number_joker") return `★${c.number}`;
  return `$${c.value}`;
}

/** A card: its big sign (number, #, ★n, $n) and its colour's name in words, labelled. */
function card(code, lang) {
  const c = parse(code);
  const el = document.createElement("span");
  el.setAttribute("role", "img");
  el.className = "card dix-card " + (c ? `dix-${c.kind}` : "plain") + (c?.colour ? ` dix-${c.colour}` : "");
  el.dataset.card = code;
  el.setAttribute("aria-label", cardLabel(code, lang));
  const big = document.createElement("span");
  big.className = "rank";
  big.setAttribute("aria-hidden", "true");
  const small = document.createElement("span");
  small.className = "dix-kind";
  small.setAttribute("aria-hidden", "true");
  if (!c) big.textContent = String(code);
  else if (c.kind === "number") { big.textContent = String(c.number); small.textContent = words(lang).colour_short[c.colour]; }
  else if (c.kind === "colour_joker") { big.textContent = "#"; small.textContent = words(lang).colour_short[c.colour]; }
  else if (c.kind === "number_joker") { big.textContent = `★${c.number}`; small.textContent = "joker"; }
  else { big.textContent = `$${c.value}`; small.textContent = lang === "fr" ? "monnaie" : "cash"; }
  el.append(big, small);
  return el;
}

function cardRow(cards, lang, label, id) {
  const div = document.createElement("div");
  div.className = "hand dix-row";
  if (id) div.id = id;
  div.setAttribute("role", "group");
  div.setAttribute("aria-label", label);
  if (!cards.length) {
    const s = document.createElement("span");
    s.textContent = w(lang, "empty");
    div.append(s);
  }
  for (const c of cards) div.append(card(c, lang));
  return div;
}

function seatObj(view, seat) { return (view.seats || []).find((s) => s && s.seat === seat) || null; }

/** Tokens, consolation tokens and current score. */
export function seatSummary(view, seat, ctx) {
  const s = seatObj(view, seat);
  if (!s) return "";
  const L = ctx.lang;
  const parts = [s.tokens === 1 ? w(L, "token_1") : w(L, "tokens", s.tokens)];
  if (s.consolation) parts.push(w(L, "consolation", s.consolation));
  parts.push(w(L, "points", s.score));
  return parts.join(" · ");
}

function section(titleText, node) {
  const div = document.createElement("section");
  div.className = "dix-zone";
  const h = document.createElement("h3");
  h.textContent = titleText;
  div.append(h, node);
  return div;
}

/** The phase, deck, tableau and total, auction, debt, market, every seat's table, the discard. */
export function renderBoard(view, ctx) {
  const L = ctx.lang;
  const names = ctx.names;
  const box = document.createElement("div");
  box.className = "dix-board";
  const p = document.createElement("p");
  p.id = "dix-status";
  const bits = [w(L, "phase", words(L).ph[view.phase] || view.phase)];
  if (view.turn !== null && view.turn !== undefined) bits.unshift(w(L, "turn_of", seatName(names, view.turn)));
  bits.push(`${w(L, "deck")}: ${w(L, "deck_n", view.talon_size)}`, w(L, "bank", view.bank));
  p.textContent = bits.join(" · ");
  box.append(p);
  const tab = section(`${w(L, "tableau")} — ${w(L, "total", view.total)}, ${w(L, "currency_sum", view.currency)}`,
    cardRow(view.tableau || [], L, w(L, "tableau"), "tableau"));
  box.append(tab);
  if (view.auction) {
    const a = view.auction;
    const div = document.createElement("div");
    div.className = "moves";
    div.id = "auction";
    const txt = document.createElement("span");
    const high = a.high_seat === null || a.high_seat === undefined ? w(L, "no_bid") : w(L, "high", a.high, seatName(names, a.high_seat));
    const nxt = a.next === null || a.next === undefined ? "" : " · " + w(L, "next", seatName(names, a.next));
    txt.textContent = high + nxt;
    div.append(card(a.joker, L), txt);
    box.append(section(w(L, "auction", short(a.joker, L)), div));
  }
  if (view.debt) {
    const d = view.debt;
    const q = document.createElement("p");
    q.id = "debt";
    q.textContent = w(L, "debt", seatName(names, d.seat), d.owed, short(d.item, L));
    box.append(q);
  }
  box.append(section(w(L, "market"), cardRow(view.market || [], L, w(L, "market"), "market")));
  const seats = document.createElement("div");
  seats.className = "dix-seats";
  for (const s of view.seats || []) {
    const div = document.createElement("div");
    div.className = "dix-seat";
    div.dataset.seat = s.seat;
    const h = document.createElement("p");
    h.textContent = w(L, "collection", seatName(names, s.seat), s.tokens === 1 ? w(L, "token_1") : w(L, "tokens", s.tokens), s.consolation, s.score);
    div.append(h, cardRow(s.collection || [], L, seatName(names, s.seat)));
    seats.append(div);
  }
  box.append(section(w(L, "collections"), seats));
  for (const [key, cards] of [["discard", view.discard || []], ["removed", view.removed || []]]) {
    const det = document.createElement("details");
    const sum = document.createElement("summary");
    sum.textContent = `${w(L, key)} (${cards.length})`;
    det.append(sum, cardRow(cards, L, w(L, key)));
    box.append(det);
  }
  return box;
}

function button(text, action, ctx) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.action = action.type;
  if (action.card) b.dataset.card = action.card;
  if (action.amount !== undefined) b.dataset.amount = String(action.amount);
  b.textContent = text;
  b.addEventListener("click", () => ctx.send(action));
  return b;
}

function group(titleText, id) {
  const div = document.createElement("div");
  div.className = "moves picker";
  div.id = id;
  div.setAttribute("role", "group");
  const p = document.createElement("p");
  p.textContent = titleText;
  div.setAttribute("aria-label", titleText);
  div.append(p);
  return div;
}

/** Flip / stop, bid amounts and pass, payments, buys: one labelled button each. */
export function renderActions(view, legal, choices, ctx) {
  const L = ctx.lang;
  const box = document.createElement("div");
  const has = (t) => legal.filter((a) => a.type === t);
  const turn = legal.filter((a) => ["flip", "take_numbers", "take_currency"].includes(a.type));
  if (turn.length) {
    const div = group(`${w(L, "tableau")}: ${w(L, "total", view.total)}, ${w(L, "currency_sum", view.currency)}`, "dix-turn");
    div.dataset.total = String(view.total);
    for (const a of turn) div.append(button(a.type === "take_currency" ? w(L, "take_currency", view.currency) : w(L, a.type), a, ctx));
    box.append(div);
  }
  const pass = legal.find((a) => a.type === "pass");
  if (view.phase === "auction" || view.phase === "joker_offer") {
    const joker = view.auction?.joker;
    const div = group(w(L, "bid_title", joker ? short(joker, L) : ""), "dix-bid");
    for (const a of has("take_joker")) div.append(button(w(L, "take_joker"), a, ctx));
    for (const a of has("bid")) div.append(button(w(L, "bid", a.amount), a, ctx));
    if (pass) div.append(button(w(L, "pass"), pass, ctx));
    if (div.querySelector("button")) box.append(div);
  }
  const pays = legal.filter((a) => a.type.startsWith("pay_"));
  if (pays.length) {
    const d = view.debt;
    const div = group(w(L, "pay_title", d ? `${d.owed} (${short(d.item, L)})` : ""), "dix-pay");
    for (const a of pays) {
      let text = w(L, "pay_consolation");
      if (a.type === "pay_tokens") text = a.count === 1 ? w(L, "pay_token") : w(L, "pay_tokens", a.count);
      else if (a.type === "pay_card") text = w(L, "pay_card", cardLabel(a.card, L));
      div.append(button(text, a, ctx));
    }
    box.append(div);
  }
  const buys = has("buy");
  if (view.phase === "buy" || view.phase === "final_buy") {
    const div = group(w(L, "buy_title"), "dix-buy");
    for (const a of buys) div.append(button(w(L, "buy", cardLabel(a.card, L), parse(a.card)?.number ?? "?"), a, ctx));
    if (pass) div.append(button(w(L, "no_buy"), pass, ctx));
    if (div.querySelector("button")) box.append(div);
  }
  return box;
}

function paidText(paid, names, lang) {
  const got = (paid || []).map((n, s) => (n ? `${seatName(names, s)} ${n}` : null)).filter(Boolean);
  return got.length ? w(lang, "paid_others", got.join(", ")) : "";
}

/** One log line in words, with the names at the table. */
export function describe(e, names, lang) {
  const d = e.data || {};
  const who = e.seat === null || e.seat === undefined ? "" : seatName(names, e.seat);
  const list = (cs) => (cs && cs.length ? cs.map((c) => short(c, lang)).join(", ") : w(lang, "nothing"));
  switch (e.type) {
    case "GameStarted": return w(lang, "start", seatName(names, d.first));
    case "CardFlipped": return w(lang, "flipped", who, short(d.card, lang));
    case "Busted": return w(lang, d.cause === "currency" ? "busted_currency" : "busted_total", who) + paidText(d.paid, names, lang);
    case "NumbersTaken": return w(lang, "numbers_taken", who, list(d.cards)) + paidText(d.paid, names, lang);
    case "CurrencyTaken": return w(lang, "currency_taken", who, d.tokens);
    case "BidMade": return w(lang, "bid_log", who, d.amount);
    case "BidPassed": return w(lang, "bid_passed", who);
    case "AuctionWon": return w(lang, "auction_won", who, short(d.joker, lang), d.price);
    case "JokerTaken": return w(lang, "joker_taken", who, short(d.joker, lang), d.price);
    case "JokerDiscarded": return w(lang, "joker_discarded", who, short(d.joker, lang));
    case "CardBought": return w(lang, "bought", who, short(d.card, lang), d.price);
    case "TokensPaid": return w(lang, "tokens_paid", who, d.count);
    case "ConsolationPaid": return w(lang, "consolation_paid", who);
    case "CardPaid": return w(lang, "card_paid", who, short(d.card, lang));
    case "BuyPassed": return w(lang, "buy_passed", who);
    case "TurnEnded": return w(lang, "turn_ended", seatName(names, d.next));
    case "FinalBuyRoundBegan": return w(lang, "final_round", (d.order || []).map((s) => seatName(names, s)).join(", "));
    case "GameEnded": return w(lang, "ended");
    case "TurnTimedOut": return w(lang, "timed_out", seatName(names, d.seat ?? e.seat));
    case "SeatReturned": return w(lang, "seat_back", seatName(names, d.seat ?? e.seat));
    case "SeatLeft": return w(lang, "seat_left", seatName(names, d.seat ?? e.seat));
    default: return e.type;
  }
}
