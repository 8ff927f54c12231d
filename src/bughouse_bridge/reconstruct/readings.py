"""What a settled physical placement means for the match: the reading of one board.

The order of the questions matters and is the reconstructor's policy:
0. when the clock counted two or more plies since the last commit: exactly that many plies
   (``pressed_chain``), or the last move (pressed, not final) replaced plus the pressed replies
   (``revised_chain``), or else the plies with one piece still in the next hand; only a board
   read in full replaces a committed move;
1. a move of the side to move (legal, an illegal drop that stands, or one waiting for the other
   board: a drop whose piece is not yet in the pocket, a promotion whose steal is not yet seen);
2. the row-9 remedy (the opponent took an illegal drop off, maybe then replied);
3. a slide correction (the last move replaced while the opponent has not replied);
4. two plies at once (the opponent replied before the mover's move was committed), if unique;
5. an illegal one-move change (wrong turn, illegal move, illegal steal);
6. a result shown with the kings; 7. unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import placement_of
from bughouse_bridge.bughouse.rules import PromotionPolicy
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement
from bughouse_bridge.reconstruct.occupancy import result_signal
from bughouse_bridge.reconstruct.shapes import (
    Diff,
    Shape,
    diff,
    explaining_shapes,
    lone_removal,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.match import Match

Changes = tuple[tuple[chess.Square, chess.Piece | None], ...]

_STANDING_DROP_CODES = frozenset({AlertCode.DROP_MATE, AlertCode.PAWN_DROP_RANK})
_WAITING_CODES = frozenset({AlertCode.DROP_NOT_IN_POCKET, AlertCode.STEAL_MISSING})


@dataclass(frozen=True, slots=True)
class Legal:
    """Moves to commit in order. ``standing`` is set for an illegal drop that stands (row 9)."""

    moves: tuple[BughouseMove, ...]
    standing: Judgement | None = None

    @property
    def several(self) -> bool:
        return len(self.moves) > 1


@dataclass(frozen=True, slots=True)
class Correction:
    """The last move on the board is replaced (a slide, a change of mind).

    ``moves`` is the replacement, followed by the opponent's reply when he has already answered:
    a slide committed one square short by a press that beat the scanner, then a blitz reply.
    """

    moves: tuple[BughouseMove, ...]


@dataclass(frozen=True, slots=True)
class Remedy:
    """The illegal drop was taken off (row 9); ``then`` is the remover's move, if made already."""

    then: BughouseMove | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A move that becomes legal when the other board catches up (drop grace, pending steal)."""

    move: BughouseMove
    judgement: Judgement


@dataclass(frozen=True, slots=True)
class Illegal:
    move: BughouseMove
    color: chess.Color
    judgement: Judgement


@dataclass(frozen=True, slots=True)
class Signal:
    result: str


@dataclass(frozen=True, slots=True)
class Unexplained:
    pass


Reading = Legal | Correction | Remedy | Waiting | Illegal | Signal | Unexplained


class Firmness(Enum):
    """How firmly a board's last committed move stands: what a human arbiter would still revise.

    A move is revised only by its own mover's hand (a slide, a change of mind, a press that beat
    the scanner); once it has stood while the opponent's clock ran, no later placement rewrites it
    (a transient during the opponent's move can fit "the position before it plus another move").
    """

    OPEN = "open"  # committed without its press (no clock, or none yet): revisable until replied
    HASTY = "hasty"  # committed by a press before the board settled: the scanner may lag behind
    PRESSED = "pressed"  # committed with its press on a settled board
    FINAL = "final"  # stood ``press_grace`` after its press, or the reply was pressed on it

    @property
    def pressed_not_final(self) -> bool:
        """Pressed, but the press may have beaten the scanner or the mover's own hand."""
        return self in {Firmness.HASTY, Firmness.PRESSED}


@dataclass(frozen=True, slots=True)
class Context:
    """What the reconstructor remembers about the board's last move."""

    now: float
    correctable: BughouseMove | None = None  # the last move, if it may still be replaced
    parent: chess.Board | None = None  # the position before ``correctable``
    standing_drop: BughouseMove | None = None  # an illegal drop the opponent may take off
    pressed: bool = False  # the side to move pressed the clock since the last commit
    pending: BughouseMove | None = None  # a legal move seen settled, waiting for the press
    trail: frozenset[tuple[chess.Square, chess.Piece]] = frozenset()  # seen since last commit
    firmness: Firmness = Firmness.OPEN  # how firmly the last move stands
    presses: int = 0  # clock presses since the last commit: plies made, by the clock's count
    # Every square change since the last commit, in order (``None``: the square emptied).
    changes: Changes = ()
    changes_of_last: Changes = ()  # the changes that led to the last commit


def read(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading:
    placement = physical[board]
    chained = _chain(match, board, physical, context)
    if chained is not None:
        return chained
    candidates = one_ply(match, board, physical)
    for move, color, judgement in candidates:
        own = _own_move(move, color, judgement, match.turn(board))
        if own is not None:
            return own
    if context.pressed:  # the mover said "done": a reply on top beats a changed mind
        # ... unless the last move was pressed before its own hand was done: then one press
        # is that move completed plus one reply, not two new plies.
        later = (
            _remedy(match, board, physical, context)
            or _correction_and_reply(match, board, physical, context)
            or _two_ply(match, board, physical, context)
            or _correction(match, board, physical, context)
        )
    else:
        later = (
            _remedy(match, board, physical, context)
            or _correction(match, board, physical, context)
            or _two_ply(match, board, physical, context)
        )
    later = later or _correction_and_reply(match, board, physical, context)
    if later is not None:
        return later
    signal = result_signal(placement, ())
    if signal is not None:  # kings put on the centre on purpose: a result, not a move
        return Signal(signal)
    if candidates and not _legal_with_piece_in_hand(match, board, physical, context):
        move, color, judgement = candidates[0]
        return Illegal(move, color, judgement)
    return Unexplained()


def _chain(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Legal | Correction | None:
    """Question 0. Only a board read in full revises a committed move: a piece supposed lifted
    unseen (a chain "in flight") may complete a chain of new plies, never rewrite the last move
    (else the hasty move's own piece, slid on after the press, reads as the next hand's lift, and
    a capturer still in the hand as the last move changed plus a capture elsewhere)."""
    chain = context.presses >= _CHAIN_MIN  # the clock counted the plies: read that many
    plies = pressed_chain(match, board, physical, context) if chain else None
    if plies is not None:
        return Legal(plies)
    revised = revised_chain(match, board, physical, context)
    if revised is not None:
        return revised
    plies = pressed_chain(match, board, physical, context, in_flight=True) if chain else None
    return None if plies is None else Legal(plies)


def _legal_with_piece_in_hand(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> bool:
    """The change also reads as a legal move of the side to move (its piece seen arriving) with
    the opponent's hand already at work: a piece lifted (the victim held), his own piece set
    down on the way (next to its target). Not an illegal move yet; if it stays, it is reported
    as unexplained."""
    position = match.position(board)
    arrived = {change for change in context.changes if change[1] is not None}
    for move in position.legal_moves:
        if arrival_of(position, move) not in arrived:
            continue
        if not match.judge(BughouseMove(board, move)).legal:
            continue
        after = position.copy(stack=False)
        if move.drop is not None:
            after.set_piece_at(move.to_square, chess.Piece(move.drop, position.turn))
        else:
            chess.Board.push(after, move)
        if _opponents_hand(diff(placement_of(after), physical[board]), position.turn):
            return True
    return False


def _opponents_hand(change: Diff, mover: chess.Color) -> bool:
    """A small change the opponent of ``mover`` makes mid-move: pieces lifted, his own pieces
    put down."""
    arrivals_his = all(piece.color != mover for piece in change.arrivals.values())
    return not change.empty and len(change.squares) <= _HAND_SQUARES and arrivals_his


_HAND_SQUARES = 3  # a piece lifted and set down elsewhere, and a victim in the hand


def _own_move(
    move: BughouseMove, color: chess.Color, judgement: Judgement, turn: chess.Color
) -> Reading | None:
    if color != turn:
        return None
    if judgement.legal:
        return Legal((move,))
    if judgement.code in _STANDING_DROP_CODES and move.is_drop:
        return Legal((move,), standing=judgement)
    if judgement.code in _WAITING_CODES:
        return Waiting(move, judgement)
    return None


def one_ply(
    match: Match, board: BoardId, physical: Mapping[BoardId, str]
) -> list[tuple[BughouseMove, chess.Color, Judgement]]:
    """Every one-move reading of the change, judged, legal ones first."""
    judged = [
        (move, shape.color, _judge(match, move, shape.color))
        for shape in explaining_shapes(match.position(board), physical[board])
        for move in bughouse_moves(match, board, shape, physical)
    ]
    return sorted(judged, key=lambda item: not item[2].legal)


def _judge(match: Match, move: BughouseMove, color: chess.Color) -> Judgement:
    judgement = match.judge(move, color=color)
    if judgement.code is not AlertCode.WRONG_TURN or _legal_for(match, move, color):
        return judgement
    # A change by the side not on move that would not even be legal on its turn.
    what = f"{move.uci} is not a legal move for either side"
    return Judgement(
        legal=False, code=AlertCode.ILLEGAL_MOVE, rule=match.rules.ref(10), message=what
    )


def _legal_for(match: Match, move: BughouseMove, color: chess.Color) -> bool:
    """Would ``move`` be legal (as chess, pockets counted) if ``color`` were on move?"""
    position = match.position(move.board)
    position.turn = color
    position.ep_square = None
    if move.move.drop is not None:
        return bool(position.pockets[color].count(move.move.drop))
    return position.is_legal(move.move)


def _steals(match: Match) -> bool:
    return match.rules.promotion is PromotionPolicy.STEAL


def bughouse_moves(
    match: Match, board: BoardId, shape: Shape, physical: Mapping[BoardId, str]
) -> list[BughouseMove]:
    """The move on ``board``; a promotion under a steal rule takes the piece the other board
    lost, if it lost exactly one piece of the promoted kind and colour."""
    plain = BughouseMove(board, shape.move)
    if shape.move.promotion is None or not _steals(match) or board.other not in physical:
        return [plain]
    removal = lone_removal(match.board_fen(board.other), physical[board.other])
    wanted = chess.Piece(shape.move.promotion, shape.color)
    if removal is None or removal[1] != wanted:
        return [plain]
    return [BughouseMove(board, shape.move, steal_square=removal[0])]


def _legal_replies(
    match: Match, board: BoardId, physical: Mapping[BoardId, str]
) -> list[BughouseMove]:
    turn = match.turn(board)
    return [
        move
        for shape in explaining_shapes(match.position(board), physical[board])
        if shape.color == turn
        for move in bughouse_moves(match, board, shape, physical)
        if match.judge(move).legal
    ]


def _remedy(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    drop = context.standing_drop
    if drop is None or chess.BaseBoard(physical[board]).piece_at(drop.move.to_square):
        return None
    after = match.copy()
    try:
        after.remove_illegal_drop(board, t=context.now)
    except ValueError:
        return None
    if after.board_fen(board) == physical[board]:
        return Remedy(None)
    replies = _legal_replies(after, board, physical)
    return Remedy(replies[0]) if len(replies) == 1 else None


def _correction(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    last, parent = context.correctable, context.parent
    if last is None or parent is None:
        return None
    # Only the mover's own hand revises a move: the piece it put down has moved on. A placement
    # that leaves it standing (the opponent lifting a piece to capture) is not a correction.
    if not _revisable(match, board, physical, last, context.firmness):
        return None
    # Cheap physics first: a takeback replays the whole match log.
    shapes = explaining_shapes(parent, physical[board])
    if not any(shape.color == parent.turn and shape.move != last.move for shape in shapes):
        return None
    before = _before_last(match, board, context)
    if before is None:
        return None
    changes = context.changes_of_last + context.changes
    moves = [
        move
        for move in _legal_replies(before, board, physical)
        if move != last and fits_changes(parent, (move,), changes)
    ]
    return Correction((moves[0],)) if len(moves) == 1 else None


def _correction_and_reply(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    """The last move was read one square short (the press beat the scanner on a slide) and the
    opponent has answered already: replace it and commit the reply, if exactly one pair fits."""
    last = context.correctable
    # Only a commit the scanner may have overtaken is doubted; a settled one is evidence.
    if last is None or context.parent is None or not context.firmness.pressed_not_final:
        return None
    if not _revisable(match, board, physical, last, context.firmness):
        return None
    before = _before_last(match, board, context)
    if before is None:
        return None
    changes = context.changes_of_last + context.changes
    pairs = [
        pair
        for pair in _two_ply_pairs(before, board, physical, context.now)
        if pair[0] != last and fits_changes(context.parent, pair, changes)
    ]
    chosen = _choose_pair(pairs, before.position(board), context)
    return None if chosen is None else Correction(chosen)


def _revisable(
    match: Match,
    board: BoardId,
    physical: Mapping[BoardId, str],
    last: BughouseMove,
    firmness: Firmness,
) -> bool:
    """Physics that only the last move's own mover explains; a final move is never revised."""
    if firmness is Firmness.FINAL:
        return False
    if _last_move_undone(match, board, physical, last):
        return True
    return firmness is Firmness.HASTY and _lagging_origin(match, board, physical, last)


def _last_move_undone(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], last: BughouseMove
) -> bool:
    """A wrongly read move leaves its target square (or its origin) different on the board, and
    not taken by an opponent's piece: that is a capture of the move's piece, not its mover's
    hand going on."""
    change = diff(match.board_fen(board), physical[board])
    target = last.move.to_square
    origin_changed = last.move.drop is None and last.move.from_square in change.squares
    now_on_target = chess.BaseBoard(physical[board]).piece_at(target)
    captured = now_on_target is not None and now_on_target.color == match.turn(board)
    # ... unless the piece went on (it stands elsewhere now) and the opponent moved in after it.
    piece = match.position(board).piece_at(target)
    went_on = any(p == piece and sq != target for sq, p in change.arrivals.items())
    return (target in change.squares and (went_on or not captured)) or origin_changed


def _lagging_origin(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], last: BughouseMove
) -> bool:
    """The scanner reported a piece's arrival before its departure and the press came in
    between: a piece of the kind the last move put down has left another square since (a drop
    that was a move, or a move from elsewhere). Only for a press before the board settled: a
    piece lifted later is the opponent's hand (a capture), not a lagging scan."""
    arrived = match.position(board).piece_at(last.move.to_square)
    removed = diff(match.board_fen(board), physical[board]).removed
    return any(
        piece == arrived and square != last.move.to_square for square, piece in removed.items()
    )


def _before_last(match: Match, board: BoardId, context: Context) -> Match | None:
    before = match.copy()
    try:
        before.takeback(board, t=context.now)
    except ValueError:
        return None
    return before


def _two_ply(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Reading | None:
    if context.presses > 2:  # 3 presses are 3 plies: d2-d3 … d3-d4 is not d2-d4
        return None
    position = match.position(board)
    pairs = [
        pair
        for pair in _two_ply_pairs(match, board, physical, context.now)
        if fits_changes(position, pair, context.changes)
    ]
    chosen = _choose_pair(pairs, position, context)
    return None if chosen is None else Legal(chosen)


def _two_ply_pairs(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], now: float
) -> list[tuple[BughouseMove, BughouseMove]]:
    """Every legal move followed by a legal reply that ends on the physical placement."""
    change = diff(match.board_fen(board), physical[board])
    if len(change.squares) < 2:
        return []
    pairs = []
    for first in match.position(board).legal_moves:
        candidate = BughouseMove(board, first)
        if _within(first, change.squares) and match.judge(candidate).legal:
            after = match.copy()
            after.play(candidate, t=now)
            pairs += [(candidate, reply) for reply in _legal_replies(after, board, physical)]
    return pairs


def _choose_pair(
    pairs: list[tuple[BughouseMove, BughouseMove]], position: chess.Board, context: Context
) -> tuple[BughouseMove, BughouseMove] | None:
    # A dropped piece captured at once leaves no trace of its kind: the move seen settled
    # before the reply tells which it was.
    for seen in (
        [pair for pair in pairs if pair[0] == context.pending],
        [pair for pair in pairs if arrival_of(position, pair[0].move) in context.trail],
        pairs,
    ):
        if len(seen) == 1:
            return seen[0]
    return None


def arrival_of(position: chess.Board, move: chess.Move) -> tuple[chess.Square, chess.Piece | None]:
    """The piece a move puts on its target square."""
    if move.drop is not None:
        return move.to_square, chess.Piece(move.drop, position.turn)
    if move.promotion is not None:
        return move.to_square, chess.Piece(move.promotion, position.turn)
    return move.to_square, position.piece_at(move.from_square)


def _within(move: chess.Move, squares: frozenset[chess.Square]) -> bool:
    """A first move of two plies touches only squares that differ at the end."""
    if move.drop is not None:
        return move.to_square in squares
    return move.from_square in squares and move.to_square in squares


def through_passing_positions(  # noqa: PLR0913, PLR0917 - the reading's inputs
    match: Match,
    board: BoardId,
    physical: Mapping[BoardId, str],
    seen: Sequence[str],
    now: float,
    changes: Changes = (),
) -> Legal | None:
    """A move the scanner showed only in passing, then at most two plies to the board now.

    Fast play can leave a move on the board for less than the stability window, and its press
    reaches us after the opponent's hand is already on the board (the clock reports up to a
    second late). The placements seen since the last commit are evidence even if none settled,
    the way DgtDriver's reachable-positions graph uses them; a move is taken from them only if
    the board *now* follows from it by legal plies, so a transient alone never commits anything.
    """
    turn = match.turn(board)
    for placement in _distinct_latest_first(seen, skip=physical[board]):
        for move, color, judgement in one_ply(match, board, {**physical, board: placement}):
            if color != turn or not judgement.legal:
                continue
            after = match.copy()
            after.play(move, t=now)
            rest = read(after, board, physical, Context(now))
            plies = (move, *rest.moves) if isinstance(rest, Legal) else ()
            fits = fits_changes(match.position(board), plies, changes)
            if isinstance(rest, Legal) and rest.standing is None and fits:
                return Legal(plies)
    return None


def _distinct_latest_first(seen: Sequence[str], *, skip: str) -> list[str]:
    placements: list[str] = []
    for placement in reversed(seen):
        if placement != skip and placement not in placements:
            placements.append(placement)
    return placements[:_PASSING_POSITIONS_TRIED]


# Each try replays up to two plies of search; the last few placements are where a lost move is.
_PASSING_POSITIONS_TRIED = 8


# A chain is read from the clock's count when the board fell two or more plies behind.
_CHAIN_MIN = 2
_CHAIN_MAX = 8  # the longest chain searched (each ply must put down a piece seen arriving)


def pressed_chain(
    match: Match,
    board: BoardId,
    physical: Mapping[BoardId, str],
    context: Context,
    *,
    in_flight: bool = False,
) -> tuple[BughouseMove, ...] | None:
    """Premove-speed play, where the board is never still: the clock was pressed ``presses``
    times since the last commit, so that many plies were made. The plies that end exactly on the
    physical placement, each putting down a piece the scanner saw arriving since the last commit,
    in the order the pieces arrived; if unique. Else one ply fewer (the last reply pressed while
    its piece was still in the hand). ``in_flight``: the same with one piece lifted off that
    placement (the clock reports a press up to a scan late, when the next hand is already on the
    board); asked only after an exact ``revised_chain``."""
    presses = context.presses
    search = _ChainSearch(board, physical[board], context.changes, context.now, in_flight=in_flight)
    return search.first_unique(match, (presses, presses - 1))


def revised_chain(
    match: Match, board: BoardId, physical: Mapping[BoardId, str], context: Context
) -> Correction | None:
    """The same when the last move was pressed before its mover's hand was done (a slide, a
    slid drop or capture) and has not stood since: the board never settled on its real square
    before the replies came. The last move is replaced only if its piece has left its square
    (the mover's hand, not the opponent's) and the replacement's piece was seen arriving."""
    last, parent = context.correctable, context.parent
    pressed_not_final = context.firmness.pressed_not_final
    if last is None or parent is None or not pressed_not_final or context.presses < 1:
        return None
    if not _revisable(match, board, physical, last, context.firmness):
        return None
    before = _before_last(match, board, context)
    if before is None:
        return None
    changes = context.changes_of_last + context.changes
    search = _ChainSearch(board, physical[board], changes, context.now, skip_first=last)
    plies = search.first_unique(before, (context.presses + 1,))  # the replacement + the replies
    return None if plies is None else Correction(plies)


@dataclass(frozen=True, slots=True)
class _ChainSearch:
    board: BoardId
    target: str
    changes: Changes
    now: float
    skip_first: BughouseMove | None = None  # a move the chain may not start with
    in_flight: bool = False  # the target may lack one piece: lifted by the next hand

    def first_unique(
        self, match: Match, counts: tuple[int, ...]
    ) -> tuple[BughouseMove, ...] | None:
        """The unique chain of the first count that has any, to the exact placement or (when
        ``in_flight``) to it with one piece lifted."""
        for plies in counts:
            if not _CHAIN_MIN - self.in_flight <= plies <= _CHAIN_MAX:
                continue
            found = self.chains(match, plies, 0)
            if found:
                return found[0] if len(found) == 1 else None
        return None

    def reached(self, placement: str) -> bool:
        if placement == self.target:
            return True
        return self.in_flight and lone_removal(placement, self.target) is not None

    def chains(self, match: Match, plies: int, start: int) -> list[tuple[BughouseMove, ...]]:
        """Chains of ``plies`` legal plies to the target, arriving at ``changes[start:]``."""
        if plies == 0:
            return [()] if self.reached(match.board_fen(self.board)) else []
        if plies == 1:  # the last ply: no need to play it out
            last: list[tuple[BughouseMove, ...]] = [
                (move,)
                for move, _index in self._next_moves(match, start)
                if self._reached_after(match, move) and not (start == 0 and move == self.skip_first)
            ]
            return last[:2]
        found: list[tuple[BughouseMove, ...]] = []
        for move, index in self._next_moves(match, start):
            if start == 0 and move == self.skip_first:
                continue
            if not _left_in_time(match.position(self.board), move.move, index, self.changes):
                continue
            after = match.copy()
            try:
                after.play(move, t=self.now)
            except ValueError:
                continue
            found += [(move, *rest) for rest in self.chains(after, plies - 1, index + 1)]
            if len(found) > 1:
                break  # ambiguous: no need to look further
        return found

    def _reached_after(self, match: Match, move: BughouseMove) -> bool:
        position = match.position(self.board)
        chess.Board.push(position, move.move)  # placement only
        return self.reached(placement_of(position))

    def _next_moves(self, match: Match, start: int) -> list[tuple[BughouseMove, int]]:
        """Legal moves of the side to move whose piece arrived at ``start`` or later (the
        first such arrival), cheap tests first."""
        position = match.position(self.board)
        first: dict[tuple[chess.Square, chess.Piece | None], int] = {}
        for index in range(start, len(self.changes)):
            if self.changes[index][1] is not None:
                first.setdefault(self.changes[index], index)
        squares = {square for square, piece in first if piece and piece.color == position.turn}
        moves = []
        for move in position.legal_moves:
            arrived = first.get(arrival_of(position, move)) if move.to_square in squares else None
            if arrived is not None:
                candidate = BughouseMove(self.board, move)
                if match.judge(candidate).legal:
                    moves.append((candidate, arrived))
        return moves


def fits_changes(position: chess.Board, moves: Sequence[BughouseMove], changes: Changes) -> bool:
    """Plies against the order of the sensor changes since the last commit (no changes: no
    evidence): each ply puts its piece down after the ply before did, and a moved piece's square
    is reported empty before the next ply's piece is put down."""
    if not changes:
        return True
    board = position.copy(stack=False)
    start = 0
    for move in moves:
        arrival = arrival_of(board, move.move)
        index = next((i for i in range(start, len(changes)) if changes[i] == arrival), None)
        if index is None or not _left_in_time(board, move.move, index, changes):
            return False
        if move.move.drop is not None:
            board.set_piece_at(move.move.to_square, chess.Piece(move.move.drop, board.turn))
            board.turn = not board.turn
        else:
            chess.Board.push(board, move.move)
        start = index + 1
    return True


def _left_in_time(position: chess.Board, move: chess.Move, arrived: int, changes: Changes) -> bool:
    """A moved piece's square is reported empty before the next piece is put down elsewhere
    (a scan may report the departure just after the arrival, never a ply later)."""
    if move.drop is not None or position.is_castling(move) or position.is_en_passant(move):
        return True
    origin = move.from_square
    following = next(
        (
            i
            for i in range(arrived + 1, len(changes))
            if changes[i][1] is not None and changes[i][0] != origin
        ),
        len(changes),
    )
    # No departure at all is no evidence: it may have come before the last commit.
    return (origin, None) in changes[:following] or (origin, None) not in changes
