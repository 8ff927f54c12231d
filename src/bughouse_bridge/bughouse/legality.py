"""Legal moves, verdicts on candidate moves, SAN, and the effect of a move on both boards.

Functions here take the rule set and the two boards; :class:`~bughouse_bridge.bughouse.match.Match`
keeps the state and the log and turns results into events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import (
    STEALABLE,
    BughouseBoard,
    checking_squares,
    rank_mask,
)
from bughouse_bridge.bughouse.events import StealInfo
from bughouse_bridge.bughouse.plight import Plight, classify
from bughouse_bridge.bughouse.rules import NoStealTarget, Permission, PromotionPolicy, RuleSet
from bughouse_bridge.bughouse.steals import steal_allowed, steal_squares
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement, Seat

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    Boards = Mapping[BoardId, BughouseBoard]

_STEAL_TAG = re.compile(r"\(([a-h][1-8])\)")
_POCKET_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


class IllegalMoveError(chess.IllegalMoveError):
    """A move the rules do not allow here; ``judgement`` says why (code, rule, sentence)."""

    def __init__(self, judgement: Judgement) -> None:
        super().__init__(judgement.message)
        self.judgement = judgement


@dataclass(frozen=True, slots=True)
class Applied:
    """What a move did beyond its own board: the piece it captured, the piece it stole."""

    captured: chess.Piece | None
    steal: StealInfo | None


def seat_name(seat: Seat) -> str:
    """``"White A"``: how the alert sentences name a player."""
    return f"{'White' if seat.color == chess.WHITE else 'Black'} {seat.board}"


# --- legal moves -------------------------------------------------------------------------------


def legal_moves(rules: RuleSet, boards: Boards, board_id: BoardId) -> list[BughouseMove]:
    """Every move the player on move may make: board moves, steals, drops."""
    return [*_board_moves(rules, boards, board_id), *_drops(rules, boards, board_id)]


def _board_moves(rules: RuleSet, boards: Boards, board_id: BoardId) -> Iterator[BughouseMove]:
    for move in chess.Board.generate_legal_moves(boards[board_id]):
        if not move.promotion:
            yield BughouseMove(board_id, move)
        elif move.promotion == chess.QUEEN:
            yield from _promotions(rules, boards, board_id, move)


def _promotions(
    rules: RuleSet, boards: Boards, board_id: BoardId, queen_move: chess.Move
) -> Iterator[BughouseMove]:
    if rules.promotion is PromotionPolicy.STEAL:
        squares = steal_squares(rules, boards[board_id.other], boards[board_id].turn)
        if squares:
            yield from _steals(rules, boards, board_id, queen_move, squares)
            return
        if rules.no_steal_target is NoStealTarget.ILLEGAL:
            return
    for piece in STEALABLE:
        yield BughouseMove(board_id, _promotion(queen_move, piece))


def _promotion(move: chess.Move, piece: chess.PieceType) -> chess.Move:
    return chess.Move(move.from_square, move.to_square, promotion=piece)


def _steals(
    rules: RuleSet,
    boards: Boards,
    board_id: BoardId,
    queen_move: chess.Move,
    squares: list[chess.Square],
) -> Iterator[BughouseMove]:
    target = boards[board_id.other]
    for square in squares:
        piece = target.piece_type_at(square)
        assert piece is not None
        steal = BughouseMove(board_id, _promotion(queen_move, piece), steal_square=square)
        if rules.steal_mate is Permission.ALLOWED or not mates(rules, boards, steal):
            yield steal


def _drops(rules: RuleSet, boards: Boards, board_id: BoardId) -> Iterator[BughouseMove]:
    board = boards[board_id]
    squares = board.drop_squares()
    pocket = board.pockets[board.turn]
    for piece in _POCKET_TYPES:
        if pocket.count(piece) and squares:
            yield from _drops_of(rules, boards, board_id, piece, squares)


def _drops_of(
    rules: RuleSet, boards: Boards, board_id: BoardId, piece: chess.PieceType, squares: int
) -> Iterator[BughouseMove]:
    board = boards[board_id]
    if piece == chess.PAWN:
        squares &= rank_mask(board.turn, rules.pawn_drop_ranks)
    checking = checking_squares(board, piece)
    for square in chess.scan_forward(squares):
        drop = BughouseMove(board_id, chess.Move(square, square, drop=piece))
        if not chess.BB_SQUARES[square] & checking or _checking_drop_allowed(rules, boards, drop):
            yield drop


def _checking_drop_allowed(rules: RuleSet, boards: Boards, drop: BughouseMove) -> bool:
    if rules.drop_check is Permission.ILLEGAL:
        return False
    return rules.drop_mate is Permission.ALLOWED or not mates(rules, boards, drop)


def mates(rules: RuleSet, boards: Boards, move: BughouseMove) -> bool:
    """Would ``move`` leave the opponent mated for good (row 7's definition, used by row 2)?"""
    after = applied_copy(rules, boards, move)
    return classify(rules, after, move.board, partner_moved=False).plight is Plight.MATE_FINAL


# --- applying a move ---------------------------------------------------------------------------


def applied_copy(
    rules: RuleSet, boards: Boards, move: BughouseMove
) -> dict[BoardId, BughouseBoard]:
    """Both boards after ``move``, leaving ``boards`` untouched."""
    copies = {board_id: board.copy(stack=False) for board_id, board in boards.items()}
    apply(rules, copies, move)
    return copies


def apply(rules: RuleSet, boards: Boards, move: BughouseMove) -> Applied:
    """Play ``move`` on ``boards`` (no legality check): route the capture, carry out the steal."""
    board = boards[move.board]
    mover = board.turn
    drop = move.move.drop
    if drop is not None and not board.pockets[mover].count(drop):
        board.borrow(mover, drop)  # a forced drop of a piece not held (row 9)
    board.push(move.move)
    steal = _after_promotion(rules, boards, move, mover) if move.move.promotion else None
    captured = board.captured
    if captured is not None:
        boards[move.board.other].deliver(captured.color, captured.piece_type)
    return Applied(captured, steal)


def _after_promotion(
    rules: RuleSet, boards: Boards, move: BughouseMove, mover: chess.Color
) -> StealInfo | None:
    board, neighbour = boards[move.board], boards[move.board.other]
    if move.steal_square is not None:
        board.promoted &= ~chess.BB_SQUARES[move.move.to_square]
        return _steal(neighbour, move.board.other, move.steal_square, mover)
    if rules.promotion is PromotionPolicy.CHOICE_PAWN_TO_NEIGHBOUR:
        board.promoted &= ~chess.BB_SQUARES[move.move.to_square]
        neighbour.deliver(mover, chess.PAWN)
    return None


def _steal(
    neighbour: BughouseBoard, board_id: BoardId, square: chess.Square, mover: chess.Color
) -> StealInfo:
    piece = neighbour.piece_at(square)
    assert piece is not None
    neighbour.remove_piece_at(square)
    # A rook dropped back on its corner later must not revive castling (note F keeps the turn).
    neighbour.castling_rights &= ~chess.BB_SQUARES[square]
    neighbour.deliver(mover, chess.PAWN)
    return StealInfo(board_id, square, piece)


# --- verdicts ----------------------------------------------------------------------------------


def judge(
    rules: RuleSet, boards: Boards, move: BughouseMove, color: chess.Color | None = None
) -> Judgement:
    """Is ``move`` legal now? If not: the alert code, the rule and one sentence why."""
    mover = boards[move.board].turn
    seat = Seat(move.board, mover)
    if color is not None and color != mover:
        return _wrong_turn(rules, Seat(move.board, color))
    if move.is_drop:
        return _judge_drop(rules, boards, move, seat)
    return _judge_board_move(rules, boards, move, seat)


def _illegal(rules: RuleSet, code: AlertCode, row: int, message: str) -> Judgement:
    return Judgement(legal=False, code=code, rule=rules.ref(row), message=message)


def _wrong_turn(rules: RuleSet, seat: Seat) -> Judgement:
    message = f"{seat_name(seat)} moved, but {seat_name(seat.opponent)} is on move."
    return _illegal(rules, AlertCode.WRONG_TURN, 10, message)


def _judge_drop(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    board = boards[move.board]
    piece, square = move.move.drop, move.move.to_square
    assert piece is not None
    name = f"{seat_name(seat)} dropped {move.uci}"
    if piece == chess.PAWN and not rules.pawn_rank_allowed(_own_rank(seat.color, square)):
        low, high = rules.pawn_drop_ranks
        text = (
            f"{name}: pawns may be dropped only on ranks {low}-{high}; the opponent may remove it."
        )
        return _illegal(rules, AlertCode.PAWN_DROP_RANK, 3, text)
    if piece == chess.KING or board.piece_at(square) is not None:
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name} on an occupied square.")
    if not board.pockets[seat.color].count(piece):
        text = f"{name}, but his pocket holds no {chess.piece_name(piece)}."
        return _illegal(rules, AlertCode.DROP_NOT_IN_POCKET, 10, text)
    if not chess.BB_SQUARES[square] & board.drop_squares():
        return _illegal(
            rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}, which leaves his king in check."
        )
    return _judge_checking_drop(rules, boards, move, name)


def _judge_checking_drop(
    rules: RuleSet, boards: Boards, move: BughouseMove, name: str
) -> Judgement:
    piece = move.move.drop
    assert piece is not None
    board = boards[move.board]
    if not chess.BB_SQUARES[move.move.to_square] & checking_squares(board, piece):
        return Judgement.ok()
    if rules.drop_check is Permission.ILLEGAL:
        text = f"{name} giving check, which these rules forbid."
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 1, text)
    if rules.drop_mate is Permission.ILLEGAL and mates(rules, boards, move):
        text = f"{name} giving mate, which is illegal; the opponent may remove the piece."
        return _illegal(rules, AlertCode.DROP_MATE, 2, text)
    return Judgement.ok()


def _own_rank(color: chess.Color, square: chess.Square) -> int:
    rank = chess.square_rank(square) + 1
    return rank if color == chess.WHITE else 9 - rank


def _judge_board_move(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    board = boards[move.board]
    chess_move = move.move
    piece = board.piece_at(chess_move.from_square)
    name = f"{seat_name(seat)} played {chess_move.uci()}"
    if piece is None:
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name} from an empty square.")
    if piece.color != seat.color:
        return _wrong_turn(rules, seat.opponent)
    if is_promotion(board, chess_move):
        return _judge_promotion(rules, boards, move, seat)
    if move.steal_square is not None:
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, f"{name}: only a promotion steals.")
    if chess_move.promotion or not board.is_legal(chess_move):
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}, which is not a legal move.")
    return Judgement.ok()


def is_promotion(board: chess.Board, move: chess.Move) -> bool:
    """A pawn move to the last rank, whatever piece it names."""
    from_pawn = board.pawns & chess.BB_SQUARES[move.from_square]
    return bool(from_pawn and chess.BB_SQUARES[move.to_square] & chess.BB_BACKRANKS)


def _judge_promotion(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    board = boards[move.board]
    name = f"{seat_name(seat)} promoted with {move.move.uci()}"
    if not board.is_legal(_promotion(move.move, chess.QUEEN)):
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}, which is not a legal move.")
    if rules.promotion is PromotionPolicy.STEAL and move.steal_square is not None:
        return _judge_steal(rules, boards, move, seat)
    if move.steal_square is not None:
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, f"{name}: these rules have no steals.")
    if rules.promotion is PromotionPolicy.STEAL:
        missing = _judge_missing_steal(rules, boards, seat, name)
        if not missing.legal:
            return missing
    if move.move.promotion not in STEALABLE:
        return _illegal(
            rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}: name a queen, rook, bishop or knight."
        )
    return Judgement.ok()


def _judge_missing_steal(rules: RuleSet, boards: Boards, seat: Seat, name: str) -> Judgement:
    neighbour = seat_name(Seat(seat.board.other, seat.color))
    if steal_squares(rules, boards[seat.board.other], seat.color):
        text = f"{name} without taking a piece from {neighbour}; a promotion must steal one."
        return _illegal(rules, AlertCode.STEAL_MISSING, 4, text)
    if rules.no_steal_target is NoStealTarget.ILLEGAL:
        text = (
            f"{name}, but {neighbour} has no piece that may be stolen, so the pawn may not promote."
        )
        return _illegal(rules, AlertCode.STEAL_MISSING, 4, text)
    return Judgement.ok()


def _judge_steal(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    square = move.steal_square
    assert square is not None
    target = boards[seat.board.other]
    piece = target.piece_at(square)
    where = f"{chess.square_name(square)} on board {seat.board.other}"
    name = f"{seat_name(seat)} promoted stealing from {where}"
    if piece is None or piece.color != seat.color or piece.piece_type not in STEALABLE:
        text = f"{name}, where there is no queen, rook, bishop or knight of his colour."
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, text)
    if piece.piece_type != move.move.promotion:
        text = f"{name}: the promotion names another piece than the one stolen."
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, text)
    if not steal_allowed(rules, target, square):
        text = f"{name}, which would expose a king to check there; steal another piece."
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 5, text)
    if rules.steal_mate is Permission.ILLEGAL and mates(rules, boards, move):
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 6, f"{name}, giving mate with it.")
    return Judgement.ok()


# --- notation ----------------------------------------------------------------------------------


def san(rules: RuleSet, boards: Boards, move: BughouseMove) -> str:
    """SAN with bughouse suffixes: ``#`` only for a final mate; ``P@e4``; steals ``b8=Q(d1)``."""
    body = _san_body(boards[move.board], move)
    after = applied_copy(rules, boards, move)
    board = after[move.board]
    if not board.is_check():
        return body
    final = classify(rules, after, move.board, partner_moved=False).plight is Plight.MATE_FINAL
    return body + ("#" if final else "+")


def _san_body(board: BughouseBoard, move: BughouseMove) -> str:
    chess_move = move.move
    if chess_move.drop is not None:
        letter = chess.piece_symbol(chess_move.drop).upper()
        return f"{letter}@{chess.square_name(chess_move.to_square)}"
    # python-chess's suffix counts any unanswerable check as mate; ours follows row 7.
    body = board._algebraic_without_suffix(chess_move)  # noqa: SLF001
    if move.steal_square is None:
        return body
    return f"{body}({chess.square_name(move.steal_square)})"


def parse_san(rules: RuleSet, boards: Boards, board_id: BoardId, text: str) -> BughouseMove:
    """Read SAN (``N@f3``, ``@e4``, ``exd8=Q+``, ``b8=Q(d1)``) and check it is legal here."""
    tag = _STEAL_TAG.search(text)
    core = _STEAL_TAG.sub("", text).strip().rstrip("+#!?")
    if "@" in core:
        move = _parse_drop(board_id, core)
    else:
        steal = chess.parse_square(tag.group(1)) if tag else None
        move = _parse_board_move(rules, boards, board_id, core, steal)
    verdict = judge(rules, boards, move)
    if not verdict.legal:
        raise IllegalMoveError(verdict)
    return move


def _parse_drop(board_id: BoardId, core: str) -> BughouseMove:
    letter, _, square_name = core.partition("@")
    try:
        piece = chess.PIECE_SYMBOLS.index((letter or "P").lower())
        square = chess.parse_square(square_name)
    except ValueError:
        raise chess.InvalidMoveError(f"not a drop: {core!r}") from None
    return BughouseMove(board_id, chess.Move(square, square, drop=piece))


def _parse_board_move(
    rules: RuleSet, boards: Boards, board_id: BoardId, core: str, steal: chess.Square | None
) -> BughouseMove:
    board = boards[board_id]
    move = chess.Board.parse_san(board, core)
    if move.promotion and rules.promotion is PromotionPolicy.STEAL and steal is None:
        steal = _only_steal(rules, boards, board_id, move.promotion)
    return BughouseMove(board_id, move, steal_square=steal)


def _only_steal(
    rules: RuleSet, boards: Boards, board_id: BoardId, piece: chess.PieceType
) -> chess.Square | None:
    target = boards[board_id.other]
    squares = [
        square
        for square in steal_squares(rules, target, boards[board_id].turn)
        if target.piece_type_at(square) == piece
    ]
    if len(squares) > 1:
        names = ", ".join(chess.square_name(square) for square in squares)
        raise chess.AmbiguousMoveError(f"which {chess.piece_name(piece)} is stolen? ({names})")
    return squares[0] if squares else None
