// The create form's option labels in English and French, keyed by game and
// option name (the games' JSON Schemas are in English and name rule
// sections); an option not listed here keeps its schema's title and
// description, with section marks ("§03", "p. 10") taken out.
const L = {
  maumau: {
    hand_size: ["Hand size", "Cards dealt to each player (7 is common).", "Cartes en main", "Cartes distribuées à chacun (7 est courant)."],
    skat_deck: ["32-card deck", "Play with the 32-card deck (7 to ace).", "Jeu de 32 cartes", "Jouer avec le jeu de 32 cartes (du 7 à l’as)."],
    decks: ["Decks", "Empty: automatic (one deck up to 6 players, two from 7).", "Jeux de cartes", "Vide : automatique (un jeu jusqu’à 6 joueurs, deux à partir de 7)."],
    ace_power: ["Ace power", "", "Pouvoir de l’as", "", { none: ["none", "aucun"], draw: ["the others draw 1", "les autres piochent 1"], skip: ["the others are skipped", "les autres passent leur tour"] }],
    seven_stack_cap: ["Most 7s in one chain", "Empty: no cap; 1: no stacking.", "Nombre maximal de 7 enchaînés", "Vide : sans limite ; 1 : pas d’enchaînement."],
    target_score: ["Target score", "The game ends once a total reaches it.", "Score à atteindre", "La partie finit quand un total l’atteint."],
  },
  maudix: {
    contracts: ["Contracts", "None checked: all seven, in order.", "Contrats", "Aucun coché : les sept, dans l’ordre.",
      { plis: ["Tricks", "Les Plis"], dames: ["Queens", "Les Dames"], tetes: ["Heads", "Les Têtes"], association: ["Association", "L’Association"],
        chasse: ["The Hunt", "La Chasse"], prediction: ["The Prediction", "La Prédiction"], maudix: ["Maudix", "Le Maudix"] }],
    voleur: ["Thief power", "A trick won by a Jack lets its winner steal a card.", "Pouvoir du Voleur", "Un pli gagné par un valet permet de voler une carte."],
    hook: ["Hook (Prediction)", "The last bid may not make the bids add up to the tricks.", "Crochet (Prédiction)", "La dernière annonce ne peut pas faire un total égal au nombre de plis."],
    return_stolen: ["The thief may give back the stolen card", "", "Le voleur peut rendre la carte volée", ""],
    points_per_trick: ["Points per trick (Tricks)", "Empty: set by the number of players.", "Points par pli (Les Plis)", "Vide : selon le nombre de joueurs."],
    first_dealer: ["First dealer", "", "Premier donneur", ""],
  },
  dix: {
    starting_tokens: ["Starting tokens", "", "Jetons de départ", ""],
    token_cap: ["Most tokens held", "The excess stays in the bank.", "Jetons au plus", "L’excédent reste à la banque."],
    consolation_value: ["Consolation token value", "Spent whole, no change given.", "Valeur d’un jeton de consolation", "Dépensé entier, sans rendu de monnaie."],
    min_bid: ["Lowest opening bid", "", "Enchère d’ouverture minimale", ""],
    full_run_bonus: ["Full run bonus", "Points for a full 1–9 run in a colour.", "Bonus de suite complète", "Points pour une suite 1–9 complète dans une couleur."],
    numbers_on_currency: ["Number cards when the currency is taken", "", "Cartes Nombre quand la monnaie est prise", ""],
    random_first_player: ["First player drawn at random", "Unticked: seat 1 starts.", "Premier joueur tiré au hasard", "Décoché : la place 1 commence."],
    solo_joker_price: ["Solo: price of a joker", "", "Solo : prix d’un joker", ""],
    solo_target: ["Solo: winning score", "", "Solo : score gagnant", ""],
  },
  mauw: {
    first_seat: ["First to play", "", "Premier à jouer", ""],
    covered_columns_count: ["Covered columns count", "A column of three Mauw counts toward the win even when covered.", "Les colonnes couvertes comptent", "Une colonne de trois Mauw compte pour la victoire même couverte."],
    auto_give_up: ["Give up at once when unable to answer", "Faster, but tells the table.", "Abandonner aussitôt sans réponse possible", "Plus rapide, mais la table le sait."],
    chain_limit: ["Most cards in one attack chain", "", "Cartes au plus par chaîne d’attaque", ""],
    stalemate_rounds: ["Rounds without a Mauw before the end", "", "Tours sans Mauw avant la fin", ""],
  },
  maudit_mot_dit: {
    trips: ["Trips around the table", "", "Tours de table", ""],
    proposals_in_all_5_6: ["5–6 players: shared answers", "After each clue, first come, one per guesser.", "5–6 joueurs : réponses partagées", "Après chaque indice, premier arrivé, une par devineur."],
    curse_ends_turn: ["The Malédiction ends the turn", "", "La Malédiction arrête le tour", ""],
    end_when_centre_empty: ["End when the centre pile is empty", "", "Finir quand la pioche centrale est vide", ""],
  },
};

/** Section marks and page numbers taken out of a schema description. */
export function plain(text) {
  return String(text || "").replace(/\s*\((?:§[\d.]+|p\. ?\d+)\)/g, "").replace(/\s*§[\d.]+/g, "").replace(/\s{2,}/g, " ").trim();
}

/** `{label, hint, values}` of `game`'s option `name` in `lang`, or null when it is not listed. */
export function optionWords(game, name, lang) {
  const e = L[game]?.[name];
  if (!e) return null;
  const fr = lang === "fr";
  const values = e[4] ? Object.fromEntries(Object.entries(e[4]).map(([k, v]) => [k, fr ? v[1] : v[0]])) : null;
  return { label: fr ? e[2] : e[0], hint: fr ? e[3] : e[1], values };
}
