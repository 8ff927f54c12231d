"""The rule matrix of docs/rules.md, row by row, under every preset, on hand-built positions.

Test ids name the preset and the seed article (``dsj-3.2-drop-mate-illegal``); ``fics`` has no
written text, so its ids name the row (``fics-row2-...``).
"""

from __future__ import annotations

from typing import Any

import chess
import pytest

from bughouse_bridge.bughouse.events import (
    Alert,
    Check,
    Mate,
    MateStatus,
    MovePlayed,
    ResultDecided,
    ResultRevoked,
    Stalemate,
    StalemateStatus,
)
from bughouse_bridge.bughouse.match import IllegalMoveError
from bughouse_bridge.bughouse.referee import arbiter_call_alert, stalling_alert
from bughouse_bridge.bughouse.rules import PRESETS, FlagClaims, RuleSet, get_preset
from bughouse_bridge.bughouse.types import AlertCode, BoardId

A, B = BoardId.A, BoardId.B
PRESET_NAMES = ("dsj", "dsb", "olite", "fics")


def case(preset: str, row: int, slug: str, *values: Any) -> Any:
    article = get_preset(preset).ref(row).article
    label = article or f"row{row}"
    return pytest.param(preset, *values, id=f"{preset}-{label}-{slug}")


def cases(row: int, slug: str, expected: dict[str, Any]) -> list[Any]:
    return [case(name, row, f"{slug}-{expected[name]}", expected[name]) for name in PRESET_NAMES]


def verdict(kit: Any, match: Any, board: BoardId, uci: str, steal: str | None = None) -> str:
    judgement = match.judge(kit.move(board, uci, steal))
    return "legal" if judgement.legal else str(judgement.code)


# --- row 1: drop giving check -----------------------------------------------------------------

ROW1 = "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1"


@pytest.mark.parametrize(
    ("preset", "expected"), cases(1, "drop-check", dict.fromkeys(PRESET_NAMES, "legal"))
)
def test_row1_drop_giving_check(kit, preset, expected):
    match = kit.match(preset, a=ROW1)
    assert verdict(kit, match, A, "R@a8") == expected
    assert kit.of_type(match.play(kit.move(A, "R@a8"), t=1.0), Check) == [
        Check(1.0, A, chess.BLACK)
    ]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_row1_override_forbids_checking_drops(kit, preset):
    match = kit.match(preset, a=ROW1, drop_check="illegal")
    judgement = match.judge(kit.move(A, "R@a8"))
    assert (judgement.legal, judgement.code, judgement.rule.row) == (
        False,
        AlertCode.ILLEGAL_MOVE,
        1,
    )
    assert kit.move(A, "R@a8") not in match.legal_moves(A)
    assert kit.move(A, "R@a7") in match.legal_moves(A)


# --- row 2: drop giving mate ------------------------------------------------------------------

CONTACT_DROP_MATE = "7k/7p/8/8/8/8/1B6/K7[Q] w - - 0 1"  # Q@g7, guarded by Bb2: nothing blocks
BACK_RANK_DROP = "6k1/5ppp/8/8/8/8/8/K7[R] w - - 0 1"  # R@e8: a drop on f8 would block


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        2,
        "drop-mate",
        {"dsj": "drop_mate", "dsb": "drop_mate", "olite": "drop_mate", "fics": "legal"},
    ),
)
def test_row2_contact_drop_mate(kit, preset, expected):
    match = kit.match(preset, a=CONTACT_DROP_MATE)
    assert verdict(kit, match, A, "Q@g7") == expected
    assert (kit.move(A, "Q@g7") in match.legal_moves(A)) == (expected == "legal")
    judgement = match.judge(kit.move(A, "Q@g7"))
    assert judgement.legal or (judgement.rule.row, judgement.rule.preset) == (2, preset)


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        2,
        "blockable-drop-check",
        {"dsj": "drop_mate", "dsb": "legal", "olite": "legal", "fics": "legal"},
    ),
)
def test_row2_blockable_drop_mate_depends_on_row7(kit, preset, expected):
    # dsj: Black A's partner (White B, start position) cannot supply a piece in one move, so
    # the mate would be final and the drop is illegal; elsewhere a drop on f8 could block.
    match = kit.match(preset, a=BACK_RANK_DROP)
    assert verdict(kit, match, A, "R@e8") == expected


def test_row2_fics_drop_mate_ends_the_match(kit):
    match = kit.match("fics", a=CONTACT_DROP_MATE)
    events = match.play(kit.move(A, "Q@g7"), t=3.0)
    assert kit.of_type(events, Mate)[0].status is MateStatus.FINAL
    assert kit.of_type(events, ResultDecided) == [ResultDecided(3.0, 0, A, "checkmate", "1-0")]
    assert kit.of_type(events, MovePlayed)[0].san == "Q@g7#"


# --- row 3: pawn drop ranks (note A) ----------------------------------------------------------

PAWN_IN_HAND = "4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 1"


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(3, "pawn-on-first-rank", dict.fromkeys(PRESET_NAMES, "pawn_drop_rank")),
)
def test_row3_pawn_drop_ranks(kit, preset, expected):
    match = kit.match(preset, a=PAWN_IN_HAND)
    assert verdict(kit, match, A, "P@a1") == expected
    assert verdict(kit, match, A, "P@a7") == "legal"
    drops = {move.move.to_square for move in match.legal_moves(A) if move.is_drop}
    assert drops == set(chess.SquareSet(chess.BB_ALL & ~chess.BB_BACKRANKS)) - {chess.E1, chess.E8}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_row3_black_counts_ranks_from_his_side(kit, preset):
    match = kit.match(preset, a=PAWN_IN_HAND.replace(" w ", " b "))
    assert verdict(kit, match, A, "P@a1") == "pawn_drop_rank"  # Black's 8th rank
    assert verdict(kit, match, A, "P@a2") == "legal"  # Black's 7th rank


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_note_a_override_allows_the_first_rank(kit, preset):
    match = kit.match(preset, a=PAWN_IN_HAND, pawn_drop_ranks="1-7")
    assert verdict(kit, match, A, "P@a1") == "legal"
    assert verdict(kit, match, A, "P@a8") == "pawn_drop_rank"
    assert match.rules.ref(3).article == "override"


# --- row 4: promotion (note D, note F) --------------------------------------------------------

PROMOTE = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"
NOTHING_TO_STEAL = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        4,
        "promotion",
        {"dsj": "steal", "dsb": "steal", "olite": "pawn-to-neighbour", "fics": "marked"},
    ),
)
def test_row4_promotion(kit, preset, expected):
    match = kit.match(preset, a=PROMOTE)
    steal = "d1" if expected == "steal" else None
    events = match.play(kit.move(A, "b7b8q", steal), t=1.0)
    played = kit.of_type(events, MovePlayed)[0]
    placement = match.fen(A).split()[0]
    assert placement.startswith("1Q~2k3" if expected == "marked" else "1Q2k3")
    assert match.pockets().b_white == ("" if expected == "marked" else "P")
    assert match.turn(B) == chess.WHITE  # note F: the neighbour board's turn does not change
    if expected == "steal":
        assert match.board_fen(B) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR"
        assert (played.steal.board, played.steal.square) == (B, chess.D1)
        assert played.steal.piece == chess.Piece(chess.QUEEN, chess.WHITE)
    else:
        assert played.steal is None


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        4,
        "promotion-without-steal",
        {"dsj": "steal_missing", "dsb": "steal_missing", "olite": "legal", "fics": "legal"},
    ),
)
def test_row4_promotion_must_steal(kit, preset, expected):
    match = kit.match(preset, a=PROMOTE)
    assert verdict(kit, match, A, "b7b8q") == expected
    promotions = [move for move in match.legal_moves(A) if move.move.promotion]
    stealing = {move.steal_square for move in promotions}
    if expected == "legal":
        assert len(promotions) == 4
        assert stealing == {None}
    else:
        assert stealing == {chess.A1, chess.B1, chess.C1, chess.D1, chess.F1, chess.G1, chess.H1}


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        4,
        "note-D-nothing-to-steal",
        {"dsj": "steal_missing", "dsb": "steal_missing", "olite": "legal", "fics": "legal"},
    ),
)
def test_note_d_nothing_to_steal(kit, preset, expected):
    match = kit.match(preset, a=PROMOTE, b=NOTHING_TO_STEAL)
    assert verdict(kit, match, A, "b7b8q") == expected
    has_promotion = any(move.move.promotion for move in match.legal_moves(A))
    assert has_promotion == (expected == "legal")


@pytest.mark.parametrize("preset", ["dsj", "dsb"])
def test_row4_steal_must_name_a_matching_piece_of_own_colour(kit, preset):
    match = kit.match(preset, a=PROMOTE)
    assert verdict(kit, match, A, "b7b8q", steal="d8") == "steal_illegal"  # a black queen
    assert verdict(kit, match, A, "b7b8r", steal="d1") == "steal_illegal"  # names a rook
    assert verdict(kit, match, A, "b7b8q", steal="e4") == "steal_illegal"  # empty square
    assert verdict(kit, match, A, "b7b8r", steal="a1") == "legal"


@pytest.mark.parametrize("preset", ["olite", "fics"])
def test_row4_no_steals_without_the_steal_policy(kit, preset):
    match = kit.match(preset, a=PROMOTE)
    assert verdict(kit, match, A, "b7b8q", steal="d1") == "steal_illegal"


# --- row 5: what a steal may not do -----------------------------------------------------------

BLOCKING_BISHOP = "4r2k/8/8/8/8/8/4B3/4K3 w - - 0 1"  # Be2 blocks Re8's check on Ke1
ALREADY_IN_CHECK = "7k/8/8/8/8/3n4/8/4K2B w - - 0 1"  # Nd3 checks Ke1; Bh1 blocks nothing


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        5,
        "steal-uncovers-check",
        {"dsj": "steal_illegal", "dsb": "steal_illegal", "olite": "n/a", "fics": "n/a"},
    ),
)
def test_row5_steal_may_not_uncover_a_check(kit, preset, expected):
    match = kit.match(preset, a=PROMOTE, b=BLOCKING_BISHOP)
    if expected == "n/a":
        assert verdict(kit, match, A, "b7b8b") == "legal"
        return
    judgement = match.judge(kit.move(A, "b7b8b", steal="e2"))
    assert (str(judgement.code), judgement.rule.row) == (expected, 5)
    assert not [move for move in match.legal_moves(A) if move.move.promotion]  # note D follows


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        5,
        "king-already-in-check",
        {"dsj": "steal_illegal", "dsb": "legal", "olite": "n/a", "fics": "n/a"},
    ),
)
def test_row5_dsj_forbids_any_check_dsb_only_uncovered_ones(kit, preset, expected):
    match = kit.match(preset, a=PROMOTE, b=ALREADY_IN_CHECK)
    if expected == "n/a":
        assert verdict(kit, match, A, "b7b8b") == "legal"
        return
    assert verdict(kit, match, A, "b7b8b", steal="h1") == expected


# --- row 6: mate by the stolen piece on the promotion square ----------------------------------

STEAL_MATE = "6nk/5P1p/8/8/8/8/B7/K7 w - - 0 1"  # fxg8 with a queen: contact mate, Ba2 guards


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(6, "mate-by-promotion", dict.fromkeys(PRESET_NAMES, "checkmate")),
)
def test_row6_mate_made_by_the_promoted_piece(kit, preset, expected):
    match = kit.match(preset, a=STEAL_MATE)
    steal = "d1" if match.rules.promotion == "steal" else None
    events = match.play(kit.move(A, "f7g8q", steal), t=2.0)
    assert kit.of_type(events, ResultDecided) == [ResultDecided(2.0, 0, A, expected, "1-0")]
    assert match.pockets().b_black == "N"  # the captured knight went to Black B


def test_row6_override_forbids_it(kit):
    match = kit.match("dsj", a=STEAL_MATE, steal_mate="illegal")
    judgement = match.judge(kit.move(A, "f7g8q", "d1"))
    assert (judgement.code, judgement.rule.row) == (AlertCode.STEAL_ILLEGAL, 6)


# --- row 7: when a mate is final (notes B, E) -------------------------------------------------

BACK_RANK = "6k1/5ppp/8/8/8/8/8/K3R3 w - - 0 1"  # Re8+: only a drop on f8 could block
KNIGHT_FOR_THE_TAKING = "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1"  # White B can take Nd2
CONTACT = "7k/7p/4N3/8/8/8/8/K5Q1 w - - 0 1"  # Qg7#, guarded by Ne6
PARTNER_CAN_PROMOTE = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"  # White B can play b8 and steal


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        7,
        "blockable-mate",
        {"dsj": "final", "dsb": "pending", "olite": "pending", "fics": "pending"},
    ),
)
def test_row7_blockable_check_with_nothing_to_come(kit, preset, expected):
    match = kit.match(preset, a=BACK_RANK)
    events = kit.play(match, A, "Re8", t=1.0)
    assert [mate.status for mate in kit.of_type(events, Mate)] == [MateStatus(expected)]
    assert (match.result is not None) == (expected == "final")


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(7, "partner-can-supply", dict.fromkeys(PRESET_NAMES, "pending")),
)
def test_row7_partner_capture_keeps_it_pending_then_averts(kit, preset, expected):
    match = kit.match(preset, a=BACK_RANK, b=KNIGHT_FOR_THE_TAKING)
    pending = kit.of_type(kit.play(match, A, "Re8", t=1.0), Mate)
    assert [mate.status for mate in pending] == [MateStatus(expected)]
    events = kit.play(match, B, "Kxd2", t=2.0)
    assert kit.of_type(events, Mate) == [
        Mate(2.0, A, chess.BLACK, MateStatus.AVERTED, "the player can move again")
    ]
    assert match.result is None


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        7,
        "partner-move-fails",
        {"dsj": "final", "dsb": "pending", "olite": "pending", "fics": "pending"},
    ),
)
def test_row7_note_e_final_after_the_partners_move(kit, preset, expected):
    match = kit.match(preset, a=BACK_RANK, b=KNIGHT_FOR_THE_TAKING)
    kit.play(match, A, "Re8", t=1.0)
    events = kit.play(match, B, "Ke2", t=2.0)
    statuses = [mate.status for mate in kit.of_type(events, Mate)]
    assert statuses == ([MateStatus.FINAL] if expected == "final" else [])
    assert (match.result is not None) == (expected == "final")


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        7,
        "partner-steal-on-move",
        {"dsj": "pending", "dsb": "pending", "olite": "final", "fics": "final"},
    ),
)
def test_row7_partner_steal_of_the_mating_piece(kit, preset, expected):
    match = kit.match(preset, a=CONTACT, b=PARTNER_CAN_PROMOTE)
    events = kit.play(match, A, "Qg7", t=1.0)
    assert [mate.status for mate in kit.of_type(events, Mate)] == [MateStatus(expected)]
    if expected == "pending":
        after = match.play(kit.move(B, "b7b8q", steal="g7"), t=2.0)
        assert [mate.status for mate in kit.of_type(after, Mate)] == [MateStatus.AVERTED]
        assert match.board_fen(A) == "7k/7p/4N3/8/8/8/8/K7"


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        7,
        "partner-steal-not-on-move",
        {"dsj": "pending", "dsb": "final", "olite": "final", "fics": "final"},
    ),
)
def test_row7_dsb_needs_the_partner_on_move(kit, preset, expected):
    match = kit.match(preset, a=CONTACT, b=PARTNER_CAN_PROMOTE.replace(" w ", " b "))
    events = kit.play(match, A, "Qg7", t=1.0)
    assert [mate.status for mate in kit.of_type(events, Mate)] == [MateStatus(expected)]


# --- row 8: stalemate -------------------------------------------------------------------------

STALEMATE_NEXT = "k7/8/2Q5/8/8/8/8/K7 w - - 0 1"  # Qb6 stalemates Black A


@pytest.mark.parametrize(
    ("preset", "expected"), cases(8, "stalemate", dict.fromkeys(PRESET_NAMES, "waits"))
)
def test_row8_stalemate_waits_until_a_piece_arrives(kit, preset, expected):
    match = kit.match(preset, a=STALEMATE_NEXT, b=KNIGHT_FOR_THE_TAKING)
    events = kit.play(match, A, "Qb6", t=1.0)
    assert kit.of_type(events, Stalemate) == [
        Stalemate(1.0, A, chess.BLACK, StalemateStatus.WAITING)
    ]
    assert [alert.code for alert in kit.of_type(events, Alert)] == [AlertCode.STALEMATE_WAITING]
    assert (match.result is None) == (expected == "waits")
    resolved = kit.play(match, B, "Kxd2", t=2.0)
    assert kit.of_type(resolved, Stalemate) == [
        Stalemate(2.0, A, chess.BLACK, StalemateStatus.RESOLVED)
    ]


def test_row8_override_draw(kit):
    match = kit.match("dsj", a=STALEMATE_NEXT, stalemate="draw")
    events = kit.play(match, A, "Qb6", t=1.0)
    assert kit.of_type(events, ResultDecided) == [
        ResultDecided(1.0, None, A, "stalemate", "1/2-1/2")
    ]


# --- row 9: illegal drop remedy (note C) ------------------------------------------------------

PAWN_TO_DROP = "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1"


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        9,
        "illegal-drop-removed",
        {"dsj": "to-partner", "dsb": "to-partner", "olite": "out-of-play", "fics": "to-partner"},
    ),
)
def test_row9_remove_an_illegal_drop(kit, preset, expected):
    match = kit.match(preset, a=PAWN_TO_DROP)
    forced = match.play(kit.move(A, "P@a1"), t=1.0, force=True)
    assert kit.of_type(forced, MovePlayed)[0].forced
    assert [alert.code for alert in kit.of_type(forced, Alert)] == [AlertCode.PAWN_DROP_RANK]
    removed = match.remove_illegal_drop(A, t=2.0)
    alert = kit.of_type(removed, Alert)[0]
    assert (alert.code, alert.rule) == (AlertCode.ILLEGAL_DROP_REMOVED, get_preset(preset).ref(9))
    assert match.board_fen(A) == "4k3/8/8/8/8/8/8/4K3"
    assert match.pockets().b_white == ("P" if expected == "to-partner" else "")
    assert match.turn(A) == (chess.WHITE if expected == "out-of-play" else chess.BLACK)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_row9_a_reply_lets_the_drop_stand(kit, preset):
    match = kit.match(preset, a=PAWN_TO_DROP)
    match.play(kit.move(A, "P@a1"), t=1.0, force=True)
    kit.play(match, A, "Kd7", t=2.0)
    with pytest.raises(ValueError, match="no illegal drop"):
        match.remove_illegal_drop(A, t=3.0)
    assert match.board_fen(A) == "8/3k4/8/8/8/8/8/P3K3"


def test_row9_illegal_drop_mate_decides_nothing_until_removed(kit):
    match = kit.match("dsj", a=CONTACT_DROP_MATE)
    events = match.play(kit.move(A, "Q@g7"), t=1.0, force=True)
    assert kit.of_type(events, Alert)[0].code is AlertCode.DROP_MATE
    assert match.result is None
    removed = match.remove_illegal_drop(A, t=2.0)
    assert [mate.status for mate in kit.of_type(removed, Mate)] == [MateStatus.AVERTED]
    assert match.pockets().b_white == "Q"
    assert match.turn(A) == chess.BLACK


def test_row9_force_does_not_excuse_other_moves(kit):
    match = kit.match("dsj")
    with pytest.raises(IllegalMoveError):
        match.play(kit.move(A, "e2e5"), t=1.0, force=True)


# --- row 10: other illegal moves --------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"), cases(10, "illegal-move", dict.fromkeys(PRESET_NAMES, "illegal_move"))
)
def test_row10_other_illegal_move_is_refused(kit, preset, expected):
    match = kit.match(preset)
    with pytest.raises(IllegalMoveError) as raised:
        match.play(kit.move(A, "e2e5"), t=1.0)
    judgement = raised.value.judgement
    assert (str(judgement.code), judgement.rule) == (expected, get_preset(preset).ref(10))
    assert match.ply(A) == 0


# --- row 11: both teams mated at once (note G) ------------------------------------------------

MIRROR_CONTACT = "7k/1P5p/4N3/8/8/8/8/K5Q1 w - - 0 1"  # White B can mate too, or promote


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(11, "both-mated", {"dsj": "draw", "dsb": "draw", "olite": "first", "fics": "first"}),
)
def test_row11_both_teams_mated_in_one_window(kit, preset, expected):
    match = kit.match(preset, a=CONTACT, b=MIRROR_CONTACT)
    first = kit.play(match, A, "Qg7", t=1.0)
    if expected == "first":
        assert kit.of_type(first, ResultDecided) == [ResultDecided(1.0, 0, A, "checkmate", "1-0")]
        return
    assert match.result is None  # Black A's partner could still steal the queen
    events = kit.play(match, B, "Qg7", t=2.0)
    assert [mate.status for mate in kit.of_type(events, Mate)] == [MateStatus.FINAL] * 2
    assert kit.of_type(events, ResultDecided) == [
        ResultDecided(2.0, None, B, "checkmate", "1/2-1/2")
    ]


def test_row11_override_first_mate_wins(kit):
    match = kit.match("dsj", a=CONTACT, b=MIRROR_CONTACT, both_mated="first_wins")
    kit.play(match, A, "Qg7", t=1.0)
    events = kit.play(match, B, "Qg7", t=2.0)
    assert kit.of_type(events, ResultDecided) == [ResultDecided(2.0, 1, B, "checkmate", "0-1")]


# --- row 12: both teams flagged (note H) ------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        12,
        "flags-close-together",
        {"dsj": "draw", "dsb": "draw", "olite": "first", "fics": "first"},
    ),
)
def test_row12_flags_of_both_teams(kit, preset, expected):
    match = kit.match(preset)
    first = match.flag(A, chess.WHITE, t=100.2, at=100.0)
    second = match.flag(B, chess.WHITE, t=100.7, at=100.1)
    if match.rules.flag_claims is FlagClaims.ANY_PLAYER:  # row 13: decided by a claim
        assert kit.of_type(first + second, ResultDecided) == []
        decided = match.confirm_claim(A, chess.WHITE, "flag", t=101.0)
        assert kit.of_type(decided, ResultDecided)[0].t == 101.0
    else:
        assert kit.of_type(first, ResultDecided) == [ResultDecided(100.2, 1, A, "time", "0-1")]
        assert kit.of_type(second, ResultDecided) == []
    assert match.result.winner_team == (None if expected == "draw" else 1)


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        12,
        "flags-2s-apart-both-down",
        {"dsj": "earlier", "dsb": "draw", "olite": "earlier", "fics": "earlier"},
    ),
)
def test_row12_flags_two_seconds_apart(kit, preset, expected):
    # White B fell at 50 s, White A at 52 s; both are reported at 60 s (both were down then).
    match = kit.match(preset)
    events = match.flag(B, chess.WHITE, t=60.0, at=50.0)
    events += match.flag(A, chess.WHITE, t=60.0, at=52.0)
    if match.rules.flag_claims is FlagClaims.ANY_PLAYER:
        events += match.confirm_claim(A, chess.WHITE, "flag", t=61.0)
    decided = kit.of_type(events, ResultDecided)
    assert decided[-1].winner_team == (None if expected == "draw" else 0)
    assert match.result.winner_team == (None if expected == "draw" else 0)
    flag_alerts = [event for event in events if isinstance(event, Alert)]
    assert flag_alerts[1].details["at"] == 52.0
    assert flag_alerts[1].details["other_team_at"] == 50.0


# --- row 13: time-forfeit claims --------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        13,
        "flag",
        {"dsj": "claimable", "dsb": "claimable", "olite": "decided", "fics": "decided"},
    ),
)
def test_row13_a_flag_is_claimed_or_decides(kit, preset, expected):
    match = kit.match(preset)
    events = match.flag(B, chess.BLACK, t=30.4, at=30.0)
    (alert,) = kit.of_type(events, Alert)
    assert alert.code is AlertCode.FLAG
    if expected == "decided":
        assert kit.of_type(events, ResultDecided) == [ResultDecided(30.4, 1, B, "time", "0-1")]
        assert "claim" not in alert.details
        match.revoke_result(t=31.0)
        with pytest.raises(ValueError, match="automatically"):
            match.confirm_claim(B, chess.BLACK, "flag", t=32.0)
        return
    assert match.result is None
    assert alert.rule == get_preset(preset).ref(13)
    assert "Claimable by any player, either board" in alert.message
    assert alert.details["claim"] == {"board": "B", "color": "black", "claim": "flag"}
    kit.play(match, A, "e4", t=31.0)  # the match goes on being read
    with pytest.raises(ValueError, match="after the claim"):
        match.confirm_claim(B, chess.BLACK, "flag", t=40.0, at=29.0)
    with pytest.raises(ValueError, match="no flag of White B"):
        match.confirm_claim(B, chess.WHITE, "flag", t=40.0)
    decided = match.confirm_claim(B, chess.BLACK, "flag", t=40.0)
    assert decided == [ResultDecided(40.0, 1, B, "time", "0-1")]
    with pytest.raises(ValueError, match="already decided"):
        match.confirm_claim(B, chess.BLACK, "flag", t=41.0)


def test_row13_override_makes_dsj_flags_automatic(kit):
    match = kit.match("dsj", flag_claims="automatic")
    events = match.flag(A, chess.WHITE, t=5.0, at=5.0)
    assert kit.of_type(events, ResultDecided) == [ResultDecided(5.0, 1, A, "time", "0-1")]


@pytest.mark.parametrize("preset", ["dsj", "dsb"])
def test_row13_an_unclaimed_flag_lets_a_later_mate_decide(kit, preset):
    match = kit.match(preset, b=CONTACT)
    match.flag(A, chess.BLACK, t=10.0, at=10.0)  # a win for White A's team, if claimed
    events = kit.play(match, B, "Qg7", t=12.0)  # White B (Black A's partner) mates first
    assert kit.of_type(events, ResultDecided) == [ResultDecided(12.0, 1, B, "checkmate", "0-1")]
    with pytest.raises(ValueError, match="already decided"):
        match.confirm_claim(A, chess.BLACK, "flag", t=13.0)


# --- row 10 claims: an illegal move on record -------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        10,
        "illegal-claim",
        {"dsj": "claimable", "dsb": "claimable", "olite": "automatic", "fics": "automatic"},
    ),
)
def test_row10_an_illegal_move_may_be_claimed(kit, preset, expected):
    match = kit.match(preset)
    sentence, details = match.note_illegal(A, chess.WHITE, "e2e5", t=3.0)
    if expected == "automatic":
        assert (sentence, details) == ("", {})
        with pytest.raises(ValueError, match="not decided by claim"):
            match.confirm_claim(A, chess.WHITE, "illegal_move", t=4.0)
        return
    assert "Row 10" in sentence
    assert details == {"claim": {"board": "A", "color": "white", "claim": "illegal_move"}}
    assert match.open_claims() == [{**details["claim"], "since": 3.0}]
    with pytest.raises(ValueError, match="no illegal move of Black A"):
        match.confirm_claim(A, chess.BLACK, "illegal_move", t=4.0)
    decided = match.confirm_claim(A, chess.WHITE, "illegal_move", t=4.0)
    assert decided == [ResultDecided(4.0, 1, A, "illegal move", "0-1")]


@pytest.mark.parametrize("preset", ["dsj", "dsb"])
def test_row10_claimable_only_until_the_opponent_moved(kit, preset):
    match = kit.match(preset)
    match.note_illegal(A, chess.WHITE, "e2e5", t=3.0)
    kit.play(match, A, "e4", t=4.0)  # the offender corrects it
    kit.play(match, A, "e5", t=5.0)  # the opponent moves on without claiming
    with pytest.raises(ValueError, match="no longer claimable"):
        match.confirm_claim(A, chess.WHITE, "illegal_move", t=6.0)
    assert match.open_claims() == []


# --- a result never blinds: revoking it -------------------------------------------------------


def test_revoke_result_lets_a_later_mate_decide(kit, preset):
    match = kit.match(preset, b=CONTACT)
    match.set_result(0, A, "arbiter", t=1.0)
    played = kit.play(match, B, "Qg7", t=2.0)
    assert kit.of_type(played, ResultDecided) == []
    events = match.revoke_result(t=3.0, reason="wrong board")
    assert events[0] == ResultRevoked(
        3.0, "wrong board", ResultDecided(1.0, 0, A, "arbiter", "1-0")
    )
    assert kit.of_type(events, ResultDecided) == [ResultDecided(3.0, 1, B, "checkmate", "0-1")]
    with pytest.raises(ValueError, match="no result"):
        kit.match(preset).revoke_result(t=1.0)


# --- rows 13-17: the values of each preset (what they drive is tested above and below) --------

DATA_ROWS = {
    13: (
        "flag_claims",
        {"dsj": "any_player", "dsb": "any_player", "olite": "automatic", "fics": "automatic"},
    ),
    14: (
        "arbiter_call",
        {
            "dsj": "both_clocks_stopped",
            "dsb": "both_or_counter_stop",
            "olite": "none",
            "fics": "none",
        },
    ),
    15: (
        "draws",
        {
            "dsj": "agreement_only",
            "dsb": "agreement_only",
            "olite": "fide",
            "fics": "agreement_only",
        },
    ),
    16: ("pocket_visibility", dict.fromkeys(PRESET_NAMES, "open")),
    17: (
        "stalling",
        {
            "dsj": "arbiter_may_punish",
            "dsb": "arbiter_may_punish",
            "olite": "penalty_up_to_loss",
            "fics": "none",
        },
    ),
}


@pytest.mark.parametrize(
    ("preset", "row", "field", "expected"),
    [
        case(name, row, field.replace("_", "-"), row, field, values[name])
        for row, (field, values) in DATA_ROWS.items()
        for name in PRESET_NAMES
    ],
)
def test_rows13_to_17_policy_values(preset, row, field, expected):
    rules: RuleSet = PRESETS[preset]
    assert str(getattr(rules, field)) == expected
    assert rules.ref(row).row == row


@pytest.mark.parametrize(
    ("preset", "expected"), cases(15, "draw-by-agreement", dict.fromkeys(PRESET_NAMES, "1/2-1/2"))
)
def test_row15_draw_by_agreement_is_set_by_the_arbiter(kit, preset, expected):
    match = kit.match(preset)
    events = match.set_result(None, B, "draw", t=5.0)
    assert events == [ResultDecided(5.0, None, B, "draw", expected)]


@pytest.mark.parametrize(
    ("preset", "expected"), cases(16, "pockets-open", dict.fromkeys(PRESET_NAMES, "all-four"))
)
def test_row16_all_four_pockets_are_published(kit, preset, expected):
    match = kit.match(preset)
    for board in (A, B):
        for san in ("e4", "d5", "exd5", "Qxd5"):
            kit.play(match, board, san)
    assert match.pockets().as_dict() == {
        "A": {"white": "P", "black": "P"},
        "B": {"white": "P", "black": "P"},
    }
    assert expected == "all-four"


# --- rows 14 and 17 drive alerts; rows 15 and 16 are informational -----------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(
        14,
        "arbiter-call",
        {"dsj": "call", "dsb": "call-or-counter-stop", "olite": "none", "fics": "none"},
    ),
)
def test_row14_both_clocks_stopped(preset, expected):
    rules = get_preset(preset)
    alert = arbiter_call_alert(rules, 7.0)
    if expected == "none":
        assert alert is None
        return
    assert (alert.code, alert.rule, alert.t) == (AlertCode.ARBITER_CALL, rules.ref(14), 7.0)
    assert ("other team may stop" in alert.message) == (expected == "call-or-counter-stop")


@pytest.mark.parametrize(
    ("preset", "expected"),
    cases(17, "stalling", {"dsj": "punish", "dsb": "punish", "olite": "loss", "fics": "none"}),
)
def test_row17_stalling(preset, expected):
    rules = get_preset(preset)
    alert = stalling_alert(rules, B, chess.BLACK, 60.0, 9.0)
    if expected == "none":
        assert alert is None
        return
    assert (alert.code, alert.board, alert.color, alert.rule) == (
        AlertCode.STALLING,
        B,
        chess.BLACK,
        rules.ref(17),
    )
    assert ("up to the loss" in alert.message) == (expected == "loss")
    assert "60 s" in alert.message


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_rows15_16_are_shown_in_the_snapshot_description(preset):
    rules = get_preset(preset)
    assert rules.describe()["informational"] == {
        "draws": str(rules.draws),
        "pocket_visibility": str(rules.pocket_visibility),
    }


def test_row13_a_flag_after_the_result_offers_no_claim(kit):
    match = kit.match("dsj", b=CONTACT)
    kit.play(match, B, "Qg7", t=1.0)
    events = match.flag(A, chess.WHITE, t=2.0, at=2.0)
    (alert,) = kit.of_type(events, Alert)
    assert "claim" not in alert.details
    assert "already decided" in alert.message
