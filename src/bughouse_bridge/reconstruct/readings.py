"""What a settled physical placement means for the match: the reading of one board.

The order of the questions matters and is the reconstructor's policy:
0. when the clock counted two or more plies since the last commit: exactly that many plies
   (``pressed_chain``), or the last move (pressed, not final) replaced plus the pressed replies
   (``revised_chain``), or else the plies with one piece still in the next hand; only a board
   read in full replaces a committed move;
1. a move of the side to move (legal, an illegal drop that stands, or one waiting for the other
   board: a drop whose piece is not yet in the pocket, a promotion whose steal is not yet seen);
2. the row-9 remedy (the opponent took an illegal drop off, maybe then replied);
3. a slide correction (the last move replaced while the opponent has not replied);
4. two plies at once (the opponent replied before the mover's move was committed), if unique;
5. an illegal one-move change (wrong turn, illegal move, illegal steal);
6. a result shown with the kings; 7. unexplained.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import placement_of
from bughouse_bridge.bughouse.rules import PromotionPolicy
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement
from bughouse_bridge.reconstruct.chains import (
    CHAIN_MIN,
    arrival_of,
    before_last,
    fits_changes,
    pressed_chain,
    pressed_revision,
    revisable,
    revised_chain,
)
from bughouse_bridge.reconstruct.occupancy import result_signal
from bughouse_bridge.reconstruct.reading_values import (
    Context,
    Correction,
    Illegal,
    Legal,
    Reading,
    Remedy,
    Signal,
    Unexplained,
    Waiting,
)
from bughouse_bridge.reconstruct.shapes import (
    Diff,
    Shape,
    diff,
    explaining_shapes,
    lone_removal,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.match import Match

_STANDING_DROP_CODES = frozenset({AlertCode.DROP_MATE, AlertCode.PAWN_DROP_RANK})
_WAITING_CODES = frozenset({AlertCode.DROP_NOT_IN_POCKET, AlertCode.STEAL_MISSING})


def read(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading:
    placement = physical[board]
    chained = _chain(match, board, physical, context)
    if chained is not None:
        return chained
    candidates = one_ply(match, board, physical)
    for move, color, judgement in candidates:
        own = _own_move(move, color, judgement, match.turn(board))
        if own is not None:
            return own
    if context.pressed:  # the mover said "done": a reply on top beats a changed mind
        # ... unless the last move was pressed before its own hand was done: then one press
        # is that move completed plus one reply, not two new plies.
        later = (
            _remedy(match, board, physical, context)
            or _correction_and_reply(match, board, physical, context)
            or _two_ply(match, board, physical, context)
            or _correction(match, board, physical, context)
        )
    else:
        later = (
            _remedy(match, board, physical, context)
            or _correction(match, board, physical, context)
            or _two_ply(match, board, physical, context)
        )
    later = later or _correction_and_reply(match, board, physical, context)
    if later is not None:
        return later
    signal = result_signal(placement, ())
    if signal is not None:  # kings put on the centre on purpose: a result, not a move
        return Signal(signal)
    if candidates and not _legal_with_piece_in_hand(match, board, physical, context):
        move, color, judgement = candidates[0]
        return Illegal(move, color, judgement)
    return Unexplained()


def _chain(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Legal | Correction | None:
    """Question 0. Only a board read in full revises a committed move: a piece supposed lifted
    unseen (a chain "in flight") may complete a chain of new plies, never rewrite the last move
    (else the hasty move's own piece, slid on after the press, reads as the next hand's lift, and
    a capturer still in the hand as the last move changed plus a capture elsewhere)."""
    chain = context.presses >= CHAIN_MIN  # the clock counted the plies: read that many
    plies = pressed_chain(match, board, physical, context) if chain else None
    if plies is not None:
        return Legal(plies)
    revised = revised_chain(match, board, physical, context)
    if revised is not None:
        return revised
    plies = pressed_chain(match, board, physical, context, in_flight=True) if chain else None
    return None if plies is None else Legal(plies)


def _legal_with_piece_in_hand(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> bool:
    """The change also reads as a legal move of the side to move (its piece seen arriving) with
    the opponent's hand already at work: a piece lifted (the victim held), his own piece set
    down on the way (next to its target). Not an illegal move yet; if it stays, it is reported
    as unexplained."""
    position = match.position(board)
    arrived = {change for change in context.changes if change[1] is not None}
    for move in position.legal_moves:
        if arrival_of(position, move) not in arrived:
            continue
        if not match.judge(BughouseMove(board, move)).legal:
            continue
        after = position.copy(stack=False)
        if move.drop is not None:
            after.set_piece_at(move.to_square, chess.Piece(move.drop, position.turn))
        else:
            chess.Board.push(after, move)
        if _opponents_hand(diff(placement_of(after), physical[board]), position.turn):
            return True
    return False


def _opponents_hand(change: Diff, mover: chess.Color) -> bool:
    """A small change the opponent of ``mover`` makes mid-move: pieces lifted, his own pieces
    put down."""
    arrivals_his = all(piece.color != mover for piece in change.arrivals.values())
    return not change.empty and len(change.squares) <= _HAND_SQUARES and arrivals_his


_HAND_SQUARES = 3  # a piece lifted and set down elsewhere, and a victim in the hand


def _own_move(
    move: BughouseMove, color: chess.Color, judgement: Judgement, turn: chess.Color
) -> Reading | None:
    if color != turn:
        return None
    if judgement.legal:
        return Legal((move,))
    if judgement.code in _STANDING_DROP_CODES and move.is_drop:
        return Legal((move,), standing=judgement)
    if judgement.code in _WAITING_CODES:
        return Waiting(move, judgement)
    return None


def one_ply(
    match: Match, board: BoardId, physical: Mapping[BoardId, str]
) -> list[tuple[BughouseMove, chess.Color, Judgement]]:
    """Every one-move reading of the change, judged, legal ones first."""
    judged = [
        (move, shape.color, _judge(match, move, shape.color))
        for shape in explaining_shapes(match.position(board), physical[board])
        for move in bughouse_moves(match, board, shape, physical)
    ]
    return sorted(judged, key=lambda item: not item[2].legal)


def _judge(match: Match, move: BughouseMove, color: chess.Color) -> Judgement:
    judgement = match.judge(move, color=color)
    if judgement.code is not AlertCode.WRONG_TURN or _legal_for(match, move, color):
        return judgement
    # A change by the side not on move that would not even be legal on its turn.
    what = f"{move.uci} is not a legal move for either side"
    return Judgement(
        legal=False, code=AlertCode.ILLEGAL_MOVE, rule=match.rules.ref(10), message=what
    )


def _legal_for(match: Match, move: BughouseMove, color: chess.Color) -> bool:
    """Would ``move`` be legal (as chess, pockets counted) if ``color`` were on move?"""
    position = match.position(move.board)
    position.turn = color
    position.ep_square = None
    if move.move.drop is not None:
        return bool(position.pockets[color].count(move.move.drop))
    return position.is_legal(move.move)


def _steals(match: Match) -> bool:
    return match.rules.promotion is PromotionPolicy.STEAL


def bughouse_moves(
    match: Match, board: BoardId, shape: Shape, physical: Mapping[BoardId, str]
) -> list[BughouseMove]:
    """The move on ``board``; a promotion under a steal rule takes the piece the other board
    lost, if it lost exactly one piece of the promoted kind and colour."""
    plain = BughouseMove(board, shape.move)
    if shape.move.promotion is None or not _steals(match) or board.other not in physical:
        return [plain]
    removal = lone_removal(match.board_fen(board.other), physical[board.other])
    wanted = chess.Piece(shape.move.promotion, shape.color)
    if removal is None or removal[1] != wanted:
        return [plain]
    return [BughouseMove(board, shape.move, steal_square=removal[0])]


def _legal_replies(
    match: Match, board: BoardId, physical: Mapping[BoardId, str]
) -> list[BughouseMove]:
    turn = match.turn(board)
    return [
        move
        for shape in explaining_shapes(match.position(board), physical[board])
        if shape.color == turn
        for move in bughouse_moves(match, board, shape, physical)
        if match.judge(move).legal
    ]


def _remedy(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    drop = context.standing_drop
    if drop is None or chess.BaseBoard(physical[board]).piece_at(drop.move.to_square):
        return None
    after = match.copy()
    try:
        after.remove_illegal_drop(board, t=context.now)
    except ValueError:
        return None
    if after.board_fen(board) == physical[board]:
        return Remedy(None)
    replies = _legal_replies(after, board, physical)
    return Remedy(replies[0]) if len(replies) == 1 else None


def _correction(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    last, parent = context.correctable, context.parent
    if last is None or parent is None:
        return None
    # Only the mover's own hand revises a move: the piece it put down has moved on. A placement
    # that leaves it standing (the opponent lifting a piece to capture) is not a correction.
    if not revisable(match, board, physical, last, context.firmness):
        return None
    # Cheap physics first: a takeback replays the whole match log.
    shapes = explaining_shapes(parent, physical[board])
    if not any(shape.color == parent.turn and shape.move != last.move for shape in shapes):
        return None
    before = before_last(match, board, context)
    if before is None:
        return None
    changes = context.changes_of_last + context.changes
    moves = [
        move
        for move in _legal_replies(before, board, physical)
        if move != last and fits_changes(parent, (move,), changes)
    ]
    return Correction((moves[0],)) if len(moves) == 1 else None


def _correction_and_reply(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    """The last move was read one square short (the press beat the scanner on a slide) and the
    opponent has answered already: replace it and commit the reply, if exactly one pair fits."""
    revision = pressed_revision(match, board, physical, context)
    if revision is None:
        return None
    pairs = [
        pair
        for pair in _two_ply_pairs(revision.before, board, physical, context.now)
        if pair[0] != revision.last and fits_changes(revision.parent, pair, revision.changes)
    ]
    chosen = _choose_pair(pairs, revision.before.position(board), context)
    return None if chosen is None else Correction(chosen)


def _two_ply(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    if context.presses > 2:  # 3 presses are 3 plies: d2-d3 … d3-d4 is not d2-d4
        return None
    position = match.position(board)
    pairs = [
        pair
        for pair in _two_ply_pairs(match, board, physical, context.now)
        if fits_changes(position, pair, context.changes)
    ]
    chosen = _choose_pair(pairs, position, context)
    return None if chosen is None else Legal(chosen)


def _two_ply_pairs(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], now: float
) -> list[tuple[BughouseMove, BughouseMove]]:
    """Every legal move followed by a legal reply that ends on the physical placement."""
    change = diff(match.board_fen(board), physical[board])
    if len(change.squares) < 2:
        return []
    pairs = []
    for first in match.position(board).legal_moves:
        candidate = BughouseMove(board, first)
        if _within(first, change.squares) and match.judge(candidate).legal:
            after = match.copy()
            after.play(candidate, t=now)
            pairs += [(candidate, reply) for reply in _legal_replies(after, board, physical)]
    return pairs


def _choose_pair(
    pairs: list[tuple[BughouseMove, BughouseMove]], position: chess.Board, context: Context
) -> tuple[BughouseMove, BughouseMove] | None:
    # A dropped piece captured at once leaves no trace of its kind: the move seen settled
    # before the reply tells which it was.
    for seen in (
        [pair for pair in pairs if pair[0] == context.pending],
        [pair for pair in pairs if arrival_of(position, pair[0].move) in context.trail],
        pairs,
    ):
        if len(seen) == 1:
            return seen[0]
    return None


def _within(move: chess.Move, squares: frozenset[chess.Square]) -> bool:
    """A first move of two plies touches only squares that differ at the end."""
    if move.drop is not None:
        return move.to_square in squares
    return move.from_square in squares and move.to_square in squares
