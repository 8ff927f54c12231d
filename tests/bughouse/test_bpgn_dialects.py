"""Other tools' BPGN read (chess.com, bughouse.pro) and our own dialect for what plain BPGN
cannot say (illegal drops that stood, their removal, steals): docs/bpgn.md."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bughouse_bridge.bughouse.bpgn import (
    BpgnError,
    BpgnGame,
    BpgnMove,
    BpgnReplayError,
    chesscom_clock,
    format_clock,
    game_from_match_log,
    parse_bpgn_game,
    record_date_tags,
    replay,
    write_bpgn,
)
from bughouse_bridge.bughouse.events import (
    MatchEvent,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    Takeback,
)
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.daemon.cli import main

A, B = BoardId.A, BoardId.B
W, K = chess.WHITE, chess.BLACK
FIXTURES = Path(__file__).with_name("fixtures")  # sources: fixtures/SOURCES.md


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def result_of(steps) -> ResultDecided:
    (result,) = [e for step in steps for e in step.events if isinstance(e, ResultDecided)]
    return result


# --------------------------------------------------------------------------------------------
# chess.com


def test_chesscom_export_reads_and_replays_to_its_mate():
    game = parse_bpgn_game(fixture("chesscom-2022-02-22.bpgn"))
    assert len(game.moves) == 79
    knight_drops = [m for m in game.moves if m.san.startswith("N@")]
    assert [m.label for m in knight_drops][:2] == ["5b.", "10a."]  # written $146@g4, $146@h3+
    assert [m.san for m in game.moves if m.label == "12b."] == ["@e3"]
    steps = replay(game, Match(get_preset("fics")))
    result = result_of(steps)
    assert (result.board, result.reason, result.winner_team) == (A, "checkmate", 1)
    assert game.result == result.bpgn_result == "0-1"  # "blunderman1 won by checkmate" as Black A


def test_chesscom_clocks_are_read_as_the_movers_clock():
    game = parse_bpgn_game(fixture("chesscom-2022-02-22.bpgn"))
    first_b = next(m for m in game.moves if m.board is B)
    assert (first_b.label, first_b.clock, first_b.comments) == ("1B.", 1.3, ())
    assert all(m.clock is None for m in game.moves if m.board is A)  # board A carried none


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("[%clk 0:00:07.9]", 7.9),
        ("[%clk 0:01:23]", 83.0),
        ("[%clk 1:00:00]", 3600.0),
        ("[%clk 2:05.5]", 125.5),
        ("[%clk x]", None),
        ("118.5", None),
    ],
)
def test_chesscom_clock(text, seconds):
    assert chesscom_clock(text) == seconds


def test_a_chesscom_clock_is_written_back_as_plain_seconds():
    game = parse_bpgn_game("1A. e4 {[%clk 0:02:59.5]} *")
    assert game.moves[0].clock == 179.5
    assert "1A. e4{179.5}" in write_bpgn(game)


# --------------------------------------------------------------------------------------------
# bughouse.pro


def test_bughousepro_export_reads_and_replays_to_its_outcome():
    """Its Outcome tag says "Bob & Charlie won: Alice & Dave checkmated", Result "0-1"."""
    game = parse_bpgn_game(fixture("bughousepro-golden.bpgn"))
    assert len(game.moves) == 39
    assert game.moves[0].comments == ("[ts=0.0]",)  # timestamps stay comments
    assert game.time_control == (300, 0)
    steps = replay(game, Match(get_preset("fics")))
    pawn_captures = {s.move.san: s.bughouse_move.uci for s in steps if s.move.san.startswith("x")}
    assert pawn_captures == {"xe6": "d5e6", "xe4": "d5e4", "xh3": "g2h3"}
    result = result_of(steps)
    assert (result.winner_team, result.bpgn_result) == (1, game.result)
    assert (game.tags["BlackA"], game.tags["WhiteB"]) == ("Bob", "Charlie")  # team 1


def test_a_pawn_capture_without_file_that_two_pawns_can_make_is_an_error():
    game = parse_bpgn_game("1A. e4 1a. d5 2A. c4 2a. h6 3A. xd5 *")
    with pytest.raises(BpgnReplayError, match=r"3A\. xd5"):
        replay(game, Match(get_preset("fics")))


# --------------------------------------------------------------------------------------------
# Our dialect: illegal drops that stood, removals, null moves


def drop(board: BoardId, symbol: str, square: str) -> BughouseMove:
    target = chess.parse_square(square)
    return BughouseMove(
        board, chess.Move(target, target, drop=chess.Piece.from_symbol(symbol).piece_type)
    )


def forced_game(preset: str) -> tuple[Match, list[MatchEvent]]:
    match = Match(get_preset(preset))
    events = match.play(match.parse_san(A, "e4"), t=0, clock_ms=60_000)
    events += match.play(drop(A, "n", "f6"), t=1, clock_ms=59_500, force=True)
    events += match.remove_illegal_drop(A, t=2)
    san = "Nc6" if match.turn(A) == K else "d4"
    events += match.play(match.parse_san(A, san), t=3, clock_ms=58_000)
    return match, events


@pytest.mark.parametrize("preset", ["dsj", "dsb", "olite", "fics"])
def test_an_illegal_drop_and_its_removal_round_trip_to_the_same_positions(preset):
    match, events = forced_game(preset)
    text = write_bpgn(game_from_match_log(events))
    game = parse_bpgn_game(text)
    forced = game.moves[1]
    assert (forced.san, forced.forced, forced.removal) == ("N@f6", True, (A, chess.F6))
    assert "1a. --{59.5} {illegal N@f6} {removed A:f6}" in text
    again = Match(get_preset(preset))
    replay(game, again)
    assert again.fen(A) == match.fen(A)
    assert again.pockets() == match.pockets()


def test_a_removal_that_gives_the_move_back_writes_a_null_move_for_the_other_side():
    _, events = forced_game("olite")  # olite: the offender moves again (row 9)
    game = game_from_match_log(events)
    assert [(m.label, m.san) for m in game.moves] == [
        ("1A.", "e4"),
        ("1a.", "N@f6"),
        ("2A.", "--"),
        ("2a.", "Nc6"),
    ]


def test_a_null_move_out_of_turn_order_is_an_error():
    game = parse_bpgn_game("1A. e4 1a. -- *")
    with pytest.raises(BpgnReplayError, match="null move"):
        replay(game, Match(get_preset("fics")))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1A. e4 {illegal P@e5} *", "null move"),
        ("1A. e4{1} {removed A:e4} {removed A:e5} *", "only once"),
        ("1A. e4{1} {steal B:d1} *", "not a promotion"),
    ],
)
def test_misplaced_annotations_are_clear_errors(text, message):
    with pytest.raises(BpgnError, match=message):
        parse_bpgn_game(text)


def test_force_lets_an_illegal_drop_of_a_foreign_file_stand():
    game = parse_bpgn_game("1A. e4 1a. N@f6 2A. d4 *")  # Black A holds no knight
    with pytest.raises(BpgnReplayError, match=r"1a\. N@f6"):
        replay(game, Match(get_preset("dsj")))
    match = Match(get_preset("dsj"))
    steps = replay(game, match, force=True)
    assert steps[1].events[0].forced  # type: ignore[union-attr]
    assert match.board_fen(A).split("/")[2] == "5n2"
    text = write_bpgn(game_from_match_log(e for s in steps for e in s.events))
    assert "1a. --{0 (clock not read)} {illegal N@f6} 2A. d4" in text


@given(
    st.sampled_from([chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]),
    st.sampled_from(list(chess.SQUARES)),
    st.floats(0, 10_000, allow_nan=False).map(lambda x: round(x, 3)),
)
def test_a_forced_drop_survives_writing_and_reading(piece, square, clock):
    san = f"{chess.piece_symbol(piece).upper()}@{chess.square_name(square)}"
    move = BpgnMove(A, K, 3, san, clock, forced=True, removal=(A, square))
    game = parse_bpgn_game(write_bpgn(BpgnGame(moves=(move,))))
    assert game.moves == (move,)


def test_record_date_tags():
    assert record_date_tags(0.0, 5.0) == {"Date": "????.??.??"}
    assert record_date_tags(1_763_890_000.0, 71.0) == {"Date": "2025.11.23", "Time": "09:27:51"}


# --------------------------------------------------------------------------------------------
# Results that are revoked, moves read after a result


def test_moves_after_a_standing_result_stay_out_until_it_is_revoked():
    match = Match(get_preset("dsj"))
    events = match.play(match.parse_san(A, "e4"), t=1, clock_ms=60_000)
    reply = match.copy()  # the reply the boards showed after the result (after_result)
    late_move = reply.play(reply.parse_san(A, "e5"), t=2.5, clock_ms=59_000)[0]
    events += match.set_result(0, B, "resign", t=2)
    decided = game_from_match_log(events)
    assert (decided.result, decided.closing_comment) == ("1-0", "WhiteB resigns on board B")

    revoked = ResultRevoked(3, "wrong board", events[-1])  # type: ignore[arg-type]
    late = [*events, late_move]
    assert game_from_match_log(late).moves == decided.moves  # read after the result: not in it

    game = game_from_match_log([*late, revoked])
    assert [m.san for m in game.moves] == ["e4", "e5"]
    assert game.moves[-1].comments == ("result 1-0 revoked: wrong board",)
    assert (game.result, game.closing_comment) == ("*", "")
    text = write_bpgn(game)
    assert "1a. e5{59} {result 1-0 revoked: wrong board}\n{} *" in text
    assert parse_bpgn_game(text) == game


def test_emulate_refuses_a_game_with_an_illegal_drop_that_stood(tmp_path, capsys):
    _, events = forced_game("dsj")
    path = tmp_path / "forced.bpgn"
    path.write_text(write_bpgn(game_from_match_log(events)), encoding="utf-8")
    assert main(["emulate", str(path)]) == 1
    assert "illegal drop that stood (1a. N@f6" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Moves a plain reader cannot follow after a steal


def steal_then_king_walk() -> tuple[Match, list[MatchEvent]]:
    match = Match(get_preset("dsj"))
    events: list[MatchEvent] = []
    for board, san in [
        *((A, san) for san in ("e4", "f5", "exf5", "g6", "fxg6", "Nf6", "gxh7", "Rg8")),
        (B, "e4"),
        (B, "e5"),
        (A, "hxg8=Q(d1)"),  # White A takes White B's queen (row 4)
        (B, "Kd1"),  # legal here, blocked by the queen a plain reader still sees on d1
        (B, "Nc6"),
    ]:
        events += match.play(match.parse_san(board, san), t=0, clock_ms=60_000)
    return match, events


def test_a_move_a_plain_reader_cannot_follow_is_masked_and_reads_back():
    match, events = steal_then_king_walk()
    game = game_from_match_log(events)
    assert [(m.label, m.san) for m in game.moves if m.masked] == [("2B.", "Kd1")]
    text = write_bpgn(game)
    assert "2B. --{60} {move Kd1} 2b. Nc6{60}" in text
    again = Match(get_preset("dsj"))
    replay(parse_bpgn_game(text), again)
    assert (again.fen(A), again.fen(B)) == (match.fen(A), match.fen(B))


def test_without_a_steal_or_a_forced_drop_nothing_is_masked():
    match = Match(get_preset("dsj"))
    events = match.play(match.parse_san(A, "e4"), t=0)
    events += match.play(match.parse_san(A, "d5"), t=1)
    events += match.play(match.parse_san(A, "exd5"), t=2)
    events += match.play(match.parse_san(B, "d4"), t=3)
    events += match.play(match.parse_san(B, "P@d6"), t=4)  # the captured pawn, dropped by Black B
    assert not any(move.masked for move in game_from_match_log(events).moves)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1A. e4 {move e4} *", "null move"),
        ("1A. -- {illegal P@e5} {move e4} *", "both forced"),
        ("1A. -- {move e4} {move d4} *", "only once"),
    ],
)
def test_misplaced_move_annotations_are_clear_errors(text, message):
    with pytest.raises(BpgnError, match=message):
        parse_bpgn_game(text)


# --------------------------------------------------------------------------------------------
# Clocks that were not read


def test_a_clock_not_read_before_a_comment_is_the_seats_last_one_marked_and_reads_as_none():
    game = BpgnGame(
        moves=(
            BpgnMove(A, W, 1, "e4", 118.5),
            BpgnMove(A, K, 1, "e5", None),
            BpgnMove(A, W, 2, "Nf3", None, comments=("a note",)),
            BpgnMove(A, K, 2, "Nc6", None, removal=(A, chess.E4)),
        ),
        closing_comment="the end",
    )
    text = write_bpgn(game)
    assert "1a. e5 2A. Nf3{118.5 (clock not read)} {a note}" in text  # e5: nothing to shield
    assert "2a. Nc6{0 (clock not read)} {removed A:e4}\n{the end} *" in text
    assert parse_bpgn_game(text) == game


@given(st.floats(0, 10_000, allow_nan=False).map(lambda x: round(x, 3)))
def test_the_unread_mark_is_reserved(value):
    comment = f"{format_clock(value)} (clock not read)"
    with pytest.raises(BpgnError, match="annotation"):
        BpgnMove(A, W, 1, "e4", 1.0, comments=(comment,))


# --------------------------------------------------------------------------------------------
# Arbiter corrections (accept, set_pocket) as comments


def test_corrections_are_comments_after_the_move_they_followed():
    match = Match(get_preset("dsj"))
    accepted = PositionAccepted(0.5, A, 0, "8/8/8/8/8/8/8/K6k[] w - - 0 1", match.pockets())
    events: list[MatchEvent] = [accepted]  # before any move: an opening comment
    events += match.play(match.parse_san(B, "e4"), t=1, clock_ms=60_000)
    events += match.play(match.parse_san(B, "e5"), t=2, clock_ms=59_000)
    events.append(PocketSet(3, B, W, "PN", match.fen(B), match.pockets()))
    events.append(Takeback(4, B, 1))  # e5 goes: the pocket comment moves to e4
    game = game_from_match_log(events)
    assert game.comments == ("accepted A: 8/8/8/8/8/8/8/K6k[] w - - 0 1",)
    assert [(m.san, m.comments) for m in game.moves] == [("e4", ("pocket B white: PN",))]
    assert all(not m.masked for m in game.moves)  # e4 is what a plain reader reads too
    text = write_bpgn(game)
    assert "1B. e4{60} {pocket B white: PN}\n{} *" in text
    assert parse_bpgn_game(text) == game
