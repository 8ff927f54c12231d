"""One bughouse board: a crazyhouse board whose captures leave the board for the partner's pocket.

python-chess's ``CrazyhouseBoard._push_capture`` puts a captured piece into the capturer's own
pocket; in bughouse it belongs to the capturer's partner on the other board, so the board only
records it (already demoted to a pawn if it had been promoted) and the match routes it.
``chess`` is pinned to the 1.11 series because this seam is private.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Self, TypeAlias

import chess
import chess.variant

from bughouse_bridge.bughouse.types import BoardId

PIECE_LETTERS = "PNBRQ"
STEALABLE = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)


class BughouseBoard(chess.variant.CrazyhouseBoard):
    """Crazyhouse board that hands captured pieces to the match instead of its own pocket."""

    captured: chess.Piece | None
    """The piece the last ``push`` captured, demoted to a pawn if it was promoted."""

    debts: dict[chess.Color, list[chess.PieceType]]
    """Pieces a player dropped without holding them (a forced drop, row 9): the next piece of
    that type his partner sends settles the debt instead of landing in the pocket twice."""

    def __init__(
        self,
        fen: str | None = chess.variant.CrazyhouseBoard.starting_fen,
        *,
        chess960: bool = False,
    ) -> None:
        self.captured = None
        self.debts = {chess.WHITE: [], chess.BLACK: []}
        super().__init__(fen, chess960=chess960)

    def push(self, move: chess.Move) -> None:
        self.captured = None
        super().push(move)

    def _push_capture(
        self,
        move: chess.Move,  # noqa: ARG002 - the signature of python-chess's seam
        capture_square: chess.Square,  # noqa: ARG002
        piece_type: chess.PieceType,
        was_promoted: bool,  # noqa: FBT001
    ) -> None:
        demoted = chess.PAWN if was_promoted else piece_type
        self.captured = chess.Piece(demoted, not self.turn)

    def board_fen(self, *, promoted: bool | None = None) -> str:
        """python-chess's placement (promoted pieces marked ``~`` unless ``promoted=False``),
        rendered from the bitboards: every published move carries a FEN."""
        return render_placement(self, promoted=True if promoted is None else promoted)

    def copy(self, *, stack: bool | int = True) -> Self:
        board = super().copy(stack=stack)
        board.captured = self.captured
        board.debts = {color: list(debts) for color, debts in self.debts.items()}
        return board

    def deliver(self, color: chess.Color, piece_type: chess.PieceType) -> None:
        """A piece arrives for ``color``'s pocket; it first pays back a forced drop of its type."""
        if piece_type in self.debts[color]:
            self.debts[color].remove(piece_type)
        else:
            self.pockets[color].add(piece_type)

    def borrow(self, color: chess.Color, piece_type: chess.PieceType) -> None:
        """Lend ``color`` a piece it does not hold so that a forced drop can stand (row 9)."""
        self.debts[color].append(piece_type)
        self.pockets[color].add(piece_type)

    def drop_squares(self) -> chess.Bitboard:
        """Empty squares where a drop answers any check (python-chess's mask, cut to 64 bits)."""
        return self.legal_drop_squares_mask() & chess.BB_ALL

    def as_mover(self, color: chess.Color) -> Self:
        """A stack-less copy with ``color`` on move (what that player could do next)."""
        board = self.copy(stack=False)
        if board.turn != color:
            board.turn = color
            board.ep_square = None
        return board

    def without_piece(self, square: chess.Square) -> Self:
        """A stack-less copy with the piece on ``square`` taken away (a steal)."""
        board = self.copy(stack=False)
        board.remove_piece_at(square)
        return board


_SYMBOLS = tuple(
    (color, piece_type, chess.Piece(piece_type, color).symbol())
    for color in chess.COLORS
    for piece_type in chess.PIECE_TYPES
)
_EMPTY_RUNS = tuple(("1" * run, str(run)) for run in range(8, 1, -1))


def render_placement(board: chess.BaseBoard, *, promoted: bool) -> str:
    """``chess.BaseBoard.board_fen``, the same text in about a third of the time: the squares of
    each piece's bitboard are filled in, and runs of empty squares counted by replacing them.
    python-chess looks up all 64 squares one by one."""
    cells = ["1"] * 64
    for color, piece_type, symbol in _SYMBOLS:
        for square in chess.scan_forward(board.pieces_mask(piece_type, color)):
            cells[square] = symbol
    if promoted:
        for square in chess.scan_forward(board.promoted & board.occupied):
            cells[square] += "~"
    placement = "/".join("".join(cells[start : start + 8]) for start in range(56, -8, -8))
    for run, count in _EMPTY_RUNS:
        placement = placement.replace(run, count)
    return placement


_PLACEMENTS: dict[tuple[int, ...], str] = {}
_PLACEMENTS_KEPT = 1 << 16


def placement_of(board: chess.BaseBoard) -> str:
    """``board.board_fen(promoted=False)``, remembered by the board's bitboards: the reading
    logic asks for the placement of the same few positions many times per scan, and rendering
    them was about a third of the reconstructor's time in a profiled game. A bounded cache of a
    pure function."""
    key = (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
    )
    placement = _PLACEMENTS.get(key)
    if placement is None:
        if len(_PLACEMENTS) >= _PLACEMENTS_KEPT:
            _PLACEMENTS.clear()
        placement = _PLACEMENTS[key] = render_placement(board, promoted=False)
    return placement


def rank_mask(color: chess.Color, ranks: tuple[int, int]) -> chess.Bitboard:
    """Squares on ranks ``low..high`` counted from ``color``'s own side."""
    low, high = ranks
    mask = chess.BB_EMPTY
    for own_rank in range(low, high + 1):
        absolute = own_rank - 1 if color == chess.WHITE else 8 - own_rank
        mask |= chess.BB_RANKS[absolute]
    return mask


def pocket_letters(pocket: chess.variant.CrazyhousePocket) -> str:
    """Upper-case letters in the order P N B R Q (the contract's pocket spelling)."""
    return "".join(
        letter * pocket.count(chess.PIECE_SYMBOLS.index(letter.lower())) for letter in PIECE_LETTERS
    )


def checking_squares(board: chess.Board, piece_type: chess.PieceType) -> chess.Bitboard:
    """Empty squares from which a dropped ``piece_type`` of the side to move would give check."""
    king = board.king(not board.turn)
    if king is None:
        return chess.BB_EMPTY
    occupied = board.occupied
    attacks = {
        chess.PAWN: chess.BB_PAWN_ATTACKS[not board.turn][king],
        chess.KNIGHT: chess.BB_KNIGHT_ATTACKS[king],
        chess.BISHOP: _diagonal(king, occupied),
        chess.ROOK: _straight(king, occupied),
        chess.QUEEN: _diagonal(king, occupied) | _straight(king, occupied),
    }[piece_type]
    return attacks & ~occupied


def _diagonal(square: chess.Square, occupied: chess.Bitboard) -> chess.Bitboard:
    return chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occupied]


def _straight(square: chess.Square, occupied: chess.Bitboard) -> chess.Bitboard:
    return (
        chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
        | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied]
    )


class PlacementSketch:
    """``board_fen`` of the positions one move away, re-rendering only the ranks a move touches.

    ``successors()`` needs a placement for every legal move (often 200 with full pockets); a
    push/``board_fen``/pop per move costs about 30 µs, this about a tenth of it.
    """

    __slots__ = ("_board", "_ranks", "_symbols")

    def __init__(self, board: BughouseBoard) -> None:
        self._board = board
        self._symbols = [_symbol(board.piece_at(square)) for square in chess.SQUARES]
        self._ranks = [_render(self._symbols, {}, rank) for rank in range(8)]

    def after(self, move: chess.Move) -> str:
        changes = self._changes(move)
        ranks = list(self._ranks)
        for rank in {chess.square_rank(square) for square in changes}:
            ranks[rank] = _render(self._symbols, changes, rank)
        return "/".join(reversed(ranks))

    def _changes(self, move: chess.Move) -> dict[chess.Square, str | None]:
        board = self._board
        if move.drop is not None:
            return {move.to_square: chess.Piece(move.drop, board.turn).symbol()}
        if board.is_castling(move):
            return self._castling(move)
        moved = move.promotion or board.piece_type_at(move.from_square) or chess.PAWN
        changes: dict[chess.Square, str | None] = {
            move.from_square: None,
            move.to_square: chess.Piece(moved, board.turn).symbol(),
        }
        if board.is_en_passant(move):
            file, rank = chess.square_file(move.to_square), chess.square_rank(move.from_square)
            changes[chess.square(file, rank)] = None
        return changes

    def _castling(self, move: chess.Move) -> dict[chess.Square, str | None]:
        board = self._board
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        rook_from = (
            move.to_square
            if board.rooks & board.occupied_co[board.turn] & chess.BB_SQUARES[move.to_square]
            else chess.square(7 if kingside else 0, rank)
        )
        changes: dict[chess.Square, str | None] = {move.from_square: None, rook_from: None}
        changes[chess.square(6 if kingside else 2, rank)] = chess.Piece(
            chess.KING, board.turn
        ).symbol()
        changes[chess.square(5 if kingside else 3, rank)] = chess.Piece(
            chess.ROOK, board.turn
        ).symbol()
        return changes


def _symbol(piece: chess.Piece | None) -> str | None:
    return None if piece is None else piece.symbol()


def _render(symbols: list[str | None], changes: dict[chess.Square, str | None], rank: int) -> str:
    out: list[str] = []
    empty = 0
    for square in range(rank * 8, rank * 8 + 8):
        symbol = changes[square] if square in changes else symbols[square]
        if symbol is None:
            empty += 1
            continue
        if empty:
            out.append(str(empty))
            empty = 0
        out.append(symbol)
    if empty:
        out.append(str(empty))
    return "".join(out)


Boards: TypeAlias = Mapping[BoardId, BughouseBoard]  # both boards of a match, by their id
