"""Domain events of a match. ``topics.py`` maps each one to a contract §3 payload.

Every event carries ``t``: seconds on the pipeline's clock (the trace clock in a replay), passed
in by the caller — the core never reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import chess

from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, RuleRef

POCKET_ORDER = "PNBRQ"


@dataclass(frozen=True, slots=True)
class Pockets:
    """All four pockets, upper-case letters in the order P N B R Q (the colour is the key)."""

    a_white: str = ""
    a_black: str = ""
    b_white: str = ""
    b_black: str = ""

    def of(self, board: BoardId, color: chess.Color) -> str:
        if board is BoardId.A:
            return self.a_white if color == chess.WHITE else self.a_black
        return self.b_white if color == chess.WHITE else self.b_black

    def as_dict(self) -> dict[str, dict[str, str]]:
        return {
            "A": {"white": self.a_white, "black": self.a_black},
            "B": {"white": self.b_white, "black": self.b_black},
        }


@dataclass(frozen=True, slots=True)
class StealInfo:
    """The piece a steal-promotion took: from which board and square."""

    board: BoardId
    square: chess.Square
    piece: chess.Piece


@dataclass(frozen=True, slots=True)
class MovePlayed:
    t: float
    board: BoardId
    color: chess.Color
    ply: int  # per board, from 1
    move: BughouseMove
    san: str
    fen: str  # crazyhouse style, pocket in brackets, after the move
    pockets: Pockets
    clock_ms: int | None = None  # the mover's remaining time, if a clock reported it
    steal: StealInfo | None = None
    forced: bool = False  # an illegal move that stands on the board (e.g. an illegal drop, row 9)
    recovered: bool = False  # found by the gap solver after a link gap, not seen being played
    order_certain: bool = True  # False: a recovered ply whose order in its gap is a guess


@dataclass(frozen=True, slots=True)
class Check:
    t: float
    board: BoardId
    color: chess.Color  # the side in check


class MateStatus(StrEnum):
    PENDING = "pending"
    AVERTED = "averted"
    FINAL = "final"


@dataclass(frozen=True, slots=True)
class Mate:
    t: float
    board: BoardId
    color: chess.Color  # the mated side
    status: MateStatus
    reason: str


class StalemateStatus(StrEnum):
    WAITING = "waiting"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class Stalemate:
    t: float
    board: BoardId
    color: chess.Color
    status: StalemateStatus


@dataclass(frozen=True, slots=True)
class Flag:
    t: float
    board: BoardId
    color: chess.Color
    at: float  # clock-derived time of the zero crossing, on the pipeline clock


class ClocksStatus(StrEnum):
    BOTH_STOPPED = "both_stopped"
    RUNNING = "running"


@dataclass(frozen=True, slots=True)
class Clocks:
    """Both clocks stopped (the arbiter-call signal, row 14) or running again."""

    t: float
    status: ClocksStatus


@dataclass(frozen=True, slots=True)
class ResultDecided:
    t: float
    winner_team: int | None  # Seat.team of the winners (0: White A + Black B), None for a draw
    board: BoardId  # the deciding board
    reason: str  # "checkmate", "time", "resign", "draw", "arbiter", ...
    bpgn_result: str  # team-relative BPGN [Result]: "1-0" = White A + Black B won; "1/2-1/2"


@dataclass(frozen=True, slots=True)
class ResultRevoked:
    """The arbiter withdrew the match result; the game goes on (later decisions count)."""

    t: float
    reason: str
    revoked: ResultDecided


@dataclass(frozen=True, slots=True)
class Takeback:
    t: float
    board: BoardId
    ply: int  # the board's ply count after the takeback


@dataclass(frozen=True, slots=True)
class PositionAccepted:
    """The arbiter accepted the physical placement of ``board``: its log and plies go on."""

    t: float
    board: BoardId
    ply: int  # unchanged: the board's ply count, the accepted position follows it
    fen: str  # crazyhouse FEN of the board after the correction
    pockets: Pockets


@dataclass(frozen=True, slots=True)
class PocketSet:
    """The arbiter set one pocket explicitly (the bridge cannot know it, e.g. after an accept)."""

    t: float
    board: BoardId
    color: chess.Color
    pieces: str  # upper-case letters in the order P N B R Q
    fen: str
    pockets: Pockets


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ILLEGAL = "illegal"


@dataclass(frozen=True, slots=True)
class Alert:
    """Something an arbiter must know: names the board, player, rule and what may happen next."""

    t: float
    board: BoardId | None
    color: chess.Color | None
    code: AlertCode
    severity: Severity
    rule: RuleRef | None
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LinkChanged:
    """A serial link (board + clock) connected, disconnected or was resynchronised."""

    t: float
    link: str
    status: str  # "connected" | "disconnected" | "resynced"
    details: dict[str, Any] = field(default_factory=dict)


MatchEvent = (
    MovePlayed
    | Check
    | Mate
    | Stalemate
    | Flag
    | Clocks
    | ResultDecided
    | ResultRevoked
    | Takeback
    | Alert
    | LinkChanged
    | PositionAccepted
    | PocketSet
)
