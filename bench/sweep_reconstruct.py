"""The reconstruction sweep: the fast, messy handling styles under many seeds, results included.

Every real BPGN game bundled with the package (src/bughouse_bridge/data/games, copies of
../shared/data/bpgn) and random drop-heavy games are played on the emulated table
(``tests/reconstruct/trace_gen.py``) under each fast style of ``tests/reconstruct/test_games.py``
and ``--seeds`` seeds, and replayed through the reconstructor. A run passes when every board comes
out move for move (before the result, and all of them after it), the first result is the game's own
(winner and reason, or none when the game did not end on the board) and no false illegal or
unexplained alert was raised.

Run: ``.venv/bin/python bench/sweep_reconstruct.py [--seeds 60] [--styles knocked,messy,premove]``
(the default: every fast style of the tests, ``test_games.FAST_STYLES``; rewrites its section
of bench/README.md; exit status 1 when any run failed).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "reconstruct"))
sys.path.insert(0, str(ROOT / "bench"))

from test_games import (  # noqa: E402
    CHECKED_ALERTS,
    CLEAN_ALERTS,
    FAST_STYLES,
    RANDOM_STYLES,
    STYLES,
    TOLERATED,
)
from trace_gen import (  # noqa: E402
    all_per_board,
    expected_per_board,
    game_trace,
    per_board,
    random_game,
    real_games,
    replay,
)

from bughouse_bridge.bughouse.events import Alert, ResultDecided  # noqa: E402
from bughouse_bridge.bughouse.match import Match  # noqa: E402
from bughouse_bridge.bughouse.rules import get_preset  # noqa: E402
from readme_section import write_section  # noqa: E402

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.bpgn import BpgnGame

HEADING = "## Reconstruction sweep"


def expected_result(game: BpgnGame) -> tuple[int | None, str] | None:
    """The game's own result on the board (fics rules), or None when it did not end there."""
    match = Match(get_preset("fics"))
    for bpgn_move in game.moves:
        match.play(match.parse_san(bpgn_move.board, bpgn_move.san), t=0.0)
    result = match.result
    return None if result is None else (result.winner_team, result.reason)


def failure(game: BpgnGame, seed: int, style: str, knobs: dict[str, object]) -> str | None:
    """Why the run failed, or None."""
    plan, records = game_trace(game, seed, **knobs)  # type: ignore[arg-type]
    result = replay(records)
    if per_board(result.moves(until_result=True)) != expected_per_board(game, plan):
        return "moves before the result"
    if per_board(result.moves()) != all_per_board(game):
        return "moves after the result"
    results = result.of_type(ResultDecided)
    got = (results[0].winner_team, results[0].reason) if results else None  # type: ignore[attr-defined]
    if got != expected_result(game):
        return f"result {got} (expected {expected_result(game)})"
    if style in CHECKED_ALERTS:
        codes = {str(alert.code) for alert in result.of_type(Alert)}  # type: ignore[attr-defined]
        extra = codes - CLEAN_ALERTS - TOLERATED.get(style, set())
        if extra:
            return f"alerts {sorted(extra)}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=60)
    parser.add_argument("--styles", default=",".join(sorted(FAST_STYLES)))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    styles = args.styles.split(",")
    games = real_games()
    rows, failures = [], []
    started = time.perf_counter()
    for style in styles:
        passed = total = 0
        for seed in range(args.seeds):
            runs = [(name, game, STYLES[style]) for name, game in games.items()]
            if style in RANDOM_STYLES:
                runs.append((f"random {seed}", random_game(seed), RANDOM_STYLES[style]))
            for name, game, knobs in runs:
                why = failure(game, seed, style, knobs)
                total += 1
                if why is None:
                    passed += 1
                else:
                    failures.append(f"{style} / {name} / seed {seed}: {why}")
        rows.append(f"| {style} | {total} | {passed} |")
        print(rows[-1], flush=True)
    minutes = (time.perf_counter() - started) / 60
    section = f"""{HEADING}

Run: `.venv/bin/python bench/sweep_reconstruct.py --seeds {args.seeds} --styles {args.styles}`
(rewrites this section; exit status 1 when a run failed).

Each real game ({len(games)}) and, where the style has one, a random drop-heavy game per seed,
played under {args.seeds} seeds per style on the emulated table and replayed: a run passes when both
boards come out move for move (before and after the result), the first result is the game's own
(winner and reason) and no false illegal or unexplained alert was raised.

| style | runs | passed |
|---|---:|---:|
{chr(10).join(rows)}

{len(failures)} failed{":" if failures else "."}
{chr(10).join(f"- {line}" for line in failures)}

{minutes:.1f} min on {os.cpu_count()} CPUs shared with the other developers' work (load average
{os.getloadavg()[0]:.0f} at the end), Python {platform.python_version()}.
"""
    print(section)
    if not args.no_write:
        write_section(HEADING, section)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
