"""BPGN values: a half-move, a game, the comments of our dialect and their checks. Pure.

:class:`BpgnMove` and :class:`BpgnGame` are what the reader (``bpgn_reader.py``) returns and the
writer (``bpgn_document.py``) writes; both check on construction that the text they stand for
reads back as the same value (a comment that would read as a clock or an annotation, a SAN that
is none, a steal that is not a promotion raise :class:`BpgnError`). The dialect itself is
described in ``bpgn.py`` and ``docs/bpgn.md``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

import chess

from bughouse_bridge.bughouse.events import StealInfo
from bughouse_bridge.bughouse.types import BoardId, Seat

RESULTS: Final = ("1-0", "0-1", "1/2-1/2", "*")
PLAYER_TAGS: Final = {
    Seat(BoardId.A, chess.WHITE): "WhiteA",
    Seat(BoardId.A, chess.BLACK): "BlackA",
    Seat(BoardId.B, chess.WHITE): "WhiteB",
    Seat(BoardId.B, chess.BLACK): "BlackB",
}
RULES_TAG: Final = "Rules"
RULES_OVERRIDES_TAG: Final = "RulesOverrides"

NULL_SAN: Final = "--"  # PGN's null move: the side passes (docs/bpgn.md, "Extensions")

_CLOCK_RE: Final = re.compile(r"-?\d+(?:\.\d+)?")
# chess.com writes the mover's clock as {[%clk 0:01:23.4]} (hours optional in the wild).
_CHESSCOM_CLOCK_RE: Final = re.compile(r"\[%clk (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)\]")
STEAL_RE: Final = re.compile(r"steal ([AB]):([a-h][1-8])")
ILLEGAL_RE: Final = re.compile(r"illegal ([PNBRQ]?@[a-h][1-8][+#]?)")
REMOVED_RE: Final = re.compile(r"removed ([AB]):([a-h][1-8])")
MASKED_RE: Final = re.compile(r"move (\S+)")  # a move plain readers cannot follow (a steal's wake)
# Where a move carries comments but its clock was not read, pychess-variants would take the first
# comment for the clock and fail: we write the seat's last clock with this mark first instead.
UNREAD_CLOCK_MARK: Final = "(clock not read)"
UNREAD_RE: Final = re.compile(r"-?\d+(?:\.\d+)? \(clock not read\)")
_RESERVED_RES: Final = (STEAL_RE, ILLEGAL_RE, REMOVED_RE, MASKED_RE, UNREAD_RE)
TAG_NAME_RE: Final = re.compile(r"[A-Za-z0-9_]+")
SAN_RE: Final = re.compile(
    r"""(?:
        -- | O-O(?:-O)? | 0-0(?:-0)?                     # null move, castling
      | [PNBRQK]?@[a-h][1-8]                             # drop (bughousedb writes P@ too)
      | [NBRQK][a-h]?[1-8]?x?[a-h][1-8]                  # piece move
      | [a-h](?:x[a-h])?[1-8](?:=?[NBRQK])?              # pawn move, capture, promotion
      | x[a-h][1-8](?:=?[NBRQK])?                        # bughouse.pro: pawn capture, no file
    )[+#]?""",
    re.VERBOSE,
)
_PROMOTION_RE: Final = re.compile(r"[a-h][18]=?[NBRQK]")


StealLike = tuple[BoardId, chess.Square] | StealInfo | None


class BpgnError(ValueError):
    """Malformed BPGN text (with a 1-based line and column), or an invalid game value."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{message}")
        self.reason = message
        self.line = line
        self.column = column


def is_clock_comment(text: str) -> bool:
    """A comment that a reader takes for the mover's clock."""
    return _CLOCK_RE.fullmatch(text) is not None


def is_steal_comment(text: str) -> bool:
    """A comment that a reader takes for the steal of a steal-promotion."""
    return STEAL_RE.fullmatch(text) is not None


def is_reserved_comment(text: str) -> bool:
    """A comment that a reader takes for a steal, an illegal move or a removal (our dialect)."""
    return any(pattern.fullmatch(text) for pattern in _RESERVED_RES)


def chesscom_clock(text: str) -> float | None:
    """Seconds from a chess.com clock comment ``[%clk 0:01:23.4]``; None for other text."""
    found = _CHESSCOM_CLOCK_RE.fullmatch(text)
    if found is None:
        return None
    hours, minutes, seconds = found.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)


def normalize_comment(text: str) -> str:
    """Comment text as a reader sees it: whitespace collapsed, since line breaks fall anywhere."""
    return " ".join(text.split())


def steal_comment(board: BoardId, square: chess.Square) -> str:
    return f"steal {board.value}:{chess.square_name(square)}"


def illegal_comment(san: str) -> str:
    return f"illegal {san}"


def removed_comment(board: BoardId, square: chess.Square) -> str:
    return f"removed {board.value}:{chess.square_name(square)}"


def masked_comment(san: str) -> str:
    return f"move {san}"


def format_clock(seconds: float) -> str:
    """Shortest exact positional form: ``298.21``, ``180``; never an exponent."""
    text = format(Decimal(repr(seconds)), "f")
    return text.removesuffix(".0")


def _reads_as_move_comment(text: str) -> bool:
    """Text that a reader would take for a clock or an annotation of the last move."""
    return is_clock_comment(text) or is_reserved_comment(text) or chesscom_clock(text) is not None


def _check_comment(text: str, what: str) -> None:
    if "}" in text:
        raise BpgnError(f"{what} {text!r} contains '}}', which BPGN cannot write")
    if text != normalize_comment(text):
        raise BpgnError(f"{what} {text!r} is not whitespace-normalised (see normalize_comment)")


@dataclass(frozen=True, slots=True)
class BpgnMove:
    """One half-move as written in BPGN.

    ``number`` is the per-board full-move number; ``clock`` the mover's remaining seconds after
    the move; ``steal`` the board and square a steal-promotion took its piece from.

    ``forced``: an illegal drop that stood on the board (rules row 9); ``san`` is the drop, the
    file shows ``--`` (a null move) with ``{illegal P@b8}``. ``san == "--"`` alone is a null move
    that only keeps the turn order after a removal handed the move back. ``removal``: after this
    half-move the illegal drop on that board and square was taken off. ``masked``: a legal move
    that a plain bughouse reader cannot follow (its position differs after a steal or an illegal
    drop); the file shows ``--`` with ``{move Nf3}``.
    """

    board: BoardId
    color: chess.Color
    number: int
    san: str
    clock: float | None = None
    comments: tuple[str, ...] = ()
    steal: tuple[BoardId, chess.Square] | None = None
    forced: bool = False
    removal: tuple[BoardId, chess.Square] | None = None
    masked: bool = False

    def __post_init__(self) -> None:
        if self.number < 1:
            raise BpgnError(f"move number {self.number} must be at least 1")
        self._check_san()
        if self.clock is not None and not math.isfinite(self.clock):
            raise BpgnError(f"clock {self.clock!r} is not a finite number")
        self._check_comments()
        if self.steal is not None:
            self._check_steal(self.steal)

    def _check_san(self) -> None:
        if SAN_RE.fullmatch(self.san) is None:
            raise BpgnError(f"{self.san!r} is not a SAN move")
        if self.forced and ILLEGAL_RE.fullmatch(illegal_comment(self.san)) is None:
            raise BpgnError(f"{self.san!r} is forced but only an illegal drop can stand (P@b8)")
        if self.is_null and (self.steal is not None or self.masked or self.forced):
            raise BpgnError("a null move '--' cannot steal, be masked or be forced")
        if self.forced and self.masked:
            raise BpgnError(f"{self.san!r} cannot be both forced (illegal) and masked (legal)")
        if self.removal is not None and self.removal[1] not in chess.SQUARES:
            raise BpgnError(f"removal square {self.removal[1]!r} is not a square")

    def _check_comments(self) -> None:
        for comment in self.comments:
            _check_comment(comment, "move comment")
            if is_reserved_comment(comment):
                raise BpgnError(f"move comment {comment!r} would read back as an annotation")
        first_comment = self.comments[0] if self.comments else ""
        if self.clock is None and clock_of(first_comment) is not None:
            raise BpgnError(f"first move comment {self.comments[0]!r} would read as a clock")

    def _check_steal(self, steal: tuple[BoardId, chess.Square]) -> None:
        steal_board, square = steal
        if _PROMOTION_RE.search(self.san) is None:
            raise BpgnError(f"{self.san!r} steals but is not a promotion (write e8=Q)")
        if steal_board is not self.board.other:
            raise BpgnError(f"{self.san!r} on board {self.board} cannot steal from its own board")
        if square not in chess.SQUARES:
            raise BpgnError(f"steal square {square!r} is not a square")

    @property
    def seat(self) -> Seat:
        return Seat(self.board, self.color)

    @property
    def is_null(self) -> bool:
        return self.san == NULL_SAN

    @property
    def written_san(self) -> str:
        """What the movetext shows: a forced or masked move is a null move for other readers."""
        return NULL_SAN if self.forced or self.masked else self.san

    @property
    def label(self) -> str:
        """The move number as BPGN writes it: ``12A.`` / ``12a.``."""
        letter = self.board.value if self.color == chess.WHITE else self.board.value.lower()
        return f"{self.number}{letter}."

    @property
    def clock_ms(self) -> int | None:
        return None if self.clock is None else round(self.clock * 1000)

    def __deepcopy__(self, memo: dict[int, object]) -> BpgnMove:
        """Never changed once made: a copy of a game shares it."""
        return self


@dataclass(frozen=True, slots=True)
class BpgnGame:
    """One bughouse game: tags (in file order), the interleaved half-moves and the result.

    ``comments`` are the opening comments (before the first move); ``closing_comment`` is the
    comment before the result token (``""`` when there is none). ``result`` is board-relative.
    """

    tags: dict[str, str] = field(default_factory=dict)
    moves: tuple[BpgnMove, ...] = ()
    result: str = "*"
    comments: tuple[str, ...] = ()
    closing_comment: str = ""

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise BpgnError(f"result {self.result!r} is not one of {', '.join(RESULTS)}")
        for name in self.tags:
            if TAG_NAME_RE.fullmatch(name) is None:
                raise BpgnError(f"tag name {name!r} may hold only letters, digits and '_'")
        for comment in self.comments:
            _check_comment(comment, "opening comment")
        _check_comment(self.closing_comment, "closing comment")
        closing = self.closing_comment
        if _reads_as_move_comment(closing):
            raise BpgnError(f"closing comment {self.closing_comment!r} would read as a move's")

    @property
    def players(self) -> dict[Seat, str]:
        """The four players by seat (tags WhiteA, BlackA, WhiteB, BlackB); ``"?"`` if absent."""
        return {seat: self.tags.get(tag, "?") for seat, tag in PLAYER_TAGS.items()}

    @property
    def time_control(self) -> tuple[int, int] | None:
        """``(base seconds, increment seconds)`` from ``[TimeControl "120+0"]``; None if absent."""
        text = self.tags.get("TimeControl")
        if text is None or text in {"", "?", "-"}:
            return None
        match = re.fullmatch(r"(\d+)(?:\+(\d+))?", text.strip())
        if match is None:
            raise BpgnError(f"TimeControl {text!r} is not 'base+increment' in seconds")
        return int(match[1]), int(match[2] or 0)

    @property
    def game_number(self) -> int | None:
        """The bughousedb game number, from ``BughouseDBGameNo`` or the opening comment."""
        if (tag := self.tags.get("BughouseDBGameNo", "")).isdigit():
            return int(tag)
        for comment in self.comments:
            if found := re.search(r"game number (\d+)", comment):
                return int(found[1])
        return None

    @property
    def rules(self) -> tuple[str, dict[str, str]] | None:
        """The ``[Rules]`` preset name and the ``[RulesOverrides]`` as strings; None if untagged."""
        preset = self.tags.get(RULES_TAG)
        if preset is None:
            return None
        return preset, parse_overrides(self.tags.get(RULES_OVERRIDES_TAG, ""))


def parse_overrides(text: str) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for part in filter(None, (item.strip() for item in text.split(";"))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise BpgnError(f"RulesOverrides item {part!r} is not key=value")
        overrides[key.strip()] = value.strip()
    return overrides


def clock_of(text: str) -> float | None:
    """The mover's clock: bughousedb's plain seconds ``{118.585}`` or chess.com's ``[%clk]``."""
    if is_clock_comment(text):
        return float(text)
    return chesscom_clock(text)
