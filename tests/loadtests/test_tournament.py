"""The duplicate tournament (loadtests/tournament.py) at a CI size."""

from __future__ import annotations

from collections import Counter

import pytest

from loadtests import tournament


def test_seatings_rotate_a_pattern_and_its_mirror() -> None:
    assert tournament.seatings(3, "A", "B") == [
        ("A", "B", "A"), ("B", "A", "A"), ("A", "A", "B"),
        ("B", "A", "B"), ("A", "B", "B"), ("B", "B", "A"),
    ]
    for n in (2, 3, 4, 5, 6):
        rows = tournament.seatings(n, "A", "B")
        assert len(rows) == 2 * n
        for seat in range(n):  # each strategy holds each seat n times per deal
            assert Counter(r[seat] for r in rows) == {"A": n, "B": n}
    with pytest.raises(ValueError):
        tournament.seatings(1, "A", "B")


def test_interval_is_mean_and_196_standard_errors() -> None:
    mean, half = tournament.interval([0.0, 1.0, 0.0, 1.0])
    assert mean == 0.5
    assert half == pytest.approx(1.96 * (1 / 3) ** 0.5 / 2)  # sd sqrt(1/3), n = 4


def test_a_small_mau_mau_run_shares_each_deal_fairly() -> None:
    res = tournament.run("maumau", 3, 12, "heuristic", "random")
    assert (res["deals"], res["games"]) == (2, 12)
    h, r = res["heuristic"], res["random"]
    for deal in range(2):
        # Both strategies hold 9 seats a deal and one seat in three wins a game.
        assert h.win[deal] + r.win[deal] == pytest.approx(2 / 3)
        assert h.win[deal] - r.win[deal] == pytest.approx(res["diff"][deal])
        assert 1 <= h.place[deal] <= 3 and 1 <= r.place[deal] <= 3
    assert res["lower_wins"] is True  # Mau Mau counts penalty points
    text = tournament.table({3: res}, "heuristic", "random")
    assert "| 3 | 12 (2) | heuristic |" in text and "heuristic − random" in text
    assert res == tournament.run("maumau", 3, 12, "heuristic", "random")  # seeded: the same figures again
