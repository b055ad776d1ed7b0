"""Feeds at a position the log does not hold (issue 12): `/events` refuses
an `after` beyond the log; the SSE stream answers a `Last-Event-ID` or
`after` beyond the log, or a malformed id, with an explicit `resync`
message carrying the current version, then goes on from there — never
silence, never a replay from the start."""

from __future__ import annotations

import json
import time

import httpx
import pytest


def _table(base: str) -> tuple[str, int]:
    """A finished one-seat toy game: (table id, its version)."""
    t = httpx.post(base + "/tables", json={"game": "toy", "players": 1, "options": {"target": 4},
                                           "bots": {"0": "first"}}).json()["id"]
    for _ in range(200):
        info = httpx.get(f"{base}/tables/{t}").json()
        if info["status"] == "finished":
            return t, info["version"]
        time.sleep(0.05)
    raise AssertionError("the toy game did not finish")


def _messages(base: str, t: str, n: int, **kw) -> list[dict]:
    """The first ``n`` SSE messages of the stream (``event``, ``id``, ``data``)."""
    out: list[dict] = []
    msg: dict = {}
    with httpx.stream("GET", f"{base}/tables/{t}/stream", timeout=5, **kw) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if not line:
                if msg:
                    out.append(msg)
                    msg = {}
                    if len(out) == n:
                        break
                continue
            key, _, value = line.partition(":")
            if key in ("event", "id", "data"):
                msg[key] = value.strip()
    return out


@pytest.fixture
def base(live_server):
    return f"http://127.0.0.1:{live_server[0]}"


def test_events_after_the_log_is_refused_with_the_version(base):
    t, version = _table(base)
    r = httpx.get(f"{base}/tables/{t}/events", params={"after": version + 3})
    assert r.status_code == 409
    assert (r.json()["code"], r.json()["version"]) == ("beyond_log", version)
    r = httpx.get(f"{base}/tables/{t}/events", params={"after": version})
    assert r.status_code == 200 and r.json()["events"] == []


@pytest.mark.parametrize(("how", "reason"), [
    ({"headers": {"Last-Event-ID": "15"}}, "beyond_log"),
    ({"params": {"after": 15}}, "beyond_log"),
    ({"headers": {"Last-Event-ID": "abc"}}, "malformed_id"),
    ({"headers": {"Last-Event-ID": "9" * 20}}, "malformed_id"),
])
def test_stream_at_a_position_not_in_the_log_gets_resync(base, how, reason):
    t, version = _table(base)
    assert version < 15
    [first] = _messages(base, t, 1, **how)
    assert first == {"event": "resync", "id": str(version),
                     "data": json.dumps({"version": version, "reason": reason})}


def test_stream_resumes_after_a_known_id_without_resync(base):
    t, version = _table(base)
    got = _messages(base, t, 2, headers={"Last-Event-ID": str(version - 2)})
    assert [m["event"] for m in got] == ["event", "event"]
    assert [int(m["id"]) for m in got] == [version - 1, version]
