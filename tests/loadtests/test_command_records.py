"""loadtests/command_records.py at a CI size: two games on its own
redis-server; the lines parse, each game's records fit one listpack hash
smaller than a key per command, and the finished tables leave exactly
their four keys."""

from __future__ import annotations

import re
import shutil

import pytest

from loadtests import command_records

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


def test_two_games_measured_side_by_side(capsys):
    assert command_records.main(["--games", "2", "--keys-left", "--timeout", "120"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\s+(\d+) (\w{12})\s+(\d+)\s+(\d+)\s+([\d,]+)\s+([\d,]+) (\w+)\s+([\d,]+)\s+([\d.]+)$", out,
                      re.MULTILINE)
    assert len(rows) == 2, out
    for _i, _t, cmds, events, keys_b, hash_b, enc, _table_b, _ratio in rows:
        assert 0 < int(cmds) <= int(events)  # a start deals several events
        assert 100 <= int(keys_b.replace(",", "")) / int(cmds) <= 140  # 120 B a key in the runs of performance.md
        assert int(hash_b.replace(",", "")) < int(keys_b.replace(",", "")) / 2
        assert enc == "listpack" or int(cmds) > 512
    kinds = dict(re.findall(r"^  (\w+)\s+(\d+) keys", out, re.MULTILINE))
    snaps = kinds.pop("snap", "0")  # a game of fewer than 64 events has none
    assert kinds == {"cmds": "2", "events": "2", "meta": "2"} and snaps in ("0", "1", "2"), out
