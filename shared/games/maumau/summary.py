"""The rules of Mau Mau in a few sentences, in English and French: the
lobby's summary (``GET /games``, ``summary``).  Written in our own words;
the reference is docs/games/maumau.md."""

#: Language code -> a short summary of the rules (goal, turn, end, scoring).
SUMMARY: dict[str, str] = {
    "en": (
        "Be the first to empty your hand. On your turn, play a card of the same rank or suit as "
        "the top of the discard pile, or draw one card when you have nothing to play. Some "
        "ranks act: a 7 makes the next player draw two unless they answer with a 7, an 8 skips "
        "the next player, and a Jack is wild and names the suit to follow. Say \"Mau\" when one "
        "card is left and \"Mau Mau\" with your last one; an opponent who catches you forgetting "
        "makes you draw two. When someone goes out, the others score the cards still in their "
        "hands (10 for A, K, Q, J, face value otherwise). Rounds follow one another until a "
        "total reaches 100: the lowest total wins."
    ),
    "fr": (
        "Le but : vider sa main le premier. À son tour, on pose une carte de même valeur ou de "
        "même couleur que celle du dessus de la défausse, ou on pioche une carte quand on ne "
        "peut rien jouer. Certaines valeurs agissent : un 7 fait piocher deux cartes au joueur "
        "suivant s'il ne répond pas par un 7, un 8 lui fait passer son tour, et un Valet, "
        "joker, impose la couleur qui suit. On annonce « Mau » quand il reste une carte et « "
        "Mau Mau » en posant la dernière ; un adversaire qui surprend un oubli vous fait "
        "piocher deux cartes. Quand un joueur sort, les autres comptent les cartes restées en "
        "main (10 pour A, R, D, V, leur chiffre pour les autres). Les manches s'enchaînent "
        "jusqu'à ce qu'un total atteigne 100 : le plus petit total gagne."
    ),
}
