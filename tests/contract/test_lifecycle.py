"""Games as an explicit lifecycle (issue 20): every game is its own, from its first event to its
archive file, whichever way it began; the record topics and the games index follow."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess
import pytest
from scripted import act, command, play, scripted_bridge
from test_claims import CONTACT, Wire

from bughouse_bridge.bughouse.bpgn import parse_bpgn_game
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.record import EntryKind
from bughouse_bridge.bughouse.types import BoardId

if TYPE_CHECKING:
    from bughouse_bridge.bridge import Bridge, Output

A, B = BoardId.A, BoardId.B


def retained(outputs: list[Output]) -> dict[str, Any]:
    """What a subscriber finds retained after ``outputs`` (JSON payloads decoded)."""
    found: dict[str, Any] = {}
    for output in outputs:
        for publication in output.publications:
            if not publication.retain:
                continue
            if not publication.payload:
                found.pop(publication.topic, None)
            elif publication.topic.endswith("/bpgn"):
                found[publication.topic] = publication.payload.decode()
            else:
                found[publication.topic] = json.loads(publication.payload)
    return found


def moves(bridge: Bridge, now: float, *plies: tuple[BoardId, str]) -> list[Output]:
    outputs = []
    for offset, (board, san) in enumerate(plies):
        move = bridge.reconstructor.match.parse_san(board, san)
        outputs.append(act(bridge, now + offset, play(move, clock_ms=60_000)))
    return outputs


def test_new_game_starts_from_the_configured_position_end_to_end():
    """Issue 20: ``new_game`` built the match from the standard start and forgot the configured
    one; the boards set up again for the next game then read as an unexplained position."""
    wire = Wire("fics", {A: CONTACT})
    wire.move(A, "a1b1")
    assert wire.command("set_result", winner="white-a-team", board="A", reason="resign")["ok"]
    assert wire.command("new_game")["ok"]
    wire.set_up(A, CONTACT)  # the arbiter sets the position up again
    wire.move(A, "a1b1")
    last = wire.of("move")[-1]
    assert (last["ply"], last["uci"], last["match"]) == (1, "a1b1", "m-1")
    assert not [e for e in wire.of("alert") if e["code"] == "unexplained_position"]
    assert "after_result" not in last
    assert wire.bridge.game_number == 2
    assert wire.bridge.game.header()["start"]["A"] == CONTACT.replace(" w - -", "[] w - -")


def test_every_game_at_one_match_id_is_numbered_archived_and_cleared():
    """Outside a hall the match id stays: game 2 replaces game 1's retained record (its entries
    are cleared), game 1 is kept as its own file and listed in the games index."""
    bridge = scripted_bridge("fics")
    outputs = moves(bridge, 1.0, (A, "e4"), (A, "e5"), (B, "d4"))
    _, output = command(bridge, "set_result", 5.0, winner="ba", board="B", reason="resign")
    outputs.append(output)
    (first_file,) = output.files
    assert first_file.name == "2025-11-23_m-1_game-1.bpgn"
    outputs += moves(bridge, 6.0, (B, "d5"))  # read after the result: not in the record
    _, started = command(bridge, "new_game", 8.0)
    outputs.append(started)
    assert [f.name for f in started.files] == ["2025-11-23_m-1_game-1.bpgn"]
    assert started.files[0].text == first_file.text  # the late move changed nothing
    outputs += moves(bridge, 9.0, (A, "d4"))
    held = retained(outputs)
    header = held["bughouse/v1/match/m-1/record"]
    assert (header["entries"], header["game"], header["result"]) == (1, 2, None)
    assert held["bughouse/v1/match/m-1/record/1"]["san"] == "d4"
    assert "bughouse/v1/match/m-1/record/2" not in held  # game 1's entries are gone
    index = held["bughouse/v1/bridge/table-1/games"]
    assert [
        (g["match"], g["game"], g["result"] and g["result"]["winner"]) for g in index["games"]
    ] == [
        ("m-1", 1, "ba"),
        ("m-1", 2, None),
    ]
    assert index["current"] == "m-1"
    events = [e for o in outputs for e in o.events]
    game_two = events[[e["type"] for e in events].index("move", len(events) - 1) :]
    assert all("after_result" not in e for e in game_two)
    late = [e for e in events if e["type"] == "move" and e["san"] == "d5"]
    assert late[0]["after_result"] is True


def test_the_record_topics_hold_every_entry_with_both_boards():
    bridge = scripted_bridge("fics")
    outputs = moves(bridge, 1.0, (A, "e4"), (B, "e4"), (A, "d5"), (A, "exd5"))
    held = retained(outputs)
    entry = held["bughouse/v1/match/m-1/record/4"]
    assert (entry["kind"], entry["board"], entry["color"], entry["ply"]) == (
        "move",
        "A",
        "white",
        3,
    )
    assert (entry["uci"], entry["san"], entry["n"], entry["match"]) == ("e4d5", "exd5", 4, "m-1")
    assert entry["boards"]["B"]["ply"] == 1
    assert entry["pockets"]["B"]["black"] == "P"  # the capture went to the partner
    assert entry["boards"]["B"]["fen"].split(" ")[0].endswith("[p]")
    assert set(entry["clocks"]) == {"A", "B"}
    header = held["bughouse/v1/match/m-1/record"]
    assert header["entries"] == 4
    assert header["start"]["A"].startswith("rnbqkbnr/pppppppp")
    text = held["bughouse/v1/match/m-1/bpgn"]
    assert [m.san for m in parse_bpgn_game(text).moves] == ["e4", "e4", "d5", "exd5"]


def test_a_takeback_republishes_from_the_changed_entry_and_clears_the_rest():
    bridge = scripted_bridge("fics")
    outputs = moves(bridge, 1.0, (A, "e4"), (B, "d4"), (A, "e5"))
    _, output = command(bridge, "takeback", 5.0, board="A")
    topics = [p.topic for p in output.publications if "/record" in p.topic]
    assert topics == ["bughouse/v1/match/m-1/record/3", "bughouse/v1/match/m-1/record"]
    assert (
        output.publications[[p.topic for p in output.publications].index(topics[0])].payload == b""
    )
    held = retained([*outputs, output])
    assert held["bughouse/v1/match/m-1/record"]["entries"] == 2


def test_a_takeback_by_command_is_an_event_and_a_shorter_record_not_an_entry():
    """Contract §2 and §5: the ``takeback`` command answers with the board's ply, publishes a
    ``takeback`` event, and removes the ply from the record: the entries from the first changed
    one are republished (the other board's later move moves up), the rest cleared; no record
    entry says "takeback"."""
    bridge = scripted_bridge("fics")
    outputs = moves(bridge, 1.0, (A, "e4"), (B, "d4"), (A, "e5"), (B, "d5"))
    response, output = command(bridge, "takeback", 5.0, board="A")
    assert (response["ok"], response["ply"]) == (True, 1)
    events = [(e["type"], e.get("board"), e.get("ply")) for e in output.events]
    assert events == [("takeback", "A", 1)]
    held = retained([*outputs, output])
    prefix = "bughouse/v1/match/m-1/record"
    entries = [held[f"{prefix}/{n}"] for n in range(1, 4)]
    assert f"{prefix}/4" not in held  # cleared with an empty retained message
    assert held[prefix]["entries"] == 3
    assert [(e["n"], e["kind"], e["board"], e["san"]) for e in entries] == [
        (1, "move", "A", "e4"),
        (2, "move", "B", "d4"),
        (3, "move", "B", "d5"),
    ]
    assert entries[2]["boards"]["A"]["ply"] == 1  # the entry shows board A without the ply
    game = parse_bpgn_game(held["bughouse/v1/match/m-1/bpgn"])
    assert [(m.label, m.san) for m in game.moves] == [("1A.", "e4"), ("1B.", "d4"), ("1b.", "d5")]
    assert held["bughouse/v1/match/m-1/state"]["boards"]["A"]["ply"] == 1


def test_the_contract_lists_exactly_the_record_entry_kinds_the_bridge_publishes():
    """docs/contract.md's topic table listed a ``takeback`` kind that no entry has (a takeback
    rewrites the record) and left out ``gap``: every list of kinds must be the bridge's."""
    contract = (Path(__file__).parents[2] / "docs" / "contract.md").read_text(encoding="utf-8")
    lists = [line for line in contract.splitlines() if '"kind": "move"' in line]
    assert lists
    for line in lists:
        listed = line.split('"kind":')[1].split(",")[0]
        assert set(re.findall(r'"(\w+)"', listed)) == {str(kind) for kind in EntryKind}, line


def test_appending_a_move_publishes_one_entry_not_the_game():
    bridge = scripted_bridge("fics")
    moves(bridge, 1.0, *[(A, san) for san in ("e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5")])
    (output,) = moves(bridge, 10.0, (A, "d3"))
    entries = [p.topic for p in output.publications if "/record/" in p.topic]
    assert entries == ["bughouse/v1/match/m-1/record/7"]
    states = [p for p in output.publications if p.topic.endswith("/state")]
    assert len(states) == 1


def test_arbiter_commands_change_the_match_only_through_the_reconstructor(monkeypatch):
    """Issue 20: ``bridge.py`` edited the ``Match`` behind the reconstructor's back."""
    callers: list[str] = []
    for name in ("takeback", "set_pocket", "set_result", "revoke_result", "confirm_claim"):
        original = getattr(Match, name)

        def spy(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            import sys  # noqa: PLC0415

            callers.append(sys._getframe(1).f_globals["__name__"])
            return _original(*args, **kwargs)

        monkeypatch.setattr(Match, name, spy)
    bridge = scripted_bridge("dsj")
    moves(bridge, 1.0, (A, "e4"), (A, "e5"))
    act(bridge, 3.0, lambda match, now: list(match.flag(A, chess.WHITE, t=now, at=2.5)))
    for verb, request in [
        ("set_pocket", {"board": "B", "color": "white", "pieces": "P"}),
        ("takeback", {"board": "A"}),
        ("confirm_claim", {"board": "A", "color": "white", "claim": "flag"}),
        ("revoke_result", {}),
        ("set_result", {"winner": None, "board": "B", "reason": "agreed"}),
    ]:
        response, _ = command(bridge, verb, 4.0, **request)
        assert response["ok"], (verb, response)
    # Each verb's one call comes through the reconstructor (a takeback's replay calls the
    # match's own methods again from inside the match).
    assert callers.count("bughouse_bridge.reconstruct.reconstructor") == 5
    assert set(callers) <= {
        "bughouse_bridge.reconstruct.reconstructor",
        "bughouse_bridge.bughouse.match",
    }


@pytest.mark.parametrize("verb", ["new_game", "set_result"])
def test_the_games_index_is_republished_when_a_game_starts_or_its_result_changes(verb):
    bridge = scripted_bridge("fics")
    (first,) = moves(bridge, 1.0, (A, "e4"))
    assert any(p.topic.endswith("/games") for p in first.publications)  # its first entry
    (second,) = moves(bridge, 2.0, (A, "e5"))
    assert not any(p.topic.endswith("/games") for p in second.publications)
    request = {"winner": "ab", "board": "A", "reason": "resign"} if verb == "set_result" else {}
    _, output = command(bridge, verb, 3.0, **request)
    assert any(p.topic.endswith("/games") for p in output.publications)
