"""A bughouse match: two boards, four pockets, the referee's state and its log. Pure.

``Match`` keeps the boards and the log of everything that happened (moves, removed illegal drops,
flags, results set by the arbiter). A takeback rebuilds the match from that log without the
board's last ply, because python-chess's ``pop()`` cannot undo a pocket on the other board.

The log is the one source of the game record: every entry is paired with what it put on record
(``Match.record``, :class:`~bughouse_bridge.bughouse.record.Recorded`). A rebuild (takeback,
a gap solved or filled anew) keeps the facts of the unchanged entries before the change and
builds them anew only from there on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse import legality
from bughouse_bridge.bughouse.board import (
    BughouseBoard,
    PlacementSketch,
    placement_of,
    pocket_letters,
)
from bughouse_bridge.bughouse.events import (
    Alert,
    Check,
    Flag,
    MatchEvent,
    Mate,
    MateStatus,
    MovePlayed,
    Pockets,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    Severity,
    Stalemate,
    StalemateStatus,
    Takeback,
)
from bughouse_bridge.bughouse.legality import IllegalMoveError, seat_name
from bughouse_bridge.bughouse.plight import Plight, Verdict, classify
from bughouse_bridge.bughouse.record import Recorded, is_record_event
from bughouse_bridge.bughouse.referee import (
    CLAIM_KINDS,
    claim_arguments,
    flag_alert,
    flag_is_claimed,
    illegal_claim_note,
    illegal_move_is_claimed,
)
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
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

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
    recovered: bool = False  # a gap's ply, found by the gap solver or chosen by the arbiter


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
class _IllegalSeen:
    """Row 10: an illegal move (not played) that the opponent may claim."""

    t: float
    seat: Seat
    uci: str
    ply: int  # the board's ply when it was seen


@dataclass(frozen=True, slots=True)
class _ClaimConfirmed:
    t: float
    seat: Seat
    claim: str
    at: float


@dataclass(frozen=True, slots=True)
class _ResultRevoked:
    t: float
    reason: str


@dataclass(frozen=True, slots=True)
class _Accepted:
    t: float
    board: BoardId
    placement: str  # board FEN (placement only), as the sensors saw it


@dataclass(frozen=True, slots=True)
class _PocketSet:
    t: float
    seat: Seat
    pieces: str


@dataclass(frozen=True, slots=True)
class _GapFilled:
    """A link gap nobody could explain: the gap's boards were set to what they showed after
    it, and the pockets of both boards changed by what the gap's plies captured and dropped.

    The pockets are kept as changes (``fens`` minus ``before``), not as counts: an earlier gap
    filled anew (``Match.refill_gap``) changes the pockets this one starts from, and the
    pieces this gap added or took must still be added or taken."""

    t: float
    gap: int
    fens: Mapping[BoardId, str]  # crazyhouse FENs: the gap's boards; the pockets of both
    boards: frozenset[BoardId]  # the gap's boards (the others keep their position)
    before: Mapping[BoardId, str]  # both boards' FENs just before, for the pocket changes


_Entry = (
    _Played
    | _DropRemoved
    | _FlagFell
    | _ResultSet
    | _IllegalSeen
    | _ClaimConfirmed
    | _ResultRevoked
    | _Accepted
    | _PocketSet
    | _GapFilled
)


@dataclass(slots=True)
class _State:
    boards: dict[BoardId, BughouseBoard]
    plies: dict[BoardId, int] = field(default_factory=lambda: dict.fromkeys(BoardId, 0))
    plights: dict[BoardId, Verdict] = field(default_factory=dict)
    forced_drops: dict[BoardId, chess.Square] = field(default_factory=dict)
    flags: dict[Seat, float] = field(default_factory=dict)
    illegal: dict[Seat, _IllegalSeen] = field(default_factory=dict)  # claimable (row 10)
    result: ResultDecided | None = None
    log: list[_Entry] = field(default_factory=list)
    written: list[Recorded] = field(default_factory=list)  # what each log entry put on record

    def copy(self) -> _State:
        return _State(
            # The move stacks are never popped (takeback replays the log), so copies skip them.
            boards={board_id: board.copy(stack=False) for board_id, board in self.boards.items()},
            plies=dict(self.plies),
            plights=dict(self.plights),
            forced_drops=dict(self.forced_drops),
            flags=dict(self.flags),
            illegal=dict(self.illegal),
            result=self.result,
            log=list(self.log),
            written=list(self.written),
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

    @property
    def record(self) -> Sequence[Recorded]:
        """What each entry of the log put on record, in log order (read only; see
        :class:`~bughouse_bridge.bughouse.record.GameRecord`)."""
        return self._state.written

    def fen(self, board: BoardId) -> str:
        """Crazyhouse FEN with the pocket in brackets (promoted pieces marked ``~``)."""
        return self._state.boards[board].fen()

    def board_fen(self, board: BoardId) -> str:
        """Placement only: what the sensors can see."""
        return placement_of(self._state.boards[board])

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
        """Exactly the moves ``judge`` calls legal (a decided match is still judged)."""
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
        # A decided match is still judged move by move: a result never blinds the referee
        # (the arbiter may revoke it, and the broadcast follows the boards meanwhile).
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
        return self._play_entry(_Played(t, move, clock_ms, force))

    def _play_entry(self, entry: _Played) -> list[MatchEvent]:
        judgement = self._admit(entry.move, force=entry.force)
        self._state.log.append(entry)
        events = self._apply(entry, judgement)
        return self._recorded(entry.t, events)

    def _recorded(
        self, t: float, events: list[MatchEvent], *, gap: int | None = None
    ) -> list[MatchEvent]:
        """Pair the log entry just made with what it put on record; returns ``events``."""
        state = self._state
        recorded = tuple(event for event in events if is_record_event(event))
        # A move's (or a correction's) event holds its board's FEN and every pocket as they
        # are at the end of its log entry (nothing after it in the entry changes a board).
        carriers = [e for e in recorded if isinstance(e, MovePlayed | PositionAccepted | PocketSet)]
        known = {event.board: event.fen for event in carriers}
        fens = {board: known.get(board) or self.fen(board) for board in BoardId}
        pockets = carriers[-1].pockets if carriers else self.pockets()
        state.written.append(Recorded(t, recorded, fens, dict(state.plies), pockets, gap))
        return events

    def play_quietly(self, move: BughouseMove) -> bool:
        """Play a legal move as ``play`` does, but build no events (no SAN, FEN or alerts):
        for searches that try many lines and keep only the end (the gap solver).
        False, and nothing changes, when the move is illegal."""
        try:
            self._replay_played(_Played(0.0, move, None, force=False))
        except IllegalMoveError:
            return False
        return True

    def _replay_played(self, entry: _Played) -> None:
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

    def _apply(self, entry: _Played, judgement: Judgement) -> list[MatchEvent]:
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
        )
        events: list[MatchEvent] = [played, *self._forced_alert(judgement, seat, t)]
        return events + self._after_change(t, seat)

    def _advance(self, move: BughouseMove, judgement: Judgement) -> tuple[Seat, legality.Applied]:
        """The move's change of the boards and counters; the mover's seat."""
        state = self._state
        seat = Seat(move.board, state.boards[move.board].turn)
        applied = legality.apply(self._rules, state.boards, move)
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

    # --- row 9 ---------------------------------------------------------------------------------

    def remove_illegal_drop(self, board: BoardId, *, t: float) -> list[MatchEvent]:
        """Row 9: the illegal drop that stands on ``board`` is taken off."""
        square = self._state.forced_drops.get(board)
        if square is None:
            raise ValueError(f"no illegal drop stands on board {board}")
        self._state.log.append(_DropRemoved(t, board))
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
        if old.plight is new.plight:
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
        if self._rules.stalemate is StalemateRule.DRAW and self._state.result is None:
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
        return self._recorded(t, self._flag(Seat(board, color), t, at))

    def _flag(self, seat: Seat, t: float, at: float) -> list[MatchEvent]:
        state = self._state
        state.flags.setdefault(seat, at)
        rival = self._rival_flag(seat)
        events: list[MatchEvent] = [
            Flag(t, seat.board, seat.color, at),
            flag_alert(self._rules, seat, at, rival, t, decided=state.result is not None),
        ]
        if flag_is_claimed(self._rules):
            return events  # row 13: only a confirmed claim decides; the match goes on
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

    def set_result(
        self, winner_team: int | None, board: BoardId, reason: str, *, t: float
    ) -> list[MatchEvent]:
        """The arbiter's decision (resignation, claim, agreement, ...)."""
        if winner_team not in (0, 1, None):
            raise ValueError(f"winner_team must be 0, 1 or None (draw), not {winner_team!r}")
        self._state.log.append(_ResultSet(t, winner_team, board, reason))
        return self._recorded(t, self._decide(winner_team, board, reason, t))

    # --- claims (rows 10 and 13) and revoking a result ----------------------------------------

    def note_illegal(
        self, board: BoardId, color: chess.Color, uci: str, *, t: float
    ) -> tuple[str, dict[str, Any]]:
        """Row 10: an illegal move was seen (not played). When the rules make it claimable it is
        put on record; returns the sentence and details its alert gains (empty otherwise)."""
        seat = Seat(board, color)
        if not illegal_move_is_claimed(self._rules) or self._state.result is not None:
            return "", {}
        entry = _IllegalSeen(t, seat, uci, self.ply(board))
        self._state.log.append(entry)
        self._recorded(t, [])
        self._state.illegal[seat] = entry
        return illegal_claim_note(self._rules, seat)

    def confirm_claim(
        self, board: BoardId, color: chess.Color, claim: str, *, t: float, at: float | None = None
    ) -> list[MatchEvent]:
        """The arbiter confirms a claim against ``color`` on ``board`` made at ``at`` (default
        ``t``). ValueError says why the record does not support it (no flag before that moment,
        no claimable illegal move, a decided match, a rule set without such claims)."""
        seat = Seat(board, color)
        moment = t if at is None else at
        self._check_claim(seat, claim, moment)
        self._state.log.append(_ClaimConfirmed(t, seat, claim, moment))
        return self._recorded(t, self._claim_result(seat, claim, moment, t))

    def _check_claim(self, seat: Seat, claim: str, moment: float) -> None:
        if claim not in CLAIM_KINDS:
            raise ValueError(f"unknown claim {claim!r}; claims: {', '.join(CLAIM_KINDS)}")
        result = self._state.result
        if result is not None:
            raise ValueError(
                f"the match is already decided ({result.reason} on board {result.board}); "
                "revoke the result first"
            )
        if claim == "flag":
            self._check_flag_claim(seat, moment)
        else:
            self._check_illegal_claim(seat, moment)

    def _check_flag_claim(self, seat: Seat, moment: float) -> None:
        if not flag_is_claimed(self._rules):
            raise ValueError(f"{self._rules.ref(13)}: flags decide automatically, not by claim")
        fell = self._state.flags.get(seat)
        if fell is None:
            raise ValueError(f"no flag of {seat_name(seat)} was seen")
        if fell > moment:
            raise ValueError(
                f"{seat_name(seat)}'s flag fell at {fell:.1f} s, after the claim ({moment:.1f} s)"
            )

    def _check_illegal_claim(self, seat: Seat, moment: float) -> None:
        if not illegal_move_is_claimed(self._rules):
            raise ValueError(f"{self._rules.ref(10)}: an illegal move is not decided by claim")
        seen = self._state.illegal.get(seat)
        if seen is None or seen.t > moment:
            raise ValueError(f"no illegal move of {seat_name(seat)} is on record")
        if self.ply(seat.board) > seen.ply + 1:
            raise ValueError(
                f"{seat_name(seat)}'s illegal {seen.uci} is no longer claimable: "
                "the opponent has moved since"
            )

    def _claim_result(self, seat: Seat, claim: str, moment: float, t: float) -> list[MatchEvent]:
        if claim == "illegal_move":
            return self._decide(seat.opponent.team, seat.board, "illegal move", t)
        fell = self._state.flags[seat]
        rivals = [
            at
            for other, at in self._state.flags.items()
            if other.team != seat.team and at <= moment
        ]
        return self._flag_result(seat, fell, min(rivals, default=None), t)

    def open_claims(self) -> list[dict[str, Any]]:
        """The claims the record supports now (the state snapshot lists them for the arbiter):
        each is the arguments of ``confirm_claim`` plus ``since`` (when it became claimable)."""
        if self._state.result is not None:
            return []
        claims = []
        if flag_is_claimed(self._rules):
            claims += [
                {**claim_arguments(seat, "flag"), "since": at}
                for seat, at in self._state.flags.items()
            ]
        if illegal_move_is_claimed(self._rules):
            claims += [
                {**claim_arguments(seat, "illegal_move"), "since": seen.t}
                for seat, seen in self._state.illegal.items()
                if self.ply(seat.board) <= seen.ply + 1
            ]
        return sorted(claims, key=lambda claim: claim["since"])

    def revoke_result(self, *, t: float, reason: str = "") -> list[MatchEvent]:
        """The arbiter withdraws the result: the game goes on, and a mate that became final
        meanwhile on a board other than the revoked decision's decides now."""
        result = self._state.result
        if result is None:
            raise ValueError("the match has no result to revoke")
        self._state.log.append(_ResultRevoked(t, reason))
        self._state.result = None
        events: list[MatchEvent] = [ResultRevoked(t, reason, result)]
        finals = [
            Seat(board_id, self._state.boards[board_id].turn)
            for board_id in BoardId
            if self._state.plights[board_id].plight is Plight.MATE_FINAL
            and not (result.reason == "checkmate" and result.board is board_id)
        ]
        return self._recorded(t, events + self._decide_mates(finals, t))

    # --- arbiter corrections -------------------------------------------------------------------

    def accept_placement(self, board: BoardId, placement: str, *, t: float) -> list[MatchEvent]:
        """The arbiter accepts ``placement`` (a board FEN) as the position of ``board``.

        Only that board changes: its log and ply count go on (the log gets an entry, so a
        takeback replays it), the side to move and every pocket stay, castling rights that the
        placement contradicts and the en-passant square go. Mates and stalemates are judged anew.
        ValueError for a placement that is not one (bad FEN, not exactly one king a side).
        """
        _check_placement(placement)
        self._state.log.append(_Accepted(t, board, placement))
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
        self._state.log.append(_PocketSet(t, seat, letters))
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

    # --- link gaps (reconstruct/gap.py) ---------------------------------------------------------

    def fill_gap(
        self, gap: int, fens: Mapping[BoardId, str], *, boards: Iterable[BoardId], t: float
    ) -> None:
        """Set the gap's ``boards`` to the positions seen after a link gap that no unique ply
        sequence explains, and both boards' pockets as ``fens`` say; the log keeps the gap as
        one entry (``resolve_gap`` replaces it by plies, ``refill_gap`` by other positions)."""
        before = {board_id: self.fen(board_id) for board_id in BoardId}
        self._fill(_GapFilled(t, gap, dict(fens), frozenset(boards), before))
        self._recorded(t, [], gap=gap)

    def _fill(self, entry: _GapFilled) -> None:
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

    def _gap_entry(self, gap: int) -> _GapFilled:
        entry = self._state.log[_gap_index(self._state.log, gap)]
        assert isinstance(entry, _GapFilled)
        return entry

    def before_gap(self, gap: int) -> Match:
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
        assert isinstance(entry, _GapFilled)
        rebuilt: Match = self.before_gap(gap)
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
        guessed one too many): the entry is amended, what came after it replayed."""
        entry = self._gap_entry(gap)
        fens = {board_id: BughouseBoard(fen) for board_id, fen in entry.fens.items()}
        fens[board].pockets[color].add(piece)
        if source is not None:
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

    def resolve_gap(self, gap: int, moves: list[BughouseMove], *, t: float) -> list[MatchEvent]:
        """Replace the gap's entry by ``moves`` (played at the gap's time); what came after it is
        replayed. The moves' events are returned, marked ``recovered``. ValueError (nothing
        changed) when the moves or the rest of the log do not replay."""
        log = self._state.log
        index = _gap_index(log, gap)
        rebuilt: Match = self.before_gap(gap)
        events: list[MatchEvent] = []
        for move in moves:
            events += rebuilt._play_entry(_Played(t, move, None, force=False, recovered=True))
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
        if any(isinstance(e, _Accepted) and e.board is board for e in log[index:]):
            raise ValueError(
                f"the position of board {board} was accepted after its last move; "
                "correct it with accept or set_pocket instead"
            )
        kept = [e for i, e in enumerate(log) if i > index and not _removal_of(e, board, i, index)]
        rebuilt: Match = self._rebuilt(log[:index], index)
        try:
            rebuilt._replay(kept)
        except ValueError as error:
            raise ValueError(f"cannot take back the last move on board {board}: {error}") from error
        self._state = rebuilt._state
        return [Takeback(t, board, self._state.plies[board])]

    def _replay_claim(self, entry: _ClaimConfirmed) -> None:
        # A claim that held when it was confirmed may not hold after a takeback: it is dropped.
        try:
            seat = entry.seat
            self.confirm_claim(seat.board, seat.color, entry.claim, t=entry.t, at=entry.at)
        except ValueError:
            return

    def _rebuilt(self, entries: list[_Entry], facts: int) -> Match:
        """A new match from the start through ``entries``, a prefix of this match's log that
        does not change: replayed without building events, its first ``facts`` facts kept."""
        rebuilt = Match(self._rules, fens=self._fens)
        for entry in entries:
            _REPLAY_QUIETLY.get(type(entry), _REPLAY[type(entry)])(rebuilt, entry)
        rebuilt._state.written = self._state.written[:facts]
        return rebuilt

    def _replay(self, entries: list[_Entry]) -> None:
        """Play ``entries`` again with their events, so that their facts are made anew."""
        for entry in entries:
            _REPLAY[type(entry)](self, entry)

    def _refill(self, entry: _GapFilled) -> None:
        self._fill(entry)
        self._recorded(entry.t, [], gap=entry.gap)


def _replay_result(match: Match, entry: _ResultSet) -> None:
    match.set_result(entry.winner_team, entry.board, entry.reason, t=entry.t)


# How each log entry is replayed (takeback, resolving a gap): the public method that made it.
_REPLAY: dict[type, Callable[[Match, Any], object]] = {
    _GapFilled: lambda m, e: m._refill(e),  # noqa: SLF001 - Match's own helper
    _Played: lambda m, e: m._play_entry(e),  # noqa: SLF001 - Match's own helper
    _DropRemoved: lambda m, e: m.remove_illegal_drop(e.board, t=e.t),
    _FlagFell: lambda m, e: m.flag(e.seat.board, e.seat.color, t=e.t, at=e.at),
    _IllegalSeen: lambda m, e: m.note_illegal(e.seat.board, e.seat.color, e.uci, t=e.t),
    _ClaimConfirmed: lambda m, e: m._replay_claim(e),  # noqa: SLF001 - Match's own helper
    _ResultRevoked: lambda m, e: m.revoke_result(t=e.t, reason=e.reason),
    _Accepted: lambda m, e: m.accept_placement(e.board, e.placement, t=e.t),
    _PocketSet: lambda m, e: m.set_pocket(e.seat.board, e.seat.color, e.pieces, t=e.t),
    _ResultSet: _replay_result,
}
# A prefix that does not change needs no events (its facts are kept): SAN and FEN for every ply
# of the log were most of a takeback's time.
_REPLAY_QUIETLY: dict[type, Callable[[Match, Any], object]] = {
    _GapFilled: lambda m, e: m._fill(e),  # noqa: SLF001 - Match's own helper
    _Played: lambda m, e: m._replay_played(e),  # noqa: SLF001 - Match's own helper
}


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


def _bpgn_result(winner_team: int | None, board: BoardId) -> str:  # noqa: ARG001 - see docstring
    """Team-relative, as the BPGN ``[Result]`` we write (docs/bpgn.md, "The result"): "1-0" =
    White A and Black B won, whichever ``board`` decided (it no longer changes the answer)."""
    if winner_team is None:
        return "1/2-1/2"
    return "1-0" if Seat(BoardId.A, chess.WHITE).team == winner_team else "0-1"
