"""The archive bench (loadtests/archive_bench.py) at a tiny size: 5 games on
its own redis-server and a throwaway PostgreSQL database; its lines parse
and its figures are positive.  Not timed: the rates are whatever the
machine gives.  Skipped when the tests' PostgreSQL server is not reachable."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from loadtests import archive_bench
from tests.archive_fixtures import POSTGRES_SERVER_URL, postgres_missing


def test_five_games_are_archived_and_weighed(tmp_path, capsys):
    reason = postgres_missing()
    if reason is not None:
        pytest.skip(reason)
    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server on PATH (the bench starts its own)")
    out_json = tmp_path / "bench.json"
    assert archive_bench.main(["--games", "5", "--batch", "2", "--kind-sample", "3",
                               "--url", POSTGRES_SERVER_URL, "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    rates = {m[1]: float(m[2]) for m in re.finditer(r"^  (archiver|COPY|COPY per game) +([\d.]+) games/s", text, re.M)}
    assert set(rates) == {"archiver", "COPY", "COPY per game"} and min(rates.values()) > 0
    assert re.search(r"^  ratio archiver/COPY [\d.]+ \(target >= 0\.5: (met|NOT MET)\)", text, re.M)
    steps = dict(re.findall(r"^  (\S.*?) +([\d.-]+) ms +[\d.-]+%$", text, re.M))
    assert set(steps) == set(archive_bench.STEPS)
    assert re.search(r"left after archiving [\d.,-]+ B a game \(target <= 1024: (met|NOT MET)\); table keys left: 0",
                     text)
    assert re.search(r"PostgreSQL games\+seats with indexes and TOAST [\d,]+ B \(target <= 6144: (met|NOT MET)\)", text)

    fig = json.loads(out_json.read_text())
    assert fig["games"] == 5
    r = fig["rate"]
    assert r["archiver_games_per_s"] > 0 and r["copy_games_per_s"] > 0 and r["copy_per_game_games_per_s"] > 0
    assert r["ratio"] == pytest.approx(r["archiver_games_per_s"] / r["copy_games_per_s"], rel=0.01)
    for step in ("read meta + log", "build_record", "zstd", "put_many: transaction", "verify_many", "drop from Redis"):
        assert fig["split_ms_per_game"][step] > 0, step
    b = fig["redis_bytes_per_game"]
    assert b["keys_left"] == 0
    for kind in archive_bench.KIND:
        assert b[kind] > 0 and b[f"{kind}_used_memory"] > 0, kind
    assert b["before_archiving"] > b["cmds"]
    a = fig["archive_bytes_per_game"]
    assert a["postgresql"] > a["log_zstd"] > 0 and a["copy_peer"] > 0 and a["sqlite"] > 0
    assert a["log_raw"] > a["log_zstd"]
    assert fig["cmds_fields_per_game"] > 1 and fig["events_per_game"] > fig["cmds_fields_per_game"]
