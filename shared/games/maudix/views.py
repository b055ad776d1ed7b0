"""Maudix views and feeds: what each seat may see (docs/games/maudix.md,
"Events" and "Views"), stated as :mod:`shared.hiding` declarations.

* :data:`SECRETS` — per event type, what others may not see: the deals'
  hands and removed cards, an écart's cards, the exchange's cards (giver
  and receiver only), a designation before the reveal, the card of a theft
  (thief and target only).  ``redact = redactor(SECRETS)``.
* :func:`view` — the view built whole (every hand, the removed cards,
  every seat's écart, the theft's card) and passed through :func:`hide`
  with the view's declarations: :data:`VIEW_SECRETS`, plus
  :data:`SEALED` during the designation phase, until the designations are
  revealed (§09.04), and :data:`THEFT` while a theft is under way (§08).
  Every seat's écart is an :class:`_Ecarts`, whose entries are built when
  ``PerSeat`` reads one (a view shows one seat's): building all of them
  made a view some 10 % dearer.
"""

from __future__ import annotations

from typing import Any

from shared.games.maudix.scoring import result
from shared.games.maudix.state import Phase, State, awaiting
from shared.hiding import PerSeat, Pile, Private, Rows, Secret, Within, hide, redactor

#: A deal: each seat its own hand (and every hand's size), the removed
#: cards as their number (never shown to anyone, §02).
DEAL: tuple[Secret, ...] = (PerSeat("hands", sizes="hand_sizes"), Pile("removed", "removed_size"))

#: Event type -> what others may not see (types not named are public).
SECRETS: dict[str, tuple[Secret, ...]] = {
    "GameStarted": DEAL,
    "RoundDealt": DEAL,
    # The cards of an écart: its giver only (not even the receiver before the exchange).
    "EcartMade": (Private(("cards",)),),
    # Who gives to whom is public; the cards: giver and receiver.
    "EcartsExchanged": (Rows("passes", readers=(0, 1), secret=2),),
    # A designation: its author only, until DesignationsRevealed.
    "DesignationMade": (Private(),),
    # The card of a theft: thief and target only.
    "CardStolen": (Private(("card",), readers=("target",)),),
    "CardReturned": (Private(("card",), readers=("target",)),),
}

#: ``redact(event, seat)``: the event as ``seat`` (None: a spectator) may see it.
redact = redactor(SECRETS)

#: Always hidden in a view: other hands (each seat its own under ``hand``,
#: every size under ``hand_sizes``), the removed cards (their number under
#: ``removed_size``), other seats' écarts (each seat its own under ``my_ecart``).
VIEW_SECRETS: tuple[Secret, ...] = (
    PerSeat("hands", sizes="hand_sizes", own="hand"),
    Pile("removed", "removed_size"),
    PerSeat("my_ecarts", own="my_ecart"),
)
#: During the designation phase (until DesignationsRevealed, §09.04): each
#: seat sees its own designation only (outside it they are all unset or all revealed).
SEALED: tuple[Secret, ...] = (PerSeat("designations"),)
#: During a theft: the card that changed hands, for thief and target only.
THEFT: tuple[Secret, ...] = (Within("theft", (Private(("card",), readers=("thief", "target")),)),)

#: The view's declarations by (designations sealed, theft under way).
_VIEW: dict[tuple[bool, bool], tuple[Secret, ...]] = {
    (False, False): VIEW_SECRETS,
    (False, True): VIEW_SECRETS + THEFT,
    (True, False): VIEW_SECRETS + SEALED,
    (True, True): VIEW_SECRETS + SEALED + THEFT,
}


def _ecart(st: State, seat: int) -> dict[str, Any]:
    """The écart of ``seat``: cards sent and to whom, cards received and from whom."""
    sent = st.ecart_cards[seat]
    giver = st.ecart_from[seat]
    received = None if giver is None else st.ecart_cards[giver]
    return {
        "to": st.ecart_to[seat],
        "cards": None if sent is None else list(sent),
        "from": giver,
        "received": None if received is None else list(received),
    }


class _Ecarts:
    """Every seat's écart as ``PerSeat`` reads it (``len`` and one entry),
    each entry built when it is read: a view shows one seat's."""

    __slots__ = ("st",)

    def __init__(self, st: State) -> None:
        self.st = st

    def __len__(self) -> int:
        return self.st.n

    def __getitem__(self, seat: int) -> dict[str, Any]:
        return _ecart(self.st, seat)


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see, JSON-ready.

    Shape: ``game, players, seat, round (1-based), rounds, contract,
    contracts, dealer, phase, awaiting, options, hand`` (None for a
    spectator), ``hand_sizes, removed_size, tricks_total, ecarts`` (public
    routing: ``[{"from", "to"}]`` in arrival order), ``my_ecart`` (cards
    sent, to, cards received, from; None for a spectator),
    ``designations`` (own only before the reveal, all after),
    ``designated, bids, leader, turn, trick`` (current trick only:
    ``[{"seat", "card"}]``), ``led_suit, tricks_played, tricks_won,
    last_trick_winner, theft`` (who, target, suit, end; the card only for
    thief and target), ``scores`` (per finished round), ``totals``,
    ``points_per_trick, hook, voleur, result``, ``seats`` (per seat:
    ``seat``, ``cards`` in hand, ``score`` its total, ``tricks`` won this
    round).  Gathered tricks, other
    hands, removed cards and secret choices never appear.
    """
    st = state
    theft: dict[str, Any] | None = None
    if st.thief is not None:
        theft = {"thief": st.thief, "target": st.theft_target, "suit": st.theft_suit, "end": st.theft_end}
        if st.stolen is not None:
            theft["card"] = st.stolen
    res = result(st)
    hands, totals, won = st.hands, st.totals, st.tricks_won
    contracts = st.options["contracts"]  # the contracts' values, as in GameStarted (faster than Enum.value)
    whole: dict[str, Any] = {
        "game": "maudix",
        "players": st.n,
        "seat": seat,
        "round": st.round + 1,
        "rounds": len(st.contracts),
        "contract": contracts[st.round],
        "contracts": list(contracts),
        "dealer": st.dealer,
        "phase": st.phase._value_,  # .value is a Python-level property: slower
        "awaiting": sorted(awaiting(st)),
        "options": {**st.options, "contracts": list(contracts)},
        "hands": st.hands,
        "removed": st.removed,
        "tricks_total": st.tricks_total,
        "points_per_trick": st.per_trick,
        "hook": st.hook,
        "voleur": st.voleur,
        "ecarts": [{"from": g, "to": st.ecart_to[g]} for g in st.ecart_order],
        "my_ecarts": _Ecarts(st),
        "designations": list(st.designations),
        "designated": [t is not None for t in st.designations],
        "bids": list(st.bids),
        "leader": st.leader,
        "turn": st.turn,
        "trick": [{"seat": s, "card": c} for s, c in st.trick],
        "led_suit": st.led,
        "tricks_played": st.trick_no,
        "tricks_won": list(st.tricks_won),
        "last_trick_winner": st.last_winner,
        "theft": theft,
        "scores": [list(r) for r in st.round_scores],
        "totals": list(st.totals),
        "result": res.to_json() if res is not None else None,
        "seats": [{"seat": i, "cards": len(hands[i]), "score": totals[i], "tricks": won[i]} for i in range(st.n)],
    }
    return hide(whole, _VIEW[st.phase is Phase.DESIGNATE, theft is not None], seat, fresh=True)
