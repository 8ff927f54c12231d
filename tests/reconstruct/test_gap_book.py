"""``gap_book.GapBook`` on its own: the gaps left open, the re-orderable recoveries and the
unconfirmed boards of a game, one value with ids never reused; and the gaps' component that
holds it (``resync.Resync``), reaching the reconstructor that holds it — and no other."""

from __future__ import annotations

import copy

import pytest

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct import MatchReconstructor, ReconstructorConfig
from bughouse_bridge.reconstruct.gap import GapSolution, Verdict
from bughouse_bridge.reconstruct.gap_book import GapBook
from bughouse_bridge.reconstruct.gap_guess import FillGuess, NoGuess, RecoveredTurn
from bughouse_bridge.reconstruct.reorder import OrderedRecovery

NONE = GapSolution(Verdict.NONE)
A, B = BoardId.A, BoardId.B


def test_a_fresh_book_guesses_nothing() -> None:
    book = GapBook()
    assert book.open_ids() == []
    assert book.guessed() == set()
    assert book.feeding({A, B}) == []
    assert book.solution(1) is None
    assert book.order(1) is None
    assert not book.any_unconfirmed({A, B})


def test_an_open_gap_is_kept_with_its_solution_and_targets_until_forgotten() -> None:
    book = GapBook()
    gap = book.next_id()
    targets = {A: "8/8/8/8/8/8/8/8"}
    book.open(gap, NONE, targets)
    targets[B] = "changed by the caller"  # the book keeps its own copy
    assert book.open_ids() == [gap]
    assert book.solution(gap) is NONE
    assert book.targets(gap) == {A: "8/8/8/8/8/8/8/8"}
    assert book.feeding({A}) == [gap]
    assert book.feeding({B}) == []
    assert book.guessed() == {A}
    book.forget(gap)
    assert book.open_ids() == []
    assert book.guessed() == set()
    with pytest.raises(KeyError):
        book.forget(gap)
    with pytest.raises(KeyError):
        book.targets(gap)


def test_ids_are_never_reused_by_gaps_or_reorderable_recoveries() -> None:
    book = GapBook()
    first = book.next_id()
    book.open(first, NONE, {A: "x"})
    book.forget(first)
    recovery = OrderedRecovery(orders=((),), plies=((A, 3),))
    second = book.reorderable(recovery)
    third = book.next_id()
    assert [first, second, third] == [1, 2, 3]
    assert book.order(second) is recovery
    assert book.solution(second) is None  # a recovery is not a gap left open
    book.reordered(second)
    assert book.order(second) is None


def test_unconfirmed_boards_are_guessed_too() -> None:
    book = GapBook()
    book.unconfirmed([B])
    assert book.any_unconfirmed({A, B})
    assert not book.any_unconfirmed({A})
    assert book.guessed() == {B}


def test_a_copied_reconstructor_s_gaps_reach_the_copy_and_a_new_game_a_new_book() -> None:
    """A command's checkpoint is a deep copy of the reconstructor: its gaps' component must
    read and move the copy's game and boards, not the original's."""
    rec = MatchReconstructor(Match(get_preset("dsj")), ReconstructorConfig())
    rec._resync._gaps.unconfirmed([A])
    shared = (rec.config, rec.match.rules)  # frozen: shared, not copied (as the bridge does)
    checkpoint = copy.deepcopy(rec, memo={id(value): value for value in shared})
    assert checkpoint._resync._match is checkpoint.match is not rec.match
    assert checkpoint._resync._boards is checkpoint._boards
    assert checkpoint._resync.guessed() == {A}
    rec.new_game(0.0)
    assert rec._resync._match is rec.match
    assert rec._resync.guessed() == set()
    assert checkpoint._resync.guessed() == {A}


def test_a_fill_s_guesses_are_confirmed_one_by_one_and_settled_with_its_gap() -> None:
    book = GapBook()
    book.filled(A, 7, turn_guessed=True, doubtful_until=12.0)
    book.filled(B, 7, turn_guessed=False, doubtful_until=12.0)
    assert book.guess_of(B) == FillGuess(7, turn_guessed=False, doubtful_until=12.0)
    assert (book.turn_unknown(A), book.turn_unknown(B)) == (7, None)
    assert (book.provisional(A), book.provisional_until(B)) == (7, 12.0)
    book.fill_confirmed(A)  # no longer doubtful, the side on move still a guess
    assert (book.provisional(A), book.provisional_until(A), book.turn_unknown(A)) == (None, 0.0, 7)
    book.turn_confirmed(A)  # nothing left to confirm
    assert book.guess_of(A) == NoGuess()
    book.fill_settled(7)
    assert book.provisional(B) is None
    book.recovery_confirmed(B)  # no recovery guessed: nothing happens


def test_a_recovery_s_side_on_move_is_a_guess_until_confirmed() -> None:
    book = GapBook()
    turn = RecoveredTurn((), {A: 5})
    book.recovered(A, turn)
    book.fill_confirmed(A)  # a fill's confirmation leaves a recovery's guess alone
    book.fill_settled(1)
    assert book.recovered_turn(A) is turn
    assert book.turn_unknown(A) is None
    book.recovery_confirmed(A)
    assert book.recovered_turn(A) is None


def test_an_empty_fill_is_no_guess_not_a_fill() -> None:
    with pytest.raises(AssertionError, match="NoGuess"):
        FillGuess(1, turn_guessed=False, doubtful_until=None)
