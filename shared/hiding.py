"""Hidden information, stated once per game and hidden in one place.

A game says *what* is secret with a few declarations; the functions here
do the hiding, for its views and its feeds alike (docs/architecture.md,
"Hidden information").  The declarations:

* :class:`PerSeat` — a list with one entry per seat (the hands, the
  écarts, sealed choices): each seat sees only its own entry.
* :class:`Pile` — cards nobody sees (the talon, the deck's order, the
  cards set aside): only their number shows.
* :class:`Private` — keys that only some seats see: the event's author
  (the seat that drew the card) and the seats named by other keys (the
  target of a theft); the others see the rest.
* :class:`Rows` — a list of rows each readable by the seats it names
  (the écarts passed between two players).
* :class:`Within` — the same declarations applied to a nested dict.

A view is built whole (every field a seat could ever see, the secret ones
included) and passed through :func:`hide` with the view's declarations; an
event is passed through a :func:`redactor` made from a mapping of event
type to declarations.  Nothing here knows a game: a spectator (``seat``
None) is a reader of nothing secret.

Example (Mau Mau's deal)::

    DEAL = (PerSeat("hands", sizes="hand_sizes"), Pile("talon", "talon_size"))
    hide({"hands": [["7H"], ["KS"]], "talon": ["AD", "9C"]}, DEAL, seat=1)
    == {"hands": [None, ["KS"]], "hand_sizes": [1, 1], "talon_size": 2}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shared.events import Event

#: One secret's hiding, compiled: ``step(out, seat, author)`` changes
#: ``out`` in place.  A view passes through a few of them, an event
#: through one: each is a closure over the declaration's fields that calls
#: nothing of Python's, since a call costs more than the hiding itself.
Step = Callable[[dict[str, Any], "int | None", "int | None"], None]


@dataclass(frozen=True, slots=True)
class PerSeat:
    """``key`` holds one entry per seat; each seat sees only its own.

    Without ``own``: the list stays under ``key`` with the other seats'
    entries replaced by None.  With ``own``: ``key`` is removed and the
    seat's own entry stands under ``own`` (None for a spectator).
    ``sizes``: also add ``len`` of every entry under that key (an entry
    that is None counts 0)."""

    key: str
    sizes: str | None = None
    own: str | None = None

    def compile(self) -> Step:
        """This declaration's :data:`Step`."""
        key, sizes, own = self.key, self.sizes, self.own

        def per_seat(out: dict[str, Any], seat: int | None, author: int | None) -> None:
            entries = out[key]
            if sizes is not None:
                try:
                    out[sizes] = list(map(len, entries))
                except TypeError:  # an entry is None
                    out[sizes] = [0 if e is None else len(e) for e in entries]
            if own is not None:
                del out[key]
                if seat is not None and 0 <= seat < len(entries):
                    entry = entries[seat]
                    out[own] = list(entry) if isinstance(entry, (list, tuple)) else entry
                else:
                    out[own] = None
            else:
                out[key] = [_copy(e) if i == seat else None for i, e in enumerate(entries)]
        return per_seat


@dataclass(frozen=True, slots=True)
class Pile:
    """``key`` holds cards nobody sees: it is replaced by their number
    under ``size``."""

    key: str
    size: str

    def compile(self) -> Step:
        """This declaration's :data:`Step`."""
        key, size = self.key, self.size

        def pile(out: dict[str, Any], seat: int | None, author: int | None) -> None:
            out[size] = len(out.pop(key))
        return pile


@dataclass(frozen=True, slots=True)
class Private:
    """``keys`` are seen only by the readers: the author (the event's
    ``seat``; none for a view) and the seats named by the keys in
    ``readers`` (e.g. ``("target",)``).  Others see the data without
    ``keys`` (``keys=()``: without any data at all) and, with ``size``,
    the length of the first key under that name (the number of cards
    drawn)."""

    keys: tuple[str, ...] = ()
    readers: tuple[str, ...] = ()
    size: str | None = None

    def reads(self, data: Mapping[str, Any], seat: int | None, author: int | None) -> bool:
        """Whether ``seat`` may read the keys of ``data``."""
        if seat is None:
            return False
        if seat == author:
            return True
        for r in self.readers:
            if data.get(r) == seat:
                return True
        return False

    def conceal(self, out: dict[str, Any]) -> None:
        """Hide the keys from ``out``: what a seat that cannot read them sees."""
        if self.size is not None:
            out[self.size] = len(out[self.keys[0]])
        if not self.keys:
            out.clear()
        for k in self.keys:
            out.pop(k, None)

    def compile(self) -> Step:
        """This declaration's :data:`Step`."""
        keys, readers, size = self.keys, self.readers, self.size
        first = keys[0] if keys else ""
        if len(keys) == 1 and len(readers) == 1 and size is None:  # a view's card for one seat
            (reader,) = readers

            def private_one(out: dict[str, Any], seat: int | None, author: int | None) -> None:
                if seat is None or (seat != author and out.get(reader) != seat):
                    out.pop(first, None)
            return private_one

        def private(out: dict[str, Any], seat: int | None, author: int | None) -> None:
            if seat is not None:
                if seat == author:
                    return
                for r in readers:
                    if out.get(r) == seat:
                        return
            if size is not None:
                out[size] = len(out[first])
            if not keys:
                out.clear()
            for k in keys:
                out.pop(k, None)
        return private


@dataclass(frozen=True, slots=True)
class Rows:
    """``key`` holds rows (lists); item ``secret`` of a row is seen only by
    the seats at the row's items ``readers`` (None for the others)."""

    key: str
    readers: tuple[int, ...]
    secret: int

    def compile(self) -> Step:
        """This declaration's :data:`Step`."""
        key, readers, i = self.key, self.readers, self.secret

        def rows(out: dict[str, Any], seat: int | None, author: int | None) -> None:
            shown = []
            for row in out[key]:
                row = list(row)
                if seat is None or all(row[r] != seat for r in readers):
                    row[i] = None
                shown.append(row)
            out[key] = shown
        return rows


@dataclass(frozen=True, slots=True)
class Within:
    """Apply ``secrets`` to the dict under ``key``."""

    key: str
    secrets: tuple[Secret, ...]

    def compile(self) -> Step:
        """This declaration's :data:`Step`."""
        key, steps = self.key, tuple(s.compile() for s in self.secrets)

        def within(out: dict[str, Any], seat: int | None, author: int | None) -> None:
            inner = dict(out[key])
            for step in steps:
                step(inner, seat, author)
            out[key] = inner
        return within


Secret = PerSeat | Pile | Private | Rows | Within


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, (list, tuple)) else value


#: id of a secrets sequence -> (the sequence, its steps): views pass
#: module constants, compiled on first use.
_COMPILED: dict[int, tuple[Sequence[Secret], tuple[Step, ...]]] = {}


def steps(secrets: Sequence[Secret]) -> tuple[Step, ...]:
    """The compiled :data:`Step` of each of ``secrets`` (cached while the
    same sequence object is passed)."""
    entry = _COMPILED.get(id(secrets))
    if entry is None or entry[0] is not secrets:
        if len(_COMPILED) > 512:  # sequences built per call: keep the cache small
            _COMPILED.clear()
        entry = _COMPILED[id(secrets)] = (secrets, tuple(s.compile() for s in secrets))
    return entry[1]


def hide(data: Mapping[str, Any], secrets: Sequence[Secret], seat: int | None,
         author: int | None = None, *, fresh: bool = False) -> dict[str, Any]:
    """``data`` as ``seat`` (None: a spectator) may see it under
    ``secrets``; ``author``: the seat whose fact it is (an event's
    ``seat``), which sees its own :class:`Private` keys.  A copy: ``data``
    is not changed, unless ``fresh`` (a dict built for this call, as a
    view is), which is then hidden in place and returned."""
    out = data if fresh and type(data) is dict else dict(data)
    for step in steps(secrets):
        step(out, seat, author)
    return out


def redactor(secrets: Mapping[str, Sequence[Secret]]) -> Callable[[Event, int | None], Event]:
    """``redact(event, seat)`` from one mapping of event type to its
    secrets: the event as ``seat`` (None: a spectator) may see it.  Types
    not named are public, and an event whose secrets are all
    :class:`Private` keys the seat may read: the event itself comes back.
    A game's ``redact`` is ``redactor(SECRETS)``.

    Every event of every feed passes here, most of them public: the
    dispatch compares the type with the few secret ones inline (cheaper
    than a dict lookup), in a function written once per game, as
    :mod:`dataclasses` writes ``__init__``."""
    plans = [(kind, _plan(tuple(s))) for kind, s in secrets.items()]
    lines = ["def redact(event, seat):", "    kind = event.type"]
    lines += [f"    if kind == {kind!r}:\n        return plan{i}(event, seat)" for i, (kind, _) in enumerate(plans)]
    lines.append("    return event")
    scope: dict[str, Any] = {f"plan{i}": plan for i, (_, plan) in enumerate(plans)}
    exec("\n".join(lines), scope)  # the source: built above from the types' reprs only
    redact: Callable[[Event, int | None], Event] = scope["redact"]
    redact.__doc__ = "The event as ``seat`` (None: a spectator) may see it; types hidden: " + ", ".join(
        kind for kind, _ in plans) + "."
    return redact


def _plan(secrets: tuple[Secret, ...]) -> Callable[[Event, int | None], Event]:
    """How to redact one event type with ``secrets``."""
    if len(secrets) == 1 and type(secrets[0]) is Private and not secrets[0].readers:
        return _author_only(secrets[0])
    if all(type(x) is Private for x in secrets):
        private = tuple(x for x in secrets if isinstance(x, Private))

        def readable(event: Event, seat: int | None) -> Event:
            # Only Private keys: the data copied only when one is hidden from the seat.
            data, author = event.data, event.seat
            hidden = None
            for p in private:
                if not p.reads(data, seat, author):
                    if hidden is None:
                        hidden = dict(data)
                    p.conceal(hidden)
            return event if hidden is None else Event(event.type, hidden, author, event.ts, event.cmd)
        return readable

    compiled = tuple(s.compile() for s in secrets)

    def general(event: Event, seat: int | None) -> Event:
        out = dict(event.data)
        author = event.seat
        for step in compiled:
            step(out, seat, author)
        return Event(event.type, out, author, event.ts, event.cmd)
    return general


def _author_only(p: Private) -> Callable[[Event, int | None], Event]:
    """The common case: keys only the event's author reads (a drawn card;
    with no keys: the whole data, a sealed guess)."""
    keys, size = p.keys, p.size
    if len(keys) == 1:
        (key,) = keys

        def one_key(event: Event, seat: int | None) -> Event:
            if seat is not None and seat == event.seat:
                return event
            hidden = dict(event.data)
            cards = hidden.pop(key, None)
            if size is not None:
                hidden[size] = len(cards)
            return Event(event.type, hidden, event.seat, event.ts, event.cmd)
        return one_key

    def author_only(event: Event, seat: int | None) -> Event:
        if seat is not None and seat == event.seat:
            return event
        if not keys:
            return Event(event.type, {}, event.seat, event.ts, event.cmd)
        hidden = dict(event.data)
        if size is not None:
            hidden[size] = len(hidden[keys[0]])
        for k in keys:
            hidden.pop(k, None)
        return Event(event.type, hidden, event.seat, event.ts, event.cmd)
    return author_only
