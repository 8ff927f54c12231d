"""A node's second bound: each side's squares to empty against the plies both sides have left.

Pure, a function of bitboards, checked once per position before its moves are generated (the
search's ``_node``); ``bound.slack`` stays the per-move price. Per colour ``c``:

- every square whose ``c`` piece must go and that the goal leaves empty or gives another ``c``
  piece (``E``) changes a first time: its piece leaves by a ``c`` ply, or the other side takes
  it there first — a capture landing on a square that side does not want, so not one of its
  arrivals on its own missing squares (en passant takes a pawn without landing on its square,
  but only the pawn of a double step played before the gap can be taken so before its square
  ever changed);
- every goal square of ``c`` whose piece is not there yet (``M``) needs a last ``c`` arrival
  (a move or a drop);
- a ``c`` ply leaves one square and lands on one: it serves both only when the piece leaving a
  square of ``E`` lands right away on a square of ``M`` that wants its kind (one move apart, or
  a promotion); a castling leaves two squares and lands on two.

So ``|M| + |E| - both - taken <= plies of c``, where ``taken`` is at most the other side's plies
beyond its own missing squares. Never more than the truth (the property tests replay real games
and random walks through it).
"""

from __future__ import annotations

from functools import lru_cache

import chess

from bughouse_bridge.reconstruct.solver.bound import DISTANCES, Goal

__all__ = [
    "both",
    "both_suffice",
    "departures_fit",
    "departures_within",
    "goal_squares",
    "shortfall",
]

# The squares a castling lands on, by colour (black first): king and rook, either wing.
_CASTLE_LANDINGS = (
    chess.BB_C8 | chess.BB_D8 | chess.BB_F8 | chess.BB_G8,
    chess.BB_C1 | chess.BB_D1 | chess.BB_F1 | chess.BB_G1,
)
_SEVENTH = (chess.BB_RANK_2, chess.BB_RANK_7)  # where a pawn promotes from, by colour
_CASTLING_MOST = 3  # a castling serves four squares in one ply: three more than one ply counts


def goal_squares(goal: Goal) -> tuple[chess.Bitboard, chess.Bitboard]:
    """The goal's occupied squares per colour (black first)."""
    squares = [0, 0]
    for color, _, wanted in goal:
        squares[color] |= wanted
    return squares[0], squares[1]


def departures_fit(position: chess.Board, goal: Goal, plies: int) -> bool:
    """Can ``plies`` more plies (the side on move first) empty every side's squares to empty
    and bring its missing pieces (see the module)?"""
    differ = 0
    for color, kind, wanted in goal:
        differ |= position.pieces_mask(kind, color) ^ wanted
    return departures_within(position, goal, goal_squares(goal), differ, plies)


def departures_within(
    position: chess.Board,
    goal: Goal,
    goal_co: tuple[chess.Bitboard, chess.Bitboard],
    differ: chess.Bitboard,
    plies: int,
) -> bool:
    """``departures_fit`` from the parts the search has at hand: the goal's squares per colour
    (``goal_squares``) and the squares whose piece is not the goal's."""
    turn = position.turn
    own = [0, 0]
    own[turn] = (plies + 1) // 2
    own[not turn] = plies // 2
    occupied_co = position.occupied_co
    ep = position.ep_square is not None
    # A square whose piece must go and that the other side does not want: empty in the goal,
    # or wanting another piece of the same side (a taker lands there for nothing too).
    empty = (occupied_co[0] & differ & ~goal_co[1], occupied_co[1] & differ & ~goal_co[0])
    missing = (goal_co[0] & differ, goal_co[1] & differ)
    castles = (position.has_castling_rights(chess.BLACK), position.has_castling_rights(chess.WHITE))
    for side in (0, 1):  # black first, as the bitboards' colour index
        short = shortfall(side, own, empty, missing, castles, position.kings, ep=ep)
        if not both_suffice(position, goal, side, empty[side], missing[side], short):
            return False
    return True


def shortfall(  # noqa: PLR0913, PLR0917 - a side's counts, as the search and the price have them
    side: int,
    own: list[int],
    empty: tuple[chess.Bitboard, chess.Bitboard],
    missing: tuple[chess.Bitboard, chess.Bitboard],
    castles: tuple[bool, bool],
    kings: chess.Bitboard,
    *,
    ep: bool,
) -> int:
    """How many of ``side``'s plies must both leave a square to empty and land on a missing
    square for its plies to suffice (at most 0: they suffice whatever they do). ``own``: the
    plies per colour, black first as every tuple here."""
    need = missing[side].bit_count() + empty[side].bit_count()
    if need <= own[side]:
        return 0
    other = 1 - side
    landings = _CASTLE_LANDINGS[other]
    doubled = 1 if castles[other] and (missing[other] & landings).bit_count() > 1 else 0
    taken = max(0, own[other] + doubled - missing[other].bit_count())
    extra = 1 if ep else 0
    if castles[side] and (kings & empty[side] or missing[side] & _CASTLE_LANDINGS[side]):
        extra += _CASTLING_MOST
    return need - taken - extra - own[side]


def both_suffice(  # noqa: PLR0913, PLR0917 - a side's squares, the piece a move just placed
    position: chess.Board,
    goal: Goal,
    color: int,
    empty: chess.Bitboard,
    missing: chess.Bitboard,
    short: int,
    moved: tuple[chess.Square, chess.PieceType] | None = None,
) -> bool:
    """Can ``short`` plies of ``color`` each leave a square of ``empty`` and land on a square
    of ``missing`` (``both``)?"""
    if short <= 0:
        return True
    if short > min(empty.bit_count(), missing.bit_count()):
        return False
    return both(position, goal, color, empty, missing, moved) >= short


def both(  # noqa: PLR0913, PLR0917 - a side's squares, and the piece a move just placed
    position: chess.Board,
    goal: Goal,
    color: int,
    empty: chess.Bitboard,
    missing: chess.Bitboard,
    moved: tuple[chess.Square, chess.PieceType] | None = None,
) -> int:
    """How many plies of ``color`` may at most both leave a square of ``empty`` and land on a
    square of ``missing``: its pieces there one move (on an empty board) from a missing square
    that wants their kind, or pawns that may promote onto one; never more than ``missing``.
    ``moved``: a piece a move not played yet puts on its square (the price of a child)."""
    wanted = _wanted(goal, color)
    promoting = missing & chess.BB_BACKRANKS & ~(wanted[chess.PAWN] | wanted[chess.KING])
    steps = _ONE_MOVE[color]
    count = 0
    for square in chess.scan_forward(empty):
        kind = moved[1] if moved and moved[0] == square else position.piece_type_at(square)
        if kind is None:
            continue
        if steps[kind][square] & missing & wanted[kind] or (
            kind == chess.PAWN and promoting and chess.BB_SQUARES[square] & _SEVENTH[color]
        ):
            count += 1
    return min(count, missing.bit_count())


@lru_cache(maxsize=64)
def _wanted(goal: Goal, color: int) -> tuple[chess.Bitboard, ...]:
    """The goal's masks of ``color``, by kind (index 0 unused)."""
    masks = [0] * 7
    for c, kind, mask in goal:
        if c == color:
            masks[kind] = mask
    return tuple(masks)


def _one_move_tables() -> tuple[list[list[chess.Bitboard]], list[list[chess.Bitboard]]]:
    """By colour (black first), kind and square: the squares one move away on an empty board."""
    tables: list[list[list[chess.Bitboard]]] = []
    for color in (chess.BLACK, chess.WHITE):
        by_kind: list[list[chess.Bitboard]] = [[0] * 64]
        for kind in chess.PIECE_TYPES:
            table = DISTANCES[color, kind]
            by_kind.append(
                [
                    sum(chess.BB_SQUARES[to] for to in chess.SQUARES if table[start][to] == 1)
                    for start in chess.SQUARES
                ]
            )
        tables.append(by_kind)
    return tables[0], tables[1]


_ONE_MOVE = _one_move_tables()
