"""The gap solver's façade: the plies that lead from the game before a link gap to what it shows.

Pure. ``solve_gap(match, targets, turns=..., evidence=...)`` finds the legal ply sequences, on
one board or on both together (then the plies of the two boards interleave, so a drop can use a
piece that a capture on the other board delivered during the gap), that turn the match into one
whose boards show ``targets``. The search itself lives in ``reconstruct.solver`` (per board, a
memo per position, the placement difference as a lower bound, the boards combined through their
pockets); this module keeps the values the reconstructor works with. Everything that constrains
the plies is used: the rules (every explanation is replayed through the ``Match``), the side on
move and each side's plies as the clocks allow them (``GapEvidence``), the placements, and the
pockets (a drop needs its piece, from the pocket before the gap or a capture on the other board
played before it).

The game state comes first, the order second. The answer is a value: ``unique`` (every
explaining sequence of the fewest plies ends in the same positions, pockets and side to move;
``order_certain`` is False when several orders reach it, with ``alternatives`` listed),
``ambiguous`` (several end states; the candidates are listed, the most plausible first),
``none`` (nothing explains the placements within ``max_plies``) or ``unknown`` (the work cap was
reached before the shortest explanations were all found, or before a longer one ending
otherwise was ruled out: its candidates go to the arbiter unless ``publish_unconfirmed``). The
caller never waits on a hang: the work is bounded by ``max_nodes``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import chess
import chess.variant

from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.solver.evidence import GapEvidence
from bughouse_bridge.reconstruct.solver.joint import end_state
from bughouse_bridge.reconstruct.solver.solve import explain_gap

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.match import Match

__all__ = [
    "Candidate",
    "GapEvidence",
    "GapLimits",
    "GapSolution",
    "Verdict",
    "candidate_details",
    "end_state",
    "filled_positions",
    "gap_details",
    "listed_candidates",
    "order_details",
    "pocket_differences",
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
    # Work (``solver.budget.Budget``: a move tried 1, a position expanded 16; about 3-4 µs of
    # CPU each on the bench's machine) in all; the search gives up ("unknown") beyond.
    max_nodes: int = 200_000
    max_candidates: int = 8  # distinct end states kept (and shown to the arbiter)
    confirm_nodes: int = 200_000  # work looking for a longer explanation ending otherwise
    # A shortest explanation whose confirmation ran out of work is published as ``unique``
    # (``confirmed`` False) only if asked; by default it goes to the arbiter as ``unknown``
    # with its candidates: the faster search finds short explanations of long gaps (8 plies
    # for a 12-ply gap) whose confirmation runs out, and some end elsewhere than the game.
    publish_unconfirmed: bool = False


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
    nodes: int = 0  # work done (``GapLimits.max_nodes``)
    # False: the confirmation (explanations up to two plies longer than the shortest, ending
    # otherwise) ran out of work, or (ambiguous) found more end states than are listed
    confirmed: bool = True
    order_certain: bool = True  # False: other orders (or lengths) reach the same end state
    alternatives: tuple[Candidate, ...] = ()  # some of those other orders, for the arbiter

    @property
    def unique(self) -> Candidate | None:
        return self.candidates[0] if self.verdict is Verdict.UNIQUE else None


def solve_gap(
    match: Match,
    targets: Mapping[BoardId, str],
    *,
    turns: Mapping[BoardId, chess.Color | None] | None = None,
    limits: GapLimits | None = None,
    evidence: GapEvidence | None = None,
) -> GapSolution:
    """The ply sequences that lead from ``match`` to boards showing ``targets`` (placements).

    ``targets`` names the boards whose links were cut (one or both); the others keep their
    placement. ``turns`` gives the side on move now where a running clock shows it;
    ``evidence`` what else the clocks say (``solver.evidence``).
    """
    limits = limits or GapLimits()
    explanations = explain_gap(
        match,
        targets,
        turns or {},
        evidence or GapEvidence(),
        max_plies=limits.max_plies,
        max_nodes=limits.max_nodes,
        confirm_nodes=limits.confirm_nodes,
        max_listed=limits.max_candidates,
    )
    found = explanations.found[: limits.max_candidates]
    candidates = tuple(Candidate(explained.moves, explained.end) for explained in found)
    nodes = explanations.nodes
    if not candidates:
        verdict = Verdict.NONE if explanations.complete else Verdict.UNKNOWN
        return GapSolution(verdict, (), nodes)
    if not explanations.shortest_complete:
        return GapSolution(Verdict.UNKNOWN, candidates, nodes)
    if len(candidates) > 1:
        # Confirmed: every end state up to the confirmation's length is listed (what settling
        # it by later moves, ``gap_later``, needs: the truth is then among the candidates).
        listed = len(explanations.found) <= limits.max_candidates
        confirmed = explanations.complete and listed
        return GapSolution(Verdict.AMBIGUOUS, candidates, nodes, confirmed=confirmed)
    if not explanations.complete and not limits.publish_unconfirmed:
        return GapSolution(Verdict.UNKNOWN, candidates, nodes, confirmed=False)
    best = found[0]
    return GapSolution(
        Verdict.UNIQUE,
        candidates,
        nodes,
        confirmed=explanations.complete,
        order_certain=best.orders <= 1,
        alternatives=tuple(Candidate(moves, best.end) for moves in best.alternatives),
    )


def gap_details(gap: int, match: Match, solution: GapSolution) -> dict[str, Any]:
    """The ``gap_ambiguous`` alert's details: the gap's id and its candidates (UCI and SAN per
    board, from the match before the gap), as the arbiter's ``choose_recovery`` numbers them."""
    candidates = listed_candidates(match, solution)
    return {"gap": gap, "verdict": str(solution.verdict), "candidates": candidates}


def listed_candidates(match: Match, solution: GapSolution) -> list[dict[str, Any]]:
    """Every candidate as ``candidate_details`` shows it, with ``differs``: the pockets that
    tell the candidates apart (the same list in each, so one candidate alone, as a
    recommendation names it, still says which of its pockets matter)."""
    listed = [
        candidate_details(index, match, candidate)
        for index, candidate in enumerate(solution.candidates)
    ]
    differs = pocket_differences([details["pockets"] for details in listed])
    return [details | {"differs": differs} for details in listed]


def candidate_details(index: int, match: Match, candidate: Candidate) -> dict[str, Any]:
    """One candidate as the arbiter is shown it: its ``choose_recovery`` index, its plies in
    UCI and SAN per board (the SAN read from ``match``, the match before the gap), and the
    four pockets it leaves (``{"A": {"white": "NP", "black": ""}, "B": {…}}``, upper-case
    letters P N B R Q as ``Pockets``): the arbiter sees the physical pockets, the sensors do
    not, and a piece dropped and taken at once is told apart by them alone."""
    replay = match.copy()
    san: dict[str, list[str]] = {str(board): [] for board in BoardId}
    for move in candidate.moves:
        san[str(move.board)].append(replay.san(move))
        replay.play(move, t=0.0)
    moves = {str(board): [move.uci for move in candidate.on(board)] for board in BoardId}
    pockets = replay.pockets().as_dict()
    return {"index": index, "moves": moves, "san": san, "pockets": pockets}


def pocket_differences(pockets: Sequence[Mapping[str, Mapping[str, str]]]) -> list[str]:
    """The pockets (``"A/white"``…, in the order A white, A black, B white, B black) whose
    letters are not the same in all of ``pockets``."""
    return [
        f"{board}/{color}"
        for board in ("A", "B")
        for color in ("white", "black")
        if len({each[board][color] for each in pockets}) > 1
    ]


def order_details(gap: int, match: Match, solution: GapSolution) -> dict[str, Any]:
    """A recovery whose order is not certain: the orders the arbiter may choose instead
    (``choose_recovery`` numbers them; 0 is the order published), as ``gap_details`` lists
    candidates."""
    orders = replace(solution, candidates=(*solution.candidates[:1], *solution.alternatives))
    return gap_details(gap, match, orders) | {"order_certain": False}


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
