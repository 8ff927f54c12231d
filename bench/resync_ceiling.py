"""The ceiling of "certain" in bench_resync, checked by an independent oracle.

Run: ``.venv/bin/python bench/resync_ceiling.py`` (about two minutes; prints one line of JSON).

bench_resync counts a gap as one no solver can make certain when the gap solver lists two or more
candidates that end in different game states. This script checks that claim with rules that are
not ours: every ply of every candidate of every such gap must be among Fairy-Stockfish's legal
moves (``pyffish``, variant ``bughouse``, the test-only oracle) in the position our match has at
that moment; the candidate must reach the placements seen and the side on move, within the plies
the clocks allow each board. A gap with two such candidates ending differently is undecidable
from what the boards and clocks report.
"""

from __future__ import annotations

import json

import pyffish

from bench_resync import LIMITS  # the bench's own modules (bench/ is on the path)
from bughouse_bridge.reconstruct.gap import Candidate, Verdict, solve_gap
from resync_cases import Gap, every_gap


def fits_everything(gap: Gap, candidate: Candidate) -> bool:
    """Every ply legal for Fairy-Stockfish, the placements and sides on move reached, and each
    board's plies within what its clock allows."""
    match = gap.known.copy()
    for move in candidate.moves:
        legal = pyffish.legal_moves("bughouse", match.fen(move.board), [])
        if move.move.uci() not in legal:
            return False
        match.play(move, t=0.0)
    return all(
        match.board_fen(board) == placement
        and match.turn(board) == gap.turns[board]
        and gap.evidence.clock(board).allows(gap.known.turn(board), len(candidate.on(board)))
        for board, placement in gap.targets.items()
    )


def main() -> None:
    tally = {"gaps": 0, "ambiguous": 0, "candidates": 0, "refuted": 0, "undecidable": 0}
    for _, _, gap in every_gap():
        tally["gaps"] += 1
        solution = solve_gap(
            gap.known, gap.targets, turns=gap.turns, limits=LIMITS, evidence=gap.evidence
        )
        if solution.verdict is not Verdict.AMBIGUOUS:
            continue
        fitting = [c for c in solution.candidates if fits_everything(gap, c)]
        tally["ambiguous"] += 1
        tally["candidates"] += len(solution.candidates)
        tally["refuted"] += len(solution.candidates) - len(fitting)
        tally["undecidable"] += len({c.end for c in fitting}) > 1
    print(json.dumps(tally))


if __name__ == "__main__":
    main()
