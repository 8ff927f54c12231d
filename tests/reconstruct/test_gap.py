"""The gap solver on its own: tables and properties over random games."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.gap import (
    GapLimits,
    Verdict,
    end_state,
    filled_positions,
    solve_gap,
)

A, B = BoardId.A, BoardId.B
SMALL = GapLimits(max_nodes=25_000)  # keeps a property run short; the bench uses the defaults


def play(match: Match, board: BoardId, *ucis: str) -> Match:
    for uci in ucis:
        match.play(BughouseMove(board, chess.Move.from_uci(uci)), t=0.0)
    return match


@pytest.mark.parametrize(
    ("ucis", "verdict"),
    [
        ([], Verdict.UNIQUE),
        (["e2e4"], Verdict.UNIQUE),
        (["e2e4", "e7e5", "g1f3"], Verdict.UNIQUE),
        (["e2e4", "d7d5", "e4d5", "d8d5"], Verdict.UNIQUE),
    ],
)
def test_plain_gaps_from_the_start(ucis: list[str], verdict: Verdict) -> None:
    before = Match(get_preset("dsj"))
    truth = play(before.copy(), A, *ucis)
    solution = solve_gap(before, {A: truth.board_fen(A)}, turns={A: truth.turn(A)})
    assert solution.verdict is verdict
    assert solution.candidates[0].end == end_state(truth)
    assert len(solution.candidates[0].moves) == len(ucis)


def test_castling_rights_make_a_gap_ambiguous() -> None:
    before = play(Match(get_preset("dsj")), A, "a2a3", "g7g5", "b2b4", "f8h6", "b4b5", "g8f6")
    truth = play(before.copy(), A, "a1a2", "f6d5", "a2a1")
    solution = solve_gap(before, {A: truth.board_fen(A)}, turns={A: truth.turn(A)})
    assert solution.verdict is Verdict.AMBIGUOUS
    assert end_state(truth) in [candidate.end for candidate in solution.candidates]


def test_a_placement_no_moves_reach_has_no_explanation() -> None:
    before = Match(get_preset("dsj"))
    impossible = "rnbqkbnr/pppppppp/8/8/8/8/8/RNBQKBNR"  # eight white pawns gone at once
    solution = solve_gap(before, {A: impossible}, limits=GapLimits(max_plies=6))
    assert solution.verdict in {Verdict.NONE, Verdict.UNKNOWN}
    assert solution.candidates == ()


def test_the_work_cap_answers_unknown_instead_of_hanging() -> None:
    before = play(Match(get_preset("dsj")), A, "e2e4", "e7e5")
    truth = play(before.copy(), A, "g1f3", "b8c6", "f1c4", "g8f6", "b1c3", "f8c5", "d2d3")
    solution = solve_gap(before, {A: truth.board_fen(A)}, limits=GapLimits(max_nodes=50))
    assert solution.verdict is Verdict.UNKNOWN
    assert solution.nodes <= 51


@pytest.mark.parametrize("publish", [False, True])
def test_an_explanation_whose_confirmation_ran_out_goes_to_the_arbiter_unless_asked(
    publish: bool,
) -> None:
    """A pawn in Black's pocket: a longer explanation might end with other pockets, and there
    is no work left to rule it out."""
    before = play(Match(get_preset("dsj")), B, "e2e4", "d7d5", "e4d5")
    truth = play(before.copy(), A, "e2e4")
    limits = GapLimits(confirm_nodes=1, publish_unconfirmed=publish)
    solution = solve_gap(before, {A: truth.board_fen(A)}, turns={A: truth.turn(A)}, limits=limits)
    assert solution.verdict is (Verdict.UNIQUE if publish else Verdict.UNKNOWN)
    assert not solution.confirmed
    assert [candidate.end for candidate in solution.candidates] == [end_state(truth)]


def test_more_shortest_end_states_than_listed_are_not_confirmed_nor_published() -> None:
    """Two end states (castling rights kept or lost) and a pawn in Black's pocket (a longer
    explanation could end otherwise): listed in full, the confirmation runs; with one listed
    at most no longer explanation is looked for (it could be neither listed nor conclusive),
    and the one listed is not published as the game."""
    before = play(Match(get_preset("dsj")), B, "e2e4", "d7d5", "e4d5")
    play(before, A, "a2a3", "g7g5", "b2b4", "f8h6", "b4b5", "g8f6")
    truth = play(before.copy(), A, "a1a2", "f6d5", "a2a1")
    turns = {A: truth.turn(A)}
    listed = solve_gap(before, {A: truth.board_fen(A)}, turns=turns)
    assert listed.verdict is Verdict.AMBIGUOUS
    assert listed.confirmed
    assert end_state(truth) in [candidate.end for candidate in listed.candidates]
    one = solve_gap(
        before, {A: truth.board_fen(A)}, turns=turns, limits=GapLimits(max_candidates=1)
    )
    assert one.verdict is Verdict.UNKNOWN
    assert not one.confirmed
    assert len(one.candidates) == 1
    assert one.nodes < listed.nodes


def test_filled_positions_follow_the_least_material_flow() -> None:
    before = play(Match(get_preset("dsj")), A, "e2e4", "d7d5")
    truth = play(before.copy(), A, "e4d5")  # a black pawn taken: it goes to black on board B
    fens = filled_positions(before, {A: truth.board_fen(A)}, {A: chess.BLACK}, _nothing())
    assert fens[A].split()[0] == truth.fen(A).split()[0]
    assert fens[B].split()[0].endswith("[p]")


def _placements_and_turns(end: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(fen.split()[0].split("[")[0], fen.split()[1]) for fen in end]


def _nothing():  # a solution without candidates
    return solve_gap(Match(get_preset("dsj")), {A: "8/8/8/8/8/8/8/8"}, limits=GapLimits(1, 1))


@st.composite
def gaps(draw: st.DrawFn) -> tuple[Match, Match, frozenset[BoardId]]:
    """A random game, then a random gap of 1-20 plies on one board or both."""
    match = Match(get_preset("fics"))
    for _ in range(draw(st.integers(0, 16))):
        board = draw(st.sampled_from(list(BoardId)))
        moves = match.legal_moves(board)
        if not moves or match.result is not None:
            break
        match.play(draw(st.sampled_from(moves)), t=0.0)
    cut = draw(st.sampled_from([frozenset({A}), frozenset({B}), frozenset(BoardId)]))
    truth = match.copy()
    for _ in range(draw(st.integers(1, 20))):
        board = draw(st.sampled_from(sorted(cut)))
        moves = truth.legal_moves(board)
        if not moves or truth.result is not None:
            break
        truth.play(draw(st.sampled_from(moves)), t=0.0)
    return match, truth, cut


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    # No "explain" phase: its line tracer makes the solver ~50x slower (a shrink ran 300 s).
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
)
@given(gaps())
def test_the_answer_contains_the_truth_and_a_unique_answer_is_the_truth(
    gap: tuple[Match, Match, frozenset[BoardId]],
) -> None:
    before, truth, cut = gap
    if truth.result is not None:
        return  # a decided match takes no more moves; nothing to recover
    targets = {board: truth.board_fen(board) for board in cut}
    turns = {board: truth.turn(board) for board in cut}
    solution = solve_gap(before, targets, turns=turns, limits=SMALL)
    if solution.verdict is Verdict.UNIQUE:
        (answer,) = solution.candidates
        if len(answer.moves) == sum(truth.ply(b) - before.ply(b) for b in BoardId):
            assert answer.end == end_state(truth)
        else:
            # The shortest explanation is taken (gap.py): a truth longer than it may differ in
            # what plies that undo each other leave no trace of on the placements, castling
            # rights (a rook gone and back) and pockets (a drop taken at once).
            assert _placements_and_turns(answer.end) == _placements_and_turns(end_state(truth))
    if solution.verdict is Verdict.NONE:
        pytest.fail("the truth explains the placements, so the answer cannot be none")
    for candidate in solution.candidates:  # every candidate is a legal way to the placements
        replay = before.copy()
        for move in candidate.moves:
            replay.play(move, t=0.0)
        assert all(replay.board_fen(board) == targets[board] for board in cut)
