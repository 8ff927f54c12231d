"""The Reading, Track and Stalling machines of a board, transition by transition."""

from __future__ import annotations

import chess
import pytest

from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.fsm import TransitionError
from bughouse_bridge.reconstruct.reading_machine import (
    READING,
    TRACK,
    Asked,
    Astray,
    AwaitPiece,
    AwaitPress,
    Blocked,
    DropVoid,
    Followed,
    GlimpsedRest,
    Held,
    OnTrack,
    PieceAwaited,
    PressAwaited,
    Ready,
    Recheck,
    Released,
    Resolved,
    Strayed,
    Stuck,
    Timed,
    Unheld,
    asks_reread,
    astray_since,
)
from bughouse_bridge.reconstruct.stall_watch import (
    STALL,
    MoveMade,
    Reported,
    StallReported,
    Unwatched,
    WaitBegan,
    WaitEnded,
    Watching,
)

E4 = BughouseMove(BoardId.A, chess.Move.from_uci("e2e4"))
N_AT_F3 = BughouseMove(BoardId.A, chess.Move.from_uci("N@f3"))
P_AT_E5 = BughouseMove(BoardId.A, chess.Move.from_uci("P@e5"))

READING_CASES = [
    (Ready(), PressAwaited(E4, 3.0), AwaitPress(E4, 3.0)),
    (AwaitPiece(N_AT_F3, 1.0), PressAwaited(E4, 3.0), AwaitPress(E4, 3.0)),
    (Blocked(), PressAwaited(E4, 3.0), AwaitPress(E4, 3.0)),  # its own press ends the block
    (AwaitPress(E4, 3.0), PressAwaited(E4, 5.0), AwaitPress(E4, 5.0)),  # read again: a new due
    (Ready(), PieceAwaited(N_AT_F3, 2.0), AwaitPiece(N_AT_F3, 2.0)),
    (AwaitPiece(N_AT_F3, 1.0), PieceAwaited(N_AT_F3, 2.0), AwaitPiece(N_AT_F3, 1.0)),  # same drop
    (AwaitPiece(N_AT_F3, 1.0), PieceAwaited(P_AT_E5, 2.0), AwaitPiece(P_AT_E5, 2.0)),
    (AwaitPress(E4, 3.0), Held(), Blocked()),  # blocked: no press awaited any more
    (AwaitPiece(N_AT_F3, 1.0), Held(), Blocked()),
    (Blocked(), Unheld(), Ready()),
    (AwaitPress(E4, 3.0), Unheld(), AwaitPress(E4, 3.0)),
    (AwaitPress(E4, 3.0), Resolved(), Ready()),
    (AwaitPiece(N_AT_F3, 1.0), Resolved(), Ready()),
    (Blocked(), Resolved(), Blocked()),  # a block lasts until the other board's gap is settled
    (AwaitPress(E4, 3.0), GlimpsedRest(), AwaitPress(E4, 3.0)),  # lifted for a moment
    (AwaitPiece(N_AT_F3, 1.0), GlimpsedRest(), Ready()),  # the drop's piece taken back
    (AwaitPiece(N_AT_F3, 1.0), DropVoid(), Ready()),
]


@pytest.mark.parametrize(("state", "event", "after"), READING_CASES)
def test_reading_transitions(state, event, after) -> None:
    assert READING.fire(state, event) == after


@pytest.mark.parametrize("state", [Ready(), AwaitPress(E4, 3.0), Blocked()])
def test_only_a_waiting_drop_can_be_void(state) -> None:
    with pytest.raises(TransitionError, match="on DropVoid"):
        READING.fire(state, DropVoid())


TRACK_CASES = [
    (OnTrack(), Strayed(5.0), Astray(5.0)),
    (Astray(5.0), Strayed(7.0), Astray(5.0)),  # the run goes on from its first reading
    (Recheck(), Strayed(5.0), Stuck(5.0)),
    (Stuck(5.0), Strayed(7.0), Stuck(5.0)),
    (Astray(5.0), Followed(), OnTrack()),
    (Stuck(5.0), Followed(), Recheck()),  # still read again when the other board moves
    (OnTrack(), Asked(), Recheck()),
    (Astray(5.0), Asked(), Stuck(5.0)),
    (Stuck(5.0), Released(), Astray(5.0)),  # read again: the run is not over
    (Recheck(), Released(), OnTrack()),
    (Astray(5.0), Timed(9.0), Astray(5.0, 9.0)),  # the reading is reported then
    (Stuck(5.0), Timed(9.0), Stuck(5.0, 9.0)),
    (Astray(5.0, 9.0), Strayed(7.0), Astray(5.0)),  # the next reading times its own report
    (Stuck(5.0, 9.0), Released(), Astray(5.0)),
    (Astray(5.0, 9.0), Asked(), Stuck(5.0)),
    (Stuck(5.0, 9.0), Followed(), Recheck()),
]


@pytest.mark.parametrize("state", [OnTrack(), Recheck()])
def test_only_a_board_astray_has_a_reading_to_report(state) -> None:
    with pytest.raises(TransitionError):
        TRACK.fire(state, Timed(9.0))


@pytest.mark.parametrize(("state", "event", "after"), TRACK_CASES)
def test_track_transitions(state, event, after) -> None:
    assert TRACK.fire(state, event) == after


def test_the_two_dimensions_of_the_track_are_independent() -> None:
    """Every state answers every event: a re-read is asked and answered, and the run of
    readings that commit nothing starts and ends, each without touching the other."""
    for state in (OnTrack(), Recheck(), Astray(1.0), Stuck(1.0)):
        for event in (Followed(), Strayed(2.0), Asked(), Released()):
            after = TRACK.fire(state, event)
            reread = {Asked: True, Released: False}.get(type(event), asks_reread(state))
            since = astray_since(state)
            if isinstance(event, Followed):
                since = None
            elif isinstance(event, Strayed) and since is None:
                since = event.now
            assert (asks_reread(after), astray_since(after)) == (reread, since)


STALL_CASES = [
    (Unwatched(), WaitBegan(3.0), Watching(3.0)),
    (Reported(3.0), WaitBegan(9.0), Watching(9.0)),
    (Watching(3.0), WaitEnded(), Unwatched()),
    (Watching(3.0), StallReported(), Reported(3.0)),
    (Reported(3.0), MoveMade(), Watching(3.0)),  # reported once per move made
    (Watching(3.0), MoveMade(), Watching(3.0)),
    (Unwatched(), MoveMade(), Unwatched()),
]


@pytest.mark.parametrize(("state", "event", "after"), STALL_CASES)
def test_stall_transitions(state, event, after) -> None:
    assert STALL.fire(state, event) == after


def test_a_stalling_is_reported_only_while_watched() -> None:
    for state in (Unwatched(), Reported(1.0)):
        with pytest.raises(TransitionError, match="on StallReported"):
            STALL.fire(state, StallReported())
