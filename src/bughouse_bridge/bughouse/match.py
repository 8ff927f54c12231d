"""A bughouse match: two boards, four pockets, the referee's state and its log. Pure.

``Match`` keeps the boards and the log of everything that happened (moves, removed illegal drops,
flags, results set by the arbiter). A takeback rebuilds the match from that log without the
board's last ply, because python-chess's ``pop()`` cannot undo a pocket on the other board.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse import legality
from bughouse_bridge.bughouse.board import BughouseBoard, PlacementSketch, pocket_letters
from bughouse_bridge.bughouse.events import (
    Alert,
    Check,
    Flag,
    MatchEvent,
    Mate,
    MateStatus,
    MovePlayed,
    Pockets,
    ResultDecided,
    Severity,
    Stalemate,
    StalemateStatus,
    Takeback,
)
from bughouse_bridge.bughouse.legality import IllegalMoveError, seat_name
from bughouse_bridge.bughouse.plight import Plight, Verdict, classify
from bughouse_bridge.bughouse.rules import (
    BothFlagged,
    BothMated,
    DropRemovalTurn,
    RemovedDrop,
    RuleSet,
    StalemateRule,
)
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement, Seat

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["IllegalMoveError", "Match", "Successor"]

START_FEN = BughouseBoard.starting_fen


@dataclass(frozen=True, slots=True)
class Successor:
    """A legal move and the placement (``board_fen``) of every board it changes."""

    move: BughouseMove
    placements: Mapping[BoardId, str]


@dataclass(frozen=True, slots=True)
class _Played:
    t: float
    move: BughouseMove
    clock_ms: int | None
    force: bool


@dataclass(frozen=True, slots=True)
class _DropRemoved:
    t: float
    board: BoardId


@dataclass(frozen=True, slots=True)
class _FlagFell:
    t: float
    seat: Seat
    at: float


@dataclass(frozen=True, slots=True)
class _ResultSet:
    t: float
    winner_team: int | None
    board: BoardId
    reason: str


@dataclass(frozen=True, slots=True)
class _GapFilled:
    """A link gap nobody could explain: the boards were set to what they showed after it."""

    t: float
    gap: int
    fens: Mapping[BoardId, str]  # crazyhouse FENs (pockets, side to move) of the boards set


_Entry = _Played | _DropRemoved | _FlagFell | _ResultSet | _GapFilled


@dataclass(slots=True)
class _State:
    boards: dict[BoardId, BughouseBoard]
    plies: dict[BoardId, int] = field(default_factory=lambda: dict.fromkeys(BoardId, 0))
    plights: dict[BoardId, Verdict] = field(default_factory=dict)
    forced_drops: dict[BoardId, chess.Square] = field(default_factory=dict)
    flags: dict[Seat, float] = field(default_factory=dict)
    result: ResultDecided | None = None
    log: list[_Entry] = field(default_factory=list)

    def copy(self) -> _State:
        return _State(
            # The move stacks are never popped (takeback replays the log), so copies skip them.
            boards={board_id: board.copy(stack=False) for board_id, board in self.boards.items()},
            plies=dict(self.plies),
            plights=dict(self.plights),
            forced_drops=dict(self.forced_drops),
            flags=dict(self.flags),
            result=self.result,
            log=list(self.log),
        )


class Match:
    """Two boards under one rule set. Every method that changes state returns its events."""

    __slots__ = ("_fens", "_rules", "_state")

    def __init__(self, rules: RuleSet, *, fens: Mapping[BoardId, str] | None = None) -> None:
        self._rules = rules
        self._fens = {board_id: (fens or {}).get(board_id, START_FEN) for board_id in BoardId}
        self._state = self._fresh_state()

    def _fresh_state(self) -> _State:
        state = _State(boards={b: BughouseBoard(fen) for b, fen in self._fens.items()})
        for board_id in BoardId:
            state.plights[board_id] = classify(
                self._rules, state.boards, board_id, partner_moved=False
            )
        return state

    # --- queries -------------------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        return self._rules

    @property
    def result(self) -> ResultDecided | None:
        return self._state.result

    def fen(self, board: BoardId) -> str:
        """Crazyhouse FEN with the pocket in brackets (promoted pieces marked ``~``)."""
        return self._state.boards[board].fen()

    def board_fen(self, board: BoardId) -> str:
        """Placement only: what the sensors can see."""
        return self._state.boards[board].board_fen(promoted=False)

    def position(self, board: BoardId) -> chess.variant.CrazyhouseBoard:
        return self._state.boards[board].copy(stack=False)

    def pockets(self) -> Pockets:
        boards = self._state.boards
        return Pockets(
            a_white=pocket_letters(boards[BoardId.A].pockets[chess.WHITE]),
            a_black=pocket_letters(boards[BoardId.A].pockets[chess.BLACK]),
            b_white=pocket_letters(boards[BoardId.B].pockets[chess.WHITE]),
            b_black=pocket_letters(boards[BoardId.B].pockets[chess.BLACK]),
        )

    def turn(self, board: BoardId) -> chess.Color:
        return self._state.boards[board].turn

    def ply(self, board: BoardId) -> int:
        """Moves played on ``board`` in this match."""
        return self._state.plies[board]

    def status(self, board: BoardId) -> Plight:
        """Free, stalemated, mate pending or mate final: the player on move on ``board``."""
        return self._state.plights[board].plight

    def legal_moves(self, board: BoardId) -> list[BughouseMove]:
        return legality.legal_moves(self._rules, self._state.boards, board)

    def successors(self, board: BoardId) -> list[Successor]:
        """Legal moves with the resulting placements, for matching what the sensors see."""
        sketch = PlacementSketch(self._state.boards[board])
        return [self._successor(sketch, move) for move in self.legal_moves(board)]

    def _successor(self, sketch: PlacementSketch, move: BughouseMove) -> Successor:
        placements = {move.board: sketch.after(move.move)}
        if move.steal_square is not None:
            neighbour = self._state.boards[move.board.other].without_piece(move.steal_square)
            placements[move.board.other] = neighbour.board_fen(promoted=False)
        return Successor(move, placements)

    def judge(self, move: BughouseMove, *, color: chess.Color | None = None) -> Judgement:
        if self._state.result is not None:
            message = "The match is already decided; no more moves count."
            return Judgement(legal=False, code=AlertCode.ILLEGAL_MOVE, message=message)
        return legality.judge(self._rules, self._state.boards, move, color)

    def parse_san(self, board: BoardId, san: str) -> BughouseMove:
        return legality.parse_san(self._rules, self._state.boards, board, san)

    def san(self, move: BughouseMove) -> str:
        return legality.san(self._rules, self._state.boards, move)

    def copy(self) -> Match:
        twin = Match.__new__(Match)
        twin._rules = self._rules  # noqa: SLF001 - a copy of its own class
        twin._fens = dict(self._fens)  # noqa: SLF001
        twin._state = self._state.copy()  # noqa: SLF001
        return twin

    # --- moves ---------------------------------------------------------------------------------

    def play(
        self, move: BughouseMove, *, t: float, clock_ms: int | None = None, force: bool = False
    ) -> list[MatchEvent]:
        """Play a move. Illegal: IllegalMoveError, unless ``force`` lets an illegal drop stand."""
        judgement = self.judge(move)
        if not judgement.legal and not (force and self._forceable(move)):
            raise IllegalMoveError(judgement)
        self._state.log.append(_Played(t, move, clock_ms, force))
        return self._apply(move, t, clock_ms, judgement)

    def _forceable(self, move: BughouseMove) -> bool:
        board = self._state.boards[move.board]
        square_free = board.piece_at(move.move.to_square) is None
        return (
            self._state.result is None
            and move.is_drop
            and square_free
            and move.move.drop != chess.KING
        )

    def _apply(
        self, move: BughouseMove, t: float, clock_ms: int | None, judgement: Judgement
    ) -> list[MatchEvent]:
        state = self._state
        seat = Seat(move.board, state.boards[move.board].turn)
        san = self.san(move)
        applied = legality.apply(self._rules, state.boards, move)
        state.plies[move.board] += 1
        state.forced_drops.pop(move.board, None)
        if not judgement.legal:
            state.forced_drops[move.board] = move.move.to_square
        played = MovePlayed(
            t=t,
            board=move.board,
            color=seat.color,
            ply=state.plies[move.board],
            move=move,
            san=san,
            fen=self.fen(move.board),
            pockets=self.pockets(),
            clock_ms=clock_ms,
            steal=applied.steal,
            forced=not judgement.legal,
        )
        events: list[MatchEvent] = [played, *self._forced_alert(judgement, seat, t)]
        return events + self._after_change(t, seat)

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

    # --- row 9 ---------------------------------------------------------------------------------

    def remove_illegal_drop(self, board: BoardId, *, t: float) -> list[MatchEvent]:
        """Row 9: the illegal drop that stands on ``board`` is taken off."""
        square = self._state.forced_drops.get(board)
        if square is None:
            raise ValueError(f"no illegal drop stands on board {board}")
        self._state.log.append(_DropRemoved(t, board))
        return self._remove_drop(board, square, t)

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

    # --- mates, stalemates, results ------------------------------------------------------------

    def _after_change(self, t: float, mover: Seat) -> list[MatchEvent]:
        board = self._state.boards[mover.board]
        events: list[MatchEvent] = []
        if board.is_check():
            events.append(Check(t, mover.board, board.turn))
        finals: list[Seat] = []
        for board_id in (mover.board, mover.board.other):
            events += self._reevaluate(board_id, mover, t, finals)
        return events + self._decide_mates(finals, t)

    def _reevaluate(
        self, board_id: BoardId, mover: Seat, t: float, finals: list[Seat]
    ) -> list[MatchEvent]:
        state = self._state
        player = Seat(board_id, state.boards[board_id].turn)
        old = state.plights[board_id]
        partner_moved = old.plight is Plight.MATE_PENDING and mover == player.partner
        new = classify(self._rules, state.boards, board_id, partner_moved=partner_moved)
        if new.plight is Plight.MATE_FINAL and board_id in state.forced_drops:
            new = Verdict(Plight.MATE_PENDING, "the mating drop was illegal and may be removed")
        state.plights[board_id] = new
        if new.plight is Plight.MATE_FINAL and old.plight is not Plight.MATE_FINAL:
            finals.append(player)
        if old.plight is new.plight or state.result is not None:
            return []
        return self._leave(old, new, player, t) + self._enter(new, player, t)

    def _leave(self, old: Verdict, new: Verdict, player: Seat, t: float) -> list[MatchEvent]:
        if old.plight is Plight.STALEMATE:
            return [Stalemate(t, player.board, player.color, StalemateStatus.RESOLVED)]
        if old.plight is not Plight.MATE_PENDING:
            return []
        name = seat_name(player)
        if new.plight is Plight.MATE_FINAL:
            text = f"The pending mate on {name} is final: {new.reason}."
            return [self._alert(AlertCode.MATE_PENDING, player, 7, text, t)]
        averted = Mate(
            t, player.board, player.color, MateStatus.AVERTED, "the player can move again"
        )
        text = f"The mate on {name} was averted: he can move again."
        return [averted, self._alert(AlertCode.MATE_PENDING, player, 7, text, t)]

    def _enter(self, new: Verdict, player: Seat, t: float) -> list[MatchEvent]:
        if new.plight is Plight.MATE_PENDING:
            text = (
                f"{seat_name(player)} has no legal move, but the mate is not final: {new.reason}."
            )
            mate = Mate(t, player.board, player.color, MateStatus.PENDING, new.reason)
            return [mate, self._alert(AlertCode.MATE_PENDING, player, 7, text, t)]
        if new.plight is Plight.MATE_FINAL:
            return [Mate(t, player.board, player.color, MateStatus.FINAL, new.reason)]
        if new.plight is Plight.STALEMATE:
            return self._stalemate(player, t)
        return []

    def _stalemate(self, player: Seat, t: float) -> list[MatchEvent]:
        text = f"{seat_name(player)} is stalemated and waits for a piece from his partner."
        events: list[MatchEvent] = [
            Stalemate(t, player.board, player.color, StalemateStatus.WAITING),
            self._alert(AlertCode.STALEMATE_WAITING, player, 8, text, t),
        ]
        if self._rules.stalemate is StalemateRule.DRAW:
            events += self._decide(None, player.board, "stalemate", t)
        return events

    def _alert(self, code: AlertCode, player: Seat, row: int, message: str, t: float) -> Alert:
        return Alert(
            t=t,
            board=player.board,
            color=player.color,
            code=code,
            severity=Severity.INFO,
            rule=self._rules.ref(row),
            message=message,
        )

    def _decide_mates(self, finals: list[Seat], t: float) -> list[MatchEvent]:
        if not finals or self._state.result is not None:
            return []
        losing_teams = {seat.team for seat in finals}
        if len(losing_teams) > 1 and self._rules.both_mated is BothMated.DRAW:
            return self._decide(None, finals[0].board, "checkmate", t)
        first = finals[0]
        return self._decide(first.opponent.team, first.board, "checkmate", t)

    def _decide(
        self, winner_team: int | None, board: BoardId, reason: str, t: float
    ) -> list[MatchEvent]:
        result = ResultDecided(t, winner_team, board, reason, _bpgn_result(winner_team, board))
        self._state.result = result
        return [result]

    # --- flags and arbiter results -------------------------------------------------------------

    def flag(self, board: BoardId, color: chess.Color, *, t: float, at: float) -> list[MatchEvent]:
        """A clock reached zero (row 12, note H): ``at`` is the clock-derived zero crossing."""
        self._state.log.append(_FlagFell(t, Seat(board, color), at))
        return self._flag(Seat(board, color), t, at)

    def _flag(self, seat: Seat, t: float, at: float) -> list[MatchEvent]:
        state = self._state
        state.flags.setdefault(seat, at)
        rival = self._rival_flag(seat)
        events: list[MatchEvent] = [
            Flag(t, seat.board, seat.color, at),
            self._flag_alert(seat, at, rival, t),
        ]
        if state.result is None:
            return events + self._flag_result(seat, at, rival, t)
        if self._supersedes(at, rival):
            return events + self._decide(None, seat.board, "time", t)
        return events

    def _rival_flag(self, seat: Seat) -> float | None:
        rivals = [at for other, at in self._state.flags.items() if other.team != seat.team]
        return min(rivals) if rivals else None

    def _flag_result(
        self, seat: Seat, at: float, rival: float | None, t: float
    ) -> list[MatchEvent]:
        if rival is None:
            return self._decide(seat.opponent.team, seat.board, "time", t)
        policy = self._rules.both_flagged
        if policy is BothFlagged.DRAW_IF_DIFFERENT_TEAMS or self._order_unknown(at, rival):
            return self._decide(None, seat.board, "time", t)
        loser_team = seat.team if at < rival else 1 - seat.team
        return self._decide(1 - loser_team, seat.board, "time", t)

    def _order_unknown(self, at: float, rival: float) -> bool:
        if self._rules.both_flagged is not BothFlagged.DRAW_IF_ORDER_UNKNOWN:
            return False
        return abs(at - rival) * 1000 < self._rules.flag_order_resolution_ms

    def _supersedes(self, at: float, rival: float | None) -> bool:
        """A late-reported flag of the other team that turns a flag result into a draw."""
        result = self._state.result
        if result is None or result.reason != "time" or result.winner_team is None or rival is None:
            return False
        if self._rules.both_flagged is BothFlagged.DRAW_IF_DIFFERENT_TEAMS:
            return at <= result.t  # both had overstepped when the match was decided
        return self._order_unknown(at, rival)

    def _flag_alert(self, seat: Seat, at: float, rival: float | None, t: float) -> Alert:
        text = f"{seat_name(seat)} overstepped the time."
        if rival is not None:
            text += f" A player of the other team flagged too ({rival:.1f} s vs {at:.1f} s)."
        return Alert(
            t=t,
            board=seat.board,
            color=seat.color,
            code=AlertCode.FLAG,
            severity=Severity.WARNING,
            rule=self._rules.ref(12),
            message=text,
            details={"at": at, "other_team_at": rival},
        )

    def set_result(
        self, winner_team: int | None, board: BoardId, reason: str, *, t: float
    ) -> list[MatchEvent]:
        """The arbiter's decision (resignation, claim, agreement, ...)."""
        if winner_team not in (0, 1, None):
            raise ValueError(f"winner_team must be 0, 1 or None (draw), not {winner_team!r}")
        self._state.log.append(_ResultSet(t, winner_team, board, reason))
        return self._decide(winner_team, board, reason, t)

    # --- link gaps (reconstruct/gap.py) ---------------------------------------------------------

    def fill_gap(self, gap: int, fens: Mapping[BoardId, str], *, t: float) -> None:
        """Set boards to the positions seen after a link gap that no unique ply sequence
        explains; the log keeps the gap as one entry (``resolve_gap`` replaces it by plies)."""
        self._state.log.append(_GapFilled(t, gap, dict(fens)))
        for board_id, fen in fens.items():
            board = BughouseBoard(fen)
            board.debts = self._state.boards[board_id].debts
            self._state.boards[board_id] = board
            self._state.forced_drops.pop(board_id, None)
        for board_id in BoardId:
            self._state.plights[board_id] = classify(
                self._rules, self._state.boards, board_id, partner_moved=False
            )

    def resolve_gap(self, gap: int, moves: list[BughouseMove], *, t: float) -> list[MatchEvent]:
        """Replace the gap's entry by ``moves`` (played at the gap's time); what came after it is
        replayed. The moves' events are returned, marked ``recovered``. ValueError (nothing
        changed) when the moves or the rest of the log do not replay."""
        log = self._state.log
        index = _gap_index(log, gap)
        rebuilt = Match(self._rules, fens=self._fens)
        rebuilt._replay(log[:index])
        events: list[MatchEvent] = []
        for move in moves:
            events += [
                replace(event, recovered=True) if isinstance(event, MovePlayed) else event
                for event in rebuilt.play(move, t=t)
            ]
        rebuilt._replay(log[index + 1 :])
        self._state = rebuilt._state
        return events

    def open_gaps(self) -> list[int]:
        return [entry.gap for entry in self._state.log if isinstance(entry, _GapFilled)]

    # --- takeback ------------------------------------------------------------------------------

    def takeback(self, board: BoardId, *, t: float) -> list[MatchEvent]:
        """Undo the last ply on ``board`` by replaying the log without it.

        ValueError when there is nothing to take back, or when the rest of the log no longer
        replays (e.g. the partner already dropped the piece that ply captured).
        """
        log = self._state.log
        index = _last_ply_index(log, board)
        kept = [e for i, e in enumerate(log) if i != index and not _removal_of(e, board, i, index)]
        rebuilt = Match(self._rules, fens=self._fens)
        try:
            rebuilt._replay(kept)
        except ValueError as error:
            raise ValueError(f"cannot take back the last move on board {board}: {error}") from error
        self._state = rebuilt._state
        return [Takeback(t, board, self._state.plies[board])]

    def _replay(self, entries: list[_Entry]) -> None:
        for entry in entries:
            if isinstance(entry, _GapFilled):
                self.fill_gap(entry.gap, entry.fens, t=entry.t)
            elif isinstance(entry, _Played):
                self.play(entry.move, t=entry.t, clock_ms=entry.clock_ms, force=entry.force)
            elif isinstance(entry, _DropRemoved):
                self.remove_illegal_drop(entry.board, t=entry.t)
            elif isinstance(entry, _FlagFell):
                self.flag(entry.seat.board, entry.seat.color, t=entry.t, at=entry.at)
            else:
                self.set_result(entry.winner_team, entry.board, entry.reason, t=entry.t)


def _gap_index(log: list[_Entry], gap: int) -> int:
    for index, entry in enumerate(log):
        if isinstance(entry, _GapFilled) and entry.gap == gap:
            return index
    raise ValueError(f"there is no open gap {gap}")


def _last_ply_index(log: list[_Entry], board: BoardId) -> int:
    for index in range(len(log) - 1, -1, -1):
        entry = log[index]
        if isinstance(entry, _Played) and entry.move.board is board:
            return index
    raise ValueError(f"no move on board {board} to take back")


def _removal_of(entry: _Entry, board: BoardId, position: int, ply_index: int) -> bool:
    """The removal of the illegal drop that is being taken back goes with it."""
    return isinstance(entry, _DropRemoved) and entry.board is board and position > ply_index


def _bpgn_result(winner_team: int | None, board: BoardId) -> str:
    """Board-relative, as bughousedb writes it: "1-0" = the White player of ``board`` won."""
    if winner_team is None:
        return "1/2-1/2"
    return "1-0" if Seat(board, chess.WHITE).team == winner_team else "0-1"
