"""The rules of DIX in a few sentences, in English and French: the
lobby's summary (``GET /games``, ``summary``).  Written in our own words;
the reference is docs/games/dix.md."""

#: Language code -> a short summary of the rules (goal, turn, end, scoring).
SUMMARY: dict[str, str] = {
    "en": (
        "Collect runs of consecutive numbers in each of the four colours. On your turn you flip "
        "cards from the deck one at a time: Number cards add to the total, Currency cards take "
        "away from it. Stop when you like, either keeping the Number cards (your opponents then "
        "receive the currency) or cashing the currency yourself; but if the total reaches 11 or "
        "more you bust, and the Number cards go to a market where anyone may buy them later. A "
        "flipped joker is auctioned at once for tokens. When the deck is empty, everyone gets "
        "one last chance to buy. Only the longest run of each colour scores, one point a card "
        "with a bonus for a full 1 to 9: the highest score wins, money breaking ties."
    ),
    "fr": (
        "Le but : réunir des suites de nombres consécutifs dans chacune des quatre couleurs. À "
        "son tour, on retourne les cartes de la pioche une à une : les cartes Nombre augmentent "
        "le total, les cartes Monnaie le diminuent. On s'arrête quand on veut, soit pour garder "
        "les Nombres (les adversaires touchent alors la monnaie), soit pour encaisser soi-même "
        "la monnaie ; mais si le total atteint 11 ou plus, le tour est perdu et les Nombres "
        "partent au marché, où chacun pourra les acheter plus tard. Un joker retourné est "
        "aussitôt mis aux enchères contre des jetons. Quand la pioche est vide, chacun a droit "
        "à un dernier achat. Seule la plus longue suite de chaque couleur compte, un point par "
        "carte et un bonus pour une suite complète de 1 à 9 : le plus haut score gagne, "
        "l'argent départage les égalités."
    ),
}
