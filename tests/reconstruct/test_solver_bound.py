"""The solver's bound: priced before a move as after it, and never more than the truth."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trace_gen import real_games

from bughouse_bridge.bughouse.board import BughouseBoard
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.solver.bound import (
    Goal,
    arrivals_cost,
    emptied,
    goal_of,
    slack,
    touched,
)
from bughouse_bridge.reconstruct.solver.departures import departures_fit
from bughouse_bridge.reconstruct.solver.price import UNPRICED, fits, terms

_KINDS = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


@st.composite
def walks(draw: st.DrawFn) -> tuple[BughouseBoard, list[chess.Move]]:
    """A crazyhouse position with a pocket of every kind for both sides (as the search's
    supply), then a walk of 1-8 plies from it (drops, captures, castling, promotions)."""
    board = BughouseBoard()
    for color in chess.COLORS:
        for kind in _KINDS:
            for _ in range(40):  # never runs out, as the search's supply
                board.pockets[color].add(kind)
    for _ in range(draw(st.integers(0, 30))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    start = board.copy(stack=False)
    walk = []
    for _ in range(draw(st.integers(1, 8))):
        moves = list(board.legal_moves)
        if not moves:
            break
        walk.append(draw(st.sampled_from(moves)))
        board.push(walk[-1])
    return start, walk


_SUPPLY: dict[chess.Color, tuple[int, ...]] = dict.fromkeys(chess.COLORS, _KINDS)


def _reached(start: BughouseBoard, moves: list[chess.Move]) -> Goal:
    """The goal the walk reaches: its end placement."""
    end = start.copy(stack=False)
    for move in moves:
        end.push(move)
    return goal_of(end.board_fen())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_a_move_priced_before_it_is_played_has_the_slack_it_has_once_played(
    walk: tuple[BughouseBoard, list[chess.Move]],
) -> None:
    start, moves = walk
    goal = _reached(start, moves)
    parts = terms(start, goal, _SUPPLY)
    plies = len(moves) - 1
    for move in start.legal_moves:
        priced = fits(parts, start, move, plies)
        start.push(move)
        after = slack(start, goal, plies, refills=False)
        departs = departures_fit(start, goal, plies)
        start.pop()
        # The price is the child's slack, or a cut that ``departures`` makes once played; a
        # child it lets through passes ``departures`` too (the search does not ask again).
        assert priced in {UNPRICED, after} or (priced is None and not departs), move.uci()
        assert priced in {None, UNPRICED} or departs, move.uci()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_the_bound_never_cuts_the_walk_that_reached_the_goal(
    walk: tuple[BughouseBoard, list[chess.Move]],
) -> None:
    start, moves = walk
    goal = _reached(start, moves)
    board = start.copy(stack=False)
    for played, move in enumerate(moves):
        left = len(moves) - played
        assert slack(board, goal, left, refills=False) is not None
        assert departures_fit(board, goal, left)
        assert fits(terms(board, goal, _SUPPLY), board, move, left - 1) is not None
        board.push(move)


def test_the_squares_a_ply_can_change() -> None:
    assert touched(3, 0, ep=False) == 6  # from and to
    assert touched(1, 1, ep=False) == 4  # a castling: king and rook
    assert touched(1, 0, ep=True) == 3  # en passant right away: the taken pawn's square too
    assert touched(0, 2, ep=True) == 4


@pytest.mark.parametrize(
    ("king", "target", "castling", "plies"),
    [
        (chess.E8, chess.H6, "kq", 3),  # castled to g8 or not: three moves to h6
        (chess.E8, chess.G8, "kq", 1),  # castling itself
        (chess.E8, chess.C8, "q", 1),
        (chess.E8, chess.B8, "kq", 2),  # castled to c8, then a step
        (chess.E8, chess.E6, "kq", 2),  # a walk is shorter than castling and coming back
        (chess.E8, chess.H6, "", 3),
    ],
)
def test_a_king_that_may_castle_still_walks_from_its_castled_square(
    king: chess.Square, target: chess.Square, castling: str, plies: int
) -> None:
    """Castling is one move to the g- or c-file, not one move to anywhere."""
    kings = chess.BB_SQUARES[king]
    assert (
        arrivals_cost(
            chess.BLACK, chess.KING, chess.BB_SQUARES[target], kings, False, True, bool(castling)
        )
        == plies
    )


def _bundled_walks() -> list[tuple[BughouseBoard, list[chess.Move]]]:
    """Every board's positions in the bundled real games, with the plies played after each."""
    positions: list[tuple[BughouseBoard, list[chess.Move]]] = []
    for game in real_games().values():
        match = Match(get_preset("fics"))
        played: list[tuple[BoardId, BughouseBoard, int]] = []
        plies: dict[BoardId, list[chess.Move]] = {board: [] for board in BoardId}
        for bpgn_move in game.moves:
            move = match.parse_san(bpgn_move.board, bpgn_move.san)
            board = BughouseBoard(match.fen(move.board))
            played.append((move.board, board, len(plies[move.board])))
            plies[move.board].append(move.move)
            match.play(move, t=0.0)
        positions += [(board, plies[on][index:]) for on, board, index in played]
    return positions


_REAL = _bundled_walks()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_REAL), st.integers(1, 20))
def test_the_bound_never_cuts_the_plies_really_played_in_a_game(
    position: tuple[BughouseBoard, list[chess.Move]], length: int
) -> None:
    """On real bughouse games (drops, sacrifices, castling): a gap of 1-20 plies of one board
    is never cut by the bound, before or after each ply, the pockets as the search's supply."""
    start, rest = position
    moves = rest[:length]
    board = start.copy(stack=False)
    for color in chess.COLORS:
        for kind in _KINDS:
            for _ in range(40):
                board.pockets[color].add(kind)
    goal = _reached(board, moves)
    for played, move in enumerate(moves):
        left = len(moves) - played
        assert slack(board, goal, left, refills=False) is not None, (board.fen(), move.uci())
        assert departures_fit(board, goal, left), (board.fen(), move.uci())
        assert fits(terms(board, goal, _SUPPLY), board, move, left - 1) is not None
        board.push(move)
    assert slack(board, goal, 0, refills=False) is not None


def test_the_squares_plies_can_leave_empty() -> None:
    assert emptied(3, 0, ep=False) == 3  # a departure per ply (a drop: none)
    assert emptied(1, 1, ep=False) == 2  # a castling: king and rook leave
    assert emptied(1, 0, ep=True) == 2  # en passant right away: the taken pawn's square too
    assert emptied(0, 1, ep=True) == 1


@pytest.mark.parametrize(
    ("start", "target", "plies", "reachable"),
    [
        # Three white pieces must leave their squares (a1, e5, f1) and one black (c7): four
        # departures, three plies (two squares per ply would allow it).
        ("r2k3r/ppp2ppp/4p3/4B3/8/8/8/R3KB2 w - - 0 1", "r2k3r/pp3ppp/4p3/8/8/8/8/4K3", 3, False),
        ("r2k3r/ppp2ppp/4p3/4B3/8/8/8/R3KB2 w - - 0 1", "r2k3r/pp3ppp/4p3/8/8/8/8/4K3", 4, True),
        # A capture leaves one square and takes on another: one departure.
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "4k3/8/8/3P4/8/8/8/4K3", 1, True),
    ],
)
def test_every_square_to_empty_needs_a_ply_that_leaves_it(
    start: str, target: str, plies: int, reachable: bool
) -> None:
    board = BughouseBoard(start)
    assert (slack(board, goal_of(target), plies, refills=True) is not None) is reachable


@pytest.mark.parametrize(
    ("start", "target", "plies", "reachable"),
    [
        # Black must bring a pawn to g6 (a drop: no black piece is a move away) and empty c6;
        # White's one ply must bring its queen to f4, so it cannot take on c6: two black plies.
        (
            "r2qk1nr/1pp3pp/p1pbpp2/3Pn3/8/2P5/PPPP1PPP/RNB1K2R b KQkq - 0 1",
            "r2qk1nr/1pp3pp/p2bppp1/3Pn3/5Q2/8/PPPP1PPP/RNB1K2R",
            2,
            False,
        ),
        (
            "r2qk1nr/1pp3pp/p1pbpp2/3Pn3/8/2P5/PPPP1PPP/RNB1K2R b KQkq - 0 1",
            "r2qk1nr/1pp3pp/p2bppp1/3Pn3/5Q2/8/PPPP1PPP/RNB1K2R",
            4,
            True,
        ),
        # The pawn that empties c6 lands on b5 where the goal wants it: one ply does both.
        ("4k3/8/2p5/8/8/8/8/4K3 b - - 0 1", "4k3/8/8/1p6/8/8/8/4K3", 1, True),
        # White's spare ply may take the pawn on c6 instead.
        ("4k3/8/2p5/8/8/8/8/4K3 b - - 0 1", "4k3/8/2Q5/8/8/8/8/4K3", 2, True),
        ("4k3/8/2p5/8/8/8/8/4K3 b - - 0 1", "4k3/8/8/8/8/8/8/4K3", 0, False),
    ],
)
def test_each_side_empties_its_squares_or_has_them_taken(
    start: str, target: str, plies: int, reachable: bool
) -> None:
    assert departures_fit(BughouseBoard(start), goal_of(target), plies) is reachable


@pytest.mark.parametrize(
    "ucis",
    [
        ["e1g1", "e8d8", "g1h2"],  # the king's castling is the rook's arrival on f1 too
        ["e1g1", "e8d8", "g1h2", "d8c8", "f1f5"],  # and its first move to f5
        ["e1c1", "e8f8", "c1b2", "f8g8", "d1d6"],
    ],
)
def test_a_king_that_castles_on_its_way_brings_its_rook_for_free(ucis: list[str]) -> None:
    """Both arrivals, the king's and the rook's, may count the one castling ply."""
    board = BughouseBoard("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    end = board.copy(stack=False)
    for uci in ucis:
        end.push_uci(uci)
    assert slack(board, goal_of(end.board_fen()), len(ucis), refills=False) is not None
