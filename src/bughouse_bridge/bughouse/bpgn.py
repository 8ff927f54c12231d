"""BPGN (Bughouse Portable Game Notation): read and write the dialect bughousedb exports. Pure.

What we read (see ``docs/bpgn.md`` and ``shared/research/bughouse-engines.md`` §4):

* PGN tags ``[Name "value"]``; several on one line (``[WhiteA "x"][WhiteAElo "2051"]``) is fine.
* Movetext: brace comments before the first move are the *opening* comments
  (``{C: This is game number 1934301 at http://www.bughousedb.com}``).
* Every half-move carries its own number: the per-board full-move number, the board letter and a
  dot. ``1A.`` White on board A, ``1a.`` Black on A, ``1B.``/``1b.`` the same on board B. Half-moves
  of both boards are interleaved in the real time order.
* The first brace comment after a move that is a plain number is the mover's remaining clock in
  seconds (``e4{118.585}``, chess.com: ``{[%clk 0:01:58.5]}``); further comments belong to the
  move (``{R: ... requests to abort}``).
* The comment right before the result token is the *closing* comment (``{BobBughouse checkmated}``);
  the result is kept as written (bughousedb's is board-relative, ours team-relative).
* Line breaks may fall anywhere; whitespace inside comments is collapsed to single spaces.
* chess.com's ``$146@g4`` is ``N@g4``; bughouse.pro's file-less pawn capture ``xe6`` is resolved
  at replay.

What we write: the ``[Result]`` and result token **team-relative** (``1-0`` = White A and Black B
won, as pychess-variants and bughouse.pro read it, :func:`team_result`) and a closing comment that
names the loser, seat and deciding board (:func:`closing_comment_for`); the clock is always the
first comment after a move, because pychess-variants reads it so and fails on other text there.

Extensions we write (other BPGN readers skip them, or replay the same positions):

* ``[Rules "dsj"]`` names the rule preset; ``[RulesOverrides "key=value;key=value"]`` lists
  overrides, see :func:`ruleset_tags` and :func:`ruleset_from_game`.
* A steal-promotion (rules row 4) is written as a standard SAN promotion followed by a
  machine-readable comment naming the board and square the piece was taken from:
  ``e8=Q{241.5} {steal B:d1}``. It is parsed into :attr:`BpgnMove.steal`.
* An illegal drop that stood (row 9) is a null move with the drop in a comment:
  ``--{59.5} {illegal N@f6}``; its removal ``{removed A:f6}`` marks the half-move before it, and a
  bare ``--`` of the other side follows where the removal gives the move back to the offender.
* After a steal or a forced drop, a move that a plain reader cannot follow in its (now different)
  position is a null move with the move in a comment: ``-- {move Kd1}``
  (:func:`mask_unfollowable`).

Errors in the text raise :class:`BpgnError` (a ``ValueError``) with the 1-based line and column.

Building and replaying: :func:`numbered_moves`/:func:`game_from_moves` number played half-moves per
board, :func:`game_from_match_log` turns the match's events into "the game so far", and
:func:`replay` plays a game through :class:`~bughouse_bridge.bughouse.match.Match`.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from enum import Enum
from typing import TYPE_CHECKING, Final

import chess
import chess.variant

from bughouse_bridge.bughouse.events import (
    Alert,
    MovePlayed,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    StealInfo,
    Takeback,
)
from bughouse_bridge.bughouse.record import is_removal
from bughouse_bridge.bughouse.rules import RuleSet, get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove, Seat, color_name

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match

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
_STEAL_RE: Final = re.compile(r"steal ([AB]):([a-h][1-8])")
_ILLEGAL_RE: Final = re.compile(r"illegal ([PNBRQ]?@[a-h][1-8][+#]?)")
_REMOVED_RE: Final = re.compile(r"removed ([AB]):([a-h][1-8])")
_MASKED_RE: Final = re.compile(r"move (\S+)")  # a move plain readers cannot follow (a steal's wake)
# Where a move carries comments but its clock was not read, pychess-variants would take the first
# comment for the clock and fail: we write the seat's last clock with this mark first instead.
UNREAD_CLOCK_MARK: Final = "(clock not read)"
_UNREAD_RE: Final = re.compile(r"-?\d+(?:\.\d+)? \(clock not read\)")
_RESERVED_RES: Final = (_STEAL_RE, _ILLEGAL_RE, _REMOVED_RE, _MASKED_RE, _UNREAD_RE)
_CHESSCOM_KNIGHT_DROP: Final = "$146@"  # chess.com's export glitch for "N@"
_TAG_RE: Final = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]', re.DOTALL)
_TAG_NAME_RE: Final = re.compile(r"[A-Za-z0-9_]+")
_NUMBER_RE: Final = re.compile(r"(\d+)([AaBb])\.")
_SAN_RE: Final = re.compile(
    r"""(?:
        -- | O-O(?:-O)? | 0-0(?:-0)?                     # null move, castling
      | [PNBRQK]?@[a-h][1-8]                             # drop (bughousedb writes P@ too)
      | [NBRQK][a-h]?[1-8]?x?[a-h][1-8]                  # piece move
      | [a-h](?:x[a-h])?[1-8](?:=?[NBRQK])?              # pawn move, capture, promotion
      | x[a-h][1-8](?:=?[NBRQK])?                        # bughouse.pro: pawn capture, no file
    )[+#]?""",
    re.VERBOSE,
)
# A word ends at whitespace or where a tag, a comment or a variation would start.
_STEAL_SUFFIX_RE: Final = re.compile(r"\(([a-h][1-8])\)")  # the rules core's SAN: b8=Q(d1)+
_PROMOTION_RE: Final = re.compile(r"[a-h][18]=?[NBRQK]")
_WORD_RE: Final = re.compile(r"[^\s\[\]{}();]+")
_UNSUPPORTED_WORDS: Final = {
    "(": "variations are not supported",
    ")": "variations are not supported",
    "]": "unexpected ']'",
    "}": "unexpected '}'",
}


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
    return _STEAL_RE.fullmatch(text) is not None


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
        if _SAN_RE.fullmatch(self.san) is None:
            raise BpgnError(f"{self.san!r} is not a SAN move")
        if self.forced and _ILLEGAL_RE.fullmatch(illegal_comment(self.san)) is None:
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
        if self.clock is None and _clock_of(first_comment) is not None:
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
            if _TAG_NAME_RE.fullmatch(name) is None:
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


# --------------------------------------------------------------------------------------------
# Rules tags


def rules_tags(preset: str, overrides: Mapping[str, object] | None = None) -> dict[str, str]:
    """The tags that name a rule set: ``{"Rules": preset}`` plus ``RulesOverrides`` if any."""
    tags = {RULES_TAG: preset}
    if overrides:
        tags[RULES_OVERRIDES_TAG] = format_overrides(overrides)
    return tags


def format_overrides(overrides: Mapping[str, object]) -> str:
    parts = []
    for key, value in overrides.items():
        text = _override_text(value)
        if _TAG_NAME_RE.fullmatch(key) is None or any(c in text for c in ";="):
            raise BpgnError(f"override {key}={text} cannot be written in RulesOverrides")
        parts.append(f"{key}={text}")
    return ";".join(parts)


def _override_text(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple | list):  # pawn drop ranks, as rules.py reads them: "2-7"
        return "-".join(_override_text(item) for item in value)
    return str(value)


def ruleset_tags(rules: RuleSet) -> dict[str, str]:
    """``Rules`` and ``RulesOverrides`` tags; :func:`ruleset_from_game` reads them back."""
    return rules_tags(rules.name, {key: getattr(rules, key) for key in rules.overridden})


def ruleset_from_game(game: BpgnGame) -> RuleSet | None:
    """The rule set a game's tags name, or None if it has no ``Rules`` tag.

    Raises ``ValueError`` (from ``rules.py``) naming an unknown preset, rule or value.
    """
    described = game.rules
    if described is None:
        return None
    preset, overrides = described
    values = {key: int(text) if text.isdigit() else text for key, text in overrides.items()}
    return get_preset(preset).with_overrides(values)


def parse_overrides(text: str) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for part in filter(None, (item.strip() for item in text.split(";"))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise BpgnError(f"RulesOverrides item {part!r} is not key=value")
        overrides[key.strip()] = value.strip()
    return overrides


# --------------------------------------------------------------------------------------------
# Lexer


class _Kind(Enum):
    TAG = "tag"
    COMMENT = "comment"
    NUMBER = "move number"
    SAN = "move"
    RESULT = "result"


@dataclass(frozen=True, slots=True)
class _Token:
    kind: _Kind
    text: str  # tag value, comment text, SAN, result; for NUMBER the board letter
    offset: int
    name: str = ""  # tag name
    number: int = 0  # move number


class _Positions:
    """Offsets to 1-based line and column."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]

    def error(self, message: str, offset: int) -> BpgnError:
        line = bisect.bisect_right(self._starts, offset)
        return BpgnError(message, line, offset - self._starts[line - 1] + 1)


def _tokens(text: str, positions: _Positions) -> Iterator[_Token]:
    offset = 0
    while offset < len(text):
        char = text[offset]
        if char.isspace():
            offset += 1
        elif char == "[":
            tag = _TAG_RE.match(text, offset)
            if tag is None:
                raise positions.error('malformed tag, expected [Name "value"]', offset)
            value = re.sub(r'\\([\\"])', r"\1", tag[2])  # PGN escapes only \ and "
            yield _Token(_Kind.TAG, value, offset, name=tag[1])
            offset = tag.end()
        elif char == "{":
            end = text.find("}", offset)
            if end < 0:
                raise positions.error("comment is never closed with '}'", offset)
            yield _Token(_Kind.COMMENT, normalize_comment(text[offset + 1 : end]), offset)
            offset = end + 1
        elif char == ";":  # PGN rest-of-line comment
            end = text.find("\n", offset)
            end = len(text) if end < 0 else end
            yield _Token(_Kind.COMMENT, normalize_comment(text[offset + 1 : end]), offset)
            offset = end
        elif char in _UNSUPPORTED_WORDS:
            raise positions.error(_UNSUPPORTED_WORDS[char], offset)
        else:
            yield from _word_tokens(text, offset, positions)
            word = _WORD_RE.match(text, offset)
            assert word is not None  # any other character starts a word
            offset = word.end()


def _word_tokens(text: str, offset: int, positions: _Positions) -> Iterator[_Token]:
    word = _WORD_RE.match(text, offset)
    assert word is not None
    rest = word[0]
    if rest in RESULTS:
        yield _Token(_Kind.RESULT, rest, offset)
        return
    if number := _NUMBER_RE.match(rest):
        yield _Token(_Kind.NUMBER, number[2], offset, number=int(number[1]))
        offset += number.end()
        rest = rest[number.end() :]
        if not rest:
            return  # the usual case: a space between the number and the move
    if rest.startswith(_CHESSCOM_KNIGHT_DROP):
        rest = "N@" + rest.removeprefix(_CHESSCOM_KNIGHT_DROP)
    if _SAN_RE.fullmatch(rest) is None:
        if re.fullmatch(r"\d+\.+", rest):
            raise positions.error(
                f"move number {rest!r} lacks the board letter (1A. 1a. 1B.)", offset
            )
        raise positions.error(f"{rest!r} is not a SAN move, move number or result", offset)
    yield _Token(_Kind.SAN, rest, offset)


# --------------------------------------------------------------------------------------------
# Parser


@dataclass(slots=True)
class _GameBuilder:
    """Mutable state while one game's tokens arrive."""

    positions: _Positions
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[BpgnMove] = field(default_factory=list)
    opening: list[str] = field(default_factory=list)
    pending_number: _Token | None = None
    last_san: _Token | None = None
    trailing: list[_Token] = field(default_factory=list)  # comments since the last move
    started_movetext: bool = False

    @property
    def empty(self) -> bool:
        return not self.tags and not self.started_movetext

    def add_tag(self, token: _Token) -> None:
        if token.name in self.tags:
            raise self.positions.error(f"tag {token.name} appears twice", token.offset)
        self.tags[token.name] = token.text

    def add_comment(self, token: _Token) -> None:
        self._expect_no_pending(token.offset, "a comment")
        self.started_movetext = True
        self.trailing.append(token)

    def add_number(self, token: _Token) -> None:
        self._expect_no_pending(token.offset, "another move number")
        self._flush_trailing(self.trailing)
        self.started_movetext = True
        self.pending_number = token

    def add_san(self, token: _Token) -> None:
        if self.pending_number is None or self.last_san is not None:
            raise self.positions.error(f"move {token.text!r} has no number like 1A.", token.offset)
        self.last_san = token
        self.started_movetext = True

    def finish(self, result: str | None, offset: int, found: str) -> BpgnGame:
        """Close the game at ``offset``: a result token, or (``result=None``) a tag or the end."""
        self._expect_no_pending(offset, found)
        self._flush_trailing(self.trailing)
        # The last comment is the closing one, once the last move has taken its clock and steal.
        closing = ""
        if self.moves and self.moves[-1].comments:
            last = self.moves[-1]
            closing = last.comments[-1]
            self.moves[-1] = replace(last, comments=last.comments[:-1])
        elif not self.moves and self.opening:
            closing = self.opening.pop()
        result_text = self.tags.get("Result", "*") if result is None else result
        try:
            return BpgnGame(self.tags, tuple(self.moves), result_text, tuple(self.opening), closing)
        except BpgnError as error:
            raise self.positions.error(error.reason, offset) from None

    def _expect_no_pending(self, offset: int, found: str) -> None:
        if self.pending_number is not None and self.last_san is None:
            number = self.pending_number
            raise self.positions.error(
                f"expected a move after {number.number}{number.text}., found {found}", offset
            )

    def _flush_trailing(self, comments: Sequence[_Token]) -> None:
        """Attach the comments seen since the last move to it (or to the opening)."""
        self.trailing = []
        number, san = self.pending_number, self.last_san
        if number is None or san is None:
            self.opening.extend(comment.text for comment in comments)
            return
        self.pending_number = self.last_san = None
        self.moves.append(_make_move(number, san, comments, self.positions))


def _make_move(
    number: _Token, san: _Token, comments: Sequence[_Token], positions: _Positions
) -> BpgnMove:
    board = BoardId(number.text.upper())
    color = chess.WHITE if number.text.isupper() else chess.BLACK
    notes = _MoveNotes()
    for comment in comments:
        try:
            notes.add(comment.text)
        except BpgnError as error:
            raise positions.error(error.reason, comment.offset) from None
    text = san.text
    hidden = notes.illegal or notes.masked  # the real move behind a null move
    if hidden is not None:
        if text != NULL_SAN:
            what = "'illegal'" if notes.illegal else "'move'"
            raise positions.error(f"{what} annotates a null move '--', not {text!r}", san.offset)
        text = hidden
    try:
        return BpgnMove(
            board,
            color,
            number.number,
            text,
            notes.clock,
            tuple(notes.rest),
            notes.steal,
            forced=notes.illegal is not None,
            removal=notes.removal,
            masked=notes.masked is not None,
        )
    except BpgnError as error:
        raise positions.error(error.reason, san.offset) from None


@dataclass(slots=True)
class _MoveNotes:
    """The comments after one move, sorted into clock, our annotations and the rest."""

    clock: float | None = None
    steal: tuple[BoardId, chess.Square] | None = None
    illegal: str | None = None
    removal: tuple[BoardId, chess.Square] | None = None
    masked: str | None = None
    unread_mark: bool = False
    rest: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if self._nothing_yet and _UNREAD_RE.fullmatch(text):
            self.unread_mark = True  # the writer's stand-in for a clock it did not read
        elif found := _STEAL_RE.fullmatch(text):
            _only_once(self.steal, "steal")
            self.steal = BoardId(found[1]), chess.parse_square(found[2])
        elif found := _ILLEGAL_RE.fullmatch(text):
            _only_once(self.illegal, "be illegal")
            self.illegal = found[1]
        elif found := _REMOVED_RE.fullmatch(text):
            _only_once(self.removal, "remove a drop")
            self.removal = BoardId(found[1]), chess.parse_square(found[2])
        elif found := _MASKED_RE.fullmatch(text):
            _only_once(self.masked, "be masked")
            self.masked = found[1]
        elif self.clock is None and not self.rest and (clock := _clock_of(text)) is not None:
            self.clock = clock
        else:
            self.rest.append(text)

    @property
    def _nothing_yet(self) -> bool:
        found = (self.clock, self.steal, self.illegal, self.removal, self.masked)
        return not self.unread_mark and not self.rest and all(item is None for item in found)


def _only_once(seen: object, what: str) -> None:
    if seen is not None:
        raise BpgnError(f"a move can {what} only once")


def _clock_of(text: str) -> float | None:
    """The mover's clock: bughousedb's plain seconds ``{118.585}`` or chess.com's ``[%clk]``."""
    if is_clock_comment(text):
        return float(text)
    return chesscom_clock(text)


def parse_bpgn(text: str) -> list[BpgnGame]:
    """All games in ``text``, in order. Raises :class:`BpgnError` with line and column."""
    positions = _Positions(text)
    games: list[BpgnGame] = []
    builder = _GameBuilder(positions)
    for token in _tokens(text, positions):
        if token.kind is _Kind.TAG:
            if builder.started_movetext:  # a new game began without a result token
                games.append(builder.finish(None, token.offset, "a tag"))
                builder = _GameBuilder(positions)
            builder.add_tag(token)
        elif token.kind is _Kind.COMMENT:
            builder.add_comment(token)
        elif token.kind is _Kind.NUMBER:
            builder.add_number(token)
        elif token.kind is _Kind.SAN:
            builder.add_san(token)
        else:
            games.append(builder.finish(token.text, token.offset, "the result"))
            builder = _GameBuilder(positions)
    if not builder.empty:
        games.append(builder.finish(None, len(text), "the end of the text"))
    return games


def parse_bpgn_game(text: str) -> BpgnGame:
    """The single game in ``text``."""
    games = parse_bpgn(text)
    if len(games) != 1:
        raise BpgnError(f"expected exactly one game, found {len(games)}")
    return games[0]


# --------------------------------------------------------------------------------------------
# Writer


def _tag_text(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def tag_lines(tags: Mapping[str, str]) -> list[str]:
    """One tag a line, except ``XElo`` joins ``X`` on its line as bughousedb writes it."""
    lines: list[str] = []
    previous = ""
    for name, value in tags.items():
        if lines and previous and name == f"{previous}Elo":
            lines[-1] += _tag_text(name, value)
        else:
            lines.append(_tag_text(name, value))
        previous = name
    return lines


def move_text(move: BpgnMove, last_clock: float, *, closes: bool = False) -> str:
    """The clock first: pychess-variants reads the first comment after a move as its clock and
    fails on other text there. A move whose clock was not read but that has comments (or whose
    next comment is the closing one, ``closes``) gets ``{<last_clock> (clock not read)}`` first:
    the value pychess-variants assumes anyway, a mark our reader drops."""
    text = f"{move.label} {move.written_san}"
    notes = _annotations(move)
    if move.clock is not None:
        text += f"{{{format_clock(move.clock)}}}"
    elif notes or closes:
        text += f"{{{format_clock(last_clock)} {UNREAD_CLOCK_MARK}}}"
    return text + "".join(f" {{{comment}}}" for comment in notes)


def _annotations(move: BpgnMove) -> list[str]:
    """Our dialect's comments (steal, masked/illegal move, removal), then the move's own."""
    notes = list(move.comments)
    if move.removal is not None:
        notes.insert(0, removed_comment(*move.removal))
    if move.forced:
        notes.insert(0, illegal_comment(move.san))
    if move.masked:
        notes.insert(0, masked_comment(move.san))
    if move.steal is not None:
        notes.insert(0, steal_comment(*move.steal))
    return notes


def _closing_needed(game: BpgnGame) -> bool:
    """Whether the closing comment must be written even when empty, so it is not mistaken."""
    if game.closing_comment:
        return True
    if game.moves:
        return bool(game.moves[-1].comments)
    return bool(game.comments)


def write_bpgn(game: BpgnGame) -> str:
    """The game as bughousedb writes it: tags, opening comments, one line of moves, the end."""
    lines = tag_lines(game.tags)
    lines.extend(f"{{{comment}}}" for comment in game.comments)
    closing = _closing_needed(game)
    if game.moves:
        last_clock: dict[Seat, float] = {}
        texts: list[str] = []
        for index, move in enumerate(game.moves):
            closes = closing and index == len(game.moves) - 1
            texts.append(move_text(move, last_clock.get(move.seat, 0.0), closes=closes))
            if move.clock is not None:
                last_clock[move.seat] = move.clock
        lines.append(" ".join(texts))
    ending = f"{{{game.closing_comment}}} " if closing else ""
    lines.append(ending + game.result)
    return "\n".join(lines) + "\n"


def write_bpgn_games(games: Iterable[BpgnGame]) -> str:
    return "\n".join(write_bpgn(game) for game in games)


# --------------------------------------------------------------------------------------------
# Building games from played moves


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A half-move as the bridge knows it, before it is numbered.

    ``san`` may be the rules core's form with the steal square (``b8=Q(d1)+``) and ``steal`` a
    :class:`StealInfo`: :func:`numbered_moves` turns both into BPGN's form.
    """

    board: BoardId
    color: chess.Color
    san: str
    clock: float | None = None
    steal: StealLike = None
    comments: tuple[str, ...] = ()
    forced: bool = False
    removal: tuple[BoardId, chess.Square] | None = None
    uci: str | None = None  # what was played (contract §3 UCI), to check what readers make of it


PlayedMoveLike = PlayedMove | tuple[BoardId, chess.Color, str, float | None, StealLike]


def numbered_moves(
    played: Iterable[PlayedMoveLike],
    *,
    first_numbers: Mapping[BoardId, int] | None = None,
) -> tuple[BpgnMove, ...]:
    """Number half-moves per board: White's move opens a number, Black's closes it.

    Items are :class:`PlayedMove` or ``(board, color, san, clock_seconds, steal)`` tuples in
    real time order; ``first_numbers`` serves games that start from a set-up position.
    """
    numbers = dict.fromkeys(BoardId, 1) | dict(first_numbers or {})
    moves: list[BpgnMove] = []
    for item in played:
        move = item if isinstance(item, PlayedMove) else PlayedMove(*item)
        moves.append(bpgn_move(move, numbers[move.board]))
        if move.color == chess.BLACK:
            numbers[move.board] += 1
    return tuple(moves)


def bpgn_move(move: PlayedMove, number: int) -> BpgnMove:
    steal: tuple[BoardId, chess.Square] | None
    if isinstance(move.steal, StealInfo):
        steal = (move.steal.board, move.steal.square)
    elif move.steal is None and (suffix := _STEAL_SUFFIX_RE.search(move.san)):
        steal = (move.board.other, chess.parse_square(suffix[1]))
    else:
        steal = move.steal
    comments = tuple(normalize_comment(comment) for comment in move.comments)
    san = _STEAL_SUFFIX_RE.sub("", move.san)
    return BpgnMove(
        move.board,
        move.color,
        number,
        san,
        move.clock,
        comments,
        steal,
        forced=move.forced,
        removal=move.removal,
    )


def game_from_moves(
    played: Iterable[PlayedMoveLike],
    *,
    tags: Mapping[str, str] | None = None,
    result: str = "*",
    comments: Sequence[str] = (),
    closing_comment: str = "",
) -> BpgnGame:
    """A game from played moves; ``result`` (e.g. ``ResultDecided.bpgn_result``) also sets the
    ``Result`` tag."""
    all_tags = dict(tags or {})
    all_tags["Result"] = result
    return BpgnGame(
        all_tags,
        numbered_moves(played),
        result,
        tuple(normalize_comment(comment) for comment in comments),
        normalize_comment(closing_comment),
    )


def record_date_tags(origin_epoch: float, t: float) -> dict[str, str]:
    """``Date`` (``2026.11.23``) and ``Time`` (``09:17:51``, UTC) of the pipeline time ``t``.

    ``origin_epoch`` is the wall-clock epoch of ``t = 0``; 0 (a replayed trace without one) gives
    PGN's unknown date ``????.??.??`` and no ``Time``.
    """
    if origin_epoch <= 0:
        return {"Date": "????.??.??"}
    moment = datetime.fromtimestamp(origin_epoch + t, tz=UTC)
    return {"Date": moment.strftime("%Y.%m.%d"), "Time": moment.strftime("%H:%M:%S")}


def team_result(winner_team: int | None) -> str:
    """The ``[Result]`` we write: **team-relative**, ``1-0`` = White A and Black B won.

    pychess-variants and bughouse.pro read it so; bughousedb's FICS exports are board-relative
    instead (see the table in docs/bpgn.md), which is why the closing comment names the board.
    """
    if winner_team is None:
        return "1/2-1/2"
    return "1-0" if winner_team == Seat(BoardId.A, chess.WHITE).team else "0-1"


_CLOSING_PHRASES: Final = {
    "checkmate": "checkmated",
    "time": "forfeits on time",
    "resign": "resigns",
    "illegal move": "loses by an illegal move",  # the referee's claim (rows 10/13)
    "illegal_move": "loses by an illegal move",
}


def closing_comment_for(result: ResultDecided, players: Mapping[Seat, str]) -> str:
    """The deciding board, seat and reason, as the BPGN standard's sample closes a game.

    ``BobBughouse (BlackB) checkmated on board B``; without a configured name (absent, empty or
    ``?``) the seat alone: ``BlackB forfeits on time on board B``.
    """
    board = result.board
    if result.winner_team is None:
        return normalize_comment(f"Game drawn on board {board} ({result.reason})".replace("}", ")"))
    loser = next(
        Seat(board, color)
        for color in (chess.WHITE, chess.BLACK)
        if Seat(board, color).team != result.winner_team
    )
    phrase = _CLOSING_PHRASES.get(result.reason, f"loses ({result.reason})")
    text = f"{_seat_label(loser, players)} {phrase} on board {board}"
    return normalize_comment(text.replace("}", ")"))


def _seat_label(seat: Seat, players: Mapping[Seat, str]) -> str:
    name = normalize_comment(players.get(seat, ""))
    tag = PLAYER_TAGS[seat]
    return tag if name in {"", "?", "-"} else f"{name} ({tag})"


def game_from_match_log(
    events: Iterable[MatchEvent],
    *,
    tags: Mapping[str, str] | None = None,
    comments: Sequence[str] = (),
    fens: Mapping[BoardId, str] | None = None,
) -> BpgnGame:
    """The game so far, from the match's event stream: moves (takebacks undone) and result.

    Besides moves, takebacks and results the stream may hold the ``illegal_drop_removed`` alerts
    (row 9): they become the ``removal`` of the half-move before them. Moves read after a
    standing result are not part of the game; a revoked result lets them in, and the move before
    the revocation says so in a comment (``{result 0-1 revoked: wrong board}``). An arbiter's
    correction (``PositionAccepted``, ``PocketSet``) becomes a comment after the move it followed
    (an opening comment before the first move): ``{accepted A: <FEN>}``, ``{pocket A white: PPN}``;
    a takeback of that move hands it to the move before. ``fens``: the start positions when the
    match began from set-up ones (as ``Match`` takes them).
    """
    entries: list[_Entry] = []
    decided: ResultDecided | None = None
    cut: int | None = None  # how many entries the game had when its result was decided
    for event in events:
        if isinstance(event, MovePlayed | ResultRevoked | Correction) or is_removal(event):
            entries.append(event)  # type: ignore[arg-type]  # _is_removal narrows to Alert
        if isinstance(event, Takeback):
            entries = _after_takeback(entries, event)
            cut = None if cut is None else min(cut, len(entries))
        elif isinstance(event, ResultDecided):
            decided = event
            cut = len(entries) if cut is None else cut
        elif isinstance(event, ResultRevoked):
            decided, cut = None, None
    kept = entries if cut is None else entries[:cut]
    played = _played_moves(kept)
    before_first = _corrections_before_first_move(kept)
    game = game_from_moves(played, tags=tags, comments=[*comments, *before_first])
    ucis = [move.uci for move in played]
    corrected = any(isinstance(entry, Correction) for entry in kept)
    masked = mask_unfollowable(game.moves, ucis, fens=fens, diverged=corrected)
    game = replace(game, moves=masked)
    if decided is None:
        return game
    result = team_result(decided.winner_team)
    closing = closing_comment_for(decided, game.players)
    return replace(
        game, tags=game.tags | {"Result": result}, result=result, closing_comment=closing
    )


Correction = PositionAccepted | PocketSet  # an arbiter's correction, a comment in the record
_Entry = MovePlayed | Alert | ResultRevoked | Correction  # what the record keeps in time order


def correction_comment(event: PositionAccepted | PocketSet) -> str:
    """The BPGN comment of an arbiter's correction (machine-readable, like ``steal``)."""
    if isinstance(event, PositionAccepted):
        return f"accepted {event.board}: {event.fen}"
    return f"pocket {event.board} {color_name(event.color)}: {event.pieces}"


def _corrections_before_first_move(entries: Sequence[_Entry]) -> list[str]:
    texts: list[str] = []
    for entry in entries:
        if isinstance(entry, MovePlayed):
            break
        if isinstance(entry, Correction):
            texts.append(correction_comment(entry))
    return texts


def is_record_event(event: MatchEvent) -> bool:
    """Whether ``event`` changes the game record: the bridge keeps these for
    :func:`game_from_match_log` and republishes the BPGN after each.

    Arbiter corrections (``accept``, ``set_pocket``) are written as comments
    (:func:`correction_comment`).
    """
    record_types = MovePlayed | Takeback | ResultDecided | ResultRevoked | Correction
    return isinstance(event, record_types) or is_removal(event)


def mask_unfollowable(
    moves: Sequence[BpgnMove],
    ucis: Sequence[str | None] | None = None,
    *,
    fens: Mapping[BoardId, str] | None = None,
    diverged: bool = False,
) -> tuple[BpgnMove, ...]:
    """Mark the moves a plain bughouse reader cannot follow, so that it passes instead of failing.

    A plain reader (pychess-variants, python-chess-bughouse: FICS rules, no steals, no illegal
    drops that stand) replays the moves in a shadow of two crazyhouse boards with bughouse pocket
    routing. After a steal-promotion or a forced drop its position differs from ours; a move that
    is then illegal for it, or means another move there (``ucis``: what was played, when known),
    is written as a null move ``-- {move Nf3}`` (``masked``), so it keeps reading and agrees with
    us again wherever the positions meet. Games without a steal or a forced drop are returned
    unchanged: every move in them is FICS-legal. ``fens``: set-up start positions, if any;
    ``diverged``: the positions differ for another reason (an arbiter's correction).
    """
    if not diverged and not any(move.steal is not None or move.forced for move in moves):
        return tuple(moves)
    shadow = PlainReader(fens or {})
    played = list(ucis) if ucis is not None else [None] * len(moves)
    return tuple(shadow.follow(move, uci) for move, uci in zip(moves, played, strict=True))


class PlainReader:
    """Two crazyhouse boards whose captures feed the partner's pocket: a plain BPGN reader."""

    def __init__(self, fens: Mapping[BoardId, str]) -> None:
        start = chess.variant.CrazyhouseBoard.starting_fen
        self.boards = {
            board: chess.variant.CrazyhouseBoard(fens.get(board, start)) for board in BoardId
        }

    def follow(self, move: BpgnMove, uci: str | None = None) -> BpgnMove:
        board = self.boards[move.board]
        plain = None if move.forced or move.is_null else self._parse(board, move)
        if plain is not None and uci is not None and plain.uci() != uci:
            plain = None  # the reader would play another move under the same SAN
        if plain is None:
            board.push(chess.Move.null())
            followable = move.forced or move.is_null
            return move if followable else replace(move, masked=True)
        self._push(move.board, plain)
        return move

    @staticmethod
    def _parse(board: chess.variant.CrazyhouseBoard, move: BpgnMove) -> chess.Move | None:
        if board.turn != move.color:
            return None
        try:
            return board.parse_san(move.san)
        except ValueError:
            return None

    def _push(self, board_id: BoardId, move: chess.Move) -> None:
        """Crazyhouse keeps a capture in the capturer's pocket; bughouse hands it to the partner,
        who plays the other colour on the other board."""
        board = self.boards[board_id]
        mover = board.turn
        before = [board.pockets[mover].count(piece) for piece in chess.PIECE_TYPES]
        board.push(move)
        for piece, count in zip(chess.PIECE_TYPES, before, strict=True):
            for _ in range(board.pockets[mover].count(piece) - count):
                board.pockets[mover].remove(piece)
                self.boards[board_id.other].pockets[not mover].add(piece)


def _played_moves(entries: Sequence[_Entry]) -> list[PlayedMove]:
    """Moves in time order; a removal or a revoked result marks the move before it; a turn handed
    back gets a null move."""
    moves: list[PlayedMove] = []
    last_color: dict[BoardId, chess.Color] = {}
    for entry in entries:
        if isinstance(entry, ResultRevoked | Correction):
            if moves:  # before the first move, a correction is an opening comment
                comments = (*moves[-1].comments, record_note(entry))
                moves[-1] = replace(moves[-1], comments=comments)
            continue
        if isinstance(entry, Alert):
            if moves and entry.board is not None:
                square = chess.parse_square(str(entry.details["square"]))
                moves[-1] = replace(moves[-1], removal=(entry.board, square))
            continue
        if last_color.get(entry.board) == entry.color:  # the removal gave the move back
            moves.append(PlayedMove(entry.board, not entry.color, NULL_SAN))
        last_color[entry.board] = entry.color
        moves.append(played_move(entry))
    return moves


def record_note(entry: ResultRevoked | Correction) -> str:
    if isinstance(entry, ResultRevoked):
        note = f"result {entry.revoked.bpgn_result} revoked: {entry.reason or 'arbiter'}"
    else:
        note = correction_comment(entry)
    return normalize_comment(note.replace("}", ")"))


def played_move(event: MovePlayed) -> PlayedMove:
    clock = None if event.clock_ms is None else event.clock_ms / 1000
    return PlayedMove(
        event.board,
        event.color,
        event.san,
        clock,
        event.steal,
        forced=event.forced,
        uci=event.move.uci,
    )


def _after_takeback(entries: list[_Entry], takeback: Takeback) -> list[_Entry]:
    """Drop the board's moves beyond the takeback's ply, and removals that followed them."""
    kept: list[_Entry] = []
    plies = 0
    for entry in entries:
        on_board = isinstance(entry, MovePlayed | Alert) and entry.board is takeback.board
        if on_board:
            if isinstance(entry, MovePlayed):
                plies += 1
            if plies > takeback.ply:
                continue
        kept.append(entry)
    return kept


# --------------------------------------------------------------------------------------------
# Replay through the rules core


class BpgnReplayError(ValueError):
    """A move of the game does not parse or is illegal under the match's rules."""

    def __init__(self, index: int, move: BpgnMove, reason: str) -> None:
        super().__init__(f"half-move {index + 1} ({move.label} {move.san}): {reason}")
        self.index = index
        self.move = move


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One replayed half-move: what the file says, what the match understood, what followed."""

    index: int
    move: BpgnMove
    bughouse_move: BughouseMove
    events: tuple[MatchEvent, ...]


def replay(
    game: BpgnGame,
    match: Match,
    *,
    times: Sequence[float] | None = None,
    force: bool = False,
) -> list[ReplayStep]:
    """Play every half-move of ``game`` on ``match`` (mutated), in file order.

    ``times`` gives each half-move's pipeline time ``t`` (default: its index). Raises
    :class:`BpgnReplayError` on the first move that does not parse or is illegal. A move marked
    ``forced`` (``-- {illegal P@b8}``) stands as an illegal drop (row 9); ``force`` lets every
    illegal drop of the file stand the same way, so a game recorded elsewhere with one replays.
    A null move ``--`` only confirms a turn that a removal already handed back; it makes no step.
    """
    if times is not None and len(times) != len(game.moves):
        raise ValueError(f"{len(times)} times for {len(game.moves)} half-moves")
    steps: list[ReplayStep] = []
    for index, move in enumerate(game.moves):
        t = float(index) if times is None else times[index]
        if move.is_null:
            _check_null(match, index, move)
            continue
        bughouse_move = _parse_move(match, index, move, force=force or move.forced)
        try:
            events = match.play(
                bughouse_move, t=t, clock_ms=move.clock_ms, force=force or move.forced
            )
            if move.removal is not None:
                events += _remove(match, move.removal, t)
        except ValueError as error:
            raise BpgnReplayError(index, move, str(error)) from error
        steps.append(ReplayStep(index, move, bughouse_move, tuple(events)))
    return steps


def _check_null(match: Match, index: int, move: BpgnMove) -> None:
    if match.turn(move.board) == move.color:
        raise BpgnReplayError(
            index, move, "a null move '--' may only follow a removal that gave the move back"
        )


def _remove(match: Match, removal: tuple[BoardId, chess.Square], t: float) -> list[MatchEvent]:
    board, square = removal
    events = match.remove_illegal_drop(board, t=t)
    removed = next(e for e in events if isinstance(e, Alert))
    if removed.details.get("square") != chess.square_name(square):
        where = removed.details.get("square")
        raise ValueError(f"the illegal drop on board {board} stood on {where}, not on {square}")
    return events


def _parse_move(match: Match, index: int, move: BpgnMove, *, force: bool) -> BughouseMove:
    if match.turn(move.board) != move.color:
        whose = f"{color_name(move.color)}'s turn on board {move.board}"
        raise BpgnReplayError(index, move, f"it is not {whose}")
    san = core_san(move)
    try:
        return match.parse_san(move.board, _full_san(match, move.board, san))
    except ValueError as error:
        if force and (drop := _drop_of(move.board, san)) is not None:
            return drop
        raise BpgnReplayError(index, move, str(error)) from error


def _full_san(match: Match, board: BoardId, san: str) -> str:
    """bughouse.pro writes a pawn capture without its file (``xe6``): find the one pawn."""
    if not san.startswith("x"):
        return san
    fitting: list[str] = []
    for file in "abcdefgh":
        try:
            match.parse_san(board, file + san)
        except ValueError:
            continue
        fitting.append(file + san)
    return fitting[0] if len(fitting) == 1 else san


def _drop_of(board: BoardId, san: str) -> BughouseMove | None:
    """A drop written in SAN, legal or not (``P@b8``, ``@e5``), as a move to force."""
    found = re.fullmatch(r"([PNBRQ]?)@([a-h][1-8])[+#]?", san)
    if found is None:
        return None
    piece = chess.PIECE_SYMBOLS.index((found[1] or "P").lower())
    square = chess.parse_square(found[2])
    return BughouseMove(board, chess.Move(square, square, drop=piece))


def core_san(move: BpgnMove) -> str:
    """The rules core writes a steal into the SAN itself: ``b8=Q(d1)``."""
    if move.steal is None:
        return move.san
    return f"{move.san.rstrip('+#')}({chess.square_name(move.steal[1])})"
