"""The rules of Mauw in a few sentences, in English and French: the
lobby's summary (``GET /games``, ``summary``).  Written in our own words;
the reference is docs/games/mauw.md."""

#: Language code -> a short summary of the rules (goal, turn, end, scoring).
SUMMARY: dict[str, str] = {
    "en": (
        "Build columns of face-down Mauw cards in your four slots: the first player to hold "
        "three columns of three Mauw wins at once. Each turn you play one card from your "
        "four-card hand, then draw back to four. A Warrior on your own empty slot or Mauw "
        "column reinforces it; on one of your Warriors of the same colour it makes an "
        "association, which wins you a new Mauw. Against an opponent, a Spirit or a Warrior "
        "blocks one of their Mauw columns, and a Warrior attacks one of their Warriors of its "
        "colour: the defender may answer with an identical card, and so on until one side gives "
        "up. Jokers can stand for any card. If the cards run out first, the most points win: a "
        "column is worth its top card (9 for a Mauw), doubled for every Mauw in it."
    ),
    "fr": (
        "Le but : posséder le premier trois colonnes de trois Mauw, des cartes posées face "
        "cachée dans ses quatre emplacements ; cela gagne aussitôt. À son tour, on joue une "
        "carte de sa main de quatre, puis on complète sa main à quatre. Un Guerrier posé sur un "
        "emplacement vide ou une colonne de Mauw à soi la renforce ; sur un de ses Guerriers de "
        "même couleur, il forme une association qui rapporte un nouveau Mauw. Chez un "
        "adversaire, un Esprit ou un Guerrier bloque une colonne de Mauw, et un Guerrier "
        "attaque un Guerrier de sa couleur : le défenseur peut répondre par une carte "
        "identique, et l'échange dure jusqu'à ce qu'un camp abandonne. Les Jokers peuvent "
        "remplacer n'importe quelle carte. Si les cartes s'épuisent avant, le plus de points "
        "gagne : une colonne vaut sa carte du dessus (9 pour un Mauw), doublée pour chaque Mauw "
        "qu'elle contient."
    ),
}
