"""``bughouse-bridge replay`` as the contract §1 describes it, through the real CLI entry point."""

from __future__ import annotations

import json

import pytest

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.daemon.cli import main
from bughouse_bridge.data import bundled_game
from bughouse_bridge.emulator.game import game_scenario
from bughouse_bridge.emulator.playback import run_scenario, trace_lines


@pytest.fixture(scope="module")
def trace_text() -> str:
    game = parse_bpgn(bundled_game("1283326"))[0]
    plan = game_scenario(game, rules=get_preset("fics"), seed=5)
    return "\n".join(trace_lines(run_scenario(plan.scenario).records)) + "\n"


def events_of(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines()]


def test_replay_prints_the_games_moves_as_json_lines(tmp_path, trace_text, capsys):
    trace = tmp_path / "game.jsonl"
    trace.write_text(trace_text)
    assert main(["replay", str(trace), "--rules", "fics"]) == 0
    events = events_of(capsys.readouterr().out)
    # Per board: the emulated boards keep their own time, so the order across boards follows
    # the emulation's presses, not the BPGN's.
    moves = {
        board: [e["san"] for e in events if e.get("board") == board and e["type"] == "move"]
        for board in "AB"
    }
    assert moves == {"A": ["e4", "Nf6", "Nc3", "Nc6", "d4", "e6", "e5"], "B": ["e4"]}
    assert all(e["clock_ms"] is not None for e in events if e["type"] == "move")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_malformed_lines_are_reported_with_their_numbers_and_skipped(tmp_path, trace_text, capsys):
    lines = trace_text.splitlines()
    lines.insert(3, "{this is not json")
    lines.insert(5, '{"t": 1.0, "link": "A", "dir": "rx", "hex": "zz"}')
    trace = tmp_path / "damaged.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(trace), "--rules", "fics"]) == 0
    captured = capsys.readouterr()
    assert ":4:" in captured.err
    assert ":6:" in captured.err
    assert sum(e["type"] == "move" for e in events_of(captured.out)) == 8


def test_an_unreadable_trace_exits_1(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_an_unknown_preset_exits_2(tmp_path, trace_text, capsys):
    trace = tmp_path / "game.jsonl"
    trace.write_text(trace_text)
    assert main(["replay", str(trace), "--rules", "blitz"]) == 2
    assert "rules" in capsys.readouterr().err


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["replay"])
    assert exit_info.value.code == 2


def test_a_single_board_trace_is_refereed_alone(tmp_path, trace_text, capsys):
    only_a = [
        line
        for line in trace_text.splitlines()
        if '"link": "A"' in line or '"link":"A"' in line or line.startswith('{"trace"')
    ]
    renamed = [line.replace('"A"', '"board-7"') for line in only_a]
    trace = tmp_path / "single.jsonl"
    trace.write_text("\n".join(renamed) + "\n")
    assert main(["replay", str(trace), "--rules", "fics"]) == 0
    events = events_of(capsys.readouterr().out)
    moves = [e["san"] for e in events if e["type"] == "move"]
    assert moves == ["e4", "Nf6", "Nc3", "Nc6", "d4", "e6", "e5"]
    assert {e["board"] for e in events if e["type"] == "move"} == {"A"}


def test_link_events_in_a_trace_are_honoured_by_replay(tmp_path, trace_text, capsys):
    """Board A's cable is out from 4 s to 9 s: its bytes are missing from the trace, the link
    lines say so, and the dump the board sends when it is back comes after them."""
    from bughouse_bridge.dgt.decoder import DgtDecoder  # noqa: PLC0415 - this test only
    from bughouse_bridge.dgt.encoder import encode_message  # noqa: PLC0415
    from bughouse_bridge.dgt.messages import BoardDump, FieldUpdate  # noqa: PLC0415
    from bughouse_bridge.dgt.squares import board_to_dump  # noqa: PLC0415
    from bughouse_bridge.reconstruct.occupancy import Occupancy  # noqa: PLC0415

    out_at, back_at = 4.0, 9.0
    decoder, shadow, lines = DgtDecoder(), Occupancy(), []
    back_written = False
    for line in trace_text.splitlines():
        item = json.loads(line)
        t, link = item.get("t", 0.0), item.get("link")
        if link == "A" and item.get("dir") == "rx":
            for message in decoder.feed(bytes.fromhex(item["hex"])):
                if isinstance(message, BoardDump):
                    shadow.load(message)
                elif isinstance(message, FieldUpdate):
                    shadow.update(message)
        if t >= back_at and not back_written:
            import chess  # noqa: PLC0415

            dump = board_to_dump(chess.BaseBoard(shadow.placement(rotated=False)))
            lines += [
                json.dumps({"t": back_at, "link": "A", "event": "connected"}),
                json.dumps(
                    {"t": back_at, "link": "A", "dir": "rx", "hex": encode_message(dump).hex()}
                ),
            ]
            back_written = True
        if out_at <= t < back_at and link == "A":
            continue
        if t >= out_at and not any('"disconnected"' in kept for kept in lines):
            lines.append(json.dumps({"t": out_at, "link": "A", "event": "disconnected"}))
        lines.append(line)
    trace = tmp_path / "cut.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(trace), "--rules", "fics"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    events = events_of(captured.out)
    statuses = [e["status"] for e in events if e["type"] == "link"]
    assert statuses[:2] == ["disconnected", "connected"]
    assert "resynced" in statuses
    gap_or_moves = [e for e in events if e["type"] == "move" and e["board"] == "A"] or [
        e for e in events if e.get("code") == "gap_ambiguous"
    ]
    assert gap_or_moves  # the gap is either recovered or handed to the arbiter, never ignored
