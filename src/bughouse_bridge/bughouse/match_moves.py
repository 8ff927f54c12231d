"""Moves: admitting, applying and recording them (rows 1-6, 9: a forced illegal drop). Pure.

A move is judged, appended to the log, applied to both boards (captures go to the partner's
pocket, a promotion may steal) and announced with its SAN, FEN and pockets; then both boards are
judged anew. ``play_quietly`` and the replay of an unchanged prefix skip the announcement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse import effects
from bughouse_bridge.bughouse.events import Alert, MovePlayed, Severity
from bughouse_bridge.bughouse.judging import IllegalMoveError
from bughouse_bridge.bughouse.match_log import Played
from bughouse_bridge.bughouse.match_verdicts import MatchVerdicts
from bughouse_bridge.bughouse.types import BughouseMove, Judgement, Seat

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import MatchEvent

__all__ = ["MatchMoves"]


class MatchMoves(MatchVerdicts):
    """Playing moves, with their events or quietly."""

    __slots__ = ()

    def play(  # noqa: PLR0913 - the move and how it was seen
        self,
        move: BughouseMove,
        *,
        t: float,
        clock_ms: int | None = None,
        force: bool = False,
        recovered: bool = False,
        order_certain: bool = True,
    ) -> list[MatchEvent]:
        """Play a move. Illegal: IllegalMoveError, unless ``force`` lets an illegal drop stand.
        ``recovered``: a gap's ply nobody saw (``order_certain``: False when its order in the
        gap is a guess)."""
        return self._play_entry(Played(t, move, clock_ms, force, recovered, order_certain))

    def _play_entry(self, entry: Played) -> list[MatchEvent]:
        judgement = self._admit(entry.move, force=entry.force)
        self._state.log.append(entry)
        events = self._apply(entry, judgement)
        return self._recorded(entry.t, events)

    def play_quietly(self, move: BughouseMove) -> bool:
        """Play a legal move as ``play`` does, but build no events (no SAN, FEN or alerts):
        for searches that try many lines and keep only the end (the gap solver).
        False, and nothing changes, when the move is illegal."""
        try:
            self._replay_played(Played(0.0, move, None, force=False))
        except IllegalMoveError:
            return False
        return True

    def _replay_played(self, entry: Played) -> None:
        """``play`` again without its events: a replay (takeback, a gap solved) drops them, and
        building SAN and FEN for every ply of the log was most of a takeback's time."""
        judgement = self._admit(entry.move, force=entry.force)
        self._state.log.append(entry)
        self._after_change(entry.t, self._advance(entry.move, judgement)[0])

    def _admit(self, move: BughouseMove, *, force: bool) -> Judgement:
        judgement = self.judge(move)
        if not judgement.legal and not (force and self._forceable(move)):
            raise IllegalMoveError(judgement)
        return judgement

    def _forceable(self, move: BughouseMove) -> bool:
        board = self._state.boards[move.board]
        square_free = board.piece_at(move.move.to_square) is None
        return move.is_drop and square_free and move.move.drop != chess.KING

    def _apply(self, entry: Played, judgement: Judgement) -> list[MatchEvent]:
        state = self._state
        move, t = entry.move, entry.t
        san = self.san(move)  # of the position before the move
        seat, applied = self._advance(move, judgement)
        played = MovePlayed(
            t=t,
            board=move.board,
            color=seat.color,
            ply=state.plies[move.board],
            move=move,
            san=san,
            fen=self.fen(move.board),
            pockets=self.pockets(),
            clock_ms=entry.clock_ms,
            steal=applied.steal,
            forced=not judgement.legal,
            recovered=entry.recovered,
            order_certain=entry.order_certain,
        )
        events: list[MatchEvent] = [played, *self._forced_alert(judgement, seat, t)]
        return events + self._after_change(t, seat)

    def _advance(self, move: BughouseMove, judgement: Judgement) -> tuple[Seat, effects.Applied]:
        """The move's change of the boards and counters; the mover's seat."""
        state = self._state
        seat = Seat(move.board, state.boards[move.board].turn)
        applied = effects.apply(self._rules, state.boards, move)
        state.plies[move.board] += 1
        state.forced_drops.pop(move.board, None)
        if not judgement.legal:
            state.forced_drops[move.board] = move.move.to_square
        return seat, applied

    def _forced_alert(self, judgement: Judgement, seat: Seat, t: float) -> list[MatchEvent]:
        if judgement.legal or judgement.code is None:
            return []
        alert = Alert(
            t=t,
            board=seat.board,
            color=seat.color,
            code=judgement.code,
            severity=Severity.ILLEGAL,
            rule=judgement.rule,
            message=judgement.message,
            details={"remedy": str(self._rules.ref(9))},
        )
        return [alert]
