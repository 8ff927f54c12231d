"""The BPGN reader: text to :class:`~bughouse_bridge.bughouse.bpgn_model.BpgnGame`. Pure.

A lexer (tags, comments, move numbers, SAN, results; line breaks anywhere) and a parser that
sorts each move's comments into its clock, our dialect's annotations and the rest. It reads the
dialects described in ``bpgn.py`` (bughousedb, chess.com, bughouse.pro and our own); errors
raise :class:`~bughouse_bridge.bughouse.bpgn_model.BpgnError` with the line and column.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Final

import chess

from bughouse_bridge.bughouse.bpgn_model import (
    ILLEGAL_RE,
    MASKED_RE,
    NULL_SAN,
    REMOVED_RE,
    RESULTS,
    SAN_RE,
    STEAL_RE,
    UNREAD_RE,
    BpgnError,
    BpgnGame,
    BpgnMove,
    clock_of,
    normalize_comment,
)
from bughouse_bridge.bughouse.types import BoardId

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

_CHESSCOM_KNIGHT_DROP: Final = "$146@"  # chess.com's export glitch for "N@"
_TAG_RE: Final = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]', re.DOTALL)
_NUMBER_RE: Final = re.compile(r"(\d+)([AaBb])\.")
# A word ends at whitespace or where a tag, a comment or a variation would start.
_WORD_RE: Final = re.compile(r"[^\s\[\]{}();]+")
_UNSUPPORTED_WORDS: Final = {
    "(": "variations are not supported",
    ")": "variations are not supported",
    "]": "unexpected ']'",
    "}": "unexpected '}'",
}


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
    if SAN_RE.fullmatch(rest) is None:
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
        if self._nothing_yet and UNREAD_RE.fullmatch(text):
            self.unread_mark = True  # the writer's stand-in for a clock it did not read
        elif found := STEAL_RE.fullmatch(text):
            _only_once(self.steal, "steal")
            self.steal = BoardId(found[1]), chess.parse_square(found[2])
        elif found := ILLEGAL_RE.fullmatch(text):
            _only_once(self.illegal, "be illegal")
            self.illegal = found[1]
        elif found := REMOVED_RE.fullmatch(text):
            _only_once(self.removal, "remove a drop")
            self.removal = BoardId(found[1]), chess.parse_square(found[2])
        elif found := MASKED_RE.fullmatch(text):
            _only_once(self.masked, "be masked")
            self.masked = found[1]
        elif self.clock is None and not self.rest and (clock := clock_of(text)) is not None:
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
