"""Outcome digests: is a refactor of the reconstructor a pure refactor? Replays many traces and
writes, per trace, a digest of every outcome the reconstructor returned (event for event, in
order); two source trees compared give the traces whose outcomes differ.

Traces: every handling style of ``tests/reconstruct/test_games.py`` under ``--seeds`` seeds
(each real game, and a random drop-heavy game where the style has one), and each real game cut
by ``tests/reconstruct/test_gap_games.py``'s link gaps (board A, B or both; early, mid or late;
5 or 25 s) under the same seeds.

Run, for each tree (``PYTHONHASHSEED`` fixed: the gap harness cuts the links of a set of boards,
whose order, and so the order of the link events, follows the string hashes):
``PYTHONHASHSEED=0 PYTHONPATH=<tree>/src .venv/bin/python bench/outcome_digest.py out.json``
then ``.venv/bin/python bench/outcome_digest.py --compare before.json after.json`` (exit status 1
when any trace differs).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from pathlib import Path

from bughouse_bridge.bughouse.types import BoardId

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "reconstruct"))

CUTS = ("A", "B", "AB")
CUT_AT = (0.2, 0.45, 0.7)  # where in the game the gap starts, as a share of its length
CUT_FOR = (5.0, 25.0)  # seconds


def digest(outcomes: list[object]) -> str:
    return hashlib.sha256("\n".join(repr(o) for o in outcomes).encode()).hexdigest()[:16]


def digests(seeds: int) -> dict[str, str]:
    return styled(seeds) | gapped(seeds)


def styled(seeds: int) -> dict[str, str]:
    """Every handling style under every seed."""
    from test_games import RANDOM_STYLES, STYLES  # noqa: PLC0415 - not needed to compare
    from trace_gen import game_trace, random_game, real_games, replay  # noqa: PLC0415

    games = real_games()
    out: dict[str, str] = {}
    for style, knobs in STYLES.items():
        for seed in range(seeds):
            runs = [(name, game, knobs) for name, game in games.items()]
            if style in RANDOM_STYLES:
                runs.append((f"random {seed}", random_game(seed), RANDOM_STYLES[style]))
            for name, game, style_knobs in runs:
                _plan, records = game_trace(game, seed, **style_knobs)  # type: ignore[arg-type]
                out[f"{style}/{name}/{seed}"] = digest(replay(records).outcomes)
    return out


def gapped(seeds: int) -> dict[str, str]:
    """Every real game with its links cut, under every seed."""
    from test_gap_games import FAST, replay_with_gap  # noqa: PLC0415 - not needed to compare
    from trace_gen import game_trace, real_games  # noqa: PLC0415

    out: dict[str, str] = {}
    for name, game in real_games().items():
        for seed in range(seeds):
            _plan, records = game_trace(game, seed, pace=FAST)
            end = records[-1].t
            for cut, at, length in itertools.product(CUTS, CUT_AT, CUT_FOR):
                boards = frozenset(BoardId(c) for c in cut)
                key = f"gap/{name}/{seed}/{cut}/{at}/{length}"
                try:
                    result, _ = replay_with_gap(records, boards, end * at, length)
                except Exception as error:  # noqa: BLE001 - a harness failure is a result too
                    out[key] = f"error: {type(error).__name__}: {error}"
                else:
                    out[key] = digest(result.outcomes)
    return out


def compare(before: Path, after: Path) -> int:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    differ = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    for key in differ:
        print(f"{key}: {old.get(key)} -> {new.get(key)}")
    print(f"{len(old)} / {len(new)} traces, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("output", nargs="?", type=Path)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.output is None:
        parser.error("an output file, or --compare BEFORE AFTER")
    result = digests(args.seeds)
    args.output.write_text(json.dumps(result, indent=0, sort_keys=True) + "\n")
    print(f"{len(result)} traces -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
