"""One bot turn as a plain function, tested without a broker.

The bot reads only its seat's ``view`` and ``legal_actions`` (the strategy
never receives the state), chooses, and submits through the same command
stream as people do (command kind ``bot``), with ``expected_version`` set
to the version it was woken for and the command id ``b<seat>.<version>``,
so a late task is dropped (``stale``), a task delivered twice is counted
(``duplicate``), and no move is ever applied twice.  The same function
plays an away person's seat with the table's stand-in strategy.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time

from services import metrics
from services.messaging import Submitter
from services.store.tables import Tables
from shared import presence
from shared.engine import IllegalAction, wants_feed

log = logging.getLogger("tapis.bots")


async def take_turn(tables: Tables, submitter: Submitter, table: str, seat: int, version: int,
                    *, rng: random.Random | None = None) -> str:
    """Play one bot move for ``seat`` at ``table`` if it is still awaited at
    ``version`` (a bot seat, or an away person's seat played by the
    table's stand-in).  Returns the outcome: ``submitted``, ``declined``
    (an optional move passed), ``duplicate`` (this very turn was already
    played: the task came twice), ``stale`` (the table moved on before the
    strategy chose, or this process's cached table moved on while it
    chose: nothing is sent; a move made on a table another process moved
    is sent and refused as stale),
    ``not_a_bot`` or ``missing``."""
    rng = rng or random.Random()
    t = await tables.get(table)
    if t is None:
        return "missing"
    strategy_name = t.driver(seat)
    if strategy_name is None:
        return "not_a_bot"
    game = t.game
    if (t.version != version or t.state is None or game.result(t.state) is not None
            or seat not in game.awaiting(t.state)):
        return await _late(tables, t.game.name, table, seat, version)
    view = game.view(t.state, seat)
    legal = game.legal_actions(t.state, seat)
    if not legal:
        metrics.BOT_TURNS.labels(game.name, "stale").inc()
        return "stale"
    strategy = game.strategies.get(strategy_name) or game.strategies["random"]
    kwargs = {}
    if wants_feed(strategy):
        events = await tables.store.read(table, until=version)
        kwargs["feed"] = [e for _v, e in presence.feed(game, events, seat, table_events=False)]
    t0 = time.perf_counter()
    # In a thread: a Monte Carlo or word-vector bot must not stall the
    # event loop of an all-in-one `tapis serve`.
    try:
        action = await asyncio.to_thread(strategy, view, legal, rng, **kwargs)
    except Exception:  # a strategy bug must not stall the table
        log.exception("bot %s of %s failed; playing a random legal action", strategy_name, game.name)
        metrics.BOT_TURNS.labels(game.name, "error").inc()
        action = rng.choice(legal)
    metrics.BOT_DECISION.labels(game.name, strategy_name).observe(time.perf_counter() - t0)
    if action is None:
        metrics.BOT_TURNS.labels(game.name, "declined").inc()
        return "declined"
    if t.version != version:
        # The table moved on while the strategy thought (another seat's move in a simultaneous phase, or this
        # very turn played by a copy of this task): the cached state was folded forward in place, so the move
        # can no longer be checked against it, and the command would be refused as stale.  The append that
        # moved the table enqueued this seat again if it is still awaited.
        return await _late(tables, game.name, table, seat, version)
    try:
        game.decide(t.state, seat, action, random.Random(0))
    except IllegalAction as exc:  # a strategy bug must not stall the table
        log.warning("bot %s of %s chose an illegal action (%s); playing a random legal one",
                    strategy_name, game.name, exc.code)
        metrics.BOT_TURNS.labels(game.name, "refused").inc()
        action = rng.choice(legal)
    await submitter.send(table, kind="bot", seat=seat, action=action, expected=version,
                         command_id=f"b{seat}.{version}", wait=False)
    metrics.BOT_TURNS.labels(game.name, "submitted").inc()
    return "submitted"


async def _late(tables: Tables, game: str, table: str, seat: int, version: int) -> str:
    """The outcome of a turn woken for ``version`` that the table has left:
    ``duplicate`` if this very turn's command was applied, else ``stale``
    (counted in ``tapis_bot_turns_total``)."""
    played = await tables.store.outcome(table, f"b{seat}.{version}") is not None
    outcome = "duplicate" if played else "stale"
    metrics.BOT_TURNS.labels(game, outcome).inc()
    return outcome
