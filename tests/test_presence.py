"""shared.presence.feed: the one function that redacts a feed for a seat
(the gateway's feeds and a bot's feed)."""

from __future__ import annotations

from shared import presence
from shared.events import Event


class HidingGame:
    """A game that hides ``Secret`` events from every seat but their own and
    blanks the hand of ``Dealt`` for the others."""

    def redact(self, event: Event, seat: int | None) -> Event | None:
        if event.type == "Secret":
            return event if event.seat == seat else None
        if event.type == "Dealt":
            hands = [h if i == seat else None for i, h in enumerate(event.data["hands"])]
            return Event(event.type, {"hands": hands}, event.seat, event.ts, event.cmd)
        return event


EVENTS = [
    Event("Dealt", {"hands": [["7H"], ["AS"]]}),
    Event("Secret", {"n": 1}, 1),
    Event(presence.TURN_TIMED_OUT, {"seat": 0, "deadline": 5}, 0),
    Event("Played", {"card": "7H"}, 0),
    Event(presence.SEAT_RETURNED, {"seat": 0}, 0),
]


def test_versions_are_log_positions_and_hidden_events_are_left_out():
    out = presence.feed(HidingGame(), EVENTS, 0, first_version=10)
    assert [v for v, _e in out] == [10, 12, 13, 14]
    assert out[0][1].data == {"hands": [["7H"], None]}
    assert [e.type for _v, e in out][1:] == [presence.TURN_TIMED_OUT, "Played", presence.SEAT_RETURNED]
    assert [v for v, _e in presence.feed(HidingGame(), EVENTS, 1)] == [1, 2, 3, 4, 5]


def test_a_spectator_sees_no_hand_and_table_events_as_they_are():
    out = dict(presence.feed(HidingGame(), EVENTS, None))
    assert out[1].data == {"hands": [None, None]} and 2 not in out
    assert out[3] is EVENTS[2] and out[5] is EVENTS[4]


def test_a_bot_feed_leaves_the_table_events_out():
    out = presence.feed(HidingGame(), EVENTS, 0, table_events=False)
    assert [(v, e.type) for v, e in out] == [(1, "Dealt"), (4, "Played")]
