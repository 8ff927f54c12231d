"""Flag claims (rows 12, 13, note H) as properties over random flags and claim moments."""

from __future__ import annotations

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_bridge.bughouse.events import ResultDecided
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import BothFlagged, get_preset
from bughouse_bridge.bughouse.types import BoardId, Seat

SEATS = [Seat(board, color) for board in BoardId for color in (chess.WHITE, chess.BLACK)]

flags = st.dictionaries(
    st.sampled_from(SEATS), st.floats(0.0, 20.0).map(lambda x: round(x, 2)), max_size=4
)


def expected_winner(rules, fallen: dict[Seat, float], seat: Seat, moment: float) -> int | None:
    """Row 12 as the rule texts say it, for a claim against ``seat`` made at ``moment``."""
    rivals = [at for other, at in fallen.items() if other.team != seat.team and at <= moment]
    if not rivals:
        return 1 - seat.team
    rival, mine = min(rivals), fallen[seat]
    if rules.both_flagged is BothFlagged.DRAW_IF_DIFFERENT_TEAMS:
        return None
    if abs(mine - rival) * 1000 < rules.flag_order_resolution_ms:
        return None
    return 1 - seat.team if mine < rival else seat.team


@given(
    preset=st.sampled_from(["dsj", "dsb"]),
    fallen=flags,
    seat=st.sampled_from(SEATS),
    moment=st.floats(0.0, 25.0),
)
@settings(max_examples=300, deadline=None)
def test_a_claim_holds_exactly_when_the_flag_fell_and_decides_by_row_12(
    preset, fallen, seat, moment
):
    rules = get_preset(preset)
    match = Match(rules)
    for flagged, at in sorted(fallen.items(), key=lambda item: item[1]):
        events = match.flag(flagged.board, flagged.color, t=at + 0.3, at=at)
        assert not any(isinstance(event, ResultDecided) for event in events)  # only claims
    holds = seat in fallen and fallen[seat] <= moment
    try:
        decided = match.confirm_claim(seat.board, seat.color, "flag", t=30.0, at=moment)
    except ValueError:
        assert not holds
        assert match.result is None
        return
    assert holds
    (result,) = decided
    assert result.winner_team == expected_winner(rules, fallen, seat, moment)
    assert result.reason == "time"


@given(fallen=flags.filter(bool))
@settings(max_examples=100, deadline=None)
def test_under_automatic_flags_the_first_reported_flag_decides_at_once(fallen):
    match = Match(get_preset("fics"))
    ordered = sorted(fallen.items(), key=lambda item: item[1])
    (first, at), *rest = ordered
    events = match.flag(first.board, first.color, t=at + 0.3, at=at)
    assert [e.winner_team for e in events if isinstance(e, ResultDecided)] == [1 - first.team]
    for seat, later in rest:
        match.flag(seat.board, seat.color, t=later + 0.3, at=later)
    assert match.result.winner_team == 1 - first.team  # first flag wins (row 12, fics)
