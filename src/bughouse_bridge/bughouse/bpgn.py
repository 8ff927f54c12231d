"""BPGN (Bughouse Portable Game Notation): read and write the dialect bughousedb exports. Pure.

This module is the BPGN's public face; the work is done in one module per job:
``bpgn_model`` (the values: :class:`BpgnMove`, :class:`BpgnGame`, our dialect's comments),
``bpgn_reader`` (text to games), ``bpgn_tags`` (rules and date tags), ``bpgn_write`` (the pieces
of the written text), ``bpgn_document`` (the one writer: the live record, the archive,
:func:`write_bpgn`), ``bpgn_stream`` (a game from an event stream, through that writer) and
``bpgn_replay`` (a game played through the rules core).

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
  (:class:`~bughouse_bridge.bughouse.bpgn_document.BpgnDocument`).

Errors in the text raise :class:`BpgnError` (a ``ValueError``) with the 1-based line and column.

Building and replaying: :func:`numbered_moves`/:func:`game_from_moves` number played half-moves per
board, :func:`game_from_match_log` turns the match's events into "the game so far", and
:func:`replay` plays a game through :class:`~bughouse_bridge.bughouse.match.Match`.
"""

from bughouse_bridge.bughouse.bpgn_document import BpgnDocument, write_bpgn, write_bpgn_games
from bughouse_bridge.bughouse.bpgn_model import (
    NULL_SAN,
    PLAYER_TAGS,
    RESULTS,
    RULES_OVERRIDES_TAG,
    RULES_TAG,
    UNREAD_CLOCK_MARK,
    BpgnError,
    BpgnGame,
    BpgnMove,
    StealLike,
    chesscom_clock,
    format_clock,
    illegal_comment,
    is_clock_comment,
    is_reserved_comment,
    is_steal_comment,
    masked_comment,
    normalize_comment,
    parse_overrides,
    removed_comment,
    steal_comment,
)
from bughouse_bridge.bughouse.bpgn_reader import parse_bpgn, parse_bpgn_game
from bughouse_bridge.bughouse.bpgn_replay import BpgnReplayError, ReplayStep, core_san, replay
from bughouse_bridge.bughouse.bpgn_stream import game_from_match_log
from bughouse_bridge.bughouse.bpgn_tags import (
    format_overrides,
    record_date_tags,
    rules_tags,
    ruleset_from_game,
    ruleset_tags,
)
from bughouse_bridge.bughouse.bpgn_write import (
    Correction,
    PlainReader,
    PlayedMove,
    PlayedMoveLike,
    bpgn_move,
    closing_comment_for,
    correction_comment,
    game_from_moves,
    move_text,
    numbered_moves,
    played_move,
    record_note,
    tag_lines,
    team_result,
)

__all__ = [
    "NULL_SAN",
    "PLAYER_TAGS",
    "RESULTS",
    "RULES_OVERRIDES_TAG",
    "RULES_TAG",
    "UNREAD_CLOCK_MARK",
    "BpgnDocument",
    "BpgnError",
    "BpgnGame",
    "BpgnMove",
    "BpgnReplayError",
    "Correction",
    "PlainReader",
    "PlayedMove",
    "PlayedMoveLike",
    "ReplayStep",
    "StealLike",
    "bpgn_move",
    "chesscom_clock",
    "closing_comment_for",
    "core_san",
    "correction_comment",
    "format_clock",
    "format_overrides",
    "game_from_match_log",
    "game_from_moves",
    "illegal_comment",
    "is_clock_comment",
    "is_reserved_comment",
    "is_steal_comment",
    "masked_comment",
    "move_text",
    "normalize_comment",
    "numbered_moves",
    "parse_bpgn",
    "parse_bpgn_game",
    "parse_overrides",
    "played_move",
    "record_date_tags",
    "record_note",
    "removed_comment",
    "replay",
    "rules_tags",
    "ruleset_from_game",
    "ruleset_tags",
    "steal_comment",
    "tag_lines",
    "team_result",
    "write_bpgn",
    "write_bpgn_games",
]
