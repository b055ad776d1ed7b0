"""The shared contract: cards, the event codec, snapshots, rankings."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from shared import cards, snapshot
from shared.engine import IllegalAction, Result, places_from, require_type
from shared.events import Event, EventDecodeError, decode, encode


def test_deck_sizes_and_uniqueness():
    assert len(cards.deck52()) == 52 == len(set(cards.deck52()))
    assert len(cards.deck32()) == 32 == len(set(cards.deck32()))
    assert min(cards.RANK[c] for c in cards.deck32()) == 7


def test_two_deck_shoe_repeats_each_card_twice():
    s = cards.shoe(2, jokers=("PIRATE", "NAUFRAGE"))
    assert len(s) == 108
    assert s.count("QS") == 2 and s.count("PIRATE") == 2


@pytest.mark.parametrize(
    "text,code",
    [("10H", "10H"), ("10h", "10H"), ("10♥", "10H"), ("TH", "10H"), ("q♠", "QS"), ("VC", "JC"), ("RD", "KD"), (" a s ", "AS")],
)
def test_parse_accepts_common_spellings(text, code):
    assert cards.parse(text) == code


@pytest.mark.parametrize("text", ["", "X", "11H", "1", "10X", "QQ"])
def test_parse_rejects_garbage(text):
    with pytest.raises(ValueError):
        cards.parse(text)


def test_parse_jokers_and_display():
    assert cards.parse("pirate", jokers=("PIRATE",)) == "PIRATE"
    assert cards.display("10H") == "10♥" and cards.display("PIRATE") == "PIRATE"
    assert cards.name_fr("JD") == "Valet de carreau"
    assert cards.SUIT["10H"] == "H" and cards.RANK["AS"] == 14


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=12,
)


@given(
    st.text(min_size=1, max_size=12),
    st.dictionaries(st.text(max_size=6), json_values, max_size=4),
    st.none() | st.integers(0, 11),
    st.integers(0, 2**48),
    st.none() | st.text(max_size=20),
)
@settings(suppress_health_check=[HealthCheck.too_slow])  # the shared machine may be busy
def test_event_codec_round_trips(kind, data, seat, ts, cmd):
    e = Event(kind, data, seat, ts, cmd)
    assert decode(encode(e)) == e


@pytest.mark.parametrize("raw", [b"", b"\xc1", b"\x93\x01\x02\x03", encode(Event("X"))[:-3]])
def test_event_decode_rejects_garbage(raw):
    with pytest.raises(EventDecodeError):
        decode(raw)


class Phase(enum.Enum):
    PLAY = "play"
    OVER = "over"


@dataclass(slots=True)
class Inner:
    hand: list[str]
    pair: tuple[int, int]


@dataclass
class Outer:
    phase: Phase
    inners: list[Inner]
    by_seat: dict[int, str]
    odd: dict[str, int]
    tags: set[str] = field(default_factory=set)
    frozen: frozenset[int] = frozenset()
    nothing: None = None


def test_snapshot_round_trips_dataclasses_enums_and_containers():
    snapshot.allow(Phase, Inner, Outer)
    s = Outer(Phase.PLAY, [Inner(["10H", "QS"], (1, 2))], {0: "a", 3: "b"}, {"~x": 1}, {"t"}, frozenset({4}))
    blob = snapshot.pack(7, s)
    version, back = snapshot.unpack(blob)
    assert version == 7 and back == s
    assert type(back.inners[0].pair) is tuple and back.phase is Phase.PLAY


def test_snapshot_refuses_classes_outside_shared():
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load({"~dc": ["os:system", []]})
    with pytest.raises(snapshot.SnapshotError):
        snapshot.unpack(b"\xc1")


def test_places_share_equal_scores():
    assert places_from([5, 3, 5], lower_wins=True) == (2, 1, 2)
    assert places_from([10, 30, 30, 0], lower_wins=False) == (3, 1, 1, 4)
    r = Result((5, 3, 5), places_from([5, 3, 5], lower_wins=True), lower_wins=True)
    assert r.winners == (1,)


def test_require_type_refuses_unknown_actions():
    assert require_type({"type": "play"}, ["play", "draw"]) == "play"
    with pytest.raises(IllegalAction) as err:
        require_type({"type": "fly"}, ["play"])
    assert err.value.code == "bad_action"
    with pytest.raises(IllegalAction):
        require_type(["play"], ["play"])  # type: ignore[arg-type]
