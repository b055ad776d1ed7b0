"""The SSE stream of an archived table (issue 22): on a real server whose
workers archive a finished table at once, a seat's and the spectator's
streams give the same messages as ``/events`` gives them, from the archive
(the table has left Redis), and resume after a ``Last-Event-ID``."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.test_feeds import _messages

LIVE_SERVER_SETTINGS = {
    "archive_url": f"sqlite:///{Path(tempfile.mkdtemp(prefix='tapis-test-archive-')) / 'archive.db'}",
    "archive_after_s": 0,
    "rate_limits": False,
}


@pytest.fixture
def base(live_server):
    return f"http://127.0.0.1:{live_server[0]}"


def _archived_person_table(base: str) -> tuple[str, str, int]:
    """A one-seat toy game a person played to the end, then archived:
    (table id, the seat's token, its version)."""
    t = httpx.post(base + "/tables", json={"game": "toy", "players": 1, "options": {"target": 4},
                                           "turn_seconds": None}).json()["id"]
    token = httpx.post(f"{base}/tables/{t}/join", json={"name": "Ada"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for i in range(4):
        for _ in range(200):
            if httpx.get(f"{base}/tables/{t}/view", headers=auth).json()["legal_actions"]:
                break
            time.sleep(0.02)
        r = httpx.post(f"{base}/tables/{t}/actions", headers=auth,
                       json={"action": {"type": "add", "n": 1}, "command_id": f"a{i}"})
        assert r.status_code == 200, r.text
    for _ in range(300):  # the sweeper archives it (archive_after_s 0): /history knows it, and once its
        # Redis keys are removed it leaves the lobby's index
        lobby = [x["id"] for x in httpx.get(f"{base}/tables", params={"status": "finished", "limit": 200}).json()]
        if httpx.get(f"{base}/history/{t}").status_code == 200 and t not in lobby:
            return t, token, httpx.get(f"{base}/tables/{t}").json()["version"]
        time.sleep(0.05)
    raise AssertionError("the table was not archived")


def test_streams_of_an_archived_table_give_its_feed_and_resume(base):
    t, token, version = _archived_person_table(base)
    assert version == 1 + 4  # the deal and four adds
    for headers in ({}, {"Authorization": f"Bearer {token}"}):
        feed = httpx.get(f"{base}/tables/{t}/events", headers=headers).json()["events"]
        msgs = _messages(base, t, version, headers=headers)
        assert [m["event"] for m in msgs] == ["event"] * version
        assert [json.loads(m["data"]) for m in msgs] == feed
        assert [int(m["id"]) for m in msgs] == list(range(1, version + 1))
        resumed = _messages(base, t, 2, headers={**headers, "Last-Event-ID": "3"})
        assert [json.loads(m["data"]) for m in resumed] == feed[3:]
    # the seat's stream shows the seat its secret, the spectator's does not
    seat_deal = json.loads(_messages(base, t, 1, headers={"Authorization": f"Bearer {token}"})[0]["data"])
    spectator_deal = json.loads(_messages(base, t, 1)[0]["data"])
    assert seat_deal["data"]["secrets"][0] is not None and spectator_deal["data"]["secrets"] == [None]
