"""Properties: every physically possible lift/place order of a random legal move (a move, a
capture, castling, en passant, a promotion, a drop) reconstructs exactly that move; sensor noise
that settles back leaves the match untouched; the reconstructor never raises."""

from __future__ import annotations

import chess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sensors import A, Table, face

from bughouse_bridge.bughouse.events import MatchEvent
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.dgt.messages import BoardDump, ClockFace, ClockTimes, FieldUpdate, Garbage
from bughouse_bridge.dgt.squares import board_to_dump
from bughouse_bridge.reconstruct import ClockReading, RequestDump

# Both sides start with a full pocket, so drops are everywhere among the legal moves.
FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRBNPqrbnp] w KQkq - 0 1"


@st.composite
def positions_and_moves(draw: st.DrawFn) -> tuple[Table, chess.Move]:
    """A table after a few random legal plies on board A, and one more legal move to make."""
    table = Table("fics", fens={A: FEN})
    match = table.rec.match
    for _ in range(draw(st.integers(0, 12))):
        moves = match.legal_moves(A)
        if not moves:
            break
        move = draw(st.sampled_from(moves))
        match.play(move, t=0.0)
    moves = match.legal_moves(A)
    if not moves:
        return table, chess.Move.null()
    table.physical[A] = chess.BaseBoard(match.board_fen(A))
    table.dump(A)
    return table, draw(st.sampled_from(moves)).move


def changes(before: str, after: str) -> list[tuple[chess.Square, chess.Piece | None]]:
    old, new = chess.BaseBoard(before), chess.BaseBoard(after)
    return [(sq, new.piece_at(sq)) for sq in chess.SQUARES if old.piece_at(sq) != new.piece_at(sq)]


def set_square(table: Table, square: chess.Square, piece: chess.Piece | None) -> None:
    table.put(A, chess.square_name(square), piece.symbol() if piece else None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), press=st.booleans())
def test_any_order_of_a_legal_move_reconstructs_it(data: st.DataObject, press: bool) -> None:
    table, move = data.draw(positions_and_moves())
    if not move:
        return
    match = table.rec.match
    before = match.board_fen(A)
    position = match.position(A)
    position.push(move)
    steps = changes(before, position.board_fen(promoted=False))
    order = data.draw(st.permutations(steps))
    # A capture's victim may be taken off before the capturer arrives.
    emptied_first = data.draw(st.sets(st.sampled_from([sq for sq, p in steps if p] or [0])))
    if press:
        table.start_clocks(A)
    for square, piece in order:
        if (
            piece is not None
            and square in emptied_first
            and chess.BaseBoard(before).piece_at(square)
        ):
            set_square(table, square, None)
        set_square(table, square, piece)
    if press:
        table.press(A)
    table.settle()
    assert table.moves() == [chess.Move.uci(move) if not move.drop else _drop_uci(move)]
    assert table.alerts() == []


def _drop_uci(move: chess.Move) -> str:
    assert move.drop is not None
    return f"{chess.piece_symbol(move.drop).upper()}@{chess.square_name(move.to_square)}"


@settings(max_examples=60, deadline=None)
@given(
    noise=st.lists(
        st.tuples(st.integers(0, 63), st.integers(0, 15), st.floats(0.0, 0.2)),
        max_size=12,
    )
)
def test_transient_noise_that_settles_back_changes_nothing(
    noise: list[tuple[int, int, float]],
) -> None:
    table = Table()
    real = board_to_dump(table.physical[A]).squares
    for field, code, pause in noise:
        table.feed(A, FieldUpdate(field, code))
        table.t += pause
    for field, _code, _pause in noise:
        table.feed(A, FieldUpdate(field, real[field]))
    table.settle()
    assert table.moves() == []


@settings(max_examples=80, deadline=None)
@given(
    messages=st.lists(
        st.one_of(
            st.builds(FieldUpdate, st.integers(-5, 80), st.integers(0, 255)),
            st.builds(BoardDump, st.lists(st.integers(0, 15), max_size=70).map(tuple)),
            st.builds(Garbage, st.binary(max_size=4), st.just("noise")),
            st.builds(
                ClockTimes,
                st.just(chess.WHITE).map(lambda _: _face()),
                st.just(chess.WHITE).map(lambda _: _face()),
                st.integers(0, 0x3F),
            ),
        ),
        max_size=40,
    ),
    boards=st.lists(st.sampled_from(list(BoardId)), min_size=40, max_size=40),
)
def test_garbage_in_never_raises(messages: list[object], boards: list[BoardId]) -> None:
    table = Table()
    for message, board in zip(messages, boards, strict=False):
        table.feed(board, message)
        table.t += 0.1
        table.wait(0.0)
    table.wait(10.0)
    deadline = table.rec.deadline()
    assert deadline is None or deadline > table.t  # every due timer has fired
    assert all(isinstance(o, OUTCOME_TYPES) for o in table.out)


OUTCOME_TYPES = (*MatchEvent.__args__, ClockReading, RequestDump)  # type: ignore[attr-defined]


def _face() -> ClockFace:
    return face(61_000)
