"""What each candidate of a gap leaves in the four pockets, and which pockets tell the
candidates apart (``gap_details``: ``pockets``, ``differs``; contract §3)."""

from __future__ import annotations

import chess
import pytest

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.gap import (
    GapSolution,
    Verdict,
    gap_details,
    order_details,
    pocket_differences,
    solve_gap,
)

A, B = BoardId.A, BoardId.B
# White on A holds a pawn, a knight and a bishop; Black's e-pawn on A can take on f4.
FENS = {
    A: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[PNB] w KQkq - 0 2",
    B: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/R1BQK1NR w KQkq - 0 1",
}


def play(match: Match, board: BoardId, *ucis: str) -> Match:
    for uci in ucis:
        match.play(BughouseMove(board, chess.Move.from_uci(uci)), t=0.0)
    return match


def cut_a(before: Match, truth: Match) -> GapSolution:
    return solve_gap(before, {A: truth.board_fen(A)}, turns={A: truth.turn(A)})


@pytest.mark.parametrize(
    ("index", "dropped", "a_white", "b_white"),
    [
        # The piece dropped on f4 leaves White's pocket on A; Black takes it: it goes to his
        # partner, White on B. Nothing else moves, so only those two pockets differ.
        (0, "P", "NB", "P"),
        (1, "N", "PB", "N"),
        (2, "B", "PN", "B"),
    ],
)
def test_a_piece_dropped_and_taken_shows_in_the_pockets_alone(
    index: int, dropped: str, a_white: str, b_white: str
) -> None:
    before = Match(get_preset("dsj"), fens=FENS)
    truth = play(before.copy(), A, f"{dropped}@f4", "e5f4")
    details = gap_details(9, before, cut_a(before, truth))
    assert details["verdict"] == "ambiguous"
    candidate = details["candidates"][index]
    assert candidate["moves"] == {"A": [f"{dropped}@f4", "e5f4"], "B": []}
    assert candidate["pockets"] == truth.pockets().as_dict()
    assert candidate["pockets"]["A"]["white"] == a_white
    assert candidate["pockets"]["B"]["white"] == b_white
    assert candidate["differs"] == ["A/white", "B/white"]


def test_every_candidate_names_the_same_differing_pockets() -> None:
    before = Match(get_preset("dsj"), fens=FENS)
    truth = play(before.copy(), A, "N@f4", "e5f4")
    candidates = gap_details(9, before, cut_a(before, truth))["candidates"]
    assert len(candidates) == 3
    assert all(c["differs"] == candidates[0]["differs"] for c in candidates)
    assert len({c["pockets"]["A"]["white"] for c in candidates}) == 3


def test_a_unique_gap_and_an_orders_list_have_no_differing_pockets() -> None:
    """One end state (or several orders reaching it): the pockets are shown, none differs."""
    before = play(Match(get_preset("dsj")), A, "e2e4", "d7d5")
    truth = play(before.copy(), A, "e4d5")
    solution = cut_a(before, truth)
    assert solution.verdict is Verdict.UNIQUE
    (only,) = gap_details(1, before, solution)["candidates"]
    assert only["pockets"] == truth.pockets().as_dict()
    assert only["pockets"]["B"]["black"] == "P"  # the pawn taken on A, for Black's partner
    assert only["differs"] == []
    orders = order_details(1, before, solution)["candidates"]
    assert all(c["differs"] == [] for c in orders)


EMPTY = {"A": {"white": "", "black": ""}, "B": {"white": "", "black": ""}}


@pytest.mark.parametrize(
    ("pockets", "differs"),
    [
        ([], []),
        ([EMPTY], []),
        ([EMPTY, EMPTY], []),
        ([EMPTY, {**EMPTY, "B": {"white": "", "black": "Q"}}], ["B/black"]),
        (
            [
                {"A": {"white": "P", "black": "N"}, "B": {"white": "", "black": "R"}},
                {"A": {"white": "N", "black": "N"}, "B": {"white": "B", "black": "R"}},
                {"A": {"white": "P", "black": "N"}, "B": {"white": "", "black": "R"}},
            ],
            ["A/white", "B/white"],
        ),
        # every pocket differs: listed in the contract's order
        (
            [EMPTY, {"A": {"white": "P", "black": "P"}, "B": {"white": "P", "black": "P"}}],
            ["A/white", "A/black", "B/white", "B/black"],
        ),
    ],
)
def test_pocket_differences(pockets: list[dict[str, dict[str, str]]], differs: list[str]) -> None:
    assert pocket_differences(pockets) == differs
