"""A drop a gap's guessed pockets lack is the gap's evidence, not an illegal move: after a gap left
to the arbiter (or a recovery nothing confirmed) the pockets are the fewest pieces that explain
the placements, and a piece captured and another of its kind dropped in the gap leave no trace.

``GapPockets`` is not a layer: the gaps' component (``resync.Resync``) asks one, made of the game
and the gaps' book, about each drop committed (``supplied``).
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import pocket_letters
from bughouse_bridge.bughouse.rules import PromotionPolicy
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement
from bughouse_bridge.reconstruct.alerts import alert, describe

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import (
        Alert,
        MatchEvent,
    )
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct.gap_book import GapBook


class GapPockets:
    """A drop weighed against the gaps' guessed pockets: see the module docstring."""

    def __init__(self, match: Match, gaps: GapBook) -> None:
        self._match = match
        self._gaps = gaps

    def supplied(
        self, board: BoardId, move: BughouseMove, standing: Judgement | None, now: float
    ) -> list[MatchEvent] | None:
        """After a gap left to the arbiter the pockets are a guess (the fewest pieces that
        explain the placements): a piece captured and another of its kind dropped in the gap
        leave no trace. So a drop of a piece the guess lacks, on a board the gap fed (its own,
        or the partner board of one), is the gap's evidence, not an illegal move: the piece is
        added to what the gap put in that pocket, and the arbiter is told. ``None``: no gap
        can have brought it, the drop is judged as usual."""
        if standing is None or standing.code is not AlertCode.DROP_NOT_IN_POCKET:
            return None
        piece, color = move.move.drop, self._match.turn(board)
        if piece is None:
            return None
        full = _in_play(self._match, color, piece) >= 2 * _START_COUNT[piece]
        feeding = self._gaps.feeding({board, board.other})
        for gap in sorted(feeding, reverse=True):  # the latest gap that can have brought it
            source = self._guessed_elsewhere(gap, board, color, piece) if full else None
            if full and source is None:
                if self._unseen_promotion(gap, board, chess.Piece(piece, color)):
                    supplied = self._supplied_alert(
                        board, move, color, piece, now, gap=gap, promotion=True
                    )
                    return [supplied]
                continue
            try:
                self._match.gap_supplied(gap, board, color, piece, source=source)
            except ValueError:
                continue
            return [self._supplied_alert(board, move, color, piece, now, gap=gap)]
        events = self._supplied_unconfirmed(board, color, piece, full=full, now=now)
        if events is None:
            return None
        return [*events, self._supplied_alert(board, move, color, piece, now, gap=None)]

    def _supplied_alert(  # noqa: PLR0913 - the drop and its gap
        self,
        board: BoardId,
        move: BughouseMove,
        color: chess.Color,
        piece: chess.PieceType,
        now: float,
        *,
        gap: int | None,
        promotion: bool = False,
    ) -> Alert:
        which = "the gap" if gap is None else f"the gap ({gap})"
        name = chess.piece_name(piece)
        how = (
            f"hid a promotion (the {name} it showed is a promoted pawn; the real one was taken)"
            if promotion
            else f"must have brought that {name} into the pocket"
        )
        message = f"Board {board}: {describe(move, color)}; {which} {how}: the pocket is corrected."
        return alert(now, board, color, AlertCode.GAP_AMBIGUOUS, message, gap=gap, move=move.uci)

    def _supplied_unconfirmed(
        self, board: BoardId, color: chess.Color, piece: chess.PieceType, *, full: bool, now: float
    ) -> list[MatchEvent] | None:
        """After a recovery that was not confirmed, a drop its pockets lack corrects them
        (``set_pocket``, in the log): the piece moved from the partner board's pocket when no
        capture can have freed another one."""
        if not self._gaps.any_unconfirmed({board, board.other}):
            return None
        events: list[MatchEvent] = []
        if full:
            source = self._match.position(board.other).pockets[color]
            if not source.count(piece):
                return None
            source.remove(piece)
            events += self._match.set_pocket(board.other, color, pocket_letters(source), t=now)
        pocket = self._match.position(board).pockets[color]
        pocket.add(piece)
        return events + self._match.set_pocket(board, color, pocket_letters(pocket), t=now)

    def _unseen_promotion(self, gap: int, board: BoardId, piece: chess.Piece) -> bool:
        """Where promoted pieces are marked (row 4, ``choice_marked``), a fill cannot tell a
        pawn promoted in the gap from the real piece: it takes the pawn that left for captured
        (into a pocket) and the new queen for the old one, whose capture it then misses. A
        drop of that piece, with no other left in the two sets, proves the promotion: the
        gap's unmarked piece on the promotion rank is marked promoted and the pocketed pawn is
        given back for it (``Match.gap_promoted``). False when the gap put no such pawn and
        piece there (a piece that promoted and moved on in the gap is not seen)."""
        if self._match.rules.promotion is not PromotionPolicy.CHOICE_MARKED:
            return False
        pawn_from = [
            b
            for b in BoardId
            if self._match.gap_added(gap, b, piece.color, chess.PAWN) > 0
            and self._match.position(b).pockets[piece.color].count(chess.PAWN)
        ]
        last_rank = chess.BB_RANK_8 if piece.color == chess.WHITE else chess.BB_RANK_1
        for on, position in self._match.gap_filled(gap).items():
            unmarked = position.pieces_mask(piece.piece_type, piece.color) & ~position.promoted
            unmarked &= last_rank  # where a pawn promoted; not one that moved on (unseen)
            for square, source in product(chess.scan_forward(unmarked), pawn_from):
                where = (on, square)
                try:
                    self._match.gap_promoted(gap, board, piece, where=where, pawn_from=source)
                except ValueError:
                    continue
                return True
        return False

    def _guessed_elsewhere(
        self, gap: int, board: BoardId, color: chess.Color, piece: chess.PieceType
    ) -> BoardId | None:
        """Material is kept: when no capture can have freed another such piece, the drop is
        legal only if the gap's guess put it in the partner board's pocket instead (the gap's
        board kept one it dropped unseen, or its fill guessed the wrong capture)."""
        source = board.other
        guessed = source in self._gaps.targets(gap) or (
            self._match.gap_added(gap, source, color, piece) > 0
        )
        if guessed and self._match.position(source).pockets[color].count(piece):
            return source
        return None


_START_COUNT = {chess.PAWN: 8, chess.KNIGHT: 2, chess.BISHOP: 2, chess.ROOK: 2, chess.QUEEN: 1}


def _in_play(match: Match, color: chess.Color, piece: chess.PieceType) -> int:
    """How many pieces of that kind and colour both boards and the pockets hold (a promoted
    piece counts as the pawn it becomes when taken)."""
    total = 0
    for board in BoardId:
        position = match.position(board)
        own = position.occupied_co[color]
        if piece == chess.PAWN:
            on_board = (position.pawns | position.promoted) & own
        else:
            on_board = position.pieces_mask(piece, color) & ~position.promoted
        total += chess.popcount(on_board) + position.pockets[color].count(piece)
    return total
