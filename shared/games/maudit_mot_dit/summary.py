"""The rules of Maudit Mot Dit in a few sentences, in English and French: the
lobby's summary (``GET /games``, ``summary``).  Written in our own words;
the reference is docs/games/maudit_mot_dit.md."""

#: Language code -> a short summary of the rules (goal, turn, end, scoring).
SUMMARY: dict[str, str] = {
    "en": (
        "A word-guessing game in which both the clue giver and those who find the word score. "
        "On your turn you secretly choose one of two words on a card, and the card behind it "
        "tells how many one-word clues you must use (1 to 5). You give the clues one at a time; "
        "after each one the others propose a word or pass. Found on exactly the last clue "
        "required, the word scores that number for you and for every finder; found sooner, it "
        "scores only the finders, as many points as clues given. A clue all the others find "
        "unfair can earn you the Malédiction (minus 4 at the end), and some exact finds let you "
        "hand a Mauvais sort (minus 1) to an opponent. Once the box has gone twice around the "
        "table, the highest total wins."
    ),
    "fr": (
        "Un jeu où l'on fait deviner des mots, et où marquent celui qui donne les indices comme "
        "ceux qui trouvent. À son tour, on choisit en secret un mot parmi deux sur une carte, "
        "et la carte suivante indique avec combien d'indices d'un seul mot il faut le faire "
        "trouver (de 1 à 5). On donne les indices un par un ; après chacun, les autres "
        "proposent un mot ou passent. Trouvé pile au dernier indice prévu, le mot rapporte ce "
        "nombre au joueur actif et à chaque joueur qui l'a trouvé ; trouvé plus tôt, il ne "
        "rapporte qu'à ceux qui l'ont trouvé, autant de points que d'indices donnés. Un indice "
        "que tous les autres jugent injuste peut valoir la Malédiction (−4 à la fin), et "
        "certains mots trouvés pile permettent de donner un Mauvais sort (−1) à un adversaire. "
        "Après deux tours complets de la boîte autour de la table, le plus haut total gagne."
    ),
}
