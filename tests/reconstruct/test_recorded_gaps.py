"""Field incidents recorded by the daemon (``record``, or its journal written out as a trace),
replayed through ``bughouse-bridge replay``: the trace holds everything the pure core saw, link
changes included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.daemon.cli import main
from bughouse_bridge.data import bundled_game

if TYPE_CHECKING:
    import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def replayed(name: str, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    assert main(["replay", str(FIXTURES / name), "--rules", "fics"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_dump_that_caught_a_hand_in_motion_is_filled_again_and_no_false_alert_follows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Board A of game 1934301 unplugged for 7.5 s of fast play (tests/e2e/test_resync_e2e.py,
    recorded before the fix): the dump caught Black's hand in the middle of dxe4 (the knight
    on e4 and the pawn on d5 both in the air). That fill was a guess; the pawn landing is a
    better look at the gap: the gap is solved again from it (refilled, or since issue 19's
    solver recovered ply for ply), and every later move of the game is read exactly."""
    events = replayed("hand-in-motion-after-gap.trace.jsonl", capsys)
    game = parse_bpgn(bundled_game())[0]
    expected = [move.san for move in game.moves if move.board.name == "A"]
    moves = [e for e in events if e["type"] == "move" and e["board"] == "A"]
    links = [e for e in events if e["type"] == "link" and e["status"] == "resynced"]
    assert [e["san"] for e in moves[:4]] == expected[:4]  # before the gap
    solved_again = [
        e["details"]
        for e in links
        if e["details"].get("gap")
        and (e["details"].get("refilled") or e["details"].get("recovered"))
    ]
    assert solved_again, links
    recovered = solved_again[-1].get("recovered")
    if recovered:  # the gap's plies themselves, published as recovered moves
        gap_sans = [e["san"] for e in moves if e.get("recovered")]
        assert len(recovered["A"]) == len(gap_sans)
        truth = expected[4 : 4 + len(gap_sans)]
        assert sorted(gap_sans) == sorted(truth)
        # Another order of the same plies reaches the same game: then the details say so.
        assert gap_sans == truth or solved_again[-1].get("order_certain") is False
    after = [e["san"] for e in moves[4:] if not e.get("recovered")]
    start = expected.index(after[0], 4)
    assert after == expected[start : start + len(after)]
    assert len(after) >= 9
    assert [e["ply"] for e in moves] == list(range(1, len(moves) + 1))
    assert [e["code"] for e in events if e.get("severity") == "illegal"] == []


def test_a_slide_set_down_on_its_way_is_no_drop_that_stands_later(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The whole game 1934301 from a clean-clone run of the end-to-end test (the daemon's
    journal, as a trace). White's rook slid d1-d2-...-d7 (Rxd7), set down on d2 before it
    left d1: for a moment a rook drop waiting for its piece. The rook went on; two seconds
    later that waiting "drop" was made to stand (R@d2, drop_not_in_pocket) and board A was
    lost for the rest of the game (14 moves). A drop whose square is empty again was none."""
    events = replayed("slide-set-down-on-its-way.trace.jsonl", capsys)
    game = parse_bpgn(bundled_game())[0]
    for board in ("A", "B"):
        expected = [move.san for move in game.moves if move.board.name == board]
        moves = [e["san"] for e in events if e["type"] == "move" and e["board"] == board]
        assert moves == expected, board
    assert [e["code"] for e in events if e["type"] == "alert"] == []
    (result,) = [e for e in events if e["type"] == "result"]
    assert (result["board"], result["reason"]) == ("B", "checkmate")
