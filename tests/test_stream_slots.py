"""Live streams per client address: a gateway serves at most
``TAPIS_MAX_STREAMS_PER_CLIENT`` SSE streams to one client address (the
address the rate limits count); one more gets 429
``too_many_client_streams``, other clients are not affected, and a slot
comes back when its client disconnects.  On a real server (uvicorn)."""

from __future__ import annotations

import contextlib
import time

import httpx
import pytest

from services.gateway.errors import ApiError
from services.gateway.streams import StreamSlots

#: Read by the ``live_server`` fixture (tests/conftest.py).
LIVE_SERVER_SETTINGS = {"max_streams_per_client": 2, "rate_limits": False, "forwarded_allow_ips": "127.0.0.1"}


@pytest.fixture
def base(live_server):
    return f"http://127.0.0.1:{live_server[0]}"


def _table(base: str) -> str:
    r = httpx.post(base + "/tables", json={"game": "toy", "players": 2, "options": {"target": 4}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _open(stack: contextlib.ExitStack, base: str, t: str, **headers: str) -> httpx.Response:
    """A stream held open (its own connection) until ``stack`` closes it."""
    client = stack.enter_context(httpx.Client(timeout=5))
    return stack.enter_context(client.stream("GET", f"{base}/tables/{t}/stream", headers=headers))


def test_one_client_cannot_take_more_than_its_share_of_streams(base):
    t = _table(base)
    with contextlib.ExitStack() as held:
        first = contextlib.ExitStack()
        held.enter_context(first)
        assert _open(first, base, t).status_code == 200
        assert _open(held, base, t).status_code == 200
        r = httpx.get(f"{base}/tables/{t}/stream", timeout=5)
        assert r.status_code == 429
        assert r.headers["content-type"].startswith("application/problem+json")
        assert r.json()["code"] == "too_many_client_streams"
        assert int(r.headers["Retry-After"]) >= 1
        # another client address (X-Forwarded-For from the trusted proxy 127.0.0.1) has its own share
        other = {"X-Forwarded-For": "203.0.113.7"}
        assert _open(held, base, t, **other).status_code == 200
        # the first stream's client goes away: its slot comes back
        first.close()
        for _ in range(100):
            r = _open(held, base, t)
            if r.status_code == 200:
                break
            r.read()
            assert r.json()["code"] == "too_many_client_streams"
            time.sleep(0.05)
        assert r.status_code == 200
        again = httpx.get(f"{base}/tables/{t}/stream", timeout=5)
        assert again.status_code == 429
    # every stream closed: the client has its whole share again
    for _ in range(100):
        with contextlib.ExitStack() as s:
            if _open(s, base, t).status_code == 200 and _open(s, base, t).status_code == 200:
                break
        time.sleep(0.05)
    else:
        raise AssertionError("the slots were not given back")


def test_slots_are_given_back_once():
    slots = StreamSlots(total=3, per_client=2)
    a1, a2 = slots.take("a"), slots.take("a")
    with pytest.raises(ApiError) as exc:
        slots.take("a")
    assert (exc.value.status, exc.value.code) == (429, "too_many_client_streams")
    b1 = slots.take("b")
    with pytest.raises(ApiError) as exc:
        slots.take("c")
    assert (exc.value.status, exc.value.code) == (503, "too_many_streams")
    a1()
    a1()  # twice: still one slot
    assert slots.open == 2 and slots.by_client == {"a": 1, "b": 1}
    a2()
    b1()
    assert slots.open == 0 and not slots.by_client
