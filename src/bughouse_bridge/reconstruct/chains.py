"""Plies read from the order of the sensor changes: chains of plies the clock counted
(``pressed_chain``), the last move revised under its replies (``revised_chain``), whether plies
fit the order the pieces arrived in (``fits_changes``), and the physics that only the last
move's own mover explains (``revisable``): a move is revised by nobody else's hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import placement_of
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.reading_values import Changes, Context, Correction, Firmness
from bughouse_bridge.reconstruct.shapes import diff, lone_removal

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.match import Match


def arrival_of(position: chess.Board, move: chess.Move) -> tuple[chess.Square, chess.Piece | None]:
    """The piece a move puts on its target square."""
    if move.drop is not None:
        return move.to_square, chess.Piece(move.drop, position.turn)
    if move.promotion is not None:
        return move.to_square, chess.Piece(move.promotion, position.turn)
    return move.to_square, position.piece_at(move.from_square)


def revisable(
    match: Match,
    board: BoardId,
    physical: Mapping[BoardId, str],
    last: BughouseMove,
    firmness: Firmness,
) -> bool:
    """Physics that only the last move's own mover explains; a final move is never revised."""
    if firmness is Firmness.FINAL:
        return False
    if last_move_undone(match, board, physical, last):
        return True
    return firmness is Firmness.HASTY and lagging_origin(match, board, physical, last)


def last_move_undone(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], last: BughouseMove
) -> bool:
    """A wrongly read move leaves its target square (or its origin) different on the board, and
    not taken by an opponent's piece: that is a capture of the move's piece, not its mover's
    hand going on."""
    change = diff(match.board_fen(board), physical[board])
    target = last.move.to_square
    origin_changed = last.move.drop is None and last.move.from_square in change.squares
    now_on_target = chess.BaseBoard(physical[board]).piece_at(target)
    captured = now_on_target is not None and now_on_target.color == match.turn(board)
    # ... unless the piece went on (it stands elsewhere now) and the opponent moved in after it.
    piece = match.position(board).piece_at(target)
    went_on = any(p == piece and sq != target for sq, p in change.arrivals.items())
    return (target in change.squares and (went_on or not captured)) or origin_changed


def lagging_origin(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], last: BughouseMove
) -> bool:
    """The scanner reported a piece's arrival before its departure and the press came in
    between: a piece of the kind the last move put down has left another square since (a drop
    that was a move, or a move from elsewhere). Only for a press before the board settled: a
    piece lifted later is the opponent's hand (a capture), not a lagging scan."""
    arrived = match.position(board).piece_at(last.move.to_square)
    removed = diff(match.board_fen(board), physical[board]).removed
    return any(
        piece == arrived and square != last.move.to_square for square, piece in removed.items()
    )


def before_last(match: Match, board: BoardId, context: Context) -> Match | None:
    before = match.copy()
    try:
        before.takeback(board, t=context.now)
    except ValueError:
        return None
    return before


# A chain is read from the clock's count when the board fell two or more plies behind.
CHAIN_MIN = 2
_CHAIN_MAX = 8  # the longest chain searched (each ply must put down a piece seen arriving)


def pressed_chain(
    match: Match,
    board: BoardId,
    physical: Mapping[BoardId, str],
    context: Context,
    *,
    in_flight: bool = False,
) -> tuple[BughouseMove, ...] | None:
    """Premove-speed play, where the board is never still: the clock was pressed ``presses``
    times since the last commit, so that many plies were made. The plies that end exactly on the
    physical placement, each putting down a piece the scanner saw arriving since the last commit,
    in the order the pieces arrived; if unique. Else one ply fewer (the last reply pressed while
    its piece was still in the hand). ``in_flight``: the same with one piece lifted off that
    placement (the clock reports a press up to a scan late, when the next hand is already on the
    board); asked only after an exact ``revised_chain``."""
    presses = context.presses
    search = _ChainSearch(board, physical[board], context.changes, context.now, in_flight=in_flight)
    return search.first_unique(match, (presses, presses - 1))


def revised_chain(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Correction | None:
    """The same when the last move was pressed before its mover's hand was done (a slide, a
    slid drop or capture) and has not stood since: the board never settled on its real square
    before the replies came. The last move is replaced only if its piece has left its square
    (the mover's hand, not the opponent's) and the replacement's piece was seen arriving."""
    if context.presses < 1:
        return None
    revision = pressed_revision(match, board, physical, context)
    if revision is None:
        return None
    search = _ChainSearch(
        board, physical[board], revision.changes, context.now, skip_first=revision.last
    )
    plies = search.first_unique(revision.before, (context.presses + 1,))  # replacement, replies
    return None if plies is None else Correction(plies)


@dataclass(frozen=True, slots=True)
class Revision:
    """What revising the last move starts from: the move, the position and the match before it,
    and every sensor change since the commit before it."""

    last: BughouseMove
    parent: chess.Board
    before: Match
    changes: Changes


def pressed_revision(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Revision | None:
    """The last move as its own mover may still revise it: pressed but not final (only a commit
    the scanner may have overtaken is doubted; a settled one is evidence), its piece gone from
    its square, and the match still replaying without it."""
    last, parent = context.correctable, context.parent
    if last is None or parent is None or not context.firmness.pressed_not_final:
        return None
    if not revisable(match, board, physical, last, context.firmness):
        return None
    before = before_last(match, board, context)
    if before is None:
        return None
    return Revision(last, parent, before, context.changes_of_last + context.changes)


@dataclass(frozen=True, slots=True)
class _ChainSearch:
    board: BoardId
    target: str
    changes: Changes
    now: float
    skip_first: BughouseMove | None = None  # a move the chain may not start with
    in_flight: bool = False  # the target may lack one piece: lifted by the next hand

    def first_unique(
        self, match: Match, counts: tuple[int, ...]
    ) -> tuple[BughouseMove, ...] | None:
        """The unique chain of the first count that has any, to the exact placement or (when
        ``in_flight``) to it with one piece lifted."""
        for plies in counts:
            if not CHAIN_MIN - self.in_flight <= plies <= _CHAIN_MAX:
                continue
            found = self.chains(match, plies, 0)
            if found:
                return found[0] if len(found) == 1 else None
        return None

    def reached(self, placement: str) -> bool:
        if placement == self.target:
            return True
        return self.in_flight and lone_removal(placement, self.target) is not None

    def chains(self, match: Match, plies: int, start: int) -> list[tuple[BughouseMove, ...]]:
        """Chains of ``plies`` legal plies to the target, arriving at ``changes[start:]``."""
        if plies == 0:
            return [()] if self.reached(match.board_fen(self.board)) else []
        if plies == 1:  # the last ply: no need to play it out
            last: list[tuple[BughouseMove, ...]] = [
                (move,)
                for move, _index in self._next_moves(match, start)
                if self._reached_after(match, move) and not (start == 0 and move == self.skip_first)
            ]
            return last[:2]
        found: list[tuple[BughouseMove, ...]] = []
        for move, index in self._next_moves(match, start):
            if start == 0 and move == self.skip_first:
                continue
            if not _left_in_time(match.position(self.board), move.move, index, self.changes):
                continue
            after = match.copy()
            try:
                after.play(move, t=self.now)
            except ValueError:
                continue
            found += [(move, *rest) for rest in self.chains(after, plies - 1, index + 1)]
            if len(found) > 1:
                break  # ambiguous: no need to look further
        return found

    def _reached_after(self, match: Match, move: BughouseMove) -> bool:
        position = match.position(self.board)
        chess.Board.push(position, move.move)  # placement only
        return self.reached(placement_of(position))

    def _next_moves(self, match: Match, start: int) -> list[tuple[BughouseMove, int]]:
        """Legal moves of the side to move whose piece arrived at ``start`` or later (the
        first such arrival), cheap tests first."""
        position = match.position(self.board)
        first: dict[tuple[chess.Square, chess.Piece | None], int] = {}
        for index in range(start, len(self.changes)):
            if self.changes[index][1] is not None:
                first.setdefault(self.changes[index], index)
        squares = {square for square, piece in first if piece and piece.color == position.turn}
        moves = []
        for move in position.legal_moves:
            arrived = first.get(arrival_of(position, move)) if move.to_square in squares else None
            if arrived is not None:
                candidate = BughouseMove(self.board, move)
                if match.judge(candidate).legal:
                    moves.append((candidate, arrived))
        return moves


def fits_changes(position: chess.Board, moves: Sequence[BughouseMove], changes: Changes) -> bool:
    """Plies against the order of the sensor changes since the last commit (no changes: no
    evidence): each ply puts its piece down after the ply before did, and a moved piece's square
    is reported empty before the next ply's piece is put down. A piece never turns into another
    of its own colour where it stands: only a capture replaces a piece without the square being
    reported empty between, so such an arrival is a misread (a piece knocked over, lying on its
    side) and no ply's."""
    if not changes:
        return True
    board = position.copy(stack=False)
    start = 0
    for move in moves:
        arrival = arrival_of(board, move.move)
        index = next(
            (
                i
                for i in range(start, len(changes))
                if changes[i] == arrival and not _turned_in_place(changes, i)
            ),
            None,
        )
        if index is None or not _left_in_time(board, move.move, index, changes):
            return False
        if move.move.drop is not None:
            board.set_piece_at(move.move.to_square, chess.Piece(move.move.drop, board.turn))
            board.turn = not board.turn
        else:
            chess.Board.push(board, move.move)
        start = index + 1
    return True


def _turned_in_place(changes: Changes, index: int) -> bool:
    """The square of change ``index`` showed another piece of the same colour just before it
    (``before`` is None when it was reported empty between, or not at all since the commit)."""
    square, piece = changes[index]
    before = next((p for sq, p in reversed(changes[:index]) if sq == square), None)
    return piece is not None and before is not None and before.color == piece.color


def _left_in_time(position: chess.Board, move: chess.Move, arrived: int, changes: Changes) -> bool:
    """A moved piece's square is reported empty before the next piece is put down elsewhere
    (a scan may report the departure just after the arrival, never a ply later)."""
    if move.drop is not None or position.is_castling(move) or position.is_en_passant(move):
        return True
    origin = move.from_square
    following = next(
        (
            i
            for i in range(arrived + 1, len(changes))
            if changes[i][1] is not None and changes[i][0] != origin
        ),
        len(changes),
    )
    # No departure at all is no evidence: it may have come before the last commit.
    return (origin, None) in changes[:following] or (origin, None) not in changes
