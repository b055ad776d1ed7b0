"""The five engines at two commits, side by side in one run.

For each game and each commit (``--base``, default ``47a92d2``, the last
commit before the one-shape layout of issue 11, against the work tree)
it measures three workloads on the same seeded games:

* ``playouts``: random games to the end (:func:`shared.engine.play`,
  ``views=False``): ``decide``, ``evolve``, ``legal_actions`` (and the
  views in Maudit Mot Dit, whose random bot reads the word in its view);
* ``feeds``: every event of those games redacted for every seat and a
  spectator (what ``/events``, SSE and the bots' feeds do);
* ``views``: the games folded action by action, with every seat's and a
  spectator's ``view`` and every seat's ``legal_actions`` after each one (what a
  ``GET /view`` does).

Two meters:

* ``--meter callgrind`` (default): instructions counted by valgrind's
  callgrind, with ``PYTHONHASHSEED=0``; a workload's count is the run minus the
  same run without the workload (imports, start-up, dealing the games). Exact
  and repeatable on a shared, noisy machine; slow (~50x).
* ``--meter cpu``: CPU seconds of the workload (``time.process_time``),
  the best of 3 passes in one process, the two commits' processes
  interleaved ``--repeat`` times, the best kept.

Prints one line per game and workload with both figures and
``head/base``. The base commit is checked out in a temporary git
worktree. Usage::

    python loadtests/compare_engines.py                      # callgrind, all games
    python loadtests/compare_engines.py --games dix,mauw --meter cpu --repeat 5
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("maumau", "maudix", "dix", "mauw", "maudit_mot_dit")
PLAYERS = {"maumau": 3, "maudix": 4, "dix": 3, "mauw": 4, "maudit_mot_dit": 4}
WORKLOADS = ("playouts", "feeds", "views")

# Runs inside the tree being measured (cwd and PYTHONPATH), so it uses only
# the contract both commits share: play, fold, evolve, redact, view, legal_actions.
CHILD = r"""
import gc, importlib, random, sys, time
game_name, workload, players, n, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
from shared.engine import play
GAME = importlib.import_module("shared.games." + game_name).GAME
views = game_name == "maudit_mot_dit"  # its random bot reads the view (the word to give a clue for)
games = []  # per game: the events of the opening and of each action, in order
for seed in range(n if workload != "playouts" else 0):
    steps = []
    play(GAME, ["random"] * players, random.Random(seed), views=views, on_step=lambda st, ev: steps.append(list(ev)))
    games.append(steps)
seats = [None, *range(players)]

def playouts():
    for seed in range(n):
        play(GAME, ["random"] * players, random.Random(seed), views=views)

# The game's functions looked up once, as play() and the services' loops do
# (an attribute lookup per call costs the caller, not the engine).
redact, evolve, view, legal_actions = GAME.redact, GAME.evolve, GAME.view, GAME.legal_actions

def feeds():
    for steps in games:
        for seat in seats:
            for events in steps:
                for e in events:
                    redact(e, seat)

def views_():
    for steps in games:
        state = None
        for events in steps:
            for e in events:
                state = evolve(state, e)
            for seat in seats:
                view(state, seat)
                if seat is not None:
                    legal_actions(state, seat)

run = {"playouts": playouts, "feeds": feeds, "views": views_}[workload]
gc.collect()
best = float("inf")
for _ in range(reps):  # reps=0: everything but the workload (callgrind's baseline)
    t0 = time.process_time()
    run()
    best = min(best, time.process_time() - t0)
print(best)
"""


def child_cmd(tree: Path, game: str, workload: str, n: int, reps: int) -> list[str]:
    return [sys.executable, "-c", CHILD, game, workload, str(PLAYERS[game]), str(n), str(reps)]


def child_env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}


def cpu_seconds(tree: Path, game: str, workload: str, n: int) -> float:
    """CPU seconds of the workload in ``tree``: the best of 3 passes in one process."""
    out = subprocess.run(child_cmd(tree, game, workload, n, 3), cwd=tree, env=child_env(tree),
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{game} {workload} failed in {tree}:\n{out.stderr}")
    return float(out.stdout.strip().splitlines()[-1])


def instructions(tree: Path, game: str, workload: str, n: int, scratch: Path, reps: int = 1) -> int:
    """Instructions (callgrind ``summary``) of one run in ``tree``
    (``reps=0``: everything but the workload itself)."""
    out_file = scratch / f"cg.{os.getpid()}.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                    *child_cmd(tree, game, workload, n, reps)],
                   cwd=tree, env=child_env(tree), capture_output=True, text=True, check=True)
    text = out_file.read_text()
    out_file.unlink()
    match = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    if not match:
        raise RuntimeError("no summary line in callgrind's output")
    return int(match.group(1))


def measure(meter: str, trees: tuple[Path, Path], game: str, workload: str, n: int, repeat: int,
            scratch: Path) -> tuple[float, float]:
    """The workload's cost in the base and head trees: instructions, or
    the best CPU seconds of ``repeat`` interleaved runs."""
    if meter == "callgrind":
        return tuple(  # type: ignore[return-value]
            instructions(t, game, workload, n, scratch) - instructions(t, game, workload, n, scratch, reps=0)
            for t in trees)
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for i, t in enumerate(trees):
            best[i] = min(best[i], cpu_seconds(t, game, workload, n))
    return best[0], best[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="47a92d2", help="git commit to compare against (default: %(default)s)")
    ap.add_argument("--head", default=None, help="git commit to measure (default: the work tree, as it is)")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--meter", choices=("callgrind", "cpu"), default="callgrind")
    ap.add_argument("-n", type=int, default=None, help="games per workload (default: 6 with callgrind, 60 with cpu)")
    ap.add_argument("--repeat", type=int, default=3, help="cpu meter: runs per commit, best kept")
    args = ap.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = sorted(set(games) - set(GAMES)) + sorted(set(workloads) - set(WORKLOADS))
    if unknown:
        print(f"unknown game or workload: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.meter == "callgrind" and not shutil.which("valgrind"):
        print("--meter callgrind needs valgrind (apt install valgrind), or use --meter cpu", file=sys.stderr)
        return 2
    n = args.n if args.n is not None else (6 if args.meter == "callgrind" else 60)
    unit = "instructions" if args.meter == "callgrind" else "CPU s"
    spec = ">15,.0f" if args.meter == "callgrind" else ">15.3f"
    with tempfile.TemporaryDirectory(prefix="tapis-compare-") as tmp:
        scratch = Path(tmp)
        trees = {"base": scratch / "base", "head": scratch / "head" if args.head else ROOT}
        for name, rev in (("base", args.base), ("head", args.head)):
            if rev:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(trees[name]), rev],
                               check=True, capture_output=True)
        try:
            print(f"engines, {args.base} (base) vs {args.head or 'the work tree'} (head): "
                  f"{n} seeded games each, {unit}")
            print(f"{'game':<15} {'workload':<9} {'base':>15} {'head':>15} {'head/base':>10}")
            for game in games:
                for workload in workloads:
                    base, head = measure(args.meter, (trees["base"], trees["head"]), game, workload, n,
                                         args.repeat, scratch)
                    print(f"{game:<15} {workload:<9} {base:{spec}} {head:{spec}} {head / base:>10.3f}", flush=True)
        finally:
            for name, rev in (("base", args.base), ("head", args.head)):
                if rev:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[name])],
                                   check=False, capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
