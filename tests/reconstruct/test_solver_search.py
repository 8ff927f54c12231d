"""One board's search with the pocket known exactly (the partner board connected): the same
explanations as the abundant pocket's, less those that drop more than the pocket holds."""

from __future__ import annotations

import chess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_gen import real_games

from bughouse_bridge.bughouse.board import BughouseBoard
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.reconstruct.solver.bound import goal_of
from bughouse_bridge.reconstruct.solver.outcome import drops
from bughouse_bridge.reconstruct.solver.search import BoardSearch, Budget, OutOfWorkError

_KINDS = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def _positions() -> list[tuple[BughouseBoard, list[chess.Move]]]:
    """Each board's positions in the bundled real games (pockets as they were), with the plies
    that board played next."""
    found = []
    for game in real_games().values():
        match = Match(get_preset("fics"))
        moves = []
        for bpgn_move in game.moves:
            move = match.parse_san(bpgn_move.board, bpgn_move.san)
            moves.append((move, BughouseBoard(match.fen(move.board))))
            match.play(move, t=0.0)
        for index, (move, board) in enumerate(moves):
            later = [m.move for m, _ in moves[index:] if m.board is move.board]
            found.append((board, later))
    return found


_POSITIONS = _positions()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_POSITIONS), st.integers(1, 4))
def test_an_exact_pocket_keeps_every_explanation_it_can_pay_for(
    position: tuple[BughouseBoard, list[chess.Move]], plies: int
) -> None:
    start, later = position
    end = start.copy(stack=False)
    for move in later[:plies]:
        for color in chess.COLORS:  # the real pockets held the piece: the partner delivered it
            end.pockets[color].add(move.drop or chess.PAWN)
        end.push(move)
    goal = goal_of(end.board_fen())
    supply = {
        color: tuple(kind for kind in _KINDS if start.pockets[color].count(kind))
        for color in chess.COLORS
    }
    results = []
    for exact in (False, True):
        search = BoardSearch(start, goal, supply, Budget(400_000), exact=exact)
        try:
            results.append(search.explain(len(later[:plies])))
        except OutOfWorkError:
            return
    abundant, exact_outcomes = results
    paid = {
        outcome
        for outcome in abundant
        if all(
            drops(outcome, color, kind) <= start.pockets[color].count(kind)
            for color in chess.COLORS
            for kind in _KINDS
        )
    }
    assert set(exact_outcomes) == paid
