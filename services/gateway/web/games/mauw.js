// Mauw (docs/games/mauw.md): its cards drawn with text (a Warrior's value
// and colour name, "✦" Spirit, "★" Joker, a Joker standing for a card, the
// Mauw backs), every player's 4 columns with their points, the talon and
// the discard pile, an attack chain; a card of the hand clicked to play it
// (then where, what a Joker stands for and where the winnings go, as
// buttons when there is a choice), chain replies and the dead hand as
// buttons; the log in words.
import { fill, seatName } from "../i18n.js";
export const title = "Mauw";

const W = {
  en: {
    colour: { R: "red", Y: "yellow", G: "green", B: "blue" }, colour_short: { R: "red", Y: "yel", G: "grn", B: "blu" },
    warrior: "{1} warrior {0}", spirit: "Spirit (0)", joker: "Joker", joker_as: "Joker as {0}", mauw: "Mauw (face down)",
    spirit_s: "spirit", joker_s: "joker", mauw_s: "Mauw",
    start: "The game starts: {0} plays first.", drew: "{0} draws {1}.", drew_n: "{0} draws {1} {1|card|cards}.",
    reshuffled: "The discard pile is shuffled into a new talon ({0} cards).",
    reinforce: "{0} reinforces column {2} with {1}.", associate: "{0} plays {1} on column {2}: an association.",
    block: "{0} blocks column {3} of {2} with {1}.", unblock: "{0} lifts the block of column {2} with {1}.",
    attack: "{0} attacks column {3} of {2} with {1}.",
    pair: "Same value: {0} makes a pair (one face down).", different: "Different values: both go to the discard pile, {0} wins a Mauw.",
    mauw_won: "{0} places a Mauw on column {1}.", mauw_lost: "{0} has no room: the Mauw ({1}) is discarded face up.",
    pair_placed: "{0} places the pair on column {1}.", pair_lost: "{0} has no room: the pair is discarded.",
    defended: "{0} defends with {1}.", continued: "{0} attacks again with {1}.",
    gave_up: "{0} gives up.", gave_up_auto: "{0} has no identical card: gives up.",
    discarded: "{0} cannot play and discards the hand: {1}.", turn: "{0}'s turn.",
    ended_three: "{0} holds three columns of three Mauw and wins.", ended_refill: "The cards ran out: the game ends on points.",
    ended_stalemate: "No Mauw placed for too long: the game ends on points.",
    timed_out: "{0}'s clock ran out: a stand-in plays.", seat_back: "{0} is back.", seat_left: "{0} left the table: a bot plays the seat.",
    cards_n: "{0} {0|card|cards} in hand", points: "{0} points", full: "{0} full {0|column|columns}",
    turn_of: "{0}'s turn", talon: "Talon: {0} cards", discard: "Discard pile: {0} cards", discard_top: "on top:",
    quiet: "{0} {0|turn|turns} without a new Mauw", column: "Column {0}", col_points: "{0} pts", empty: "empty",
    area: "{0} — {1} points", your_area: "{0} (you) — {1} points",
    chain: "{0} attacks column {2} of {1}", chain_card: "attack card:", chain_value: "a {0} (or a Joker) answers it", chain_wait: "waiting for {0}", chain_attacks: "attack cards played: {0}",
    hand: "Your hand", play_title: "Click a card to play it.", chain_title: "Reply with an identical card (or a Joker), or give up.",
    dead_title: "No card of your hand can be played.",
    where: "Where does {0} go?", as_title: "What does the Joker stand for?", place_title: "Where do the winnings go?",
    on_col: "{0}: column {1} of {2}", on_own: "{0}: your column {1}", place_on: "Your column {0}",
    mv: { reinforce: "Reinforce", associate: "Associate", block: "Block", unblock: "Unblock", attack: "Attack" },
    defend: "Defend with {0}", continue: "Attack again with {0}", give_up: "Give up", discard_hand: "Discard my hand",
    cancel: "Cancel", picked: "Picked: {0}", here: "Here",
  },
  fr: {
    colour: { R: "rouge", Y: "jaune", G: "vert", B: "bleu" }, colour_short: { R: "rou", Y: "jau", G: "ver", B: "ble" },
    warrior: "guerrier {0} {1}", spirit: "Esprit (0)", joker: "Joker", joker_as: "Joker en {0}", mauw: "Mauw (face cachée)",
    spirit_s: "esprit", joker_s: "joker", mauw_s: "Mauw",
    start: "La partie commence : {0} joue en premier.", drew: "{0} pioche {1}.", drew_n: "{0} pioche {1} {1|carte|cartes}.",
    reshuffled: "La défausse est mélangée en une nouvelle pioche ({0} cartes).",
    reinforce: "{0} renforce la colonne {2} avec {1}.", associate: "{0} pose {1} sur la colonne {2} : une association.",
    block: "{0} bloque la colonne {3} de {2} avec {1}.", unblock: "{0} débloque la colonne {2} avec {1}.",
    attack: "{0} attaque la colonne {3} de {2} avec {1}.",
    pair: "Même valeur : {0} forme une paire (une carte face cachée).", different: "Valeurs différentes : les deux vont à la défausse, {0} gagne un Mauw.",
    mauw_won: "{0} pose un Mauw sur la colonne {1}.", mauw_lost: "{0} n’a pas de place : le Mauw ({1}) est défaussé face visible.",
    pair_placed: "{0} pose la paire sur la colonne {1}.", pair_lost: "{0} n’a pas de place : la paire est défaussée.",
    defended: "{0} se défend avec {1}.", continued: "{0} attaque encore avec {1}.",
    gave_up: "{0} abandonne.", gave_up_auto: "{0} n’a pas de carte identique : abandonne.",
    discarded: "{0} ne peut pas jouer et défausse sa main : {1}.", turn: "Au tour de {0}.",
    ended_three: "{0} a trois colonnes de trois Mauw et gagne.", ended_refill: "Plus de cartes : la partie se finit aux points.",
    ended_stalemate: "Aucun Mauw posé depuis trop longtemps : la partie se finit aux points.",
    timed_out: "Le temps de {0} est écoulé : un remplaçant joue.", seat_back: "{0} est de retour.", seat_left: "{0} a quitté la table : un robot joue la place.",
    cards_n: "{0} {0|carte|cartes} en main", points: "{0} points", full: "{0} {0|colonne pleine|colonnes pleines}",
    turn_of: "Tour de {0}", talon: "Pioche : {0} cartes", discard: "Défausse : {0} cartes", discard_top: "dessus :",
    quiet: "{0} {0|tour|tours} sans nouveau Mauw", column: "Colonne {0}", col_points: "{0} pts", empty: "vide",
    area: "{0} — {1} points", your_area: "{0} (vous) — {1} points",
    chain: "{0} attaque la colonne {2} de {1}", chain_card: "carte d’attaque :", chain_value: "un {0} (ou un Joker) y répond", chain_wait: "on attend {0}", chain_attacks: "cartes d’attaque jouées : {0}",
    hand: "Votre main", play_title: "Cliquez une carte pour la jouer.", chain_title: "Répondez avec une carte identique (ou un Joker), ou abandonnez.",
    dead_title: "Aucune carte de votre main ne peut être jouée.",
    where: "Où poser {0} ?", as_title: "Que représente le Joker ?", place_title: "Où poser ce que vous gagnez ?",
    on_col: "{0} : colonne {1} de {2}", on_own: "{0} : votre colonne {1}", place_on: "Votre colonne {0}",
    mv: { reinforce: "Renforcer", associate: "Associer", block: "Bloquer", unblock: "Débloquer", attack: "Attaquer" },
    defend: "Se défendre avec {0}", continue: "Attaquer encore avec {0}", give_up: "Abandonner", discard_hand: "Défausser ma main",
    cancel: "Annuler", picked: "Choisie : {0}", here: "Ici",
  },
};

function words(lang) { return W[lang] || W.en; }
function w(lang, key, ...args) {
  const s = words(lang)[key] ?? W.en[key];
  return fill(s, args, lang);
}

/** What a code is: {kind, value, colour, joker}; entries "*X" are Jokers standing for X. */
function parse(code) {
  const s = String(code);
  const joker = s.startsWith("*");
  const c = joker ? s.slice(1) : s;
  const m = /^([1-8])([RYGB])$/.exec(c);
  if (m) return { kind: "warrior", value: Number(m[1]), colour: m[2], joker };
  if (c === "SPIRIT") return { kind: "spirit", value: 0, joker };
  if (c === "JOKER") return { kind: "joker" };
  if (c === "MAUW") return { kind: "mauw" };
  return null;
}

/** "green warrior 3" / "guerrier 3 vert", "Spirit (0)", "Joker as green warrior 3", "Mauw (face down)". */
export function cardLabel(code, lang) {
  const c = parse(code);
  if (!c) return String(code);
  let text;
  if (c.kind === "warrior") text = w(lang, "warrior", c.value, words(lang).colour[c.colour]);
  else if (c.kind === "spirit") text = w(lang, "spirit");
  else if (c.kind === "joker") return w(lang, "joker");
  else return w(lang, "mauw");
  return c.joker ? w(lang, "joker_as", text) : text;
}

/** A card in a sentence: "3 green", "✦ Spirit", "★ Joker", "★3 green" for a Joker standing for a 3. */
function short(code, lang) {
  const c = parse(code);
  if (!c) return String(code);
  const star = c.joker ? "★" : "";
  if (c.kind === "warrior") return `${star}${c.value} ${words(lang).colour[c.colour]}`;
  if (c.kind === "spirit") return `${star}✦ ${lang === "fr" ? "Esprit" : "Spirit"}`;
  if (c.kind === "joker") return "★ Joker";
  return "Mauw";
}

/** A card element: its big sign and its kind or colour in words; a button when `onClick` is given. */
function card(code, lang, { onClick, disabled = false, extra = "" } = {}) {
  const c = parse(code);
  const el = document.createElement(onClick ? "button" : "span");
  el.className = "card mauw-card " + (c ? `mauw-${c.kind}` : "plain") + (c?.colour ? ` mauw-${c.colour}` : "")
    + (c?.joker ? " mauw-as" : "") + (extra ? " " + extra : "");
  el.dataset.card = code;
  el.setAttribute("aria-label", cardLabel(code, lang));
  const big = document.createElement("span");
  big.className = "rank";
  big.setAttribute("aria-hidden", "true");
  const small = document.createElement("span");
  small.className = "mauw-kind";
  small.setAttribute("aria-hidden", "true");
  const star = c?.joker ? "★" : "";
  if (!c) big.textContent = String(code);
  else if (c.kind === "warrior") { big.textContent = star + c.value; small.textContent = words(lang).colour_short[c.colour]; }
  else if (c.kind === "spirit") { big.textContent = star + "✦"; small.textContent = w(lang, "spirit_s"); }
  else if (c.kind === "joker") { big.textContent = "★"; small.textContent = w(lang, "joker_s"); }
  else { big.textContent = "M"; small.textContent = w(lang, "mauw_s"); }
  el.append(big, small);
  if (onClick) {
    el.type = "button";
    el.disabled = disabled;
    el.addEventListener("click", onClick);
  } else el.setAttribute("role", "img");
  return el;
}

function seatObj(view, seat) { return (view.seats || []).find((s) => s && s.seat === seat) || null; }

/** Cards in hand, points, columns of three Mauw. */
export function seatSummary(view, seat, ctx) {
  const L = ctx.lang;
  const s = seatObj(view, seat);
  if (!s) return "";
  const parts = [w(L, "cards_n", s.cards), w(L, "points", view.points?.[seat] ?? s.score)];
  const full = view.full_columns?.[seat];
  if (full) parts.push(w(L, "full", full));
  return parts.join(" · ");
}

/** What a card does on a column, from the view (docs: "A turn"). */
function moveOn(view, seat, player, column) {
  const col = view.areas[player][column];
  const top = col.top ? parse(col.top) : null;
  if (player === seat) {
    if (top?.kind === "spirit") return "unblock";
    if (top?.kind === "warrior") return "associate";
    return "reinforce";
  }
  return top ? "attack" : "block";
}

/** The status line, the chain, the discard pile, then every player's 4 columns. */
export function renderBoard(view, ctx) {
  const L = ctx.lang;
  const names = ctx.names;
  const box = document.createElement("div");
  box.className = "mauw-board";
  const p = document.createElement("p");
  p.id = "mauw-status";
  const bits = [];
  if (view.turn !== null && view.turn !== undefined) bits.push(w(L, "turn_of", seatName(names, view.turn)));
  bits.push(w(L, "talon", view.talon_size), w(L, "discard", view.discard_size), w(L, "quiet", view.quiet_turns));
  p.textContent = bits.join(" · ");
  box.append(p);
  if (view.discard_top) {
    const d = document.createElement("div");
    d.className = "pile";
    d.id = "discard";
    const s = document.createElement("span");
    s.textContent = `${w(L, "discard", view.discard_size)}, ${w(L, "discard_top")}`;
    d.append(s, card(view.discard_top, L));
    box.append(d);
  }
  if (view.chain) {
    // the attack card lies on the target (view.areas shows the target as the column's top)
    const ch = view.chain;
    const q = document.createElement("p");
    q.id = "chain";
    q.append(w(L, "chain", seatName(names, ch.attacker), seatName(names, ch.defender), ch.column + 1));
    if (ch.card) q.append(` · ${w(L, "chain_card")} `, card(ch.card, L));
    const rest = [w(L, "chain_value", short(ch.value, L))];
    if (ch.waiting !== null && ch.waiting !== undefined) rest.push(w(L, "chain_wait", seatName(names, ch.waiting)));
    rest.push(w(L, "chain_attacks", ch.attacks));
    q.append(" · " + rest.join(" · "));
    box.append(q);
  }
  const areas = document.createElement("div");
  areas.className = "mauw-areas";
  (view.areas || []).forEach((area, player) => {
    const sec = document.createElement("section");
    sec.className = "mauw-area" + (player === ctx.seat ? " mine" : "") + (player === view.turn ? " turn" : "");
    sec.dataset.seat = player;
    const h = document.createElement("h3");
    h.textContent = w(L, player === ctx.seat ? "your_area" : "area", seatName(names, player), view.points?.[player] ?? 0);
    sec.append(h);
    const cols = document.createElement("div");
    cols.className = "mauw-cols";
    area.forEach((col, i) => {
      const div = document.createElement("div");
      div.className = "mauw-col" + (view.chain && view.chain.defender === player && view.chain.column === i ? " attacked" : "");
      div.dataset.player = player;
      div.dataset.column = i;
      div.setAttribute("role", "group");
      const head = document.createElement("span");
      head.className = "mauw-col-head";
      head.textContent = `${w(L, "column", i + 1)} · ${w(L, "col_points", col.points)}`;
      div.setAttribute("aria-label", `${seatName(names, player)}, ${head.textContent}`);
      div.append(head);
      const stack = document.createElement("div");
      stack.className = "mauw-stack";
      if (!col.cards.length) {
        const e = document.createElement("span");
        e.className = "mauw-empty";
        e.textContent = w(L, "empty");
        stack.append(e);
      }
      for (const c of col.cards) stack.append(card(c, L));
      div.append(stack);
      cols.append(div);
    });
    sec.append(cols);
    areas.append(sec);
  });
  box.append(areas);
  return box;
}

function group(titleText, id) {
  const div = document.createElement("div");
  div.className = "moves picker";
  div.id = id;
  div.setAttribute("role", "group");
  div.setAttribute("aria-label", titleText);
  const p = document.createElement("p");
  p.textContent = titleText;
  div.append(p);
  return div;
}

function sendButton(text, action, ctx) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.action = action.type;
  for (const k of ["card", "player", "column", "as", "place"]) if (action[k] !== undefined) b.dataset[k] = String(action[k]);
  b.textContent = text;
  b.addEventListener("click", () => ctx.send(action));
  return b;
}

function stepButton(text, step, value, ctx) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "step";
  b.dataset.step = step;
  b.dataset[step] = value;
  b.textContent = text;
  b.addEventListener("click", () => { ctx.ui[step] = value; ctx.rerender(); });
  return b;
}

/** The words of a play's target: "Block: column 2 of Bob" / "Reinforce: your column 1". */
function targetText(view, ctx, player, column) {
  const L = ctx.lang;
  const mv = words(L).mv[moveOn(view, ctx.seat, player, column)];
  return player === ctx.seat ? w(L, "on_own", mv, column + 1) : w(L, "on_col", mv, column + 1, seatName(ctx.names, player));
}

/**
 * The play picked so far: the card (ctx.ui.card), then the column
 * (ctx.ui.target "player:column"), what a Joker stands for (ctx.ui.as) and
 * the place of the winnings; a step is asked only when the legal plays
 * left differ in it, and the last one sends the play.
 */
function playPicker(view, plays, ctx) {
  const L = ctx.lang;
  const ui = ctx.ui;
  let left = plays.filter((a) => a.card === ui.card);
  const targets = [...new Set(left.map((a) => `${a.player}:${a.column}`))];
  if (ui.target && !targets.includes(ui.target)) delete ui.target;
  if (!ui.target && targets.length === 1) ui.target = targets[0];
  const div = group(w(L, "where", cardLabel(ui.card, L)), "mauw-picker");
  if (!ui.target) {
    for (const t of targets) {
      const [player, column] = t.split(":").map(Number);
      const text = targetText(view, ctx, player, column);
      div.append(stepButton(text, "target", t, ctx));
      // the same choice on the board: a button in the column itself (the board is drawn before the moves)
      const col = document.querySelector(`#board .mauw-col[data-player="${player}"][data-column="${column}"]`);
      if (col) {
        const here = stepButton(w(L, "here"), "target", t, ctx);
        here.classList.add("mauw-here");
        here.setAttribute("aria-label", text);
        col.classList.add("target");
        col.append(here);
      }
    }
  } else {
    left = left.filter((a) => `${a.player}:${a.column}` === ui.target);
    const [player, column] = ui.target.split(":").map(Number);
    const chosen = document.createElement("p");
    chosen.textContent = targetText(view, ctx, player, column);
    div.append(chosen);
    const ases = [...new Set(left.map((a) => a.as ?? ""))];
    if (ui.as !== undefined && !ases.includes(ui.as)) delete ui.as;
    if (ui.as === undefined && ases.length === 1) ui.as = ases[0];
    if (ui.as === undefined) {
      const p = document.createElement("p");
      p.textContent = w(L, "as_title");
      div.append(p);
      for (const a of ases) div.append(stepButton(cardLabel(a, L), "as", a, ctx));
    } else {
      left = left.filter((a) => (a.as ?? "") === ui.as);
      if (left.some((a) => a.place !== undefined)) {
        const p = document.createElement("p");
        p.textContent = w(L, "place_title");
        div.append(p);
      }
      for (const a of left) {
        const text = a.place !== undefined ? w(L, "place_on", a.place + 1)
          : a.as ? `${targetText(view, ctx, player, column)} (${cardLabel("*" + a.as, L)})` : targetText(view, ctx, player, column);
        div.append(sendButton(text, a, ctx));
      }
    }
  }
  const c = document.createElement("button");
  c.type = "button";
  c.id = "mauw-cancel";
  c.textContent = w(L, "cancel");
  c.addEventListener("click", () => { for (const k of ["card", "target", "as"]) delete ui[k]; ctx.rerender(); });
  div.append(c);
  return div;
}

/** The hand (a click plays a card or replies in a chain), the play picker, chain replies and the dead hand. */
export function renderActions(view, legal, choices, ctx) {
  const L = ctx.lang;
  const box = document.createElement("div");
  const hand = view.hand || [];
  const plays = legal.filter((a) => a.type === "play");
  const replies = legal.filter((a) => a.type === "defend" || a.type === "continue");
  if (ctx.ui.card && !plays.some((a) => a.card === ctx.ui.card)) for (const k of ["card", "target", "as"]) delete ctx.ui[k];
  const head = document.createElement("h2");
  head.textContent = w(L, "hand");
  box.append(head);
  const hint = document.createElement("p");
  hint.id = "hand-hint";
  if (plays.length) hint.textContent = w(L, "play_title");
  else if (replies.length || legal.some((a) => a.type === "give_up")) hint.textContent = w(L, "chain_title");
  else if (legal.some((a) => a.type === "discard_hand")) hint.textContent = w(L, "dead_title");
  if (hint.textContent) box.append(hint);
  const row = document.createElement("div");
  row.className = "hand";
  row.id = "hand";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", w(L, "hand"));
  row.dataset.mode = plays.length ? "play" : replies.length ? "chain" : "";
  const seen = new Set();
  for (const code of hand) {
    const mine = plays.filter((a) => a.card === code);
    const reply = replies.find((a) => a.card === code);
    const first = !seen.has(code); // copies share a code: the first copy shows the pick
    seen.add(code);
    const usable = mine.length > 0 || reply !== undefined;
    const on = ctx.ui.card === code && first;
    const el = card(code, L, {
      extra: (usable ? "playable" : "") + (on ? " picked" : ""),
      disabled: !usable,
      onClick: () => {
        if (reply) { ctx.send(reply); return; }
        if (mine.length === 1) { ctx.send(mine[0]); return; }
        for (const k of ["target", "as"]) delete ctx.ui[k];
        ctx.ui.card = on ? undefined : code;
        ctx.rerender();
      },
    });
    if (usable) el.dataset.moves = String(reply ? 1 : mine.length);
    if (mine.length > 1) el.setAttribute("aria-pressed", String(on));
    row.append(el);
  }
  box.append(row);
  if (ctx.ui.card) box.append(playPicker(view, plays, ctx));
  const others = legal.filter((a) => a.type !== "play");
  if (others.length) {
    const div = group(view.chain ? w(L, "chain_title") : w(L, "dead_title"), "mauw-moves");
    for (const a of others) {
      const text = a.type === "defend" || a.type === "continue" ? w(L, a.type, short(a.card, L)) : w(L, a.type);
      div.append(sendButton(text, a, ctx));
    }
    box.append(div);
  }
  return box;
}

/** One log line in words, with the names at the table. */
export function describe(e, names, lang) {
  const d = e.data || {};
  const who = e.seat === null || e.seat === undefined ? "" : seatName(names, e.seat);
  const played = (c, as) => short(c === "JOKER" && as ? "*" + as : c, lang);
  switch (e.type) {
    case "GameStarted": return w(lang, "start", seatName(names, d.first));
    case "CardsDrawn": return d.cards ? w(lang, "drew", who, d.cards.map((c) => short(c, lang)).join(", ")) : w(lang, "drew_n", who, d.count ?? 1);
    case "TalonReshuffled": return w(lang, "reshuffled", d.talon_size ?? (d.talon || []).length);
    case "CardPlayed": {
      const key = ["reinforce", "associate", "block", "unblock", "attack"].includes(d.move) ? d.move : "reinforce";
      return w(lang, key, who, played(d.card, d.as), key === "block" || key === "attack" ? seatName(names, d.player) : d.column + 1, d.column + 1);
    }
    case "WarriorsAssociated": return w(lang, d.same ? "pair" : "different", who);
    case "MauwWon": return w(lang, "mauw_won", who, d.place + 1);
    case "MauwLost": return w(lang, "mauw_lost", who, short(d.card, lang));
    case "PairPlaced": return w(lang, "pair_placed", who, d.place + 1);
    case "PairLost": return w(lang, "pair_lost", who);
    case "AttackDefended": return w(lang, "defended", who, short(d.card, lang));
    case "AttackContinued": return w(lang, "continued", who, short(d.card, lang));
    case "GaveUp": return w(lang, d.auto ? "gave_up_auto" : "gave_up", who);
    case "HandDiscarded": return w(lang, "discarded", who, (d.cards || []).map((c) => short(c, lang)).join(", "));
    case "TurnEnded": return w(lang, "turn", seatName(names, d.next));
    case "GameEnded":
      if (d.reason === "three_columns") return w(lang, "ended_three", seatName(names, d.winner));
      return w(lang, d.reason === "stalemate" ? "ended_stalemate" : "ended_refill");
    case "TurnTimedOut": return w(lang, "timed_out", seatName(names, d.seat ?? e.seat));
    case "SeatReturned": return w(lang, "seat_back", seatName(names, d.seat ?? e.seat));
    case "SeatLeft": return w(lang, "seat_left", seatName(names, d.seat ?? e.seat));
    default: return e.type;
  }
}
