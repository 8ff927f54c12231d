"""Corrections: an illegal drop taken off (row 9), a position or a pocket set by the arbiter. Pure.

Each is a log entry like a move, so a takeback replays it; afterwards both boards are judged
anew as after a move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import pocket_letters
from bughouse_bridge.bughouse.events import Alert, PocketSet, PositionAccepted, Severity
from bughouse_bridge.bughouse.judging import seat_name
from bughouse_bridge.bughouse.match_log import Accepted, DropRemoved, PocketEdited
from bughouse_bridge.bughouse.match_verdicts import MatchVerdicts
from bughouse_bridge.bughouse.rules import DropRemovalTurn, RemovedDrop
from bughouse_bridge.bughouse.types import AlertCode, BoardId, Seat

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import MatchEvent

__all__ = ["MatchCorrections"]


class MatchCorrections(MatchVerdicts):
    """Taking off an illegal drop; the arbiter's accepted positions and pockets."""

    __slots__ = ()

    def remove_illegal_drop(self, board: BoardId, *, t: float) -> list[MatchEvent]:
        """Row 9: the illegal drop that stands on ``board`` is taken off."""
        square = self._state.forced_drops.get(board)
        if square is None:
            raise ValueError(f"no illegal drop stands on board {board}")
        self._state.log.append(DropRemoved(t, board))
        return self._recorded(t, self._remove_drop(board, square, t))

    def _remove_drop(self, board_id: BoardId, square: chess.Square, t: float) -> list[MatchEvent]:
        board = self._state.boards[board_id]
        piece = board.remove_piece_at(square)
        assert piece is not None
        del self._state.forced_drops[board_id]
        offender = Seat(board_id, piece.color)
        receiver = offender.opponent.partner
        if self._rules.removed_drop is RemovedDrop.TO_OPPONENT_PARTNER:
            self._state.boards[receiver.board].deliver(receiver.color, piece.piece_type)
        if self._rules.illegal_drop_turn is DropRemovalTurn.OFFENDER_ON_MOVE:
            board.turn = offender.color
        alert = self._removal_alert(offender, receiver, piece, square, t)
        return [alert, *self._after_change(t, offender.opponent)]

    def _removal_alert(
        self, offender: Seat, receiver: Seat, piece: chess.Piece, square: chess.Square, t: float
    ) -> Alert:
        goes = (
            f"goes to {seat_name(receiver)}'s pocket"
            if self._rules.removed_drop is RemovedDrop.TO_OPPONENT_PARTNER
            else "is out of play"
        )
        on_move = seat_name(Seat(offender.board, self._state.boards[offender.board].turn))
        what = f"{chess.piece_name(piece.piece_type)} on {chess.square_name(square)}"
        return Alert(
            t=t,
            board=offender.board,
            color=offender.color,
            code=AlertCode.ILLEGAL_DROP_REMOVED,
            severity=Severity.INFO,
            rule=self._rules.ref(9),
            message=f"{seat_name(offender)}'s illegal {what} was removed; it {goes}; "
            f"{on_move} is on move.",
            details={"square": chess.square_name(square), "piece": piece.symbol()},
        )

    # --- arbiter corrections -------------------------------------------------------------------

    def accept_placement(self, board: BoardId, placement: str, *, t: float) -> list[MatchEvent]:
        """The arbiter accepts ``placement`` (a board FEN) as the position of ``board``.

        Only that board changes: its log and ply count go on (the log gets an entry, so a
        takeback replays it), the side to move and every pocket stay, castling rights that the
        placement contradicts and the en-passant square go. Mates and stalemates are judged anew.
        ValueError for a placement that is not one (bad FEN, not exactly one king a side).
        """
        _check_placement(placement)
        self._state.log.append(Accepted(t, board, placement))
        return self._recorded(t, self._accept(board, placement, t))

    def _accept(self, board_id: BoardId, placement: str, t: float) -> list[MatchEvent]:
        board = self._state.boards[board_id]
        board.set_board_fen(placement)
        board.castling_rights = board.clean_castling_rights()
        board.ep_square = None
        self._state.forced_drops.pop(board_id, None)
        accepted = PositionAccepted(
            t, board_id, self._state.plies[board_id], self.fen(board_id), self.pockets()
        )
        return [accepted, *self._rejudge(board_id, t)]

    def set_pocket(
        self, board: BoardId, color: chess.Color, pieces: str, *, t: float
    ) -> list[MatchEvent]:
        """The arbiter sets the pocket of ``color`` on ``board`` to ``pieces`` (e.g. ``"PPN"``).

        The pocket is then exactly that: pieces the player owed for a forced drop are forgiven.
        ValueError for letters other than P N B R Q.
        """
        letters = _pocket_pieces(pieces)
        seat = Seat(board, color)
        self._state.log.append(PocketEdited(t, seat, letters))
        return self._recorded(t, self._set_pocket(seat, letters, t))

    def _set_pocket(self, seat: Seat, letters: str, t: float) -> list[MatchEvent]:
        board = self._state.boards[seat.board]
        board.pockets[seat.color] = chess.variant.CrazyhousePocket(letters.lower())
        board.debts[seat.color].clear()
        pocket_set = PocketSet(
            t,
            seat.board,
            seat.color,
            pocket_letters(board.pockets[seat.color]),
            self.fen(seat.board),
            self.pockets(),
        )
        return [pocket_set, *self._rejudge(seat.board, t)]

    def _rejudge(self, board_id: BoardId, t: float) -> list[MatchEvent]:
        """Mates and stalemates of both boards after a correction, as after a move there."""
        mover = Seat(board_id, not self._state.boards[board_id].turn)
        finals: list[Seat] = []
        events: list[MatchEvent] = []
        for other in (board_id, board_id.other):
            events += self._reevaluate(other, mover, t, finals)
        return events + self._decide_mates(finals, t)


def _check_placement(placement: str) -> None:
    try:
        board = chess.BaseBoard(placement)
    except ValueError as error:
        raise ValueError(f"not a board placement: {placement!r}") from error
    for color in chess.COLORS:
        if len(board.pieces(chess.KING, color)) != 1:
            raise ValueError(f"the placement needs exactly one {chess.COLOR_NAMES[color]} king")


_MAX_POCKET = 30  # every non-king piece of both colours of one board


def _pocket_pieces(pieces: str) -> str:
    """Validated pocket letters (upper case); ValueError names what is wrong."""
    letters = pieces.upper()
    wrong = sorted(set(letters) - set("PNBRQ"))
    if wrong:
        raise ValueError(f"a pocket holds only P, N, B, R and Q, not {''.join(wrong)!r}")
    if len(letters) > _MAX_POCKET:
        raise ValueError(f"a pocket holds at most {_MAX_POCKET} pieces")
    return letters
