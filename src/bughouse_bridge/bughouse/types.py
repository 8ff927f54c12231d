"""Vocabulary shared by the rules core, notation, the reconstructor and the bridge."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import chess


class BoardId(StrEnum):
    A = "A"
    B = "B"

    @property
    def other(self) -> BoardId:
        return BoardId.B if self is BoardId.A else BoardId.A


def color_name(color: chess.Color) -> str:
    """``"white"`` / ``"black"``, the contract's spelling."""
    return "white" if color == chess.WHITE else "black"


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's place: a board and a colour."""

    board: BoardId
    color: chess.Color

    @property
    def partner(self) -> Seat:
        """Bughouse teams are {White A, Black B} and {Black A, White B}."""
        return Seat(self.board.other, not self.color)

    @property
    def opponent(self) -> Seat:
        return Seat(self.board, not self.color)

    @property
    def team(self) -> int:
        """0 for the team of White A (with Black B), 1 for the team of Black A (with White B)."""
        white_a_team = (self.board is BoardId.A) == (self.color == chess.WHITE)
        return 0 if white_a_team else 1


@dataclass(frozen=True, slots=True)
class BughouseMove:
    """A move on one board: a chess move, a drop (``move.drop``), or a steal-promotion.

    For a steal-promotion (rules row 4, ``dsj``/``dsb``) ``move.promotion`` is the stolen piece's
    type and ``steal_square`` is the square on the *other* board the piece is taken from.
    """

    board: BoardId
    move: chess.Move
    steal_square: chess.Square | None = None

    @property
    def is_drop(self) -> bool:
        return self.move.drop is not None

    @property
    def is_steal(self) -> bool:
        return self.steal_square is not None

    @property
    def uci(self) -> str:
        """Contract §3: drops ``N@f3`` (upper-case letter for both colours); else UCI."""
        if self.move.drop is not None:
            letter = chess.piece_symbol(self.move.drop).upper()
            return f"{letter}@{chess.square_name(self.move.to_square)}"
        return self.move.uci()


class AlertCode(StrEnum):
    """Stable alert codes of the contract (§3). More may be added; never rename one."""

    DROP_MATE = "drop_mate"
    PAWN_DROP_RANK = "pawn_drop_rank"
    DROP_NOT_IN_POCKET = "drop_not_in_pocket"
    STEAL_MISSING = "steal_missing"
    STEAL_ILLEGAL = "steal_illegal"
    ILLEGAL_MOVE = "illegal_move"
    WRONG_TURN = "wrong_turn"
    CLOCK_WITHOUT_MOVE = "clock_without_move"
    MOVE_WITHOUT_CLOCK = "move_without_clock"
    UNEXPLAINED_POSITION = "unexplained_position"
    ILLEGAL_DROP_REMOVED = "illegal_drop_removed"
    FLAG = "flag"
    ARBITER_CALL = "arbiter_call"
    MATE_PENDING = "mate_pending"
    STALEMATE_WAITING = "stalemate_waiting"
    STALLING = "stalling"
    RESULT_SIGNAL = "result_signal"
    LINK_LOST = "link_lost"
    LINK_BACK = "link_back"
    INPUT_FAILED = "input_failed"  # the bridge could not process one input; it was skipped
    SEATING_WRONG = "seating_wrong"  # the hall's pairing breaks DSJ 8.2 / DSB 10.2
    GAP_AMBIGUOUS = "gap_ambiguous"


@dataclass(frozen=True, slots=True)
class RuleRef:
    """Where a decision comes from: preset, row of the rule matrix, article of the seed text."""

    preset: str
    row: int
    article: str

    def __str__(self) -> str:
        return (
            f"{self.preset} row {self.row} ({self.article})"
            if self.article
            else (f"{self.preset} row {self.row}")
        )


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on a move under a rule set. Illegal verdicts carry the alert code and rule."""

    legal: bool
    code: AlertCode | None = None
    rule: RuleRef | None = None
    message: str = ""

    @classmethod
    def ok(cls) -> Judgement:
        return cls(legal=True)
