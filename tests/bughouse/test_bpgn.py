"""BPGN reader and writer: bughousedb quirks, errors with positions, round trips."""

from __future__ import annotations

import re
from pathlib import Path

import chess
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bughouse_bridge.bughouse.bpgn import (
    RESULTS,
    BpgnError,
    BpgnGame,
    BpgnMove,
    PlayedMove,
    chesscom_clock,
    closing_comment_for,
    core_san,
    format_clock,
    game_from_match_log,
    game_from_moves,
    is_clock_comment,
    is_reserved_comment,
    is_steal_comment,
    normalize_comment,
    numbered_moves,
    parse_bpgn,
    parse_bpgn_game,
    parse_overrides,
    rules_tags,
    ruleset_from_game,
    ruleset_tags,
    team_result,
    write_bpgn,
    write_bpgn_games,
)
from bughouse_bridge.bughouse.events import MovePlayed, Pockets, ResultDecided, StealInfo, Takeback
from bughouse_bridge.bughouse.rules import PRESETS, get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove, Seat
from bughouse_bridge.data import bundled_game, bundled_game_names

A, B = BoardId.A, BoardId.B
W, K = chess.WHITE, chess.BLACK
SHARED_GAMES = Path(__file__).resolve().parents[3] / "shared" / "data" / "bpgn"  # ../shared

# --------------------------------------------------------------------------------------------
# Reading: the quirks of real exports


def test_several_tags_on_one_line_keep_their_order():
    game = parse_bpgn_game('[WhiteA "x"][WhiteAElo "2051"]\n[BlackA "y"] *')
    assert list(game.tags.items()) == [("WhiteA", "x"), ("WhiteAElo", "2051"), ("BlackA", "y")]


@pytest.mark.parametrize(
    ("text", "label", "san", "clock", "comments"),
    [
        ("1A. e4{118.585} *", "1A.", "e4", 118.585, ()),
        ("1A.e4{118.585} *", "1A.", "e4", 118.585, ()),
        ("1A.\ne4\n{118.585}\n*", "1A.", "e4", 118.585, ()),
        ("12a. Nxd4 {258.085} *", "12a.", "Nxd4", 258.085, ()),
        ("3B. P@f6{180} *", "3B.", "P@f6", 180.0, ()),
        ("3b. Q@e6+{-0.5} *", "3b.", "Q@e6+", -0.5, ()),
        (
            "4A. e5{117.2} {R: x requests\nto abort.} {Over} *",
            "4A.",
            "e5",
            117.2,
            ("R: x requests to abort.",),
        ),
        ("1A. e4 {no clock} {more} {end} *", "1A.", "e4", None, ("no clock", "more")),
        ("1A. e4 {7} {8} {end} *", "1A.", "e4", 7.0, ("8",)),
        ("1A. O-O-O+ ; a line comment\n{end} *", "1A.", "O-O-O+", None, ("a line comment",)),
        ("32A. c8=Q+{129.161} {end} *", "32A.", "c8=Q+", 129.161, ()),
        ("15a. B8d7{231.253} {end} *", "15a.", "B8d7", 231.253, ()),
    ],
)
def test_move_fields(text, label, san, clock, comments):
    (move,) = parse_bpgn_game(text).moves
    assert (move.label, move.san, move.clock, move.comments) == (label, san, clock, comments)


@pytest.mark.parametrize(
    ("letter", "board", "color"),
    [("A", A, W), ("a", A, K), ("B", B, W), ("b", B, K)],
)
def test_board_letter_gives_board_and_colour(letter, board, color):
    (move,) = parse_bpgn_game(f"7{letter}. Kf1 *").moves
    assert (move.board, move.color, move.number) == (board, color, 7)


def test_opening_and_closing_comments_and_result():
    game = parse_bpgn_game(
        '[Result "1-0"]\n{C: This is game number 5 at x}\n1A. d4{298.21}\n{Bob\ncheckmated} 1-0'
    )
    assert game.comments == ("C: This is game number 5 at x",)
    assert game.closing_comment == "Bob checkmated"
    assert game.result == "1-0"
    assert game.game_number == 5
    assert game.moves[0].comments == ()


def test_several_games_in_one_text():
    text = '[Event "one"]\n1A. e4 1-0\n[Event "two"]\n1B. d4 0-1\n[Event "three"]\n1/2-1/2'
    games = parse_bpgn(text)
    assert [(g.tags["Event"], g.result, len(g.moves)) for g in games] == [
        ("one", "1-0", 1),
        ("two", "0-1", 1),
        ("three", "1/2-1/2", 0),
    ]


def test_missing_result_token_takes_the_result_tag():
    games = parse_bpgn('[Result "0-1"]\n1A. e4{1}\n[Result "*"]\n1B. d4{2}\n')
    assert [g.result for g in games] == ["0-1", "*"]


@pytest.mark.parametrize("text", ["", "  \n\t\n"])
def test_empty_text_holds_no_game(text):
    assert parse_bpgn(text) == []


def test_steal_comment_is_parsed_and_kept_apart():
    (move,) = parse_bpgn_game("5A. e8=Q{241.5} {steal B:d1} {nice} {end} *").moves
    assert move.steal == (B, chess.D1)
    assert move.clock == 241.5
    assert move.comments == ("nice",)


def test_clock_may_follow_the_steal_comment():
    (move,) = parse_bpgn_game("5b. exd1=N {steal A:h8} {99.5} *").moves
    assert (move.steal, move.clock, move.comments) == ((A, chess.H8), 99.5, ())


@pytest.mark.parametrize(
    ("written", "value"),
    [
        (r'"a \"quoted\" \\ name"', 'a "quoted" \\ name'),
        (r'"C:\games\n1"', r"C:\games\n1"),
        ('"two\nlines"', "two\nlines"),
    ],
)
def test_escaped_tag_values(written, value):
    assert parse_bpgn_game(f"[Event {written}] *").tags["Event"] == value


# --------------------------------------------------------------------------------------------
# Reading: errors carry line and column


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ('[Event "x"\n1A. e4 *', 1, 1, "malformed tag"),
        ("1A. e4 {never closed\n*", 1, 8, "never closed"),
        ("\n1. e4 *", 2, 1, "lacks the board letter"),
        ("1A. e4 1a. Zz9 *", 1, 12, "not a SAN move"),
        ("1A. e4 (1a. e5) *", 1, 8, "variations"),
        ("1A. e4\n  1a. *", 2, 7, "expected a move after 1a."),
        ("1A. e4 1a.", 1, 11, "the end of the text"),
        ("1A. e4 1a. {c} e5 *", 1, 12, "found a comment"),
        ("1A. e4 1B. 1b. e5 *", 1, 12, "found another move number"),
        ("e4 *", 1, 1, "has no number"),
        ("1A. e4 d4 *", 1, 8, "has no number"),
        ('[Event "x"]\n[Event "y"] *', 2, 1, "appears twice"),
        ("1A. e4 {steal B:d1} *", 1, 5, "not a promotion"),
        ("1A. e8=Q {steal A:d1} *", 1, 5, "own board"),
        ("1A. e8=Q {steal B:d1} {steal B:d2} *", 1, 23, "steal only once"),
        ("1A. e4 2-0", 1, 8, "not a SAN move"),
        ("1A. e4 } *", 1, 8, "unexpected '}'"),
        ('[Result "2-0"]\n1A. e4', 2, 7, "result '2-0'"),
    ],
)
def test_errors_name_line_and_column(text, line, column, fragment):
    with pytest.raises(BpgnError) as caught:
        parse_bpgn(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert fragment in str(caught.value)
    assert str(caught.value).startswith(f"line {line}, column {column}: ")


def test_error_is_a_value_error():
    with pytest.raises(ValueError, match="never closed"):
        parse_bpgn("{")


def positions_of(text: str) -> tuple[int, int] | None:
    """``(line, column)`` of the parse error, or None when the text parses."""
    try:
        parse_bpgn(text)
    except BpgnError as error:
        return (error.line or 0, error.column or 0)
    return None


@given(st.text(max_size=60))
def test_garbage_never_crashes_with_anything_but_bpgn_error(text):
    where = positions_of(text)
    if where is not None:
        line, column = where
        assert 1 <= line <= text.count("\n") + 1
        assert column >= 1


# --------------------------------------------------------------------------------------------
# Values that BPGN cannot write are refused at construction


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"san": "e9"}, "not a SAN move"),
        ({"number": 0}, "at least 1"),
        ({"clock": float("nan")}, "finite"),
        ({"comments": ("a}b",)}, "contains '}'"),
        ({"comments": ("two  spaces",)}, "whitespace"),
        ({"comments": ("12.5",)}, "would read as a clock"),
        ({"comments": ("steal B:d1",)}, "steal"),
        ({"steal": (B, chess.D1)}, "not a promotion"),
    ],
)
def test_bpgn_move_refuses_unwritable_values(kwargs, fragment):
    fields = {"board": A, "color": W, "number": 1, "san": "e4"} | kwargs
    with pytest.raises(BpgnError, match=re.escape(fragment)):
        BpgnMove(**fields)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"result": "2-0"}, "result"),
        ({"tags": {"bad name": "x"}}, "tag name"),
        ({"closing_comment": "120.5"}, "would read as a move's"),
        ({"comments": ("a}",)}, "contains '}'"),
    ],
)
def test_bpgn_game_refuses_unwritable_values(kwargs, fragment):
    with pytest.raises(BpgnError, match=re.escape(fragment)):
        BpgnGame(**kwargs)


# --------------------------------------------------------------------------------------------
# Writing


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (298.21, "298.21"),
        (180.0, "180"),
        (0.0, "0"),
        (1e-05, "0.00001"),
        (1e16, "10000000000000000"),
    ],
)
def test_format_clock(seconds, text):
    assert format_clock(seconds) == text
    assert is_clock_comment(text)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_format_clock_is_exact(seconds):
    text = format_clock(seconds)
    assert is_clock_comment(text)
    assert float(text) == seconds


def test_writer_joins_elo_tags_and_attaches_clocks():
    game = game_from_moves(
        [(A, W, "e4", 118.585, None), (B, W, "d4", None, None)],
        tags={"WhiteA": "x", "WhiteAElo": "2051", "Event": "e"},
        closing_comment="done",
    )
    assert write_bpgn(game).splitlines() == [
        '[WhiteA "x"][WhiteAElo "2051"]',
        '[Event "e"]',
        '[Result "*"]',
        # no clock read for d4, yet a comment follows: the seat's last clock, marked
        "1A. e4{118.585} 1B. d4{0 (clock not read)}",
        "{done} *",
    ]


def test_empty_closing_comment_is_written_when_it_would_be_mistaken():
    move = BpgnMove(A, W, 1, "e4", 5.0, ("R: remark",))
    game = BpgnGame({}, (move,), "*")
    assert write_bpgn(game).endswith("{R: remark}\n{} *\n")
    assert parse_bpgn_game(write_bpgn(game)) == game


# --------------------------------------------------------------------------------------------
# Round trips (hypothesis)

comment_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="}"), max_size=20
).map(normalize_comment)
# Comments our dialect reads as annotations (steal, illegal, removal, masked move) or as clocks
# are written by the writer itself, never as free text.
move_comment = comment_text.filter(
    lambda text: not is_steal_comment(text) and not is_reserved_comment(text)
)
closing_text = move_comment.filter(
    lambda text: not is_clock_comment(text) and chesscom_clock(text) is None
)
clocks = st.none() | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
plain_sans = st.sampled_from(
    ["e4", "exd5", "Nf3", "N1c3", "B8d7", "Qxe8+", "O-O", "O-O-O+", "0-0", "P@f6", "B@g7#", "@e7"]
)
promotion_sans = st.sampled_from(["c8=Q+", "exd1=N", "h8=R#", "a1=B", "e8Q"])


@st.composite
def bpgn_moves(draw):
    board = draw(st.sampled_from(BoardId))
    steal = None
    if draw(st.booleans()):
        san = draw(promotion_sans)
        if draw(st.booleans()):
            steal = (board.other, draw(st.sampled_from(chess.SQUARES)))
    else:
        san = draw(plain_sans)
    clock = draw(clocks)
    comments = tuple(draw(st.lists(move_comment, max_size=3)))
    if clock is None and comments:
        assume(not is_clock_comment(comments[0]))
    return BpgnMove(
        board, draw(st.booleans()), draw(st.integers(1, 999)), san, clock, comments, steal
    )


tag_names = st.from_regex(r"[A-Za-z0-9_]{1,12}", fullmatch=True)
tag_values = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20)
bpgn_games = st.builds(
    BpgnGame,
    tags=st.dictionaries(tag_names, tag_values, max_size=6),
    moves=st.lists(bpgn_moves(), max_size=8).map(tuple),
    result=st.sampled_from(RESULTS),
    comments=st.lists(comment_text, max_size=2).map(tuple),
    closing_comment=closing_text,
)


@given(bpgn_games)
def test_round_trip(game):
    assert parse_bpgn(write_bpgn(game)) == [game]


@given(st.lists(bpgn_games, max_size=3))
def test_round_trip_of_several_games(games):
    assert parse_bpgn(write_bpgn_games(games)) == games


TOKEN = re.compile(r'\[[^\]"]*"(?:[^"\\]|\\.)*"\s*\]|\{[^}]*\}|[^\s\[\]{}]+')


def rewrap(text: str, separators: list[str]) -> str:
    """The same tokens with other whitespace between them, and line breaks inside comments."""
    tokens = TOKEN.findall(text)
    pieces = []
    for index, token in enumerate(tokens):
        wrapped = token.replace(" ", "\n") if token.startswith("{") else token
        pieces.append(wrapped + separators[index % len(separators)])
    return "".join(pieces)


@given(bpgn_games, st.lists(st.sampled_from([" ", "\n", "\r\n", "\t ", "  \n  "]), min_size=1))
def test_line_breaks_anywhere(game, separators):
    assert parse_bpgn(rewrap(write_bpgn(game), separators)) == [game]


# --------------------------------------------------------------------------------------------
# The real games


def real_texts() -> list[tuple[str, str]]:
    return [(name, bundled_game(name)) for name in bundled_game_names()]


def tokens_of(text: str) -> list[str]:
    """Tokens with comment whitespace normalised: what 'equal modulo wrapping' means."""
    found = TOKEN.findall(text)
    return [
        "{" + normalize_comment(token[1:-1]) + "}" if token.startswith("{") else token
        for token in found
    ]


@pytest.mark.parametrize(("name", "text"), real_texts())
def test_real_games_write_back_token_for_token(name, text):
    written = write_bpgn(parse_bpgn_game(text))
    assert tokens_of(written) == tokens_of(text)
    assert "".join(tokens_of(text)).replace(" ", "") != ""
    assert parse_bpgn_game(written) == parse_bpgn_game(text)


@pytest.mark.parametrize(("name", "text"), real_texts())
def test_real_games_write_back_byte_for_byte(name, text):
    assert write_bpgn(parse_bpgn_game(text)) == text


@pytest.mark.skipif(not SHARED_GAMES.is_dir(), reason="shared data not mounted")
@pytest.mark.parametrize("name", bundled_game_names())
def test_bundled_copy_matches_shared_data(name):
    assert bundled_game(name) == (SHARED_GAMES / f"{name}.bpgn").read_text(encoding="utf-8")


def test_real_game_fields():
    game = parse_bpgn_game(bundled_game())
    assert game.game_number == 1934301
    assert game.time_control == (300, 0)
    assert game.players[Seat(B, K)] == "BobBughouse"
    assert game.result == game.tags["Result"] == "1-0"
    assert game.closing_comment == "BobBughouse checkmated"
    assert len(game.moves) == 110
    last = game.moves[-1]
    assert (last.label, last.san, last.clock) == ("23B.", "B@g7#", 72.284)


def test_bundled_game_rejects_unknown_names():
    with pytest.raises(ValueError, match="available: 1283326, 1934301"):
        bundled_game("42")


# --------------------------------------------------------------------------------------------
# Tags, numbering, games from played moves


@pytest.mark.parametrize(
    ("tag", "expected"),
    [("120+0", (120, 0)), ("300+2", (300, 2)), ("60", (60, 0)), ("?", None), ("-", None)],
)
def test_time_control(tag, expected):
    assert BpgnGame({"TimeControl": tag}).time_control == expected


def test_bad_time_control_is_a_clear_error():
    with pytest.raises(BpgnError, match="TimeControl"):
        _ = BpgnGame({"TimeControl": "2 minutes"}).time_control


@pytest.mark.parametrize(
    ("overrides", "tag"),
    [
        ({}, None),
        ({"drop_mate": "allowed"}, "drop_mate=allowed"),
        ({"a": 1, "b": True}, "a=1;b=true"),
    ],
)
def test_rules_tags(overrides, tag):
    tags = rules_tags("dsj", overrides)
    assert tags.get("RulesOverrides") == tag
    preset, parsed = BpgnGame(tags).rules or ("", {})
    assert preset == "dsj"
    assert parsed == {key: str(value).lower() for key, value in overrides.items()}


def test_rules_overrides_must_be_key_value():
    with pytest.raises(BpgnError, match="key=value"):
        parse_overrides("drop_mate")


@pytest.mark.parametrize(
    ("sequence", "labels"),
    [
        ("A a A a", "1A. 1a. 2A. 2a."),
        ("A B a b A", "1A. 1B. 1a. 1b. 2A."),
        ("A B b B a A", "1A. 1B. 1b. 2B. 1a. 2A."),
        ("a A", "1a. 2A."),
    ],
)
def test_numbered_moves(sequence, labels):
    played = [
        PlayedMove(BoardId(letter.upper()), letter.isupper(), "Kf1") for letter in sequence.split()
    ]
    assert " ".join(move.label for move in numbered_moves(played)) == labels


@given(bpgn_games)
def test_numbering_a_parsed_game_again_is_stable_for_alternating_games(game):
    played = [PlayedMove(m.board, m.color, m.san, m.clock, m.steal, m.comments) for m in game.moves]
    renumbered = numbered_moves(played)
    for board in BoardId:
        colors = [m.color for m in renumbered if m.board is board]
        numbers = [m.number for m in renumbered if m.board is board]
        assert numbers == sorted(numbers)
        closes = [i for i, color in enumerate(colors[:-1]) if color == K]
        assert all(numbers[i + 1] == numbers[i] + 1 for i in closes)


def move_event(board, color, ply, san, uci, **extra):
    return MovePlayed(
        t=float(ply),
        board=board,
        color=color,
        ply=ply,
        move=BughouseMove(board, chess.Move.from_uci(uci)),
        san=san,
        fen="",
        pockets=Pockets(),
        **extra,
    )


def test_game_from_match_log_undoes_takebacks_and_adds_the_result():
    events = [
        move_event(A, W, 1, "e4", "e2e4", clock_ms=119_500),
        move_event(B, W, 1, "d4", "d2d4"),
        move_event(A, K, 2, "e5", "e7e5", clock_ms=118_000),
        Takeback(t=3, board=A, ply=1),
        move_event(A, K, 2, "c5", "c7c5", clock_ms=117_250),
        ResultDecided(t=5, winner_team=1, board=A, reason="resign", bpgn_result="0-1"),
    ]
    game = game_from_match_log(events, tags={"WhiteA": "Ann", "BlackA": "Bob"})
    assert [(m.label, m.san, m.clock) for m in game.moves] == [
        ("1A.", "e4", 119.5),
        ("1B.", "d4", None),
        ("1a.", "c5", 117.25),
    ]
    assert (game.result, game.tags["Result"], game.closing_comment) == (
        "0-1",
        "0-1",
        "Ann (WhiteA) resigns on board A",
    )
    assert parse_bpgn_game(write_bpgn(game)) == game


def test_game_from_match_log_keeps_the_steal():
    steal = StealInfo(B, chess.D1, chess.Piece(chess.QUEEN, chess.WHITE))
    game = game_from_match_log([move_event(A, W, 1, "e8=Q", "e7e8q", clock_ms=5000, steal=steal)])
    assert game.moves[0].steal == (B, chess.D1)
    assert "{steal B:d1}" in write_bpgn(game)


@pytest.mark.parametrize(
    ("board", "winner", "reason", "expected"),
    [
        (B, 1, "checkmate", "BobBughouse (BlackB) checkmated on board B"),
        (B, 0, "time", "Giomaxxim (WhiteB) forfeits on time on board B"),
        (A, 0, "arbiter", "Stesox (BlackA) loses (arbiter) on board A"),
        (A, 1, "resign", "Rabbos (WhiteA) resigns on board A"),
        (B, 1, "illegal move", "BobBughouse (BlackB) loses by an illegal move on board B"),
        (A, None, "draw", "Game drawn on board A (draw)"),
    ],
)
def test_closing_comment_names_board_seat_and_reason(board, winner, reason, expected):
    players = parse_bpgn_game(bundled_game()).players
    result = ResultDecided(t=0, winner_team=winner, board=board, reason=reason, bpgn_result="*")
    assert closing_comment_for(result, players) == expected


@pytest.mark.parametrize("players", [{}, {Seat(B, K): "?"}, {Seat(B, K): ""}])
def test_closing_comment_falls_back_to_the_seat_name(players):
    result = ResultDecided(t=0, winner_team=1, board=B, reason="checkmate", bpgn_result="0-1")
    assert closing_comment_for(result, players) == "BlackB checkmated on board B"


@pytest.mark.parametrize(("winner", "expected"), [(0, "1-0"), (1, "0-1"), (None, "1/2-1/2")])
def test_team_result_is_relative_to_white_a_and_black_b(winner, expected):
    assert team_result(winner) == expected


rule_overrides = st.fixed_dictionaries(
    {},
    optional={
        "drop_mate": st.sampled_from(["allowed", "illegal"]),
        "pawn_drop_ranks": st.sampled_from([(1, 7), (2, 6), (2, 7)]),
        "flag_order_resolution_ms": st.integers(0, 5000),
    },
)


@given(st.sampled_from(sorted(PRESETS)), rule_overrides)
def test_rule_set_survives_the_tags(preset, overrides):
    rules = get_preset(preset).with_overrides(overrides)
    game = parse_bpgn_game(write_bpgn(BpgnGame(ruleset_tags(rules))))
    assert ruleset_from_game(game) == rules


def test_game_without_rules_tag_names_no_rule_set():
    assert ruleset_from_game(parse_bpgn_game(bundled_game())) is None


def test_unknown_preset_in_tags_is_a_clear_error():
    with pytest.raises(ValueError, match="valid presets"):
        ruleset_from_game(BpgnGame({"Rules": "blitz"}))


@pytest.mark.parametrize(
    ("san", "steal", "expected_san", "expected_steal"),
    [
        ("e8=N(d1)+", None, "e8=N+", (B, chess.D1)),
        ("e8=N", StealInfo(B, chess.D1, chess.Piece(chess.KNIGHT, W)), "e8=N", (B, chess.D1)),
        ("e8=N(d1)", (B, chess.D1), "e8=N", (B, chess.D1)),
        ("e8=Q", None, "e8=Q", None),
    ],
)
def test_numbered_moves_accepts_the_rules_core_forms_of_a_steal(
    san, steal, expected_san, expected_steal
):
    (move,) = numbered_moves([(A, W, san, None, steal)])
    assert (move.san, move.steal) == (expected_san, expected_steal)
    assert core_san(move) == (
        f"e8=N({chess.square_name(expected_steal[1])})" if expected_steal else san
    )


def test_closing_comment_survives_odd_reasons():
    result = ResultDecided(t=0, winner_team=0, board=A, reason="{x}", bpgn_result="1-0")
    assert closing_comment_for(result, {}) == "BlackA loses ({x)) on board A"
