"""Maudit Mot Dit rules: Given events / When action / Then exact events.

Section names ("Tour d'un joueur", "Fin de partie", Notes) are those of the
publisher's French rules, which ``docs/games/maudit_mot_dit.md`` gives beside
its own headings; rulings are the ones recorded there.  Expected values are
worked out by hand in comments.
"""

from __future__ import annotations

import pytest

from shared.events import Event
from shared.games.maudit_mot_dit import GAME, Phase
from shared.games.maudit_mot_dit.deck import BACKS, CARD_COUNT

from .helpers import (
    card_turned,
    chosen,
    clue,
    given,
    opening,
    passed,
    pick_turn,
    proposed,
    refused,
    revealed,
    scored,
    started,
    when,
)

T2 = pick_turn(2)  # a 2-clue word, no bonus
T2B = pick_turn(2, 1)
T3 = pick_turn(3)
T1 = pick_turn(1)  # a 1-clue word: play again
T1B = pick_turn(1, 1)
T4 = pick_turn(4)  # a 4-clue word: Mauvais sort
WRONG = "xylophone"  # not a game word


def bad_luck_given(giver: int, to: int) -> Event:
    return Event("BadLuckGiven", {"to": to}, giver)


# ---------------------------------------------------------------------------
# Setup and the start of a turn
# ---------------------------------------------------------------------------


def test_half_the_cards_go_to_the_centre_and_half_to_the_box():
    """Mise en place: half the word cards in the centre, the rest in the box; a random first player."""
    import random

    events = GAME.start(GAME.Options(), 4, random.Random(5))
    first = events[0]
    assert first.type == "GameStarted" and first.data["centre"] == CARD_COUNT // 2 == 55
    assert len(first.data["box"]) == 55
    assert len({f for f, _ in first.data["box"]}) == 55 and len({b for _, b in first.data["box"]}) == 55
    assert events[1].type == "CardTurned" and events[1].seat == first.data["first"]
    state = given(*events)
    assert state.phase is Phase.CHOOSE and GAME.awaiting(state) == {first.data["first"]}
    assert len(state.box) == 54  # one card went to the right part of the box


def test_active_player_chooses_one_of_the_two_candidate_words():
    """Tour, 2-3: the word on the right card under one of the left card's two symbols, secretly."""
    state = given(started(4, 0, [T2, T3]), card_turned(0, 1, 0, T2, 4))
    assert GAME.legal_actions(state, 0) == [
        {"type": "choose", "symbol": T2.symbol}, {"type": "choose", "symbol": T2.other_symbol},
    ]
    other = BACKS[T2.back][1]
    assert when(state, 0, {"type": "choose", "symbol": T2.other_symbol}) == [
        Event("WordChosen", {"choice": 1, "symbol": T2.other_symbol, "word": T2.other_word,
                             "count": other.count, "bonus": other.bonus}, 0),
    ]


def test_choosing_a_symbol_not_on_the_left_card_is_refused():
    """Tour, 2: only the two symbols of the left card."""
    state = given(started(4, 0, [T2, T3]), card_turned(0, 1, 0, T2, 4))
    other = next(s for s in ("moon", "sun", "star", "heart", "clover", "drop", "bolt", "snowflake")
                 if s not in (T2.symbol, T2.other_symbol))
    assert refused(state, 0, {"type": "choose", "symbol": other}).code == "unknown_symbol"


def test_clues_are_given_one_at_a_time_then_the_guessers_answer():
    """Tour, 4: one clue, then the guessers propose; the giver waits."""
    state = given(*opening(4, 0, [T2, T3]))
    assert when(state, 0, {"type": "clue", "word": "Zigzag"}) == [Event("ClueGiven", {"clue": "Zigzag", "number": 1}, 0)]
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1))
    assert state.phase is Phase.GUESS and GAME.awaiting(state) == {1, 2, 3}
    assert refused(state, 0, {"type": "clue", "word": "autre"}).code == "not_your_turn"


# ---------------------------------------------------------------------------
# Proposals per clue
# ---------------------------------------------------------------------------


def test_at_four_players_each_guesser_proposes_once_per_clue():
    """Tour, 4: "les adversaires proposent chacun" — one proposal (or a pass) each, revealed together."""
    base = [*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1)]
    state = given(*base, proposed(1, "pomme"))
    # Two of three guessers still to answer: nothing is revealed yet.
    assert when(state, 2, {"type": "propose", "word": "poire"}) == [proposed(2, "poire")]
    assert refused(state, 1, {"type": "propose", "word": "cerise"}).code == "already_proposed"
    assert refused(state, 1, {"type": "pass"}).code == "already_proposed"
    state = given(*base, proposed(1, "pomme"), proposed(2, "poire"))
    assert when(state, 3, {"type": "pass"}) == [
        passed(3),
        revealed(1, (1, "pomme", False), (2, "poire", False)),
    ]
    state = given(*base, proposed(1, "pomme"), proposed(2, "poire"), passed(3),
                  revealed(1, (1, "pomme", False), (2, "poire", False)))
    assert state.phase is Phase.CLUE and 0 in GAME.awaiting(state)
    assert refused(state, 1, {"type": "propose", "word": "prune"}).code == "wrong_phase"


def test_at_six_players_three_proposals_in_all_per_clue():
    """Tour, 4: "jusqu'à 3 mots en cas de partie à 5 ou 6 joueurs" — the third proposal closes the clue."""
    base = [*opening(6, 0, [T2, T3]), clue(0, "zigzag", 1), proposed(1, "pomme"), passed(2), proposed(3, "poire")]
    state = given(*base)
    assert GAME.awaiting(state) >= {4, 5}
    # Seat 4's proposal is the third in all: revealed at once, seat 5 never answers this clue.
    assert when(state, 4, {"type": "propose", "word": "prune"}) == [
        proposed(4, "prune"),
        revealed(1, (1, "pomme", False), (3, "poire", False), (4, "prune", False)),
    ]
    state = given(*base, proposed(4, "prune"), revealed(1, (1, "pomme", False), (3, "poire", False), (4, "prune", False)))
    assert state.phase is Phase.CLUE
    assert refused(state, 5, {"type": "propose", "word": "cerise"}).code == "wrong_phase"
    assert GAME.view(state, 5)["proposals_in_all"] == 3


def test_at_five_players_the_proposals_in_all_are_a_table_option():
    """Rulings: 3 in all at 5-6 players by default; the option changes it."""
    base = [*opening(5, 0, [T2, T3], proposals_in_all_5_6=1), clue(0, "zigzag", 1)]
    state = given(*base)
    assert when(state, 2, {"type": "propose", "word": "pomme"}) == [
        proposed(2, "pomme"), revealed(1, (2, "pomme", False)),
    ]


def test_the_clue_closes_when_every_guesser_passed():
    """Our ruling: a clue's answers close when every guesser proposed or passed."""
    state = given(*opening(3, 0, [T2, T3]), clue(0, "zigzag", 1), passed(1))
    assert when(state, 2, {"type": "pass"}) == [passed(2), revealed(1)]


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


def test_exact_find_scores_the_required_count_for_the_giver_and_each_finder():
    """Scoring: found with exactly the required clues — each finder and the active player score that many."""
    base = [
        *opening(4, 0, [T2, T3]),
        clue(0, "zigzag", 1), proposed(1, "pomme"), passed(2), passed(3), revealed(1, (1, "pomme", False)),
        clue(0, "zouave", 2), proposed(1, T2.word), passed(2),
    ]
    state = given(*base)
    # T2 needs 2 clues, found on the 2nd by seat 1: seat 0 (giver) +2, seat 1 +2.
    assert when(state, 3, {"type": "propose", "word": WRONG}) == [
        proposed(3, WRONG),
        revealed(2, (1, T2.word, True), (3, WRONG, False)),
        scored(0, T2, "exact", 2, [1], [2, 2, 0, 0]),
        card_turned(1, 2, 1, T3, 4),
    ]
    after = given(*base, *when(state, 3, {"type": "propose", "word": WRONG}))
    assert after.points == [2, 2, 0, 0] and after.centre == 55 - 4 and after.active == 1


def test_several_finders_on_the_same_clue_all_score():
    """Scoring: "chaque joueur ayant deviné le mot" — proposals are sealed, so two may find together."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1), proposed(1, T2.word), proposed(2, T2.word.upper()))
    # Found on clue 1 of 2: early, the two finders score 1 each.
    assert when(state, 3, {"type": "pass"}) == [
        passed(3),
        revealed(1, (1, T2.word, True), (2, T2.word.upper(), True)),
        scored(0, T2, "early", 1, [1, 2], [0, 1, 1, 0]),
        card_turned(1, 2, 1, T3, 4),
    ]


def test_early_find_scores_only_the_finders_as_many_points_as_clues_given():
    """Scoring: found with fewer clues — only the finders score, points = clues given."""
    state = given(
        *opening(4, 0, [T3, T2]),
        clue(0, "zigzag", 1), passed(1), passed(2), passed(3), revealed(1),
        clue(0, "zouave", 2), proposed(1, WRONG), passed(2),
    )
    # T3 needs 3; found on the 2nd clue by seat 3: seat 3 +2, the giver nothing.
    assert when(state, 3, {"type": "propose", "word": T3.word}) == [
        proposed(3, T3.word),
        revealed(2, (1, WRONG, False), (3, T3.word, True)),
        scored(0, T3, "early", 2, [3], [0, 0, 0, 2]),
        card_turned(1, 2, 1, T2, 4),
    ]


def test_miss_scores_nothing_when_the_clues_run_out():
    """Scoring: "si le mot n'est pas deviné, aucun point n'est gagné"; the box passes."""
    state = given(
        *opening(3, 0, [T2, T3]),
        clue(0, "zigzag", 1), passed(1), passed(2), revealed(1),
        clue(0, "zouave", 2), proposed(1, WRONG),
    )
    assert when(state, 2, {"type": "pass"}) == [
        passed(2),
        revealed(2, (1, WRONG, False)),
        scored(0, T2, "miss", 2, [], [0, 0, 0]),
        card_turned(1, 2, 1, T3, 3),
    ]


def test_a_proposal_matches_ignoring_case_accents_article_and_plural():
    """Rulings: guesses match ignoring case, accents, articles and plural ("Les Pièces" finds "pièce")."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFD", T2.word) if unicodedata.category(c) != "Mn")
    guess = "Les " + plain.upper() + "S"
    state = given(*opening(3, 0, [T2, T3]), clue(0, "zigzag", 1), passed(1))
    events = when(state, 2, {"type": "propose", "word": guess})
    assert events[1] == revealed(1, (2, guess, True))
    assert events[2].data["outcome"] == "early"


# ---------------------------------------------------------------------------
# Bonuses
# ---------------------------------------------------------------------------


def test_a_one_clue_word_found_exactly_lets_the_giver_play_again():
    """Rulings, bonuses: a 1-clue word found exactly — the active player plays again; the box does not pass."""
    state = given(*opening(3, 0, [T1, T2]), clue(0, "zigzag", 1), proposed(1, T1.word))
    assert when(state, 2, {"type": "pass"}) == [
        passed(2),
        revealed(1, (1, T1.word, True)),
        scored(0, T1, "exact", 1, [1], [1, 1, 0], "play_again"),
        card_turned(0, 2, 0, T2, 3),
    ]


def test_a_one_clue_word_missed_gives_no_bonus():
    """Rulings, bonuses: only an exact find earns the bonus."""
    state = given(*opening(3, 0, [T1, T2]), clue(0, "zigzag", 1), passed(1))
    events = when(state, 2, {"type": "pass"})
    assert events[2] == scored(0, T1, "miss", 1, [], [0, 0, 0]) and events[3] == card_turned(1, 2, 1, T2, 3)


def test_a_four_clue_word_found_exactly_hands_a_mauvais_sort_to_an_opponent():
    """Rulings, bonuses: a 4- or 5-clue word found exactly — the giver gives a Mauvais sort card (-1)."""
    base = [*opening(3, 0, [T4, T2])]
    for n in (1, 2, 3):
        base += [clue(0, f"indice{'x' * n}", n), passed(1), passed(2), revealed(n)]
    base += [clue(0, "zouave", 4), proposed(2, T4.word)]
    state = given(*base)
    assert when(state, 1, {"type": "propose", "word": T4.word}) == [
        proposed(1, T4.word),
        revealed(4, (2, T4.word, True), (1, T4.word, True)),
        scored(0, T4, "exact", 4, [2, 1], [4, 4, 4], "bad_luck"),
    ]
    base += [proposed(1, T4.word), revealed(4, (2, T4.word, True), (1, T4.word, True)),
             scored(0, T4, "exact", 4, [2, 1], [4, 4, 4], "bad_luck")]
    state = given(*base)
    assert state.phase is Phase.BAD_LUCK and GAME.awaiting(state) == {0}
    assert GAME.legal_actions(state, 0) == [{"type": "give_bad_luck", "to": 1}, {"type": "give_bad_luck", "to": 2}]
    assert refused(state, 0, {"type": "give_bad_luck", "to": 0}).code == "bad_target"
    assert refused(state, 0, {"type": "give_bad_luck", "to": 3}).code == "bad_target"
    assert when(state, 0, {"type": "give_bad_luck", "to": 2}) == [bad_luck_given(0, 2), card_turned(1, 2, 1, T2, 3)]
    after = given(*base, bad_luck_given(0, 2), card_turned(1, 2, 1, T2, 3))
    assert after.bad_luck == [0, 0, 1] and after.bad_luck_left == 9
    assert GAME.view(after, None)["totals"] == [4, 4, 3]


# ---------------------------------------------------------------------------
# The Malédiction
# ---------------------------------------------------------------------------


def _cursing(players: int = 4, **options):
    return [*opening(players, 0, [T2, T3], **options), clue(0, "zigzag", 1), proposed(1, "pomme")]


def test_any_guesser_may_propose_the_malediction_after_a_clue():
    """Notes: the tile may be given to the box holder when all players judge a clue unrelated."""
    state = given(*_cursing())
    assert {"type": "curse"} in GAME.legal_actions(state, 1)  # even after answering
    assert when(state, 2, {"type": "curse"}) == [Event("CurseProposed", {"clue": 1}, 2)]
    state = given(*_cursing(), Event("CurseProposed", {"clue": 1}, 2))
    assert state.phase is Phase.VOTE and GAME.awaiting(state) == {1, 3}
    assert GAME.legal_actions(state, 3) == [{"type": "vote", "agree": True}, {"type": "vote", "agree": False}]


def test_the_malediction_goes_to_the_giver_when_all_other_players_agree():
    """Notes + rulings: unanimous guessers — the tile (-4) goes to the clue-giver; the turn ends, no points."""
    base = [*_cursing(), Event("CurseProposed", {"clue": 1}, 2)]
    state = given(*base)
    assert when(state, 1, {"type": "vote", "agree": True}) == [Event("CurseVoted", {"agree": True}, 1)]
    state = given(*base, Event("CurseVoted", {"agree": True}, 1))
    assert when(state, 3, {"type": "vote", "agree": True}) == [
        Event("CurseVoted", {"agree": True}, 3),
        Event("CurseDecided", {"agreed": True, "to": 0, "votes": [
            {"seat": 1, "agree": True}, {"seat": 2, "agree": True}, {"seat": 3, "agree": True}]}),
        scored(0, T2, "cursed", 1, [], [0, 0, 0, 0]),
        card_turned(1, 2, 1, T3, 4),
    ]
    after = given(*base, *when(state, 3, {"type": "vote", "agree": True}), )
    assert after.curse_holder == 0
    assert GAME.view(after, 3)["totals"] == [-4, 0, 0, 0]


def test_one_no_vote_rejects_the_malediction_and_play_resumes():
    """Notes: "l'ensemble des joueurs" — one guesser against and the tile stays; one vote per clue."""
    base = [*_cursing(), Event("CurseProposed", {"clue": 1}, 2)]
    state = given(*base)
    assert when(state, 3, {"type": "vote", "agree": False}) == [
        Event("CurseVoted", {"agree": False}, 3),
        Event("CurseDecided", {"agreed": False, "to": None, "votes": [
            {"seat": 2, "agree": True}, {"seat": 3, "agree": False}]}),
    ]
    state = given(*base, *when(state, 3, {"type": "vote", "agree": False}))
    assert state.phase is Phase.GUESS and state.curse_holder is None
    assert GAME.awaiting(state) == {2, 3}  # still to answer clue 1; no second vote on it
    assert refused(state, 2, {"type": "curse"}).code == "curse_not_allowed"


def test_the_malediction_can_leave_the_turn_going_with_the_option():
    """Option curse_ends_turn=false: the tile is given and the clues go on."""
    base = [*_cursing(curse_ends_turn=False), Event("CurseProposed", {"clue": 1}, 2), Event("CurseVoted", {"agree": True}, 1)]
    state = given(*base)
    events = when(state, 3, {"type": "vote", "agree": True})
    assert [e.type for e in events] == ["CurseVoted", "CurseDecided"]
    state = given(*base, *events)
    assert state.curse_holder == 0 and state.phase is Phase.GUESS and GAME.awaiting(state) == {2, 3}


def test_the_malediction_tile_moves_to_the_next_cursed_giver():
    """Material: one tile — a new Malédiction takes it from its holder."""
    first_curse = [
        *_cursing(), Event("CurseProposed", {"clue": 1}, 2), Event("CurseVoted", {"agree": True}, 1),
        Event("CurseVoted", {"agree": True}, 3),
        Event("CurseDecided", {"agreed": True, "to": 0, "votes": [
            {"seat": 1, "agree": True}, {"seat": 2, "agree": True}, {"seat": 3, "agree": True}]}),
        scored(0, T2, "cursed", 1, [], [0, 0, 0, 0]),
        card_turned(1, 2, 1, T3, 4),
        chosen(1, T3), clue(1, "zigzag", 1),
        Event("CurseProposed", {"clue": 1}, 0), Event("CurseVoted", {"agree": True}, 2),
    ]
    state = given(*first_curse)
    events = when(state, 3, {"type": "vote", "agree": True})
    assert events[1].data["to"] == 1
    assert given(*first_curse, *events).curse_holder == 1


def test_the_curse_may_be_proposed_until_the_next_clue():
    """Our ruling: the window after a clue stays open while the giver prepares the next one."""
    state = given(*opening(3, 0, [T2, T3]), clue(0, "zigzag", 1), passed(1), passed(2), revealed(1))
    assert GAME.awaiting(state) == {0, 1, 2}
    assert GAME.legal_actions(state, 1) == [{"type": "curse"}]
    assert when(state, 1, {"type": "curse"}) == [Event("CurseProposed", {"clue": 1}, 1)]
    before_any_clue = given(*opening(3, 0, [T2, T3]))
    assert GAME.awaiting(before_any_clue) == {0}
    assert refused(before_any_clue, 0, {"type": "curse"}).code == "curse_not_allowed"


# ---------------------------------------------------------------------------
# Two trips, the end, the ranking
# ---------------------------------------------------------------------------


def _miss_turn(active: int, t, players: int) -> list[Event]:
    """A 1-clue turn that nobody finds (everybody passes)."""
    guessers = [s for s in range(players) if s != active]
    return [chosen(active, t), clue(active, "zigzag", 1), *[passed(s) for s in guessers], revealed(1),
            scored(active, t, "miss", 1, [], [0] * players)]


def test_the_game_ends_when_the_box_has_gone_twice_round_the_table():
    """Fin de partie: "une fois que la boite a fait 2 tours de table"."""
    turns = [pick_turn(1, i) for i in range(7)]
    events = [started(3, 1, turns), card_turned(1, 1, 0, turns[0], 3)]
    for k in range(5):  # turns 1..5: seats 1, 2, 0, 1, 2
        active = (1 + k) % 3
        events += _miss_turn(active, turns[k], 3)
        events.append(card_turned((active + 1) % 3, k + 2, k + 1, turns[k + 1], 3))
    state = given(*events)
    assert state.active == 0 and GAME.view(state, None)["trip"] == 2 and GAME.result(state) is None
    events += [chosen(0, turns[5]), clue(0, "zigzag", 1), passed(1)]
    state = given(*events)
    assert when(state, 2, {"type": "pass"}) == [
        passed(2), revealed(1), scored(0, turns[5], "miss", 1, [], [0, 0, 0]),
        Event("GameEnded", {"reason": "trips"}),
    ]
    end = given(*events, passed(2), revealed(1), scored(0, turns[5], "miss", 1, [], [0, 0, 0]),
                Event("GameEnded", {"reason": "trips"}))
    assert GAME.awaiting(end) == frozenset() and GAME.legal_actions(end, 0) == []
    assert refused(end, 0, {"type": "clue", "word": "zigzag"}).code == "game_over"
    assert GAME.result(end).places == (1, 1, 1)


def test_playing_again_on_the_last_turn_delays_the_end():
    """Rulings: play again is an extra turn; the box has not passed yet."""
    turns = [pick_turn(1, i) for i in range(3)]
    events = [started(3, 0, turns, trips=1), card_turned(0, 1, 0, turns[0], 3, trips=1)]
    events += _miss_turn(0, turns[0], 3) + [card_turned(1, 2, 1, turns[1], 3, trips=1)]
    events += _miss_turn(1, turns[1], 3) + [card_turned(2, 3, 2, turns[2], 3, trips=1)]
    events += [chosen(2, turns[2]), clue(2, "zigzag", 1), proposed(0, turns[2].word)]
    state = given(*events)
    got = when(state, 1, {"type": "pass"})
    assert got[2] == scored(2, turns[2], "exact", 1, [0], [1, 0, 1], "play_again")
    assert got[3].type == "CardTurned" and got[3].data["active"] == 2 and got[3].data["passes"] == 2


def test_final_ranking_counts_points_mauvais_sort_and_malediction():
    """Fin de partie: most points wins, "en comptant les cartes devant lui et les malus"; ties share."""
    t4, t1, t2 = pick_turn(4), pick_turn(1), pick_turn(2)
    ev = [started(3, 0, [t4, t1, t2], trips=1), card_turned(0, 1, 0, t4, 3, trips=1), chosen(0, t4)]
    for n in (1, 2, 3):
        ev += [clue(0, "x" * n + "a", n), passed(1), passed(2), revealed(n)]
    # Turn 1 (seat 0, 4 clues): seat 1 finds exactly -> 4 and 4; seat 0 gives seat 1 a Mauvais sort.
    ev += [clue(0, "zouave", 4), proposed(1, t4.word), passed(2), revealed(4, (1, t4.word, True)),
           scored(0, t4, "exact", 4, [1], [4, 4, 0], "bad_luck"), bad_luck_given(0, 1),
           card_turned(1, 2, 1, t1, 3, trips=1)]
    # Turn 2 (seat 1): the Malédiction, unanimous -> seat 1 holds it.
    ev += [chosen(1, t1), clue(1, "zigzag", 1), Event("CurseProposed", {"clue": 1}, 2),
           Event("CurseVoted", {"agree": True}, 0),
           Event("CurseDecided", {"agreed": True, "to": 1, "votes": [{"seat": 0, "agree": True}, {"seat": 2, "agree": True}]}),
           scored(1, t1, "cursed", 1, [], [0, 0, 0]), card_turned(2, 3, 2, t2, 3, trips=1)]
    # Turn 3 (seat 2, 2 clues): seat 1 finds on the first clue -> early, +1; then the game ends.
    ev += [chosen(2, t2), clue(2, "zigzag", 1), proposed(1, t2.word)]
    state = given(*ev)
    last = when(state, 0, {"type": "pass"})
    assert last == [passed(0), revealed(1, (1, t2.word, True)), scored(2, t2, "early", 1, [1], [0, 1, 0]),
                    Event("GameEnded", {"reason": "trips"})]
    result = GAME.result(given(*ev, *last))
    # Points 4, 5, 0; seat 1: 5 - 1 (Mauvais sort) - 4 (Malédiction) = 0, level with seat 2.
    assert result.scores == (4, 0, 0) and all(type(x) is int for x in result.to_json()["scores"])  # whole points
    assert result.places == (1, 2, 2)
    assert result.detail["points"] == [4, 5, 0] and result.detail["bad_luck"] == [0, 1, 0]
    assert result.detail["curse_holder"] == 1


def _exact_turns(players: int, k: int, **options) -> tuple[list[Event], list]:
    """``k`` turns of a 3-clue word, each found on the 3rd clue by seats
    proposing first (3 in all at 5-6 players): 4 x 3 = 12 points a turn."""
    turns = [pick_turn(3, i) for i in range(k + 1)]
    ev = [started(players, 0, turns, **options), card_turned(0, 1, 0, turns[0], players)]
    for i in range(k):
        active, t = i % players, turns[i]
        others = [s for s in range(players) if s != active]
        ev.append(chosen(active, t))
        for n in (1, 2):
            ev += [clue(active, "z" * n + "ut", n), *[passed(s) for s in others], revealed(n)]
        finders = others[:3]
        ev += [clue(active, "zouave", 3), *[proposed(s, t.word) for s in finders],
               revealed(3, *[(s, t.word, True) for s in finders])]
        points = [3 if s == active or s in finders else 0 for s in range(players)]
        ev.append(scored(active, t, "exact", 3, finders, points))
        if i < k - 1:
            ev.append(card_turned(i + 1, i + 2, i + 1, turns[i + 1], players))
    return ev, turns


def test_points_beyond_the_centre_pile_still_count_by_default():
    """Our ruling: the centre pile (55) is a counter; points beyond it still count."""
    ev, turns = _exact_turns(6, 5)
    state = given(*ev, card_turned(5, 6, 5, turns[5], 6))
    assert sum(state.points) == 60 and state.centre == 0 and GAME.result(state) is None


def test_the_game_can_end_when_the_centre_pile_is_empty():
    """Option end_when_centre_empty: the game ends after the turn that empties the pile."""
    ev, turns = _exact_turns(6, 5, end_when_centre_empty=True)
    *before, last = ev  # the 5th TurnScored: 48 + 12 = 60 >= 55
    state = given(*before[:-2])  # the 5th turn (seat 4 active): seats 0 and 1 found, seat 2 to answer
    assert state.centre == 55 - 48
    got = when(state, 2, {"type": "propose", "word": turns[4].word})
    assert got[-2] == scored(4, turns[4], "exact", 3, [0, 1, 2], [3, 3, 3, 0, 3, 0])
    assert got[-1] == Event("GameEnded", {"reason": "centre_empty"})


# ---------------------------------------------------------------------------
# Refusals
# ---------------------------------------------------------------------------


def test_acting_out_of_turn_is_refused():
    """Tour: only the active player chooses and gives clues; guessers answer after a clue."""
    state = given(*opening(4, 0, [T2, T3]))
    assert refused(state, 1, {"type": "propose", "word": "pomme"}).code == "not_your_turn"
    assert refused(state, 0, {"type": "choose", "symbol": T2.symbol}).code == "wrong_phase"
    assert refused(state, 0, {"type": "vote", "agree": True}).code == "wrong_phase"
    assert refused(state, 0, {"type": "give_bad_luck", "to": 1}).code == "wrong_phase"


def test_malformed_actions_are_bad_actions():
    """Contract: unknown type, missing field, wrong field type -> bad_action."""
    state = given(*opening(4, 0, [T2, T3]))
    assert refused(state, 0, {"type": "fly"}).code == "bad_action"
    assert refused(state, 0, {"word": "x"}).code == "bad_action"
    assert refused(state, 0, {"type": "clue"}).code == "bad_action"
    assert refused(state, 0, {"type": "clue", "word": 7}).code == "bad_action"
    voting = given(*_cursing(), Event("CurseProposed", {"clue": 1}, 2))
    assert refused(voting, 3, {"type": "vote", "agree": "yes"}).code == "bad_action"


def test_the_giver_cannot_propose_or_curse():
    """Tour: the active player gives clues, the opponents propose."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1), passed(1), passed(2), passed(3), revealed(1))
    assert refused(state, 0, {"type": "propose", "word": T2.word}).code == "giver_cannot_propose"
    assert refused(state, 0, {"type": "curse"}).code == "curse_not_allowed"


@pytest.mark.parametrize("text,code", [
    ("", "text_empty"),
    ("   ", "text_empty"),
    ("x" * 41, "text_too_long"),
    ("pom\u0000me", "text_control_characters"),
    ("pomme\u200b", "text_control_characters"),
    ("pomme\nrouge", "text_control_characters"),
    ("1234", "guess_not_a_word"),
    ("?!", "guess_not_a_word"),
])
def test_free_text_proposals_are_bounded(text, code):
    """Our ruling: free text is NFC-normalised, at most 40 characters, no control characters."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1))
    assert refused(state, 1, {"type": "propose", "word": text}).code == code


def test_proposals_are_normalised_to_nfc():
    """Our ruling: Unicode NFC, inner whitespace collapsed."""
    state = given(*opening(4, 0, [T2, T3]), clue(0, "zigzag", 1))
    decomposed = "pie\u0300ce   de  monnaie "
    assert when(state, 1, {"type": "propose", "word": decomposed}) == [proposed(1, "pièce de monnaie")]


@pytest.mark.parametrize("text,code", [
    ("deux mots", "clue_not_one_word"),
    ("c-h-a-t", "clue_spelled"),
    ("C.H.A.T", "clue_spelled"),
    ("b a t", "clue_spelled"),
    ("42", "clue_not_a_word"),
    ("héhé!", "clue_not_a_word"),
    ("x" * 31, "text_too_long"),
    ("\u0007", "text_control_characters"),
])
def test_clue_shape_is_checked_in_decide(text, code):
    """Notes: one word, not spelled; free text bounded."""
    state = given(*opening(4, 0, [T2, T3]))
    assert refused(state, 0, {"type": "clue", "word": text}).code == code


def test_a_clue_of_the_secret_words_family_is_refused_without_naming_it():
    """Notes: "ne peut pas donner des mots de la même famille que le mot secret"."""
    state = given(*opening(4, 0, [T2, T3]))
    err = refused(state, 0, {"type": "clue", "word": T2.word + "s"})
    assert err.code == "clue_same_family"
    assert T2.word not in err.message.replace(T2.word + "s", "")  # only the giver's own clue is quoted


def test_a_clue_of_an_earlier_clues_family_or_repeated_is_refused():
    """Notes: "ou qu'un mot précédent"; a clue is not given twice."""
    state = given(*opening(4, 0, [T3, T2]), clue(0, "chanter", 1), passed(1), passed(2), passed(3), revealed(1))
    assert refused(state, 0, {"type": "clue", "word": "CHANTER"}).code == "clue_repeated"
    assert refused(state, 0, {"type": "clue", "word": "chants"}).code == "clue_same_family_as_earlier"
    assert refused(state, 0, {"type": "clue", "word": "chanteur"}).code == "clue_same_family_as_earlier"
