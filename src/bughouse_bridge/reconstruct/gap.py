"""The gap solver: which plies lead from the game before a link gap to the placements seen after it.

Pure. ``solve_gap(match, targets, turns=...)`` searches the legal ply sequences, on one board or
on both together (then the plies of the two boards interleave, so a drop can use a piece that a
capture on the other board delivered during the gap), that turn the match into one whose boards
show ``targets``. Everything that constrains the plies is used:

- the rules: only moves the match itself calls legal are tried (pockets, drop limits, steals);
- the side on move now, when a running clock shows it: the number of plies on that board then has
  a known parity;
- the placements: a lower bound on the plies still needed (``_plies_needed``) prunes every branch
  that cannot reach the target in the plies left. Every ply of a colour *arrives* on one square
  (two for castling), so the squares whose final piece of that colour is not there yet need at
  least as many of its plies; a piece that *leaves* its square needs one of its own plies or a
  capture by the opponent;
- boards that are not being solved must keep their placement (a steal would change it).

The search deepens iteratively over the number of plies and stops at the shortest length that
explains the placements (a longer explanation spends tempi on moves that undo each other; it is
not preferred over a shorter one). Within that length it finds *every* sequence, with a
transposition table so that move orders reaching the same state are explored once. The answer is
a value: ``unique`` (every explaining sequence ends in the same positions, pockets and side to
move), ``ambiguous`` (several different end states; the candidates are listed, capped), ``none``
(nothing explains the placements within ``max_plies``) or ``unknown`` (the work cap was reached
first). The caller never waits on a hang: the work is bounded by ``max_nodes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING, Any

import chess
import chess.variant

from bughouse_bridge.bughouse.types import BoardId, BughouseMove

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from bughouse_bridge.bughouse.board import BughouseBoard
    from bughouse_bridge.bughouse.match import Match

__all__ = [
    "Candidate",
    "GapLimits",
    "GapSolution",
    "Verdict",
    "end_state",
    "filled_positions",
    "gap_details",
    "solve_gap",
]


class Verdict(StrEnum):
    UNIQUE = "unique"
    AMBIGUOUS = "ambiguous"
    NONE = "none"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class GapLimits:
    max_plies: int = 24  # per board
    max_nodes: int = 50_000  # plies tried in all; the search gives up ("unknown") beyond
    max_candidates: int = 8  # distinct end states kept (and shown to the arbiter)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One explaining sequence, in playing order (the boards' plies interleaved)."""

    moves: tuple[BughouseMove, ...]
    end: tuple[str, ...]  # ``end_state`` of the match after the moves

    def on(self, board: BoardId) -> list[BughouseMove]:
        return [move for move in self.moves if move.board is board]


@dataclass(frozen=True, slots=True)
class GapSolution:
    verdict: Verdict
    candidates: tuple[Candidate, ...] = ()  # one per distinct end state, shortest first
    nodes: int = 0  # plies tried
    confirmed: bool = True  # False: unique taken when only its confirmation ran out of work

    @property
    def unique(self) -> Candidate | None:
        return self.candidates[0] if self.verdict is Verdict.UNIQUE else None


class _OutOfWorkError(Exception):
    pass


_Goal = tuple[tuple[chess.Color, chess.PieceType, chess.Bitboard], ...]


@dataclass(slots=True)
class _Search:
    """Depth-first over plain python-chess boards (push/pop, fast); every sequence that reaches
    the targets is then replayed through the ``Match``, which alone decides legality under the
    configured rules (the board search offers crazyhouse moves, a superset for most rules)."""

    match: Match
    targets: Mapping[BoardId, str]
    limits: GapLimits
    goal: dict[BoardId, _Goal]
    refills: dict[BoardId, bool]  # the other board is solved too: its captures fill pockets
    boards: dict[BoardId, BughouseBoard] = field(default_factory=dict)
    nodes: int = 0
    seen: set[tuple[object, ...]] = field(default_factory=set)
    found: dict[tuple[str, ...], Candidate] = field(default_factory=dict)

    def run(self, plies: Mapping[BoardId, int]) -> None:
        self.seen.clear()
        self.boards = {board: self.match.position(board) for board in BoardId}  # type: ignore[misc]
        self._walk(dict(plies), [])

    def _walk(self, left: dict[BoardId, int], path: list[BughouseMove]) -> None:
        key = (*(b._transposition_key() for b in self.boards.values()), *left.values())  # noqa: SLF001
        if key in self.seen:
            return
        self.seen.add(key)
        if not any(left.values()):
            self._arrived(path)
            return
        for board, plies in left.items():
            if plies:
                self._branch(board, left, path)

    def _branch(self, board: BoardId, left: dict[BoardId, int], path: list[BughouseMove]) -> None:
        position = self.boards[board]
        partner = self.boards[board.other]
        moves = list(position.legal_moves)
        left[board] -= 1
        try:
            for move in moves:
                self.nodes += 1
                if self.nodes > self.limits.max_nodes:
                    raise _OutOfWorkError
                mover = position.turn
                position.push(move)
                captured = position.captured
                if _reachable(position, self.goal[board], left[board], refills=self.refills[board]):
                    if captured is not None:
                        partner.pockets[not mover].add(captured.piece_type)
                    path.append(BughouseMove(board, move))
                    self._walk(left, path)
                    path.pop()
                    if captured is not None:
                        partner.pockets[not mover].remove(captured.piece_type)
                position.pop()
        finally:
            left[board] += 1

    def _arrived(self, path: list[BughouseMove]) -> None:
        if len(self.found) >= self.limits.max_candidates:
            return
        # The match places pieces as the search boards do (the search plays no steals), so
        # the goal is checked on the search boards, before the costlier replay.
        if not all(_at_goal(self.boards[board], goal) for board, goal in self.goal.items()):
            return  # a goal square holds another piece (or, castling, a piece too many)
        match = self.match.copy()
        if not all(match.play_quietly(move) for move in path):
            return  # legal in crazyhouse, not under these rules
        end = end_state(match)
        self.found.setdefault(end, Candidate(tuple(path), end))


def end_state(match: Match) -> tuple[str, ...]:
    """What a gap's explanation decides: placements, pockets, side to move, castling, en passant
    of both boards (the move counters are not part of it)."""
    return tuple(" ".join(match.fen(board).split()[:4]) for board in BoardId)


def _at_goal(position: chess.BaseBoard, goal: _Goal) -> bool:
    return all(position.pieces_mask(kind, color) == wanted for color, kind, wanted in goal)


def _goal(placement: str) -> _Goal:
    board = chess.BaseBoard(placement)
    return tuple(
        (color, piece_type, board.pieces_mask(piece_type, color))
        for color in chess.COLORS
        for piece_type in chess.PIECE_TYPES
    )


_FAR = 99  # a piece that cannot get there


def _knight_distances() -> list[list[int]]:
    table = []
    for start in chess.SQUARES:
        dist = [_FAR] * 64
        dist[start] = 0
        frontier = [start]
        while frontier:
            square = frontier.pop(0)
            for target in chess.scan_forward(chess.BB_KNIGHT_ATTACKS[square]):
                if dist[target] == _FAR:
                    dist[target] = dist[square] + 1
                    frontier.append(target)
        table.append(dist)
    return table


_KNIGHT = _knight_distances()


def _pawn_distance(color: chess.Color, start: chess.Square, goal: chess.Square) -> int:
    forward = chess.square_rank(goal) - chess.square_rank(start)
    if color == chess.BLACK:
        forward = -forward
    sideways = abs(chess.square_file(goal) - chess.square_file(start))
    if forward <= 0 or sideways > forward:
        return _FAR
    home = chess.square_rank(start) == (1 if color == chess.WHITE else 6)
    return forward - 1 if home and forward - sideways >= 2 else forward


def _distance(  # noqa: PLR0911 - one answer per kind of piece
    piece_type: chess.PieceType, color: chess.Color, start: chess.Square, goal: chess.Square
) -> int:
    """The fewest moves a piece needs from ``start`` to ``goal`` on an empty board."""
    if start == goal:
        return 0
    if piece_type == chess.KNIGHT:
        return _KNIGHT[start][goal]
    if piece_type == chess.PAWN:
        return _pawn_distance(color, start, goal)
    if piece_type == chess.KING:
        return chess.square_distance(start, goal)
    line = bool(chess.BB_RAYS[start][goal])
    diagonal = (
        line
        and chess.square_rank(start) != chess.square_rank(goal)
        and (chess.square_file(start) != chess.square_file(goal))
    )
    straight = line and not diagonal
    if piece_type == chess.ROOK:
        return 1 if straight else 2
    if piece_type == chess.BISHOP:
        if diagonal:
            return 1
        same_shade = bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[start]) == bool(
            chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[goal]
        )
        return 2 if same_shade else _FAR
    return 1 if line else 2  # queen


def _distance_tables() -> dict[tuple[chess.Color, chess.PieceType], list[list[int]]]:
    """``_distance`` for every piece, start and goal, looked up in the search's inner loop."""
    return {
        (color, piece_type): [
            [_distance(piece_type, color, start, goal) for goal in chess.SQUARES]
            for start in chess.SQUARES
        ]
        for color in chess.COLORS
        for piece_type in chess.PIECE_TYPES
    }


_DISTANCES = _distance_tables()


@lru_cache(maxsize=1 << 16)
def _arrivals_cost(  # noqa: PLR0913, PLR0917 - one piece kind's parts, as a cache key
    color: chess.Color,
    piece_type: chess.PieceType,
    wanted: chess.Bitboard,
    there: chess.Bitboard,
    droppable: bool,  # noqa: FBT001 - in the pocket, or the other board may deliver one
    promotable: bool,  # noqa: FBT001 - a pawn of this colour is on the board
    castles: bool,  # noqa: FBT001 - the king may still castle
) -> int:
    """The plies of ``color`` needed at least to bring its ``piece_type`` pieces to every
    ``wanted`` square they are not on yet (``there``: where they stand now). A function of
    bitboards and flags only, so that the many positions of a search share the answers."""
    total = 0
    table = _DISTANCES[color, piece_type]
    last_rank = chess.BB_RANK_8 if color == chess.WHITE else chess.BB_RANK_1
    for square in chess.scan_forward(wanted & ~there):
        best = _FAR
        if droppable and piece_type != chess.KING:
            best = 1  # a drop
        if promotable and piece_type not in {chess.PAWN, chess.KING}:
            best = min(best, 1 if chess.BB_SQUARES[square] & last_rank else 2)  # a promotion
        if castles and piece_type == chess.KING:
            best = 1  # castling: compared with a king walk, one move spared (see ``_reachable``)
        for start in chess.scan_forward(there):
            best = min(best, table[start][square])
        total += best
    return total


def _reachable(
    position: chess.variant.CrazyhouseBoard, goal: _Goal, plies: int, *, refills: bool
) -> bool:
    """Can ``plies`` more plies (the side on move first) turn ``position`` into ``goal``?

    A lower bound per colour, never more than the truth: every square whose goal piece is not
    there yet needs that piece brought in, at least as many of its own moves as the nearest piece
    of that type needs on an empty board (or one drop, or a promotion); castling moves two pieces
    at once (the king counts one move, the rook one spare move while castling is possible).
    Every piece not where the goal has one must leave: by a ply of its own side or by being
    captured.
    """
    return _slack(position, goal, plies, refills=refills) is not None


def _slack(
    position: chess.variant.CrazyhouseBoard, goal: _Goal, plies: int, *, refills: bool
) -> int | None:
    """``None`` when the goal is out of reach (see ``_reachable``); else how many plies of the
    side on move may still go elsewhere than to a goal square.

    The search's innermost function (called for every node): per-colour counts are lists
    indexed by the colour (``chess.WHITE`` is 1) and the piece masks are read from the board's
    bitboards directly (a third less time than with dicts and ``pieces_mask``)."""
    turn = position.turn
    own = [0, 0]
    own[turn] = (plies + 1) // 2
    own[not turn] = plies // 2
    cost = [0, 0]
    leave = [0, 0]
    occupied_co = position.occupied_co
    by_type = (
        0,
        position.pawns,
        position.knights,
        position.bishops,
        position.rooks,
        position.queens,
        position.kings,
    )
    # Indexed by colour as ``own``: black first.
    pawns = (
        bool(position.pawns & occupied_co[chess.BLACK]),
        bool(position.pawns & occupied_co[chess.WHITE]),
    )
    castles = (position.has_castling_rights(chess.BLACK), position.has_castling_rights(chess.WHITE))
    for color, piece_type, wanted in goal:
        there = by_type[piece_type] & occupied_co[color]
        leave[color] += (there & ~wanted).bit_count()
        if wanted & ~there:
            droppable = refills or bool(position.pockets[color].count(piece_type))
            cost[color] += _arrivals_cost(
                color,
                piece_type,
                wanted,
                there,
                droppable,
                pawns[color],
                castles[color],
            )
    castling = position.castling_rights
    slack = 0
    for color in chess.COLORS:
        spare = 1 if castling & (chess.BB_RANK_1 if color else chess.BB_RANK_8) else 0
        if cost[color] > own[color] + spare:
            return None
        if leave[color] > own[color] + spare + own[not color]:
            return None
        if color == turn:
            slack = own[color] + spare - cost[color]
    return slack


def _lengths(
    boards: tuple[BoardId, ...], parity: Mapping[BoardId, int | None], limits: GapLimits
) -> Iterator[dict[BoardId, int]]:
    """Ply counts per board, fewest plies in all first."""
    for total in range(limits.max_plies * len(boards) + 1):
        options = [range(min(total, limits.max_plies) + 1) for _ in boards]
        for counts in product(*options):
            if sum(counts) != total:
                continue
            if all(
                parity[board] is None or count % 2 == parity[board]
                for board, count in zip(boards, counts, strict=True)
            ):
                yield dict(zip(boards, counts, strict=True))


def solve_gap(
    match: Match,
    targets: Mapping[BoardId, str],
    *,
    turns: Mapping[BoardId, chess.Color | None] | None = None,
    limits: GapLimits | None = None,
) -> GapSolution:
    """The ply sequences that lead from ``match`` to boards showing ``targets`` (placements).

    ``targets`` names the boards whose links were cut (one or both); the others keep their
    placement. ``turns`` gives the side on move now where a running clock shows it.
    """
    limits = limits or GapLimits()
    boards = tuple(board for board in BoardId if board in targets)
    parity = {
        board: None
        if (turns or {}).get(board) is None
        else int((turns or {})[board] != match.turn(board))
        for board in boards
    }
    goal = {board: _goal(targets[board]) for board in boards}
    refills = {board: board.other in targets for board in boards}
    search = _Search(match, targets, limits, goal, refills)
    shortest: int | None = None
    parities: set[tuple[int, ...]] = set()  # of the shortest explanations' ply counts
    total = 0
    try:
        for plies in _lengths(boards, parity, limits):
            total = sum(plies.values())
            if shortest is not None and total > shortest:
                if total > shortest + _CONFIRM or not _drops_possible(match, targets):
                    break
                if tuple(count % 2 for count in plies.values()) not in parities:
                    continue  # an unknown side on move is taken from the shortest explanation
                if search.limits is limits:
                    search.limits = replace(limits, max_nodes=search.nodes + limits.max_nodes)
            if not _feasible(match, goal, plies, refills):
                continue
            search.run(plies)
            if search.found and (shortest is None or total == shortest):
                shortest = total
                parities.add(tuple(count % 2 for count in plies.values()))
    except _OutOfWorkError:
        return _out_of_work(search, confirming=shortest is not None and total > shortest)
    candidates = tuple(search.found.values())
    if not candidates:
        return GapSolution(Verdict.NONE, (), search.nodes)
    verdict = Verdict.UNIQUE if len(candidates) == 1 else Verdict.AMBIGUOUS
    return GapSolution(verdict, candidates, search.nodes)


# An explanation is confirmed only when two plies more explain the placements no other way: a
# drop whose piece is then taken (or a capture answered by a drop of the same piece) leaves the
# placement alone but changes the pockets. Without a piece to drop that cannot happen, and the
# confirmation (with a work budget of its own) is skipped. Not covered: a rook or king that
# goes and comes back during the gap (castling rights differ; the arbiter can correct them).
_CONFIRM = 2


def _out_of_work(search: _Search, *, confirming: bool) -> GapSolution:
    """The work cap was reached. When every sequence of the shortest length had been searched
    and they all end alike, and only the confirmation ran out, the shortest explanation is
    taken: over 228 gaps cut into real games (bench/bench_resync.py) this never took a wrong
    one and recovers a third more of the 3-ply gaps than trusting only 1-2 plies did; an
    explanation that differs only in two plies more (a drop taken at once) is left unseen."""
    found = tuple(search.found.values())
    if len(found) == 1 and confirming:
        return GapSolution(Verdict.UNIQUE, found, search.nodes, confirmed=False)
    return GapSolution(Verdict.UNKNOWN, found, search.nodes)


def _drops_possible(match: Match, targets: Mapping[BoardId, str]) -> bool:
    if len(targets) > 1:
        return True  # the boards feed each other's pockets
    pockets = match.pockets()
    return any(pockets.of(board, color) for board in targets for color in chess.COLORS)


def _feasible(
    match: Match,
    goal: Mapping[BoardId, _Goal],
    plies: Mapping[BoardId, int],
    refills: Mapping[BoardId, bool],
) -> bool:
    return all(
        _reachable(match.position(board), goal[board], count, refills=refills[board])
        for board, count in plies.items()
    )


def gap_details(gap: int, match: Match, solution: GapSolution) -> dict[str, Any]:
    """The ``gap_ambiguous`` alert's details: the gap's id and its candidates (UCI and SAN per
    board, from the match before the gap), as the arbiter's ``choose_recovery`` numbers them."""
    candidates = []
    for index, candidate in enumerate(solution.candidates):
        replay = match.copy()
        san: dict[str, list[str]] = {str(board): [] for board in BoardId}
        for move in candidate.moves:
            san[str(move.board)].append(replay.san(move))
            replay.play(move, t=0.0)
        moves = {str(board): [move.uci for move in candidate.on(board)] for board in BoardId}
        candidates.append({"index": index, "moves": moves, "san": san})
    return {"gap": gap, "verdict": str(solution.verdict), "candidates": candidates}


def filled_positions(
    match: Match,
    targets: Mapping[BoardId, str],
    turns: Mapping[BoardId, chess.Color | None],
    solution: GapSolution,
) -> dict[BoardId, str]:
    """The positions a gap left to the arbiter sets (crazyhouse FENs of both boards).

    The placements seen; the side on move from the running clock, else from the first
    candidate, else the same as before (the reconstructor corrects that guess on the next
    move). Pockets: with candidates, as the first (shortest) leaves them; without any, the
    least material flow that explains the placements:
    a piece more on a board was dropped from its side's pocket, a piece fewer was captured and
    went to the pocket of the same colour on the other board.
    """
    first = solution.candidates[0].end if solution.candidates else None
    positions = {board: match.position(board) for board in BoardId}
    if first is None:
        _least_flow(positions, targets)
    for board, placement in targets.items():
        position = positions[board]
        if first is not None:
            position = chess.variant.CrazyhouseBoard(first[_INDEX[board]])
            positions[board] = position
        position.set_board_fen(placement)
        turn = turns.get(board)
        if turn is not None:
            position.turn = turn
        position.castling_rights = position.clean_castling_rights()
        position.ep_square = None
    if first is not None:
        for board, position in positions.items():
            _most_of(position, [first[_INDEX[board]]])
    return {board: position.fen() for board, position in positions.items()}


def _most_of(position: chess.variant.CrazyhouseBoard, ends: list[str]) -> None:
    for color in chess.COLORS:
        pockets = [chess.variant.CrazyhouseBoard(end).pockets[color] for end in ends]
        for piece_type in _POCKET_TYPES:
            most = max(pocket.count(piece_type) for pocket in pockets)
            while position.pockets[color].count(piece_type) < most:
                position.pockets[color].add(piece_type)
            while position.pockets[color].count(piece_type) > most:
                position.pockets[color].remove(piece_type)


def _least_flow(
    positions: Mapping[BoardId, chess.variant.CrazyhouseBoard], targets: Mapping[BoardId, str]
) -> None:
    for board, placement in targets.items():
        before, after = positions[board], chess.BaseBoard(placement)
        for color in chess.COLORS:
            for piece_type in _POCKET_TYPES:
                change = len(after.pieces(piece_type, color)) - len(
                    before.pieces(piece_type, color)
                )
                pocket = before.pockets[color]
                for _ in range(min(change, pocket.count(piece_type))):
                    pocket.remove(piece_type)  # dropped
                for _ in range(-change):
                    positions[board.other].pockets[color].add(piece_type)  # captured


_POCKET_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_INDEX = {BoardId.A: 0, BoardId.B: 1}
