"""When a board is next to be read: derived from its machines' values, never stored.

Every reason to read a board again at a given time is a state that carries its due (or the data
it is derived from), and exists only while that state does:

- the placement: a change is read once settled, ``changed_at + stability_window`` (a link back
  is settled then too, ``resync.Resync.settle_gap``; so is a fill's or a recovery's later look);
- the Reading machine: ``AwaitPress.due`` (committed without its press), ``AwaitPiece`` (the drop
  stands ``drop_grace`` after ``since``);
- the Track machine: astray, the last reading is reported once it has had its time
  (``Astray.report_at``/``Stuck.report_at``, set by its handler: an illegal move
  ``illegal_after`` after the placement's change, sooner after a press; an unexplained one
  ``unexplained_limit`` after it, or after the run's start on a gap's guess); a held reading
  (``Blocked``) has none: it waits for the other board's gap;
- the placement's orientation not known yet: ``unexplained_limit`` after its change;
- the press ledger: a press ahead (``Ahead``) is a press without a move ``press_grace`` after it,
  and a hand that may still be on an illegal drop is off it ``press_grace`` after the later of
  the press and the change;
- the last move (``last_move.LastMove.stands_at``): pressed, final once it stood ``press_grace``;
- the stalling watch: ``Watching`` reports ``stalling_limit`` after the later of its start and
  the board's last move, while no result is decided;
- the Link machine: ``Settling`` after a short gap is published as it stands ``unexplained_limit``
  after the dump came (``resync.Resync._explain_later``);
- a flag held on the board (``flags.Flags.board_due``): the flagged player's last placement is
  read once scanned, ``stability_window`` after the flag's message.

The board's deadline is the earliest due after its last reading (``Board.read_at``). A due at or
before it was read then: that reading moved the state on, or found the due not yet the point (a
placement not settled, a hand still moving), and then asked for what it waits on by a due of its
own. So a passed due never spins the timer, and re-reading being idempotent, a due that wakes a
board with nothing to do costs one reading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.link import Settling
from bughouse_bridge.reconstruct.presses import Ahead
from bughouse_bridge.reconstruct.reading_machine import Astray, AwaitPiece, AwaitPress, Stuck
from bughouse_bridge.reconstruct.stall_watch import Watching

if TYPE_CHECKING:
    from bughouse_bridge.reconstruct.board_state import Board
    from bughouse_bridge.reconstruct.config import ReconstructorConfig


def board_deadline(
    state: Board, config: ReconstructorConfig, *, decided: bool, flag_due: float | None
) -> float | None:
    """When ``state``'s board is next to be read (``None``: nothing is due). ``decided``: the
    game has a result (no stalling is reported); ``flag_due``: a flag held on the board."""
    dues = board_dues(state, config, decided=decided)
    if flag_due is not None:
        dues.append(flag_due)
    return min((due for due in dues if due > state.read_at), default=None)


def board_dues(state: Board, config: ReconstructorConfig, *, decided: bool) -> list[float]:
    """Every due the board's values carry, passed or not (``board_deadline`` keeps those after
    the last reading)."""
    changed = state.changed_at
    dues = [changed + config.stability_window]
    reading = state.reading
    if isinstance(reading, AwaitPress):
        dues.append(reading.due)
    elif isinstance(reading, AwaitPiece):
        dues.append(reading.since + config.drop_grace)
    track = state.track
    if isinstance(track, Astray | Stuck) and track.report_at is not None:
        dues.append(track.report_at)
    if state.rotated is None:
        dues.append(changed + config.unexplained_limit)
    presses = state.presses
    if isinstance(presses, Ahead):
        pressed = presses.first.t
        dues.append(max(changed, pressed) + config.press_grace)
        dues.append(pressed + config.press_grace)
    stands = state.last.stands_at(changed, config.press_grace)
    if stands is not None:
        dues.append(stands)
    watch = state.stall
    if isinstance(watch, Watching) and not decided:
        dues.append(max(watch.since, state.moved_at) + config.stalling_limit)
    link = state.link
    if isinstance(link, Settling) and link.unheard_for < config.unexplained_limit:
        dues.append(link.back_at + config.unexplained_limit)
    return dues
