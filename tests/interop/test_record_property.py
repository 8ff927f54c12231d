"""One game, one log (issue 20): every view of the record equals the match log, whatever happens.

Random sequences of moves (steals under ``dsj``), illegal drops that stand and their removal,
link gaps filled and later replaced by their plies (``choose_recovery``), takebacks, accepted
positions, pocket edits, results, revocations and new games go through the real pipeline (the
boards are scripted, ``contract/scripted.py``). After every step:

- the BPGN the bridge publishes and the retained ``record`` topics, as a subscriber holds them
  (entries 1..N under the header, nothing beyond), equal a record derived afresh from the match
  log — so the incremental views never drift from a from-scratch render;
- every archive file equals the BPGN retained for that game when the file was written.

At the end, and after every rewrite of the log (takeback, recovery chosen), pychess-variants'
own importer reads the BPGN: per board it plays exactly the match log's moves (a move a plain
reader cannot follow, and a null move that only keeps the turn order, read as ``0000``), in the
log's order across both boards, with the standing result; our own reader reads the same moves.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import chess
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bughouse_bridge.bughouse.bpgn import parse_bpgn_game, write_bpgn
from bughouse_bridge.bughouse.bpgn_document import BpgnDocument
from bughouse_bridge.bughouse.events import MovePlayed, ResultDecided, ResultRevoked
from bughouse_bridge.bughouse.match_log import Played
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.pipeline.game import entry_fields
from contract.scripted import (
    TEAMS,
    act,
    command,
    fill_gap,
    play,
    script,
    scripted_bridge,
)
from interop.test_pychess_variants import RUNNER, pychess_dir

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from bughouse_bridge.bridge import Bridge, Output
    from bughouse_bridge.bughouse.match import Match

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        pychess_dir() is None, reason="pychess-variants' importer was not found (interop tests)"
    ),
]

A, B = BoardId.A, BoardId.B
RESULT_CODES = {None: "c", 0: "a", 1: "b"}  # pychess: "a" = 1-0 = White A + Black B won


class Pychess:
    """pychess-variants' importer in a process of its own, one game per line."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(RUNNER), str(pychess_dir()), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def read(self, text: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(text) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(10)


@pytest.fixture(scope="module")
def pychess() -> Iterator[Pychess]:
    reader = Pychess()
    yield reader
    reader.close()


class Subscriber:
    """What a late subscriber finds retained, and the archive's files."""

    def __init__(self) -> None:
        self.retained: dict[str, bytes] = {}
        self.files: dict[str, str] = {}

    def take(self, output: Output, *, game_changed: bool) -> None:
        before = dict(self.retained)
        for publication in output.publications:
            if publication.retain:
                if publication.payload:
                    self.retained[publication.topic] = publication.payload
                else:
                    self.retained.pop(publication.topic, None)
        for game_file in output.files:
            # The finished game's file equals the BPGN that was retained for it; any other file
            # is the current game's, written with the BPGN of the same step.
            source = before if game_changed and game_file is output.files[0] else self.retained
            bpgn = [text for topic, text in source.items() if topic.endswith("/bpgn")]
            assert bpgn, "a game was archived that never had its BPGN published"
            assert game_file.text == bpgn[0].decode(), game_file.name
            self.files[game_file.name] = game_file.text


def fresh_record(match: Match) -> GameRecord:
    record = GameRecord()
    record.sync(match.record)
    return record


def check_views(bridge: Bridge, subscriber: Subscriber) -> None:
    """The incremental views equal a record derived afresh from the match log."""
    match = bridge.reconstructor.match
    if match.record:  # the newest fact holds the boards as they stand
        last = match.record[-1]
        assert last.fens == {board: match.fen(board) for board in BoardId}
        assert last.pockets == match.pockets()
    record = fresh_record(match)
    document = BpgnDocument()
    document.update(record.entries, 0)
    game = bridge.game
    text = document.text(game.tags(game_origin(bridge)), record.result)
    assert bridge.bpgn_text() == text
    topics = bridge.topics
    header = subscriber.retained.get(topics.record)
    if header is None:  # nothing was published for this game yet
        assert not record.entries
        return
    assert subscriber.retained[topics.bpgn].decode() == text
    count = json.loads(header)["entries"]
    assert count == len(record.entries)
    for n, entry in enumerate(record.entries, start=1):
        retained = json.loads(subscriber.retained[topics.record_entry(n)])
        expected = entry_fields(entry, TEAMS, {})
        del retained["clocks"], expected["clocks"]
        assert {k: retained[k] for k in expected} == expected, n
    prefix = topics.record_entry(0)[:-1]
    beyond = [
        t for t in subscriber.retained if t.startswith(prefix) and int(t[len(prefix) :]) > count
    ]
    assert beyond == []


def game_origin(bridge: Bridge) -> float:
    return bridge._config.clock_origin_epoch


def log_moves(match: Match) -> list[MovePlayed]:
    """The match log's moves that are on record: those read while a result stood count only
    once it is revoked. Also checks that every move of the log has its fact, in order."""
    on_record: list[MovePlayed] = []
    held: list[MovePlayed] = []
    standing = False
    for fact in match.record:
        for happened in fact.events:
            if isinstance(happened, ResultDecided):
                standing = True
            elif isinstance(happened, ResultRevoked):
                standing, on_record, held = False, [*on_record, *held], []
            elif isinstance(happened, MovePlayed):
                (held if standing else on_record).append(happened)
    log = match._state.log
    assert len(match.record) == len(log)
    played = [entry.move for entry in log if isinstance(entry, Played)]
    facts = [e.move for fact in match.record for e in fact.events if isinstance(e, MovePlayed)]
    assert facts == played
    return on_record


def check_pychess(pychess: Pychess, bridge: Bridge) -> None:
    text = bridge.bpgn_text()
    imported = pychess.read(text)
    assert "error" not in imported["response"], (imported["response"], text)
    ours = parse_bpgn_game(text)
    # One writer: the game as read back renders to the very text (write_bpgn is the document).
    assert write_bpgn(ours) == text
    expected = log_moves(bridge.reconstructor.match)
    assert [m.board for m in ours.moves if not m.is_null] == [m.board for m in expected]
    assert imported["order"] == [str(m.board) for m in ours.moves]
    for board in BoardId:
        theirs = imported["moves"][str(board)]
        written = [m for m in ours.moves if m.board is board]
        played = iter(m for m in expected if m.board is board)
        assert len(theirs) == len(written), (board, text)
        for move, read in zip(written, theirs, strict=True):
            if move.is_null:
                assert read == "0000"
                continue
            event = next(played)
            assert move.san == event.san.split("(")[0].rstrip("+#") + _check(event.san)
            unreadable = move.masked or move.forced
            assert read == ("0000" if unreadable else event.move.uci), (board, move, text)
    result = bridge.reconstructor.match.result
    assert imported["result"] == ("d" if result is None else RESULT_CODES[result.winner_team])


def _check(san: str) -> str:
    return "#" if san.endswith("#") else "+" if san.endswith("+") else ""


def pick(data: st.DataObject, options: list[Any], label: str) -> Any:
    return options[data.draw(st.integers(0, len(options) - 1), label=label)]


def random_plies(match: Match, data: st.DataObject) -> list[BughouseMove]:
    after = match.copy()
    plies = []
    for _ in range(data.draw(st.integers(1, 3), label="plies")):
        board = pick(data, list(BoardId), "gap board")
        legal = after.legal_moves(board)
        if not legal:
            break
        move = pick(data, legal, "gap ply")
        after.play_quietly(move)
        plies.append(move)
    return plies


def illegal_drop(match: Match, board: BoardId) -> BughouseMove | None:
    """A drop of a piece the mover's pocket lacks: illegal, it stands until removed (row 9)."""
    position = match.position(board)
    pocket = position.pockets[position.turn]
    lacking = [p for p in (chess.QUEEN, chess.ROOK, chess.KNIGHT) if not pocket.count(p)]
    free = [square for square in chess.SQUARES[16:48] if position.piece_at(square) is None]
    for piece in lacking:
        move = BughouseMove(board, chess.Move(free[0], free[0], drop=piece))
        if not match.judge(move).legal:
            return move
    return None


def removal(board: BoardId) -> Any:
    def remove(match: Match, now: float) -> list[Any]:
        try:
            return list(match.remove_illegal_drop(board, t=now))
        except ValueError:
            return []

    return remove


def ask(bridge: Bridge, action: str, verb: str, now: float, **request: Any) -> Output:
    response, output = command(bridge, verb, now, **request)
    assert response["ok"] or "failed to carry out" not in response["error"], response
    event(f"{action}: {'done' if response['ok'] else 'refused'}")
    return output


def nothing(_match: Match, _now: float) -> list[Any]:
    return []


def a_move(bridge: Bridge, data: st.DataObject, now: float, board: BoardId) -> Output:
    legal = bridge.reconstructor.match.legal_moves(board)
    if not legal:
        return act(bridge, now, nothing)
    clock = data.draw(st.sampled_from([None, 59_000, 61_500]), label="clock")
    return act(bridge, now, play(pick(data, legal, "move"), clock_ms=clock))


def an_illegal_drop(bridge: Bridge, _data: st.DataObject, now: float, board: BoardId) -> Output:
    drop = illegal_drop(bridge.reconstructor.match, board)
    return act(bridge, now, nothing if drop is None else play(drop, force=True))


def a_removal(bridge: Bridge, _data: st.DataObject, now: float, board: BoardId) -> Output:
    return act(bridge, now, removal(board))


def a_gap(bridge: Bridge, data: st.DataObject, now: float, _board: BoardId) -> Output:
    gap = len(script(bridge).gaps) + 100 * bridge.game_number + int(now)
    return fill_gap(bridge, now, gap, random_plies(bridge.reconstructor.match, data))


def a_choice(bridge: Bridge, data: st.DataObject, now: float, _board: BoardId) -> Output:
    open_gaps = sorted(script(bridge).gaps)
    gap = pick(data, open_gaps, "gap") if open_gaps else 0
    return ask(bridge, "choose", "choose_recovery", now, gap=gap, candidate=0)


def a_takeback(bridge: Bridge, _data: st.DataObject, now: float, board: BoardId) -> Output:
    return ask(bridge, "takeback", "takeback", now, board=str(board))


def an_accept(bridge: Bridge, data: st.DataObject, now: float, board: BoardId) -> Output:
    """The board shows one piece less than the game: the arbiter accepts it."""
    placement = chess.BaseBoard(bridge.reconstructor.match.board_fen(board))
    pieces = [s for s, p in placement.piece_map().items() if p.piece_type != chess.KING]
    if pieces:
        placement.remove_piece_at(pick(data, pieces, "taken off"))
    script(bridge).placements[board] = placement.board_fen()
    return ask(bridge, "accept", "accept", now, board=str(board))


def a_pocket(bridge: Bridge, data: st.DataObject, now: float, board: BoardId) -> Output:
    pieces = data.draw(st.text(alphabet="PNBRQ", max_size=3), label="pieces")
    color = pick(data, ["white", "black"], "color")
    return ask(bridge, "pocket", "set_pocket", now, board=str(board), color=color, pieces=pieces)


def a_result(bridge: Bridge, data: st.DataObject, now: float, board: BoardId) -> Output:
    winner = pick(data, [None, *TEAMS.ids], "winner")
    request = {"winner": winner, "board": str(board), "reason": "resign"}
    return ask(bridge, "result", "set_result", now, **request)


def a_revocation(bridge: Bridge, _data: st.DataObject, now: float, _board: BoardId) -> Output:
    return ask(bridge, "revoke", "revoke_result", now, reason="wrong board")


def a_new_game(bridge: Bridge, _data: st.DataObject, now: float, _board: BoardId) -> Output:
    return ask(bridge, "new_game", "new_game", now)


ACTIONS: list[tuple[str, Callable[[Bridge, st.DataObject, float, BoardId], Output]]] = [
    *[("move", a_move)] * 10,
    ("illegal_drop", an_illegal_drop),
    ("remove", a_removal),
    *[("gap", a_gap), ("choose", a_choice), ("takeback", a_takeback)] * 2,
    ("accept", an_accept),
    ("pocket", a_pocket),
    *[("result", a_result)] * 2,
    *[("revoke", a_revocation)] * 3,
    ("new_game", a_new_game),
]


@settings(max_examples=60)
@given(data=st.data(), preset=st.sampled_from(["dsj", "fics"]))
def test_every_view_of_the_record_equals_the_match_log(pychess, data, preset):
    bridge = scripted_bridge(preset)
    subscriber = Subscriber()
    for index in range(data.draw(st.integers(1, 40), label="steps")):
        number = bridge.game_number
        name, action = pick(data, ACTIONS, "action")
        output = action(bridge, data, 10.0 + index, pick(data, list(BoardId), "board"))
        subscriber.take(output, game_changed=bridge.game_number != number)
        check_views(bridge, subscriber)
        if name in {"takeback", "choose"}:
            check_pychess(pychess, bridge)
    check_pychess(pychess, bridge)
    text = bridge.bpgn_text()
    event("unfollowable moves written" if "{move " in text or "{illegal " in text else "plain")
    event("a gap written" if "{gap " in text else "no gap written")
