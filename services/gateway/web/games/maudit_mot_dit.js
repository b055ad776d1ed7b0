// Maudit Mot Dit (docs/games/maudit_mot_dit.md): the left card's two
// symbols with their clue counts and bonuses, the word cards the active
// player may choose from and the secret word (both only in the view of the
// one who may see them), the clues given, who has answered, the revealed
// proposals, the Malédiction and its vote, the standings; text boxes for a
// clue and a guess (their limits from the game's `choices`), the choice of
// word, the vote and the Mauvais sort as buttons; the log in words.
import { fill, seatName } from "../i18n.js";
export const title = "Maudit Mot Dit";

// Signs every usual font has (no emoji font needed); the drop is drawn in CSS. The name is always written too.
const SYMBOLS = { moon: "☾", sun: "☀", star: "★", heart: "♥", clover: "☘", drop: "", bolt: "⚡", snowflake: "❄" };

const W = {
  en: {
    sym: { moon: "moon", sun: "sun", star: "star", heart: "heart", clover: "clover", drop: "drop", bolt: "bolt", snowflake: "snowflake" },
    bonus: { play_again: "play again", bad_luck: "Mauvais sort" }, clues_n: "{0} {0|clue|clues}",
    outcome: { exact: "found on the exact clue", early: "found early", miss: "not found", cursed: "ended by the Malédiction" },
    start: "The game starts: {0} takes the box.", turned: "{0} turns a card (turn {1}, trip {2}).", turned_mine: "You may choose: {0}.",
    chose: "You chose «{0}» ({1}).", chose_other: "{0} chooses a word.", clue: "{0} gives clue {2}: «{1}».",
    proposed_mine: "{0} answers «{1}» (sealed).", proposed: "{0} answers (sealed).", passed: "{0} passes.",
    revealed: "Answers to clue {0}: {1}.", revealed_none: "Nobody answered clue {0}.", found: "found", wrong: "wrong",
    curse_proposed: "{0} proposes the Malédiction against clue {1}.", voted_yes: "{0} agrees.", voted_no: "{0} disagrees.",
    curse_agreed: "The Malédiction goes to {0}.", curse_rejected: "The Malédiction is rejected.",
    scored: "The word was «{0}» ({1} {1|clue|clues} needed): {2}.", scored_points: " Points: {0}.", bonus_log: " Bonus: {0}.",
    bad_luck_given: "{0} gives a Mauvais sort to {1}.",
    ended: { trips: "The box has gone round: the game is over.", box_empty: "The box is empty: the game is over.",
      centre_empty: "The centre pile is empty: the game is over." },
    timed_out: "{0}'s clock ran out: a stand-in plays.", seat_back: "{0} is back.", seat_left: "{0} left the table: a bot plays the seat.",
    points: "{0} points", total: "total {0}", bad_luck_n: "{0} Mauvais sort", curse_holder: "holds the Malédiction",
    status: "Turn {0} · trip {1} of {2} · box: {3} cards · centre pile: {4} cards",
    giver: "{0} gives the clues.", giver_you: "You give the clues.",
    ph: { choose: "choosing a word", clue: "a clue to give", guess: "answers to the clue", vote: "a Malédiction vote",
      bad_luck: "a Mauvais sort to give", over: "the game is over" },
    phase: "Now: {0}", left_card: "The left card", word_cards: "Your word card: choose a word", secret: "Your secret word", secret_word: "The secret word",
    secret_hidden: "The secret word is hidden from you.", clues: "Clues", no_clue: "No clue yet.",
    answered: "Answered clue {0}: {1}", nobody: "nobody yet", proposals: "Answers revealed", my_proposal: "Your sealed answer: «{0}»",
    curse: "Malédiction", curse_none: "nobody holds it", curse_by: "{0} holds it (−{1})", vote_open: "Vote asked by {0}: {1}",
    agree: "yes", disagree: "no", standings: "Standings", name: "Player", pts: "Points", bl: "Mauvais sort", mal: "Malédiction",
    tot: "Total", last_turn: "Last turn",
    choose: "Choose «{0}»", clue_label: "Your clue (one French word, at most {0} characters)", give_clue: "Give the clue",
    guess_label: "Your answer (at most {0} characters)", propose: "Answer", pass: "Pass",
    curse_btn: "Propose the Malédiction (this clue does not fit)", vote_title: "Does clue {0} deserve the Malédiction?",
    vote_yes: "Yes, curse it", vote_no: "No", give_bad_luck: "Give a Mauvais sort to {0}",
    bad_luck_title: "Your word was found on the exact clue: give a Mauvais sort.", yes_mark: "✓", no_mark: "✗",
  },
  fr: {
    sym: { moon: "lune", sun: "soleil", star: "étoile", heart: "cœur", clover: "trèfle", drop: "goutte", bolt: "éclair", snowflake: "flocon" },
    bonus: { play_again: "rejouer", bad_luck: "Mauvais sort" }, clues_n: "{0} {0|indice|indices}",
    outcome: { exact: "trouvé au bon indice", early: "trouvé en avance", miss: "pas trouvé", cursed: "arrêté par la Malédiction" },
    start: "La partie commence : {0} prend la boîte.", turned: "{0} tourne une carte (tour {1}, {2}e tour de table).",
    turned_mine: "Vous pouvez choisir : {0}.",
    chose: "Vous avez choisi « {0} » ({1}).", chose_other: "{0} choisit un mot.", clue: "{0} donne l’indice {2} : « {1} ».",
    proposed_mine: "{0} répond « {1} » (sous scellé).", proposed: "{0} répond (sous scellé).", passed: "{0} passe.",
    revealed: "Réponses à l’indice {0} : {1}.", revealed_none: "Personne n’a répondu à l’indice {0}.", found: "trouvé", wrong: "raté",
    curse_proposed: "{0} propose la Malédiction contre l’indice {1}.", voted_yes: "{0} est pour.", voted_no: "{0} est contre.",
    curse_agreed: "La Malédiction va à {0}.", curse_rejected: "La Malédiction est refusée.",
    scored: "Le mot était « {0} » ({1} {1|indice demandé|indices demandés}) : {2}.", scored_points: " Points : {0}.", bonus_log: " Bonus : {0}.",
    bad_luck_given: "{0} donne un Mauvais sort à {1}.",
    ended: { trips: "La boîte a fait ses tours : la partie est finie.", box_empty: "La boîte est vide : la partie est finie.",
      centre_empty: "La pile du centre est vide : la partie est finie." },
    timed_out: "Le temps de {0} est écoulé : un remplaçant joue.", seat_back: "{0} est de retour.", seat_left: "{0} a quitté la table : un robot joue la place.",
    points: "{0} points", total: "total {0}", bad_luck_n: "{0} Mauvais sort", curse_holder: "a la Malédiction",
    status: "Tour {0} · tour de table {1} sur {2} · boîte : {3} cartes · pile du centre : {4} cartes",
    giver: "{0} donne les indices.", giver_you: "Vous donnez les indices.",
    ph: { choose: "choix du mot", clue: "un indice à donner", guess: "les réponses à l’indice", vote: "un vote de Malédiction",
      bad_luck: "un Mauvais sort à donner", over: "la partie est finie" },
    phase: "En cours : {0}", left_card: "La carte de gauche", word_cards: "Votre carte Mots : choisissez un mot", secret: "Votre mot secret", secret_word: "Le mot secret",
    secret_hidden: "Le mot secret vous est caché.", clues: "Indices", no_clue: "Pas encore d’indice.",
    answered: "Ont répondu à l’indice {0} : {1}", nobody: "personne encore", proposals: "Réponses dévoilées", my_proposal: "Votre réponse sous scellé : « {0} »",
    curse: "Malédiction", curse_none: "personne ne l’a", curse_by: "{0} l’a (−{1})", vote_open: "Vote demandé par {0} : {1}",
    agree: "pour", disagree: "contre", standings: "Scores", name: "Joueur", pts: "Points", bl: "Mauvais sort", mal: "Malédiction",
    tot: "Total", last_turn: "Dernier tour",
    choose: "Choisir « {0} »", clue_label: "Votre indice (un mot français, au plus {0} caractères)", give_clue: "Donner l’indice",
    guess_label: "Votre réponse (au plus {0} caractères)", propose: "Répondre", pass: "Passer",
    curse_btn: "Proposer la Malédiction (cet indice ne va pas)", vote_title: "L’indice {0} mérite-t-il la Malédiction ?",
    vote_yes: "Oui, maudire", vote_no: "Non", give_bad_luck: "Donner un Mauvais sort à {0}",
    bad_luck_title: "Votre mot a été trouvé au bon indice : donnez un Mauvais sort.", yes_mark: "✓", no_mark: "✗",
  },
};

function words(lang) { return W[lang] || W.en; }
function w(lang, key, ...args) {
  const s = words(lang)[key] ?? W.en[key];
  return fill(s, args, lang);
}
function symbolText(sym, lang) { return `${SYMBOLS[sym] || ""} ${words(lang).sym[sym] || sym}`.trim(); }
function slotText(slot, lang) {
  const parts = [symbolText(slot.symbol, lang), w(lang, "clues_n", slot.count)];
  if (slot.bonus) parts.push(words(lang).bonus[slot.bonus] || slot.bonus);
  return parts.join(", ");
}

/** No playing cards in this game: a code is shown as it is. */
export function cardLabel(code) { return String(code); }

/** Points, Mauvais sort cards, the Malédiction, the total. */
export function seatSummary(view, seat, ctx) {
  const L = ctx.lang;
  const s = (view.standings || []).find((x) => x.seat === seat);
  if (!s) return "";
  const parts = [w(L, "points", s.points)];
  if (s.bad_luck) parts.push(w(L, "bad_luck_n", s.bad_luck));
  if (s.curse) parts.push(w(L, "curse_holder"));
  parts.push(w(L, "total", view.totals?.[seat] ?? s.points));
  return parts.join(" · ");
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A card of the game: a symbol slot of the left card, or a word with its symbol. */
function wordCard(slot, lang, word) {
  const c = el("div", "mmd-card" + (word ? " mmd-word" : " mmd-back"));
  c.dataset.symbol = slot.symbol;
  c.setAttribute("role", "img");
  c.setAttribute("aria-label", (word ? `«${word}», ` : "") + slotText(slot, lang));
  const sym = el("span", `mmd-symbol mmd-${slot.symbol}`, SYMBOLS[slot.symbol] ?? "?");
  sym.setAttribute("aria-hidden", "true");
  c.append(sym);
  if (word) c.append(el("strong", "mmd-text", word));
  const info = el("span", "mmd-info", slotText(slot, lang));
  info.setAttribute("aria-hidden", "true");
  c.append(info);
  return c;
}

function section(titleText, id) {
  const s = el("section", "mmd-zone");
  if (id) s.id = id;
  s.append(el("h3", null, titleText));
  return s;
}

/** Status, the left card, the word card and secret (their owner only), clues, answers, the curse, the standings. */
export function renderBoard(view, ctx) {
  const L = ctx.lang;
  const names = ctx.names;
  const box = el("div", "mmd-board");
  const st = el("p", null, w(L, "status", view.turns, view.trip, view.trips, view.talon_size, view.centre_pile));
  st.id = "mmd-status";
  box.append(st);
  if (view.turn !== null && view.turn !== undefined) {
    const g = el("p", "mmd-giver", view.turn === ctx.seat ? w(L, "giver_you") : w(L, "giver", seatName(names, view.turn)));
    g.append(" ", w(L, "phase", words(L).ph[view.phase] || view.phase));
    box.append(g);
  }
  const cards = el("div", "mmd-cards");
  if (view.left_card?.length && view.phase !== "over") {
    const left = section(w(L, "left_card"), "left-card");
    const row = el("div", "mmd-row");
    for (const slot of view.left_card) row.append(wordCard(slot, L));
    left.append(row);
    cards.append(left);
  }
  if (view.chosen) {
    const sec = section(w(L, "secret"), "secret");
    sec.append(wordCard(view.chosen, L, view.chosen.word));
    cards.append(sec);
  } else if (Array.isArray(view.candidates) && view.candidates.length) {
    const sec = section(w(L, "word_cards"), "candidates");
    const row = el("div", "mmd-row");
    for (const c of view.candidates) row.append(wordCard(c, L, c.word));
    sec.append(row);
    cards.append(sec);
  } else if (view.phase !== "over" && view.turn !== ctx.seat) {
    const sec = section(w(L, "secret_word"), "secret");
    sec.append(el("p", "mmd-hidden", w(L, "secret_hidden")));
    cards.append(sec);
  }
  box.append(cards);
  const cl = section(w(L, "clues"), "clues");
  if (!view.clues?.length) cl.append(el("p", null, w(L, "no_clue")));
  else {
    const ol = el("ol", "mmd-clues");
    for (const c of view.clues) ol.append(el("li", null, c));
    cl.append(ol);
  }
  if (view.clues?.length && ["guess", "vote", "clue"].includes(view.phase)) {
    const who = (view.answered || []).map((s) => seatName(names, s)).join(", ") || w(L, "nobody");
    cl.append(el("p", "mmd-answered", w(L, "answered", view.clue_number, who)));
  }
  if (view.my_proposal) cl.append(el("p", "mmd-mine", w(L, "my_proposal", view.my_proposal)));
  if (view.proposals?.length) {
    const ul = el("ul", "mmd-proposals");
    ul.id = "proposals";
    for (const p of view.proposals) {
      const li = el("li", null, `${p.clue}. ${seatName(names, p.seat)}: «${p.word}» ${p.found ? w(L, "yes_mark") + " " + w(L, "found") : w(L, "no_mark") + " " + w(L, "wrong")}`);
      li.dataset.seat = p.seat;
      ul.append(li);
    }
    const h = el("h3", null, w(L, "proposals"));
    cl.append(h, ul);
  }
  box.append(cl);
  const cu = section(w(L, "curse"), "curse");
  const holder = view.curse?.holder;
  cu.append(el("p", null, holder === null || holder === undefined ? w(L, "curse_none") : w(L, "curse_by", seatName(names, holder), view.curse.penalty)));
  if (view.curse?.vote) {
    const v = view.curse.vote;
    const votes = v.votes.map((x) => `${seatName(names, x.seat)} ${x.agree ? w(L, "agree") : w(L, "disagree")}`).join(", ");
    cu.append(el("p", null, w(L, "vote_open", seatName(names, v.by), votes || "…")));
  }
  box.append(cu);
  if (view.last_turn) {
    const lt = section(w(L, "last_turn"), "last-turn");
    lt.append(el("p", null, describe({ type: "TurnScored", data: view.last_turn }, names, L)));
    box.append(lt);
  }
  const sd = section(w(L, "standings"), "standings");
  const tbl = el("table", "mmd-standings");
  const head = tbl.createTHead().insertRow();
  for (const k of ["name", "pts", "bl", "mal", "tot"]) head.append(el("th", null, w(L, k)));
  const body = tbl.createTBody();
  for (const s of view.standings || []) {
    const r = body.insertRow();
    r.dataset.seat = s.seat;
    r.insertCell().textContent = seatName(names, s.seat);
    r.insertCell().textContent = String(s.points);
    r.insertCell().textContent = String(s.bad_luck);
    r.insertCell().textContent = s.curse ? `−${view.curse?.penalty ?? 4}` : "—";
    r.insertCell().textContent = String(view.totals?.[s.seat] ?? s.points);
  }
  sd.append(tbl);
  box.append(sd);
  return box;
}

function button(text, action, ctx) {
  const b = el("button", null, text);
  b.type = "button";
  b.dataset.action = action.type;
  for (const k of ["symbol", "to", "agree"]) if (action[k] !== undefined) b.dataset[k] = String(action[k]);
  b.addEventListener("click", () => ctx.send(action));
  return b;
}

function group(titleText, id) {
  const div = el("div", "moves picker");
  div.id = id;
  div.setAttribute("role", "group");
  div.setAttribute("aria-label", titleText);
  div.append(el("p", null, titleText));
  return div;
}

/** A text box for a word (a clue or an answer): its limit from the choice's schema. */
function textForm(type, choice, labelKey, sendKey, ctx, extra = []) {
  const L = ctx.lang;
  const schema = choice.schema?.properties?.word || {};
  const max = schema.maxLength ?? 30;
  const form = el("form", "moves picker");
  form.id = `${type}-form`;
  form.dataset.text = type;
  const label = el("label", null);
  const span = el("span", null, w(L, labelKey, max) + " ");
  const input = document.createElement("input");
  input.type = "text";
  input.name = "word";
  input.id = `${type}-word`;
  input.size = 12; // a small intrinsic width: the box grows with the line (CSS), and fits a phone
  input.autocomplete = "off";
  input.spellcheck = false;
  input.required = true;
  input.minLength = schema.minLength ?? 1;
  input.maxLength = max;
  input.lang = "fr";
  label.append(span, input);
  const b = el("button", null, w(L, sendKey));
  b.type = "submit";
  b.dataset.action = type;
  form.append(label, b, ...extra);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const word = input.value.trim();
    if (word) ctx.send({ type, word });
  });
  return form;
}

/** Choose a word, a clue or an answer typed, pass, the curse and its vote, the Mauvais sort. */
export function renderActions(view, legal, choices, ctx) {
  const L = ctx.lang;
  const names = ctx.names;
  const box = document.createElement("div");
  const has = (t) => legal.filter((a) => a.type === t);
  const choice = (t) => (choices || []).find((c) => c.type === t);
  if (has("choose").length) {
    const div = group(w(L, "word_cards"), "mmd-choose");
    for (const a of has("choose")) {
      const cand = (view.candidates || []).find((c) => c.symbol === a.symbol);
      div.append(button(cand ? `${w(L, "choose", cand.word)} — ${slotText(cand, L)}` : symbolText(a.symbol, L), a, ctx));
    }
    box.append(div);
  }
  if (choice("clue")) box.append(textForm("clue", choice("clue"), "clue_label", "give_clue", ctx));
  if (choice("propose")) {
    const extra = has("pass").map((a) => button(w(L, "pass"), a, ctx));
    box.append(textForm("propose", choice("propose"), "guess_label", "propose", ctx, extra));
  } else if (has("pass").length) {
    const div = group(w(L, "pass"), "mmd-pass");
    div.append(button(w(L, "pass"), has("pass")[0], ctx));
    box.append(div);
  }
  if (has("vote").length) {
    const div = group(w(L, "vote_title", view.curse?.vote ? view.clue_number : view.clue_number), "mmd-vote");
    for (const a of has("vote")) div.append(button(a.agree ? w(L, "vote_yes") : w(L, "vote_no"), a, ctx));
    box.append(div);
  }
  if (has("give_bad_luck").length) {
    const div = group(w(L, "bad_luck_title"), "mmd-bad-luck");
    for (const a of has("give_bad_luck")) div.append(button(w(L, "give_bad_luck", seatName(names, a.to)), a, ctx));
    box.append(div);
  }
  if (has("curse").length) {
    const div = el("div", "moves");
    div.id = "mmd-curse";
    div.append(button(w(L, "curse_btn"), has("curse")[0], ctx));
    box.append(div);
  }
  return box;
}

function outcomeText(d, names, lang) {
  return words(lang).outcome[d.outcome] || d.outcome;
}

/** One log line in words, with the names at the table. */
export function describe(e, names, lang) {
  const d = e.data || {};
  const who = e.seat === null || e.seat === undefined ? "" : seatName(names, e.seat);
  switch (e.type) {
    case "GameStarted": return w(lang, "start", seatName(names, d.first));
    case "CardTurned": {
      const line = w(lang, "turned", seatName(names, d.active ?? e.seat), d.turn, d.trip);
      if (!Array.isArray(d.candidates)) return line;
      return `${line} ${w(lang, "turned_mine", d.candidates.map((c) => `«${c.word}» (${slotText(c, lang)})`).join(" / "))}`;
    }
    case "WordChosen": return d.word ? w(lang, "chose", d.word, slotText(d, lang)) : w(lang, "chose_other", who);
    case "ClueGiven": return w(lang, "clue", who, d.clue, d.number);
    case "GuessProposed": return d.word ? w(lang, "proposed_mine", who, d.word) : w(lang, "proposed", who);
    case "GuessPassed": return w(lang, "passed", who);
    case "GuessesRevealed": {
      const list = (d.proposals || []).map((p) => `${seatName(names, p.seat)} «${p.word}» ${p.found ? w(lang, "yes_mark") : w(lang, "no_mark")}`);
      return list.length ? w(lang, "revealed", d.clue, list.join(", ")) : w(lang, "revealed_none", d.clue);
    }
    case "CurseProposed": return w(lang, "curse_proposed", who, d.clue);
    case "CurseVoted": return w(lang, d.agree ? "voted_yes" : "voted_no", who);
    case "CurseDecided": return d.agreed ? w(lang, "curse_agreed", seatName(names, d.to)) : w(lang, "curse_rejected");
    case "TurnScored": {
      let s = w(lang, "scored", d.word, d.count, outcomeText(d, names, lang));
      const got = (d.points || []).map((p, i) => (p ? `${seatName(names, i)} +${p}` : null)).filter(Boolean);
      if (got.length) s += w(lang, "scored_points", got.join(", "));
      if (d.bonus) s += w(lang, "bonus_log", words(lang).bonus[d.bonus] || d.bonus);
      return s;
    }
    case "BadLuckGiven": return w(lang, "bad_luck_given", who, seatName(names, d.to));
    case "GameEnded": return words(lang).ended[d.reason] || words(lang).ended.trips;
    case "TurnTimedOut": return w(lang, "timed_out", seatName(names, d.seat ?? e.seat));
    case "SeatReturned": return w(lang, "seat_back", seatName(names, d.seat ?? e.seat));
    case "SeatLeft": return w(lang, "seat_left", seatName(names, d.seat ?? e.seat));
    default: return e.type;
  }
}
