"""The rules of Maudix in a few sentences, in English and French: the
lobby's summary (``GET /games``, ``summary``).  Written in our own words;
the reference is docs/games/maudix.md."""

#: Language code -> a short summary of the rules (goal, turn, end, scoring).
SUMMARY: dict[str, str] = {
    "en": (
        "Seven rounds, one contract each, in which every point is a penalty: the lowest total "
        "wins. Each round starts with a fresh deal, after which every player passes three cards "
        "face down to a different opponent. Then come the tricks: follow the suit led if you "
        "can, spades are always trumps, and of the two jokers the Pirate wins the trick while "
        "the Naufragé never does. In turn the contracts punish tricks won, Queens, face cards "
        "and aces, hearts (you take the worse of your pile and that of an opponent you "
        "designate), suits you captured nothing of, a wrong forecast of your tricks, and "
        "finally the tens, which also taint the next trick. A Jack that wins a trick lets its "
        "winner take a card from an opponent, then hand back one of the same suit. The totals "
        "after the seventh round rank the players."
    ),
    "fr": (
        "Sept manches, un contrat chacune, où chaque point est une pénalité : le plus petit "
        "total gagne. Chaque manche commence par une nouvelle donne, puis chacun passe trois "
        "cartes face cachée à un adversaire différent. Viennent ensuite les plis : on fournit "
        "la couleur demandée si on le peut, le pique est toujours atout, et des deux jokers le "
        "Pirate remporte le pli tandis que le Naufragé ne le remporte jamais. Tour à tour, les "
        "contrats sanctionnent les plis gagnés, les Dames, les figures et les as, les cœurs (on "
        "garde le pire de son tas et de celui d'un adversaire désigné), les couleurs dont on "
        "n'a rien pris, une erreur sur le nombre de plis annoncé, et enfin les 10, qui "
        "contaminent aussi le pli suivant. Un Valet qui remporte un pli permet à son gagnant de "
        "prendre une carte à un adversaire, puis de lui en rendre une de la même couleur. Les "
        "totaux après la septième manche donnent le classement."
    ),
}
