"""bench_resync's cases: real games cut by link gaps, as the bridge would know them.

Every ``STRIDE``-th point of each game starts a gap of each length in ``GAPS`` (plies per cut
board) on board A, on board B, or on both: the match before the gap as the bridge knows it (the
connected board's moves in it, except from the first that needs a piece only the cut board can
have delivered: that board is held and solved with it), the placements at the return, the side
on move, the clocks' evidence, and the truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.gap import GapEvidence
from bughouse_bridge.reconstruct.solver.evidence import ClockReading, board_clock

if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parent.parent
GAME_DIRS = (ROOT / "src/bughouse_bridge/data/games", ROOT / "../shared/data/bpgn")
STRIDE = 10
GAPS = (1, 2, 3, 5, 8, 12, 20)
STAMP_MS = 10  # the games' clock stamps: milliseconds, as FICS rounds them
FASTEST_PLY = 0.05  # seconds: the quickest ply in the games takes 0.1 s


@dataclass(frozen=True, slots=True)
class Game:
    moves: list[BughouseMove]
    clocks: list[float | None]  # the mover's remaining seconds after each move
    base: float  # seconds on each clock at the start


@dataclass(frozen=True, slots=True)
class Gap:
    known: Match
    targets: dict[BoardId, str]
    turns: dict[BoardId, chess.Color]
    truth: Match
    evidence: GapEvidence
    played: dict[BoardId, list[BughouseMove]]  # the truth's plies in the gap, per solved board
    resume: int  # the index in the game of the first ply after the gap


def games() -> list[Game]:
    seen: dict[str, Game] = {}
    for folder in GAME_DIRS:
        for path in sorted(folder.glob("*.bpgn")) if folder.is_dir() else []:
            game = parse_bpgn(path.read_text())[0]
            match = Match(get_preset("fics"))
            moves, clocks = [], []
            for bpgn_move in game.moves:
                move = match.parse_san(bpgn_move.board, bpgn_move.san)
                match.play(move, t=0.0)
                moves.append(move)
                clocks.append(bpgn_move.clock)
            base = float((game.time_control or (300, 0))[0])
            seen.setdefault(path.stem, Game(moves, clocks, base))
    return list(seen.values())


CUTS = (frozenset({BoardId.A}), frozenset({BoardId.B}), frozenset(BoardId))


def every_gap(*, quick: bool = False) -> Iterator[tuple[Game, int, Gap]]:
    """Every gap of the bench with its game and its plies per cut board, in the bench's order
    (``quick``: every third starting point, the five shortest lengths)."""
    for game in games():
        for start in range(0, len(game.moves) - 1, STRIDE * (3 if quick else 1)):
            for plies in GAPS[:5] if quick else GAPS:
                for cut in CUTS:
                    gap = one_gap(game, start, plies, cut)
                    if gap is not None:
                        yield game, plies, gap


def one_gap(game: Game, start: int, plies: int, cut: frozenset[BoardId]) -> Gap | None:
    """The match before the gap as the bridge knows it, the targets, the clocks, the truth."""
    known = Match(get_preset("fics"))
    times = {(board, color): game.base for board in BoardId for color in chess.COLORS}
    for index, move in enumerate(game.moves[:start]):
        _stamp(times, known, move, game.clocks[index])
        known.play(move, t=0.0)
    before = dict(times)
    before_running = {board: known.turn(board) for board in BoardId}
    truth = known.copy()
    counted = dict.fromkeys(cut, 0)
    held: set[BoardId] = set()
    played: dict[BoardId, list[BughouseMove]] = {board: [] for board in BoardId}
    resume = len(game.moves)
    for index, move in enumerate(game.moves[start:], start):
        if all(count >= plies for count in counted.values()):
            resume = index
            break
        if move.board in cut:
            counted[move.board] += 1
        elif move.board not in held and known.judge(move).legal:
            known.play(move, t=0.0)
        else:
            held.add(move.board)
        if move.board in cut or move.board in held:
            played[move.board].append(move)
        _stamp(times, truth, move, game.clocks[index])
        truth.play(move, t=0.0)
    if truth.result is not None:
        return None
    boards = set(cut) | held
    targets = {board: truth.board_fen(board) for board in boards}
    turns = {board: truth.turn(board) for board in boards}
    clocks = {
        board: board_clock(
            _reading(before, board, before_running[board]),
            _reading(times, board, turns[board]),
            resolution_ms=STAMP_MS,
            min_ply_seconds=FASTEST_PLY,
        )
        for board in boards
    }
    played = {board: played[board] for board in boards}
    return Gap(known, targets, turns, truth, GapEvidence(clocks), played, resume)


def _stamp(
    times: dict[tuple[BoardId, chess.Color], float],
    match: Match,
    move: BughouseMove,
    clock: float | None,
) -> None:
    if clock is not None:
        times[move.board, match.turn(move.board)] = clock


def _reading(
    times: dict[tuple[BoardId, chess.Color], float], board: BoardId, running: chess.Color | None
) -> ClockReading:
    return (
        round(times[board, chess.WHITE] * 1000),
        round(times[board, chess.BLACK] * 1000),
        running,
    )
