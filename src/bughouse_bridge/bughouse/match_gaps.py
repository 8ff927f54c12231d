"""Link gaps: the positions seen after a gap, filled in and amended, or solved by plies. Pure.

When a board's link drops, the reconstructor (``reconstruct/gap.py``) either finds the plies
that explain what the boards show afterwards (``resolve_gap``) or sets the boards to it and
keeps the gap as one log entry (``fill_gap``), amended as later moves reveal what the gap did
(``gap_turn``, ``gap_supplied``, ``gap_promoted``, ``refill_gap``). Each amendment rewrites the
gap's entry and replays what came after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

import chess

from bughouse_bridge.bughouse.board import BughouseBoard
from bughouse_bridge.bughouse.match_log import GapFilled, Played
from bughouse_bridge.bughouse.match_moves import MatchMoves
from bughouse_bridge.bughouse.plight import classify
from bughouse_bridge.bughouse.types import BoardId, BughouseMove

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match_log import Entry

__all__ = ["MatchGaps"]


class MatchGaps(MatchMoves):
    """The gaps of the match's log: filled, amended, solved."""

    __slots__ = ()

    def fill_gap(
        self, gap: int, fens: Mapping[BoardId, str], *, boards: Iterable[BoardId], t: float
    ) -> None:
        """Set the gap's ``boards`` to the positions seen after a link gap that no unique ply
        sequence explains, and both boards' pockets as ``fens`` say; the log keeps the gap as
        one entry (``resolve_gap`` replaces it by plies, ``refill_gap`` by other positions)."""
        before = {board_id: self.fen(board_id) for board_id in BoardId}
        self._fill(GapFilled(t, gap, dict(fens), frozenset(boards), before))
        self._recorded(t, [], gap=gap)

    def _fill(self, entry: GapFilled) -> None:
        self._state.log.append(entry)
        for board_id in BoardId:
            current = self._state.boards[board_id]
            if board_id in entry.boards:
                board = BughouseBoard(entry.fens[board_id])
                board.debts = current.debts
                self._state.boards[board_id] = board
                self._state.forced_drops.pop(board_id, None)
            _change_pockets(
                self._state.boards[board_id],
                BughouseBoard(entry.before[board_id]),
                BughouseBoard(entry.fens[board_id]),
                start=current,
            )
        for board_id in BoardId:
            self._state.plights[board_id] = classify(
                self._rules, self._state.boards, board_id, partner_moved=False
            )

    def _gap_entry(self, gap: int) -> GapFilled:
        entry = self._state.log[_gap_index(self._state.log, gap)]
        assert isinstance(entry, GapFilled)
        return entry

    def before_gap(self, gap: int) -> Self:
        """The match as it stood just before the gap (what a new solve of it starts from).
        ValueError for a gap that is not open."""
        index = _gap_index(self._state.log, gap)
        return self._rebuilt(self._state.log[:index], index)

    def refill_gap(self, gap: int, fens: Mapping[BoardId, str]) -> None:
        """Set the gap's boards to other positions (a later, settled look at them): the gap's
        entry is replaced and what came after it replayed. ValueError (nothing changed) when
        the rest of the log does not replay on the new positions."""
        log = self._state.log
        index = _gap_index(log, gap)
        entry = log[index]
        assert isinstance(entry, GapFilled)
        rebuilt: MatchGaps = self.before_gap(gap)
        rebuilt.fill_gap(gap, {**entry.fens, **fens}, boards=entry.boards, t=entry.t)
        rebuilt._replay(log[index + 1 :])
        self._state = rebuilt._state

    def gap_turn(self, gap: int, board: BoardId, turn: chess.Color) -> None:
        """The side on move that the gap's fill guessed for ``board`` was wrong: the entry is
        amended (its pockets stay: the other board's later captures are replayed onto them)."""
        entry = self._gap_entry(gap)
        position = BughouseBoard(entry.fens[board])
        position.turn = turn
        self.refill_gap(gap, {board: position.fen()})

    def gap_added(
        self, gap: int, board: BoardId, color: chess.Color, piece: chess.PieceType
    ) -> int:
        """How many ``piece`` the gap's fill put into that pocket (negative: took out)."""
        entry = self._gap_entry(gap)
        after = BughouseBoard(entry.fens[board]).pockets[color].count(piece)
        return after - BughouseBoard(entry.before[board]).pockets[color].count(piece)

    def gap_supplied(
        self,
        gap: int,
        board: BoardId,
        color: chess.Color,
        piece: chess.PieceType,
        *,
        source: BoardId | None = None,
    ) -> None:
        """A drop shows that the gap put one more ``piece`` into the pocket of ``color`` on
        ``board`` than its fill guessed (taken from that pocket on ``source``, where the gap
        guessed one too many): the entry is amended, what came after it replayed. ValueError
        (nothing changed) when the gap put no such piece in that pocket on ``source`` (a later
        capture did)."""
        entry = self._gap_entry(gap)
        fens = {board_id: BughouseBoard(fen) for board_id, fen in entry.fens.items()}
        fens[board].pockets[color].add(piece)
        if source is not None:
            if not fens[source].pockets[color].count(piece):
                name = chess.piece_name(piece)
                raise ValueError(f"gap {gap} put no {name} in that pocket on board {source}")
            fens[source].pockets[color].remove(piece)
        self.refill_gap(gap, {board_id: position.fen() for board_id, position in fens.items()})

    def gap_filled(self, gap: int) -> dict[BoardId, BughouseBoard]:
        """The positions the gap's fill set its boards to (pockets as they were then)."""
        entry = self._gap_entry(gap)
        return {board: BughouseBoard(entry.fens[board]) for board in entry.boards}

    def gap_promoted(
        self,
        gap: int,
        board: BoardId,
        piece: chess.Piece,
        *,
        where: tuple[BoardId, chess.Square],
        pawn_from: BoardId,
    ) -> None:
        """A drop of ``piece`` on ``board`` shows that the gap's piece of that kind standing
        at ``where`` is a pawn promoted unseen: it is marked promoted, the pawn the fill guessed
        captured leaves its pocket on ``pawn_from``, and the real piece the fill took it for
        goes into the dropper's pocket. The entry is amended, what came after it replayed;
        ValueError (nothing changed) when that does not replay."""
        entry = self._gap_entry(gap)
        fens = {board_id: BughouseBoard(fen) for board_id, fen in entry.fens.items()}
        on, square = where
        if on not in entry.boards or fens[on].piece_at(square) != piece:
            raise ValueError(f"gap {gap} put no {piece.symbol()} on {chess.square_name(square)}")
        fens[on].promoted |= chess.BB_SQUARES[square]
        fens[pawn_from].pockets[piece.color].remove(chess.PAWN)
        fens[board].pockets[piece.color].add(piece.piece_type)
        self.refill_gap(gap, {board_id: position.fen() for board_id, position in fens.items()})

    def resolve_gap(
        self, gap: int, moves: list[BughouseMove], *, t: float, order_certain: bool = True
    ) -> list[MatchEvent]:
        """Replace the gap's entry by ``moves`` (played at the gap's time); what came after it is
        replayed. The moves' events are returned, marked ``recovered`` (and ``order_certain``
        False when other orders of them fit as well). ValueError (nothing changed) when the
        moves or the rest of the log do not replay."""
        log = self._state.log
        index = _gap_index(log, gap)
        rebuilt: MatchGaps = self.before_gap(gap)
        events: list[MatchEvent] = []
        for move in moves:
            played = Played(t, move, None, force=False, recovered=True, order_certain=order_certain)
            events += rebuilt._play_entry(played)
        rebuilt._replay(log[index + 1 :])
        self._state = rebuilt._state
        return events

    def after_gap(self, gap: int) -> list[Entry]:
        """The log's entries after the gap (what ``resolve_gap`` replays on its plies).
        ValueError for a gap that is not open."""
        log = self._state.log
        return log[_gap_index(log, gap) + 1 :]

    def open_gaps(self) -> list[int]:
        return [entry.gap for entry in self._state.log if isinstance(entry, GapFilled)]

    def _refill(self, entry: GapFilled) -> None:
        self._fill(entry)
        self._recorded(entry.t, [], gap=entry.gap)


def _change_pockets(
    board: BughouseBoard,
    before: BughouseBoard,
    after: BughouseBoard,
    *,
    start: BughouseBoard,
) -> None:
    """``board``'s pockets become ``start``'s changed by what ``before`` → ``after`` changed
    (never below none)."""
    for color in chess.COLORS:
        pocket = board.pockets[color]
        counts = {
            piece_type: start.pockets[color].count(piece_type)
            + after.pockets[color].count(piece_type)
            - before.pockets[color].count(piece_type)
            for piece_type in chess.PIECE_TYPES
        }
        pocket.reset()
        for piece_type, count in counts.items():
            for _ in range(max(0, count)):
                pocket.add(piece_type)


def _gap_index(log: list[Entry], gap: int) -> int:
    for index, entry in enumerate(log):
        if isinstance(entry, GapFilled) and entry.gap == gap:
            return index
    raise ValueError(f"there is no open gap {gap}")
