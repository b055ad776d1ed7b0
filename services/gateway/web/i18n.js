// Interface text in English and French; the language comes from the
// browser (navigator.language) unless the person picked one (kept in
// localStorage "tapis.lang").
const TEXT = {
  en: {
    language: "Language", create_table: "Create a table", game: "Game", players: "Players", seats: "Seats",
    options: "Options", turn_clock: "Turn clock (seconds, empty: none)", create: "Create", tables: "Tables",
    open: "Open", playing: "Playing", finished: "Finished", more: "More", games: "Games", person: "a person",
    bot: "bot", seat_n: "Seat {0}", take_seat: "Take a seat", your_name: "Your name", seat: "Seat", join: "Join",
    watch: "Watch", play: "Play", log: "What happened", leave: "Leave", free: "free", away: "away",
    cards_n: "{0} {0|card|cards}", your_turn: "Your turn", turn_of: "{0} to play", waiting_players: "Waiting for players…",
    spectating: "You are watching.", seated_as: "You play seat {0}.", no_tables: "No table here yet.",
    game_over: "The game is over.", result: "Result", place: "Place", name: "Name", score: "Score",
    players_range: "{0}–{1} players", draw: "Draw", keep: "Keep the card", pass: "Pass",
    pick_suit: "Which suit do you wish?", cancel: "Cancel", say_mau: "Say “Mau”", say_maumau: "Say “Mau Mau”",
    callout: "Call out {0}", discard: "Discard", talon: "Talon", wish: "Wished suit", penalty: "Penalty",
    round: "Round", totals: "Totals", your_hand: "Your hand", send: "Send", default_value: "default",
    none: "none", connection_lost: "Connection lost, reconnecting…", stand_in: "a stand-in plays",
    back: "I'm back", left: "You left this seat.", leave_sure: "Leave this seat for good?", leave_yes: "Yes, leave", leave_failed: "Leaving failed: {0}",
    no_table: "No such table.", seat_gone: "This seat was left (in another tab?): you are watching.", version: "move {0}", seconds_left: "{0} s left",
    strategy: "Bot strategy", nobody: "—", at_least: "choose at least {0}", at_most: "at most {0}",
    rules_hint: "Open a game to read its rules in short.", at_random: "at random",
    bot_strategy: "{0}: {1}", strat_random: "random", strat_heuristic: "heuristic", strat_strong: "strong",
    bad_players: "Players: a whole number from {0} to {1}.",
    bad_turn: "Turn clock: leave it empty (no clock) or give whole seconds from {0} to {1}.",
    won_by: "Won by {0}", no_winner: "No winner", replay_game: "Replay", table_page: "Table",
    ended_at: "Ended", created_at: "Created",
  },
  fr: {
    language: "Langue", create_table: "Créer une table", game: "Jeu", players: "Joueurs", seats: "Places",
    options: "Options", turn_clock: "Temps par tour (secondes, vide : aucun)", create: "Créer", tables: "Tables",
    open: "Ouvertes", playing: "En cours", finished: "Terminées", more: "Plus", games: "Jeux",
    person: "une personne", bot: "robot", seat_n: "Place {0}", take_seat: "Prendre une place",
    your_name: "Votre nom", seat: "Place", join: "S’asseoir", watch: "Regarder", play: "Jouer",
    log: "Ce qui s’est passé", leave: "Quitter", free: "libre", away: "absent", cards_n: "{0} {0|carte|cartes}",
    your_turn: "À vous de jouer", turn_of: "À {0} de jouer", waiting_players: "En attente de joueurs…",
    spectating: "Vous regardez.", seated_as: "Vous jouez la place {0}.", no_tables: "Aucune table ici.",
    game_over: "La partie est finie.", result: "Résultat", place: "Place", name: "Nom", score: "Score",
    players_range: "{0} à {1} joueurs", draw: "Piocher", keep: "Garder la carte", pass: "Passer",
    pick_suit: "Quelle couleur demandez-vous ?", cancel: "Annuler", say_mau: "Dire « Mau »",
    say_maumau: "Dire « Mau Mau »", callout: "Dénoncer {0}", discard: "Défausse", talon: "Talon",
    wish: "Couleur demandée", penalty: "Pénalité", round: "Manche", totals: "Totaux", your_hand: "Votre main",
    send: "Envoyer", default_value: "par défaut", none: "aucun", connection_lost: "Connexion perdue, reconnexion…",
    stand_in: "un remplaçant joue", back: "Je suis de retour", left: "Vous avez quitté cette place.",
    leave_sure: "Quitter cette place pour de bon ?", leave_yes: "Oui, quitter",
    leave_failed: "Impossible de quitter : {0}", no_table: "Table inconnue.",
    seat_gone: "Cette place a été quittée (dans un autre onglet ?) : vous regardez.", version: "coup {0}",
    seconds_left: "{0} s restantes", strategy: "Stratégie du robot", nobody: "—",
    at_least: "au moins {0}", at_most: "au plus {0}",
    rules_hint: "Ouvrez un jeu pour lire ses règles en bref.", at_random: "au hasard",
    bot_strategy: "{0} : {1}", strat_random: "hasard", strat_heuristic: "heuristique", strat_strong: "fort",
    bad_players: "Joueurs : un nombre entier de {0} à {1}.",
    bad_turn: "Temps par tour : laissez vide (aucun) ou donnez un nombre entier de secondes de {0} à {1}.",
    won_by: "Gagnée par {0}", no_winner: "Pas de gagnant", replay_game: "Revoir", table_page: "Table",
    ended_at: "Terminée", created_at: "Créée",
  },
};

// The server's refusals by their stable `code` (docs/api.md): French text for
// the frequent ones; English keeps the server's own detail, which is often
// more precise. Unknown codes fall back to that detail in both languages.
const REFUSALS = {
  not_your_turn: "Ce n’est pas à vous de jouer.",
  game_over: "La partie est finie.",
  card_not_in_hand: "Vous n’avez pas cette carte en main.",
  duplicate_card: "Un écart nomme trois cartes différentes (une carte deux fois seulement si vous en avez deux exemplaires).",
  wrong_phase: "Ce coup n’est pas possible maintenant.",
  bad_action: "Ce coup n’est pas valable.",
  cannot_afford: "Vous ne pouvez pas payer autant.",
  must_follow_suit: "Vous devez fournir à la couleur demandée (ou jouer un joker).",
  play_or_keep_drawn_card: "Après avoir pioché, jouez la carte piochée ou gardez-la.",
  suit_wish_pending: "Le donneur doit d’abord choisir la couleur du valet retourné.",
  suit_wish_required: "Un valet demande une couleur : choisissez-la.",
  penalty_pending: "Une pénalité est en cours : piochez ou répondez-y.",
  not_started: "La partie n’a pas encore commencé.",
  stale_version: "La table a changé entre-temps : réessayez.",
  seat_taken: "Cette place vient d’être prise.",
  table_full: "Toutes les places sont prises.",
  seat_left: "Cette place a été quittée.",
  bad_token: "Cette place n’est plus la vôtre.",
  missing_token: "Vous n’avez pas de place à cette table.",
  table_not_found: "Table inconnue.",
  not_found: "Introuvable.",
  malformed_json: "Requête mal formée.",
  invalid_request: "La demande n’est pas valable.",
  reply_timeout: "Le serveur n’a pas répondu à temps : réessayez.",
  store_unavailable: "Le serveur est momentanément indisponible : réessayez.",
  archive_unavailable: "Les parties terminées sont momentanément indisponibles : réessayez.",
  not_ready: "Le serveur est momentanément indisponible : réessayez.",
  start_pending: "La partie démarre : réessayez dans un instant.",
  too_many_conflicts: "La table est très occupée : réessayez.",
  internal_error: "Erreur du serveur.",
};

// codes whose detail names what is wrong (the field, the card): kept after the French text
const PRECISE = new Set(["bad_action", "wrong_phase", "invalid_request", "cannot_afford"]);

/** A refusal's text in the page's language: its `code`'s French text, else the server's `detail`. */
export function refusal(code, detail) {
  const fr = lang === "fr" && REFUSALS[code];
  if (!fr) return detail;
  return PRECISE.has(code) && detail ? `${fr} (${detail})` : fr;
}

function initial() {
  const kept = localStorage.getItem("tapis.lang");
  if (kept === "fr" || kept === "en") return kept;
  return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
}

export let lang = initial();

/**
 * `s` with `{0}`, `{1}` replaced by `args`, and `{1|card|cards}` by the
 * singular or plural form for `args[1]` (French: 0 and 1 take the singular).
 */
export function fill(s, args, language = lang) {
  return s.replace(/\{(\d)(?:\|([^|}]*)\|([^}]*))?\}/g, (_, i, one, many) => {
    const v = args[Number(i)];
    if (one === undefined) return String(v);
    const n = Math.abs(Number(v));
    return (language === "fr" ? n < 2 : n === 1) ? one : many;
  });
}

/** The text of `key` in the current language, `{0}`, `{1}` replaced by `args` (plurals as in `fill`). */
export function t(key, ...args) {
  return fill(TEXT[lang][key] ?? TEXT.en[key] ?? key, args);
}

/** Fill every `[data-t]` element of the page and wire the language select; `onChange` re-renders. */
export function setupLanguage(onChange) {
  const apply = () => {
    document.documentElement.lang = lang;
    for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  };
  const select = document.getElementById("lang");
  select.value = lang;
  select.addEventListener("change", () => {
    lang = select.value;
    localStorage.setItem("tapis.lang", lang);
    apply();
    onChange?.();
  });
  apply();
}

/** A seat's name for the log: the name people gave, else "#<seat + 1>". */
export function seatName(names, s) { return names[s] ?? `#${s + 1}`; }
