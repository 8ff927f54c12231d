"""Claims, flags and results through the whole pure pipeline (bytes in, contract events out).

Issue 9's "done when": under ``dsj`` an unclaimed flag on one board while the other board plays
on to mate — the flag event and alert appear, no result on time, every move of the other board
is published and the mate decides; a confirmed claim decides instead; under ``fics`` the flag
decides at once. And issue 8 item 4: after a result both boards are still read and published.
"""

from __future__ import annotations

import json
from typing import Any

import chess
import pytest

from bughouse_bridge.bridge import Bridge, BridgeConfig, Output, run_to
from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.daemon.demo import describe
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, FieldUpdate
from bughouse_bridge.dgt.squares import board_to_dump, piece_to_code, square_to_field
from bughouse_bridge.reconstruct import ReconstructorConfig
from bughouse_bridge.topics import Teams

A, B = BoardId.A, BoardId.B
CONTACT = "7k/7p/4N3/8/8/8/8/K5Q1 w - - 0 1"  # White A: Kb1, ... h6, Qg7 mate (Ne6 guards)


def _face(ms: int) -> ClockFace:
    seconds = max(ms, 0) // 1000
    out = ms <= 0
    return ClockFace(0, seconds // 60, seconds % 60, flag_fallen=out, flag_shown=out)


class Wire:
    """Two boards and clocks speaking DGT bytes to a ``Bridge``, with the arbiter's commands."""

    def __init__(self, preset: str, fens: dict[BoardId, str]) -> None:
        config = BridgeConfig(
            bridge_id="table-1",
            match_id="m-1",
            rules=get_preset(preset),
            reconstructor=ReconstructorConfig(clock_white_side={A: "left", B: "left"}),
            links={"A": A, "B": B},
            teams=Teams(ids=("white-a-team", "black-a-team")),
            start_fens=fens,
        )
        self.bridge = Bridge(config)
        self.t = 0.0
        self.events: list[dict[str, Any]] = []
        self.physical = {b: chess.Board(fens.get(b, chess.STARTING_FEN)) for b in BoardId}
        self.times = {b: [300_000, 300_000] for b in BoardId}
        for board in BoardId:
            self._send(board, board_to_dump(self.physical[board]))
            self.clock(board, self.physical[board].turn)

    def _take(self, output: Output) -> None:
        self.events += output.events

    def _send(self, board: BoardId, message: object) -> None:
        self._take(run_to(self.bridge, self.t))
        self._take(self.bridge.receive(str(board), encode_message(message), self.t))  # type: ignore[arg-type]

    def wait(self, seconds: float) -> Wire:
        self.t += seconds
        self._take(run_to(self.bridge, self.t))
        return self

    def clock(self, board: BoardId, running: chess.Color | None) -> None:
        white_ms, black_ms = self.times[board]
        status = 0 if running is None else 0x01
        status |= 0x02 if running == chess.BLACK else 0
        self._send(board, ClockTimes(right=_face(black_ms), left=_face(white_ms), status=status))

    def move(self, board: BoardId, uci: str) -> Wire:
        """Lift, place, press: one ply as the sensors and the clock report it."""
        move = chess.Move.from_uci(uci)
        position = self.physical[board]
        piece = position.piece_at(move.from_square)
        mover = position.turn
        position.push(move)
        for square, placed in ((move.from_square, None), (move.to_square, piece)):
            self._send(board, FieldUpdate(square_to_field(square), piece_to_code(placed)))
            self.wait(0.05)
        self.times[board][0 if mover == chess.WHITE else 1] -= 2000
        self.clock(board, not mover)
        return self.wait(1.0)

    def set_up(self, board: BoardId, fen: str) -> Wire:
        """The arbiter sets a position up on ``board``; the board reports it whole."""
        self.physical[board] = chess.Board(fen)
        self._send(board, board_to_dump(self.physical[board]))
        return self.wait(2.0)

    def flag(self, board: BoardId, color: chess.Color) -> Wire:
        self.times[board][0 if color == chess.WHITE else 1] = 0
        self.clock(board, None)  # the flag fell: the clock blocks at zero with the flag bits
        return self.wait(1.0)

    def command(self, verb: str, **arguments: Any) -> dict[str, Any]:
        payload = json.dumps({"transaction": "x", **arguments}).encode()
        response, output = self.bridge.command(verb, payload, self.t)
        self._take(output)
        return response

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["type"] == kind]


def _other_board_plays_on(wire: Wire) -> None:
    wire.move(B, "e2e4")
    wire.flag(B, chess.BLACK)  # Black B (White A's partner) oversteps: Black A's team could claim
    for uci in ("a1b1", "h7h6", "g1g7"):  # ... while board A plays on to mate
        wire.move(A, uci)


def test_dsj_an_unclaimed_flag_while_the_other_board_mates():
    wire = Wire("dsj", {A: CONTACT})
    _other_board_plays_on(wire)
    (flag,) = wire.of("flag")
    assert (flag["board"], flag["color"]) == ("B", "black")
    (alert,) = [a for a in wire.of("alert") if a["code"] == "flag"]
    assert "Claimable by any player, either board" in alert["message"]
    assert alert["details"]["claim"] == {"board": "B", "color": "black", "claim": "flag"}
    assert [m["uci"] for m in wire.of("move") if m["board"] == "A"] == ["a1b1", "h7h6", "g1g7"]
    assert not any(event.get("after_result") for event in wire.of("move"))
    (result,) = wire.of("result")
    assert (result["winner"], result["reason"], result["board"]) == (
        "white-a-team",
        "checkmate",
        "A",
    )
    # The claim came too late: the match is decided.
    response = wire.command("confirm_claim", board="B", color="black", claim="flag")
    assert response["ok"] is False
    assert "already decided" in response["error"]


def test_dsj_a_confirmed_claim_decides_and_reading_goes_on():
    wire = Wire("dsj", {A: CONTACT})
    wire.move(B, "e2e4")
    wire.flag(B, chess.BLACK)
    (alert,) = [a for a in wire.of("alert") if a["code"] == "flag"]
    (listed,) = wire.bridge.snapshot()["claims"]
    assert listed == {**alert["details"]["claim"], "since": alert["details"]["at"]}
    response = wire.command("confirm_claim", **alert["details"]["claim"])  # ready to use
    assert response["ok"] is True, response
    assert wire.bridge.snapshot()["claims"] == []
    (result,) = wire.of("result")
    assert (result["winner"], result["reason"]) == ("black-a-team", "time")
    for uci in ("a1b1", "h7h6", "g1g7"):
        wire.move(A, uci)
    later = [m for m in wire.of("move") if m["board"] == "A"]
    assert [m["uci"] for m in later] == ["a1b1", "h7h6", "g1g7"]
    assert all(m["after_result"] is True for m in later)
    assert len(wire.of("result")) == 1  # the mate after the result decides nothing
    game = parse_bpgn(wire.bridge.bpgn_text())[0]
    assert [m.san for m in game.moves] == ["e4"]  # moves after the result are not the game's


def test_a_claim_the_record_does_not_support_is_refused():
    wire = Wire("dsj", {A: CONTACT})
    wire.move(B, "e2e4")
    before = wire.command("confirm_claim", board="B", color="black", claim="flag")
    assert before["ok"] is False
    assert "no flag of Black B" in before["error"]
    wire.flag(B, chess.BLACK)
    early = wire.command("confirm_claim", board="B", color="black", claim="flag", at=1.0)
    assert early["ok"] is False
    assert "after the claim" in early["error"]
    bad = wire.command("confirm_claim", board="B", color="pink", claim="flag")
    assert bad["ok"] is False
    assert wire.of("result") == []


def test_fics_the_flag_decides_at_once_and_later_moves_are_still_published():
    wire = Wire("fics", {A: CONTACT})
    _other_board_plays_on(wire)
    results = wire.of("result")
    assert [(r["winner"], r["reason"]) for r in results] == [("black-a-team", "time")]
    later = [m for m in wire.of("move") if m["board"] == "A"]
    assert [m["uci"] for m in later] == ["a1b1", "h7h6", "g1g7"]
    assert [m["ply"] for m in later] == [1, 2, 3]  # the board's numbering simply goes on
    assert all(m["after_result"] is True for m in later)
    assert [m["status"] for m in wire.of("mate")] == ["final"]
    assert describe(later[0]).endswith("(after the result)")
    response = wire.command("confirm_claim", board="B", color="black", claim="flag")
    assert response["ok"] is False


def test_revoke_result_reinstates_the_game_and_the_mate_decides():
    wire = Wire("fics", {A: CONTACT})
    _other_board_plays_on(wire)
    statuses = {board: view["status"] for board, view in wire.bridge.snapshot()["boards"].items()}
    assert statuses == {"A": "mated", "B": "finished"}  # the mate was read after the result
    response = wire.command("revoke_result", reason="the flag was a clock fault")
    assert response["ok"] is True, response
    revoked, decided = wire.events[-2:]
    assert revoked["type"] == "result_revoked"
    assert revoked["after_result"] is True
    assert revoked["revoked"]["reason"] == "time"
    assert revoked["reason"] == "the flag was a clock fault"
    assert (decided["type"], decided["reason"], decided["winner"]) == (
        "result",
        "checkmate",
        "white-a-team",
    )
    assert "after_result" not in decided
    assert "result revoked (the flag was a clock fault)" in describe(revoked)
    game = parse_bpgn(wire.bridge.bpgn_text())[0]
    assert [m.san for m in game.moves][-1] == "Qg7#"
    assert wire.command("revoke_result")["ok"] is True
    again = wire.command("revoke_result")
    assert again["ok"] is False
    assert "no result" in again["error"]


@pytest.mark.parametrize("preset", ["dsj", "dsb"])
def test_an_illegal_move_alert_carries_the_claim_under_dsj_and_dsb(preset):
    wire = Wire(preset, {})
    wire.physical[A].push(chess.Move.from_uci("e2e5"))  # not a legal move: no push checks
    wire._send(A, FieldUpdate(square_to_field(chess.E2), piece_to_code(None)))
    wire.wait(0.05)
    wire._send(
        A, FieldUpdate(square_to_field(chess.E5), piece_to_code(chess.Piece.from_symbol("P")))
    )
    wire.times[A][0] -= 1000
    wire.clock(A, chess.BLACK)
    wire.wait(1.5)
    (alert,) = [a for a in wire.of("alert") if a["code"] == "illegal_move"]
    assert alert["details"]["claim"] == {"board": "A", "color": "white", "claim": "illegal_move"}
    assert "Row 10" in alert["message"]
    response = wire.command("confirm_claim", **alert["details"]["claim"])
    assert response["ok"] is True, response
    (result,) = wire.of("result")
    assert (result["winner"], result["reason"]) == ("black-a-team", "illegal move")


def test_status_shows_the_informational_rows():
    wire = Wire("dsj", {})
    state = wire.command("status")["state"]
    assert state["rules"]["informational"] == {
        "draws": "agreement_only",
        "pocket_visibility": "open",
    }
