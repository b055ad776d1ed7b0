// Maudix (docs/games/maudix.md): the contract and phase, the trick on the
// table (who led, each seat's card), tricks won, the écart picked on the
// hand (3 cards, then the recipient), a click on a card to play it (or hand
// it back after a theft), designations, bids and the Voleur as buttons, and
// the log in words.
import { SYMBOL, cardLabel as frenchLabel, cardNode, cardShort, suitName } from "../cards.js";
import { fill, seatName } from "../i18n.js";

export const title = "Maudix";

const W = {
  en: {
    start: "The game starts.", dealt: "Round {0} ({1}): {2} deals.", ecart_made: "{0} passes an écart to {1}",
    ecart_cards: ": {0}", exchanged: "The écarts change hands.",
    designated_log: "{0} has designated.", designated_as: "{0} designates {1}.", revealed: "Designations: {0}.",
    bid_log: "{0} bids {1}.", plays: "{0} plays {1}.", trick_won: "{0} wins trick {1} with {2}.",
    theft: "{0} steals the {2} {1} from {3}.", declined: "{0} lets the Voleur go.",
    failed: "{0} has no {1}: the theft fails.", stolen: "{0} takes {1} from {2}.", stolen_hidden: "{0} takes a card from {1}.",
    returned_card: "{0} hands {1} back to {2}.", returned_hidden: "{0} hands a card back to {1}.",
    scored: "Round {0} ({1}) is over: {2}.", ended: "The game is over: {0} wins.",
    timed_out: "{0}'s clock ran out: a stand-in plays.", seat_back: "{0} is back.", seat_left: "{0} left the table: a bot plays the seat.",
    lowest: "lowest", highest: "highest", cards_n: "{0} cards", card_1: "1 card", tricks_n: "{0} tricks", trick_1: "1 trick",
    points: "{0} points", bid_is: "bid {0}", round: "Round {0} of {1}", dealer: "Dealer: {0}", phase: "Now: {0}",
    trick: "The trick", led_by: "{0} led", led_suit: "Led suit", no_trick: "No card on the table yet.",
    trick_no: "Trick {0} of {1}", last_winner: "Last trick won by", ecarts: "Écarts", my_sent: "You passed {0} to {1}",
    my_received: "You received {0} from {1}", designations: "Designations", bids: "Bids", theft_is: "{0} steals from {1}: the {3} {2}",
    hand: "Your hand", ecart_pick: "Your écart: pick 3 cards of your hand ({0}/3).", ecart_to: "Give these 3 cards to:",
    give_to: "Give to {0}", clear: "Start again", designate: "Designate {0}", bid: "Bid {0}",
    bid_title: "How many tricks will you take?", designate_title: "Which opponent do you designate?",
    voleur_title: "You are the Voleur: steal a card, or let it go.", steal: "Steal the {1} {0} of {2}", decline: "No theft",
    give_back_title: "Hand back a card of {0}: click it in your hand.", play_title: "Click a card to play it.",
    selected: "selected", pirate: "Pirate (joker)", naufrage: "Naufragé (joker)", pirate_s: "Pirate", naufrage_s: "Naufragé",
    nobody: "nobody", hidden_choice: "chosen", waiting: "waiting",
    ph: { ecart: "the écart", designate: "designations", bid: "bids", play: "trick play", steal: "the Voleur",
      give_back: "the Voleur hands a card back", over: "the game is over" },
    contract: { plis: "Les Plis (each trick costs)", dames: "Les Dames (each queen costs)", tetes: "Les Têtes (jacks, queens, kings and aces cost)",
      association: "L'Association (designate a partner)", chasse: "La Chasse (each suit you take nothing of costs)",
      prediction: "La Prédiction (bid your tricks)", maudix: "Maudix (the tens cost, and taint the next trick)" },
  },
  fr: {
    start: "La partie commence.", dealt: "Manche {0} ({1}) : {2} donne.", ecart_made: "{0} passe un écart à {1}",
    ecart_cards: " : {0}", exchanged: "Les écarts changent de main.",
    designated_log: "{0} a désigné.", designated_as: "{0} désigne {1}.", revealed: "Désignations : {0}.",
    bid_log: "{0} annonce {1}.", plays: "{0} joue {1}.", trick_won: "{0} remporte le pli {1} avec {2}.",
    theft: "{0} vole la carte de {1} la plus {2} à {3}.", declined: "{0} renonce au Voleur.",
    failed: "{0} n’a pas de {1} : le vol échoue.", stolen: "{0} prend {1} à {2}.", stolen_hidden: "{0} prend une carte à {1}.",
    returned_card: "{0} rend {1} à {2}.", returned_hidden: "{0} rend une carte à {1}.",
    scored: "Fin de la manche {0} ({1}) : {2}.", ended: "La partie est finie : {0} gagne.",
    timed_out: "Le temps de {0} est écoulé : un remplaçant joue.", seat_back: "{0} est de retour.", seat_left: "{0} a quitté la table : un robot joue la place.",
    lowest: "basse", highest: "haute", cards_n: "{0} cartes", card_1: "1 carte", tricks_n: "{0} plis", trick_1: "1 pli",
    points: "{0} points", bid_is: "annonce {0}", round: "Manche {0} sur {1}", dealer: "Donneur : {0}", phase: "En cours : {0}",
    trick: "Le pli", led_by: "{0} a entamé", led_suit: "Couleur demandée", no_trick: "Aucune carte sur la table.",
    trick_no: "Pli {0} sur {1}", last_winner: "Dernier pli remporté par", ecarts: "Écarts", my_sent: "Vous avez passé {0} à {1}",
    my_received: "Vous avez reçu {0} de {1}", designations: "Désignations", bids: "Annonces", theft_is: "{0} vole {1} : sa carte de {2} la plus {3}",
    hand: "Votre main", ecart_pick: "Votre écart : choisissez 3 cartes de votre main ({0}/3).", ecart_to: "Donner ces 3 cartes à :",
    give_to: "Donner à {0}", clear: "Recommencer", designate: "Désigner {0}", bid: "Annoncer {0}",
    bid_title: "Combien de plis ferez-vous ?", designate_title: "Quel adversaire désignez-vous ?",
    voleur_title: "Vous êtes le Voleur : volez une carte, ou renoncez.", steal: "Voler la carte de {0} la plus {1} à {2}", decline: "Pas de vol",
    give_back_title: "Rendez une carte de {0} : cliquez-la dans votre main.", play_title: "Cliquez une carte pour la jouer.",
    selected: "choisie", pirate: "Pirate (joker)", naufrage: "Naufragé (joker)", pirate_s: "Pirate", naufrage_s: "Naufragé",
    nobody: "personne", hidden_choice: "fait", waiting: "en attente",
    ph: { ecart: "l’écart", designate: "les désignations", bid: "les annonces", play: "le jeu des plis", steal: "le Voleur",
      give_back: "le Voleur rend une carte", over: "la partie est finie" },
    contract: { plis: "Les Plis (chaque pli coûte)", dames: "Les Dames (chaque dame coûte)", tetes: "Les Têtes (valets, dames, rois et as coûtent)",
      association: "L'Association (désigner un partenaire)", chasse: "La Chasse (chaque couleur non prise coûte)",
      prediction: "La Prédiction (annoncer ses plis)", maudix: "Maudix (les 10 coûtent et contaminent le pli suivant)" },
  },
};
const JOKERS = { PIRATE: ["pirate", "pirate_s", "☠"], NAUFRAGE: ["naufrage", "naufrage_s", "⚓"] };

function words(lang) { return W[lang] || W.en; }
function w(lang, key, ...args) {
  const s = words(lang)[key] ?? W.en[key];
  return fill(s, args, lang);
}
function contractName(c, lang) { return words(lang).contract[c] || c; }

/** "7 of hearts" / "7 de cœur", "Pirate (joker)". */
export function cardLabel(code, lang) {
  const j = JOKERS[code];
  return j ? w(lang, j[0]) : frenchLabel(code, lang);
}

function short(code, lang) {
  const j = JOKERS[code];
  return j ? `${j[2]} ${w(lang, j[1])}` : cardShort(code, lang);
}

function suitText(s, lang) { return s ? `${SYMBOL[s]} ${suitName(s, lang)}` : "—"; }

/** A card element with its label; a joker shows its symbol and name. */
function card(code, lang, opts = {}) {
  const el = cardNode(code, { ...opts, label: (c) => cardLabel(c, lang) });
  const j = JOKERS[code];
  if (j) {
    el.classList.add("maudix-joker");
    const span = el.querySelector("span");
    span.textContent = `${j[2]} ${w(lang, j[1])}`;
  }
  return el;
}

/** Cards in hand, tricks won, total points, and a bid when there is one. */
export function seatSummary(view, seat, ctx) {
  const L = ctx.lang;
  const parts = [];
  const n = view.hand_sizes?.[seat];
  if (n !== undefined && n !== null) parts.push(n === 1 ? w(L, "card_1") : w(L, "cards_n", n));
  const t = view.tricks_won?.[seat];
  if (t !== undefined) parts.push(t === 1 ? w(L, "trick_1") : w(L, "tricks_n", t));
  if (view.bids?.[seat] !== null && view.bids?.[seat] !== undefined) parts.push(w(L, "bid_is", view.bids[seat]));
  const total = view.totals?.[seat];
  if (total !== undefined) parts.push(w(L, "points", total));
  return parts.join(" · ");
}

function facts() {
  const dl = document.createElement("dl");
  const add = (k, v) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    if (typeof v === "string") dd.textContent = v;
    else dd.append(v);
    dl.append(dt, dd);
    return dd;
  };
  return { dl, add };
}

/** Round and contract, the phase, the trick on the table, écarts, designations, bids, a theft. */
export function renderBoard(view, ctx) {
  const L = ctx.lang;
  const names = ctx.names;
  const box = document.createElement("div");
  box.className = "maudix-board";
  const f = facts();
  f.add(w(L, "round", view.round, view.rounds), contractName(view.contract, L));
  f.add(w(L, "dealer", seatName(names, view.dealer)), w(L, "phase", words(L).ph[view.phase] || view.phase));
  box.append(f.dl);
  // The trick: one pile per card played, named by its seat, the leader first.
  const h = document.createElement("h3");
  h.textContent = `${w(L, "trick")} — ${w(L, "trick_no", Math.min(view.tricks_played + 1, view.tricks_total), view.tricks_total)}`;
  box.append(h);
  const trick = document.createElement("div");
  trick.className = "moves maudix-trick";
  trick.id = "trick";
  if (!view.trick?.length) {
    const p = document.createElement("p");
    p.textContent = w(L, "no_trick");
    trick.append(p);
  }
  (view.trick || []).forEach((t, i) => {
    const div = document.createElement("div");
    div.className = "pile";
    div.dataset.seat = t.seat;
    const name = document.createElement("span");
    name.textContent = i === 0 ? w(L, "led_by", seatName(names, t.seat)) : seatName(names, t.seat);
    div.append(card(t.card, L), name);
    trick.append(div);
  });
  box.append(trick);
  const g = facts();
  if (view.led_suit) g.add(w(L, "led_suit"), suitText(view.led_suit, L));
  if (view.last_trick_winner !== null && view.last_trick_winner !== undefined) {
    g.add(w(L, "last_winner"), seatName(names, view.last_trick_winner));
  }
  if (view.ecarts?.length) {
    g.add(w(L, "ecarts"), view.ecarts.map((e) => `${seatName(names, e.from)} → ${seatName(names, e.to)}`).join(", "));
  }
  const mine = view.my_ecart;
  if (mine?.cards) g.add("", w(L, "my_sent", mine.cards.map((c) => short(c, L)).join(" "), seatName(names, mine.to)));
  if (mine?.received) g.add("", w(L, "my_received", mine.received.map((c) => short(c, L)).join(" "), seatName(names, mine.from)));
  if (view.contract === "association" && view.designated?.some(Boolean)) {
    g.add(w(L, "designations"), view.designated.map((done, s) => {
      const target = view.designations?.[s];
      const what = target !== null && target !== undefined ? seatName(names, target) : (done ? w(L, "hidden_choice") : w(L, "waiting"));
      return `${seatName(names, s)} → ${what}`;
    }).join(", "));
  }
  if (view.bids?.some((b) => b !== null)) {
    g.add(w(L, "bids"), view.bids.map((b, s) => `${seatName(names, s)} ${b ?? "…"}`).join(", "));
  }
  if (view.theft) {
    const th = view.theft;
    const dd = g.add("", th.target === null || th.target === undefined ? seatName(names, th.thief)
      : w(L, "theft_is", seatName(names, th.thief), seatName(names, th.target), suitText(th.suit, L), w(L, th.end === "low" ? "lowest" : "highest")));
    if (th.card) dd.append(" — ", card(th.card, L));
  }
  box.append(g.dl);
  return box;
}

function buttonRow(titleText) {
  const div = document.createElement("div");
  div.className = "picker";
  div.setAttribute("role", "group");
  const p = document.createElement("p");
  p.textContent = titleText;
  div.append(p);
  return div;
}

function actionButton(text, action, ctx, extra = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.action = action.type;
  for (const [k, v] of Object.entries(extra)) b.dataset[k] = v;
  b.textContent = text;
  b.addEventListener("click", () => ctx.send(action));
  return b;
}

/** The écart's recipients: the choice's schema `to` enum, or those of listed écart actions. */
function ecartRecipients(choice, legal) {
  const to = choice?.schema?.properties?.to;
  if (to && Array.isArray(to.enum)) return to.enum;
  return [...new Set(legal.filter((a) => a.type === "ecart").map((a) => a.to))];
}

/** The hand as buttons: the écart pick, a play, or a card to hand back; then the other moves as buttons. */
export function renderActions(view, legal, choices, ctx) {
  const L = ctx.lang;
  const names = ctx.names;
  const box = document.createElement("div");
  const hand = view.hand || [];
  const ecartChoice = (choices || []).find((c) => c.type === "ecart");
  const ecartOpen = Boolean(ecartChoice) || legal.some((a) => a.type === "ecart");
  const plays = legal.filter((a) => a.type === "play");
  const backs = legal.filter((a) => a.type === "give_back");
  if (ecartOpen) {
    // picked cards by their place in the hand: with two decks a code may be held twice
    if (!Array.isArray(ctx.ui.ecart) || ctx.ui.ecart.some((i) => i >= hand.length)) ctx.ui.ecart = [];
  }
  const picked = ecartOpen ? ctx.ui.ecart : [];
  const head = document.createElement("h2");
  head.textContent = w(L, "hand");
  box.append(head);
  const p = document.createElement("p");
  p.id = "hand-hint";
  if (ecartOpen) p.textContent = w(L, "ecart_pick", picked.length);
  else if (plays.length) p.textContent = w(L, "play_title");
  else if (backs.length) p.textContent = w(L, "give_back_title", suitText(view.theft?.suit, L));
  if (p.textContent) box.append(p);
  const row = document.createElement("div");
  row.className = "hand";
  row.id = "hand";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", w(L, "hand"));
  row.dataset.mode = ecartOpen ? "ecart" : plays.length ? "play" : backs.length ? "give_back" : "";
  hand.forEach((code, i) => {
    if (ecartOpen) {
      const on = picked.includes(i);
      const el = card(code, L, {
        extra: "playable" + (on ? " picked" : ""),
        disabled: !on && picked.length >= 3,
        onClick: () => {
          ctx.ui.ecart = on ? picked.filter((x) => x !== i) : [...picked, i];
          ctx.rerender();
        },
      });
      el.setAttribute("aria-pressed", String(on));
      row.append(el);
      return;
    }
    const mine = plays.find((a) => a.card === code) || backs.find((a) => a.card === code);
    row.append(card(code, L, { extra: mine ? "playable" : "", disabled: !mine, onClick: () => ctx.send(mine) }));
  });
  box.append(row);
  if (ecartOpen && picked.length === 3) {
    const cards = picked.map((i) => hand[i]);
    const pick = buttonRow(w(L, "ecart_to"));
    pick.id = "ecart-to";
    for (const r of ecartRecipients(ecartChoice, legal)) {
      pick.append(actionButton(w(L, "give_to", seatName(names, r)), { type: "ecart", cards, to: r }, ctx, { to: String(r) }));
    }
    box.append(pick);
  }
  if (ecartOpen && picked.length) {
    const c = document.createElement("button");
    c.type = "button";
    c.id = "ecart-clear";
    c.textContent = w(L, "clear");
    c.addEventListener("click", () => { ctx.ui.ecart = []; ctx.rerender(); });
    box.append(c);
  }
  const designs = legal.filter((a) => a.type === "designate");
  if (designs.length) {
    const div = buttonRow(w(L, "designate_title"));
    div.classList.add("moves");
    for (const a of designs) div.append(actionButton(w(L, "designate", seatName(names, a.target)), a, ctx));
    box.append(div);
  }
  const bids = legal.filter((a) => a.type === "bid");
  if (bids.length) {
    const div = buttonRow(w(L, "bid_title"));
    div.classList.add("moves");
    for (const a of bids) div.append(actionButton(w(L, "bid", a.tricks), a, ctx));
    box.append(div);
  }
  const steals = legal.filter((a) => a.type === "steal");
  const decline = legal.find((a) => a.type === "decline");
  if (steals.length || decline) {
    const div = buttonRow(w(L, "voleur_title"));
    div.classList.add("moves");
    if (decline) div.append(actionButton(w(L, "decline"), decline, ctx));
    for (const a of steals) {
      const text = w(L, "steal", suitText(a.suit, L), w(L, a.end === "low" ? "lowest" : "highest"), seatName(names, a.target));
      div.append(actionButton(text, a, ctx));
    }
    box.append(div);
  }
  return box;
}

function cardsText(cards, lang) { return (cards || []).map((c) => short(c, lang)).join(" "); }

/** One log line in words, with the names at the table. */
export function describe(e, names, lang) {
  const d = e.data || {};
  const who = e.seat === null || e.seat === undefined ? "" : seatName(names, e.seat);
  switch (e.type) {
    case "GameStarted": return w(lang, "start") + " " + w(lang, "dealt", d.round ?? 1, contractName(d.contract, lang), seatName(names, d.dealer));
    case "RoundDealt": return w(lang, "dealt", d.round, contractName(d.contract, lang), seatName(names, d.dealer));
    case "EcartMade": return w(lang, "ecart_made", who, seatName(names, d.to)) + (d.cards ? w(lang, "ecart_cards", cardsText(d.cards, lang)) : "") + ".";
    case "EcartsExchanged": {
      let s = w(lang, "exchanged");
      for (const [from, to, cards] of d.passes || []) {
        if (cards) s += ` ${seatName(names, from)} → ${seatName(names, to)}: ${cardsText(cards, lang)}.`;
      }
      return s;
    }
    case "DesignationMade": return d.target === undefined || d.target === null
      ? w(lang, "designated_log", who) : w(lang, "designated_as", who, seatName(names, d.target));
    case "DesignationsRevealed": return w(lang, "revealed", (d.targets || []).map((t, s) => `${seatName(names, s)} → ${seatName(names, t)}`).join(", "));
    case "BidMade": return w(lang, "bid_log", who, d.tricks);
    case "CardPlayed": return w(lang, "plays", who, short(d.card, lang));
    case "TrickWon": return w(lang, "trick_won", seatName(names, d.winner), d.trick, short(d.card, lang));
    case "TheftAnnounced": return w(lang, "theft", who, suitText(d.suit, lang), w(lang, d.end === "low" ? "lowest" : "highest"), seatName(names, d.target));
    case "TheftDeclined": return w(lang, "declined", who);
    case "TheftFailed": return w(lang, "failed", who, suitText(d.suit, lang));
    case "CardStolen": return d.card ? w(lang, "stolen", who, short(d.card, lang), seatName(names, d.target)) : w(lang, "stolen_hidden", who, seatName(names, d.target));
    case "CardReturned": return d.card ? w(lang, "returned_card", who, short(d.card, lang), seatName(names, d.target)) : w(lang, "returned_hidden", who, seatName(names, d.target));
    case "RoundScored": {
      const pts = (d.points || []).map((p, i) => `${seatName(names, i)} ${p}`).join(", ");
      return w(lang, "scored", d.round, contractName(d.contract, lang), pts);
    }
    case "GameEnded": {
      const places = d.places || [];
      return w(lang, "ended", places.map((p, s) => (p === 1 ? seatName(names, s) : null)).filter(Boolean).join(", ") || w(lang, "nobody"));
    }
    case "TurnTimedOut": return w(lang, "timed_out", seatName(names, d.seat ?? e.seat));
    case "SeatReturned": return w(lang, "seat_back", seatName(names, d.seat ?? e.seat));
    case "SeatLeft": return w(lang, "seat_left", seatName(names, d.seat ?? e.seat));
    default: return e.type;
  }
}
