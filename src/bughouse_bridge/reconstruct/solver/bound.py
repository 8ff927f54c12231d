"""A lower bound on the plies that turn a position into a wanted placement (the search's pruning).

Pure and cheap: a function of bitboards, cached per piece kind. Every square whose goal piece is
not there yet needs that piece brought in, at least as many of its own moves as the nearest piece
of that type needs on an empty board (or one drop, or a promotion); castling moves two pieces at
once. Every piece not where the goal has one must leave: by a ply of its own side or by being
captured. Never more than the truth, so a branch it cuts cannot explain the placement.
"""

from __future__ import annotations

from functools import lru_cache

import chess
import chess.variant

__all__ = [
    "DISTANCES",
    "Goal",
    "arrivals_cost",
    "at_goal",
    "castling_spare",
    "castlings",
    "emptied",
    "goal_of",
    "improving",
    "near",
    "reachable",
    "slack",
    "touched",
]

Goal = tuple[tuple[chess.Color, chess.PieceType, chess.Bitboard], ...]


def goal_of(placement: str) -> Goal:
    """The wanted piece masks of a placement, per colour and kind."""
    board = chess.BaseBoard(placement)
    return tuple(
        (color, piece_type, board.pieces_mask(piece_type, color))
        for color in chess.COLORS
        for piece_type in chess.PIECE_TYPES
    )


def at_goal(position: chess.BaseBoard, goal: Goal) -> bool:
    return all(position.pieces_mask(kind, color) == wanted for color, kind, wanted in goal)


_FAR = 99  # a piece that cannot get there


def _knight_distances() -> list[list[int]]:
    table = []
    for start in chess.SQUARES:
        dist = [_FAR] * 64
        dist[start] = 0
        frontier = [start]
        while frontier:
            square = frontier.pop(0)
            for target in chess.scan_forward(chess.BB_KNIGHT_ATTACKS[square]):
                if dist[target] == _FAR:
                    dist[target] = dist[square] + 1
                    frontier.append(target)
        table.append(dist)
    return table


_KNIGHT = _knight_distances()


def _pawn_distance(color: chess.Color, start: chess.Square, goal: chess.Square) -> int:
    forward = chess.square_rank(goal) - chess.square_rank(start)
    if color == chess.BLACK:
        forward = -forward
    sideways = abs(chess.square_file(goal) - chess.square_file(start))
    if forward <= 0 or sideways > forward:
        return _FAR
    home = chess.square_rank(start) == (1 if color == chess.WHITE else 6)
    return forward - 1 if home and forward - sideways >= 2 else forward


def _distance(  # noqa: PLR0911 - one answer per kind of piece
    piece_type: chess.PieceType, color: chess.Color, start: chess.Square, goal: chess.Square
) -> int:
    """The fewest moves a piece needs from ``start`` to ``goal`` on an empty board."""
    if start == goal:
        return 0
    if piece_type == chess.KNIGHT:
        return _KNIGHT[start][goal]
    if piece_type == chess.PAWN:
        return _pawn_distance(color, start, goal)
    if piece_type == chess.KING:
        return chess.square_distance(start, goal)
    line = bool(chess.BB_RAYS[start][goal])
    diagonal = (
        line
        and chess.square_rank(start) != chess.square_rank(goal)
        and (chess.square_file(start) != chess.square_file(goal))
    )
    straight = line and not diagonal
    if piece_type == chess.ROOK:
        return 1 if straight else 2
    if piece_type == chess.BISHOP:
        if diagonal:
            return 1
        same_shade = bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[start]) == bool(
            chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[goal]
        )
        return 2 if same_shade else _FAR
    return 1 if line else 2  # queen


def _distance_tables() -> dict[tuple[chess.Color, chess.PieceType], list[list[int]]]:
    """``_distance`` for every piece, start and goal, looked up in the search's inner loop."""
    return {
        (color, piece_type): [
            [_distance(piece_type, color, start, goal) for goal in chess.SQUARES]
            for start in chess.SQUARES
        ]
        for color in chess.COLORS
        for piece_type in chess.PIECE_TYPES
    }


_DISTANCES = _distance_tables()
DISTANCES = _DISTANCES  # by (colour, kind), then start and goal square: for ``departures``


@lru_cache(maxsize=1 << 16)
def arrivals_cost(  # noqa: PLR0913, PLR0917 - one piece kind's parts, as a cache key
    color: chess.Color,
    piece_type: chess.PieceType,
    wanted: chess.Bitboard,
    there: chess.Bitboard,
    droppable: bool,  # noqa: FBT001 - in the pocket, or the other board may deliver one
    promotable: bool,  # noqa: FBT001 - a pawn of this colour is on the board
    castles: bool,  # noqa: FBT001 - the king may still castle
) -> int:
    """The plies of ``color`` needed at least to bring its ``piece_type`` pieces to every
    ``wanted`` square they are not on yet (``there``: where they stand now). A function of
    bitboards and flags only, so that the many positions of a search share the answers."""
    total = 0
    table = _DISTANCES[color, piece_type]
    last_rank = chess.BB_RANK_8 if color == chess.WHITE else chess.BB_RANK_1
    for square in chess.scan_forward(wanted & ~there):
        best = _FAR
        if droppable and piece_type != chess.KING:
            best = 1  # a drop
        if promotable and piece_type not in {chess.PAWN, chess.KING}:
            best = min(best, 1 if chess.BB_SQUARES[square] & last_rank else 2)  # a promotion
        if castles and piece_type == chess.KING:
            # Castling takes the king to the c- or g-file square of its home rank in one move;
            # it walks on from there (``h6`` from ``e8`` is three moves, castled or not).
            best = min(1 + table[castled][square] for castled in _CASTLED_TO[color])
        for start in chess.scan_forward(there):
            best = min(best, table[start][square])
        total += best
    return total


def reachable(
    position: chess.variant.CrazyhouseBoard, goal: Goal, plies: int, *, refills: bool
) -> bool:
    """Can ``plies`` more plies (the side on move first) turn ``position`` into ``goal``?

    A lower bound per colour, never more than the truth: every square whose goal piece is not
    there yet needs that piece brought in, at least as many of its own moves as the nearest piece
    of that type needs on an empty board (or one drop, or a promotion); castling moves two pieces
    at once (the king counts one move to its castled square, the rook one spare move while
    castling is possible).
    Every piece not where the goal has one must leave: by a ply of its own side or by being
    captured. Every square that differs must be changed by a ply, and a ply changes at most
    two (``touched``). Every square occupied now and empty in the goal must be left by a ply,
    and a ply leaves one square (``emptied``).
    """
    return slack(position, goal, plies, refills=refills) is not None


def slack(
    position: chess.variant.CrazyhouseBoard, goal: Goal, plies: int, *, refills: bool
) -> int | None:
    """``None`` when the goal is out of reach (see ``reachable``); else how many plies of the
    side on move may still go elsewhere than to a goal square.

    The search's innermost function (called for every node): per-colour counts are lists
    indexed by the colour (``chess.WHITE`` is 1) and the piece masks are read from the board's
    bitboards directly (a third less time than with dicts and ``pieces_mask``)."""
    turn = position.turn
    own = [0, 0]
    own[turn] = (plies + 1) // 2
    own[not turn] = plies // 2
    cost = [0, 0]
    leave = [0, 0]
    occupied_co = position.occupied_co
    by_type = (
        0,
        position.pawns,
        position.knights,
        position.bishops,
        position.rooks,
        position.queens,
        position.kings,
    )
    # Indexed by colour as ``own``: black first.
    pawns = (
        bool(position.pawns & occupied_co[chess.BLACK]),
        bool(position.pawns & occupied_co[chess.WHITE]),
    )
    castles = (position.has_castling_rights(chess.BLACK), position.has_castling_rights(chess.WHITE))
    differ = wanted_squares = 0
    for color, piece_type, wanted in goal:
        there = by_type[piece_type] & occupied_co[color]
        differ |= there ^ wanted
        wanted_squares |= wanted
        leave[color] += (there & ~wanted).bit_count()
        if wanted & ~there:
            droppable = refills or bool(position.pockets[color].count(piece_type))
            cost[color] += arrivals_cost(
                color,
                piece_type,
                wanted,
                there,
                droppable,
                pawns[color],
                castles[color],
            )
    castling = castlings(position, goal, castles)
    ep = position.ep_square is not None
    if differ.bit_count() > touched(plies, castling, ep=ep):
        return None
    if (position.occupied & ~wanted_squares).bit_count() > emptied(plies, castling, ep=ep):
        return None
    slack = 0
    for color in chess.COLORS:
        spare = castling_spare(position, goal, color)
        if cost[color] > own[color] + spare:
            return None
        if leave[color] > own[color] + spare + own[not color]:
            return None
        if color == turn:
            slack = own[color] + spare - cost[color]
    return slack


def touched(plies: int, castlings: int, *, ep: bool) -> int:
    """The most squares ``plies`` plies can change: two each (from and to; a drop one), two
    more for each castling (king and rook), one more for an en passant capture right away
    (later, each needs its double step first: two plies, four squares)."""
    return 2 * plies + 2 * castlings + (1 if ep and plies else 0)


def emptied(plies: int, castlings: int, *, ep: bool) -> int:
    """The most squares occupied now that ``plies`` plies can leave empty. The first time such
    a square empties, a piece leaves it: one square per ply (a drop leaves none), two for a
    castling; en passant empties a square without leaving it, but the pawn it takes stood
    there since its double step just before, so only the pawn of a double step played before
    the gap (en passant right away) was there at the start."""
    return plies + castlings + (1 if ep and plies else 0)


def castlings(position: chess.Board, goal: Goal, castles: tuple[bool, bool]) -> int:
    """The sides that may castle to change more than two squares in one ply: those with a
    castling right whose king is not where the goal has it (a king that castles and has to
    come back spends two plies more, which change one new square)."""
    return sum(
        1
        for color in chess.COLORS
        if castles[color]
        and goal[_KING_INDEX[color]][2] != position.kings & position.occupied_co[color]
    )


def castling_spare(position: chess.Board, goal: Goal, color: chess.Color) -> int:
    """Castling moves two pieces in one ply, and both arrivals may count it: one ply more when
    the king castles on its way (not where the goal has it, castling no longer than walking:
    ``O-O``, ``Kh2``) and the castled rook's file is a goal rook's (``O-O``, ``Rf5``: counted
    as two rook moves, and no rook needs fewer; elsewhere a rook needs fewer than the castled
    one, so the castling is counted once). Only where the goal's king stood castled before
    was too narrow: ``O-O``, ``Kh2`` was cut."""
    king = position.kings & position.occupied_co[color]
    rooks = goal[_ROOK_INDEX[color]][2]
    return int(
        any(
            position.castling_rights & chess.BB_SQUARES[corner] and rooks & file
            for corner, file in _castled_wings(color, king, goal[_KING_INDEX[color]][2])
        )
    )


def _castled_wings(
    color: chess.Color, king: chess.Bitboard, wanted: chess.Bitboard
) -> list[tuple[chess.Square, chess.Bitboard]]:
    """The wings a king on ``king`` (a mask) may castle to on its shortest way to ``wanted``
    (not where it stands): their rook's corner and the file it lands on."""
    if king == wanted or not king or not wanted:
        return []
    table = _DISTANCES[color, chess.KING]
    start, target = chess.lsb(king), chess.lsb(wanted)
    return [
        (corner, file)
        for castled, corner, file in _WINGS[color]
        if 1 + table[castled][target] <= table[start][target]
    ]


_CASTLED_TO = ((chess.G8, chess.C8), (chess.G1, chess.C1))  # the king's squares once castled
# Where ``goal_of`` puts each colour's king mask (colours in ``chess.COLORS`` order: white first).
_KING_INDEX = (len(chess.PIECE_TYPES) * 2 - 1, len(chess.PIECE_TYPES) - 1)
_ROOK_INDEX = (len(chess.PIECE_TYPES) + chess.ROOK - 1, chess.ROOK - 1)
# By colour (black first): the king's castled square, its rook's corner, the file it lands on.
_WINGS = (
    ((chess.G8, chess.H8, chess.BB_FILE_F), (chess.C8, chess.A8, chess.BB_FILE_D)),
    ((chess.G1, chess.H1, chess.BB_FILE_F), (chess.C1, chess.A1, chess.BB_FILE_D)),
)


@lru_cache(maxsize=1 << 16)
def improving(
    color: chess.Color, piece_type: chess.PieceType, start: chess.Square, missing: chess.Bitboard
) -> chess.Bitboard:
    """The squares a ``piece_type`` of ``color`` on ``start`` can move to that bring it closer to
    one of the ``missing`` squares (goal squares of its kind it is not on yet): a superset of the
    moves that lower the bound's cost, the only ones worth trying when no ply is to spare."""
    table = _DISTANCES[color, piece_type]
    here = table[start]
    closer = 0
    for square in chess.SQUARES:
        there = table[square]
        if any(there[goal] < here[goal] for goal in chess.scan_forward(missing)):
            closer |= chess.BB_SQUARES[square]
    return closer


@lru_cache(maxsize=1 << 14)
def near(
    color: chess.Color, piece_type: chess.PieceType, missing: chess.Bitboard, moves: int
) -> chess.Bitboard:
    """The squares from which a ``piece_type`` of ``color`` reaches one of the ``missing``
    squares in at most ``moves`` moves (on an empty board)."""
    table = _DISTANCES[color, piece_type]
    squares = 0
    for square in chess.SQUARES:
        if any(table[square][goal] <= moves for goal in chess.scan_forward(missing)):
            squares |= chess.BB_SQUARES[square]
    return squares
