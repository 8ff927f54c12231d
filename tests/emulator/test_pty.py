"""End to end over real pseudo-terminals: a pyserial reader talks to the emulator."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest
import serial
import serial_asyncio_fast

from bughouse_bridge.bughouse.bpgn import parse_bpgn, replay
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.data import bundled_game
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import BoardDump, FieldUpdate, LongSerialNumber
from bughouse_bridge.dgt.squares import dump_to_board
from bughouse_bridge.drivers.pty_emulator import PtyEmulator
from bughouse_bridge.emulator.actions import Replug, TimedAction, Unplug
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.moves import play_move
from bughouse_bridge.emulator.scenario import Scenario

pytestmark = pytest.mark.pty


async def _read_messages(reader, decoder, until, seconds):
    """Read until ``until(messages)`` holds or ``seconds`` pass."""
    messages = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not until(messages) and loop.time() < deadline:
        try:
            async with asyncio.timeout(max(deadline - loop.time(), 0.01)):
                data = await reader.read(1024)
        except TimeoutError:
            break
        messages += decoder.feed(data)
    return messages


async def test_a_pyserial_reader_gets_the_dump_and_the_field_updates(tmp_path):
    sc = Scenario({"A": BoardConfig()}, seed=4)
    emulator = PtyEmulator(sc.build_boards()["A"], symlink=tmp_path / "board-a")
    try:
        reader, writer = await serial_asyncio_fast.open_serial_connection(
            url=str(tmp_path / "board-a"), baudrate=9600
        )
        writer.write(b"\x40\x42\x4b")  # wake from bus mode, dump, UPDATE_NICE
        decoder = DgtDecoder()
        got = await _read_messages(
            reader, decoder, lambda ms: any(isinstance(m, BoardDump) for m in ms), 3
        )
        (dump,) = [m for m in got if isinstance(m, BoardDump)]
        assert dump_to_board(dump) == chess.BaseBoard()

        # The game starts: e2-e4, played by the hands in the scenario, 0.3 s from now.
        sc.at(emulator.now() + 0.3)
        board = chess.Board()
        play_move(sc.hands(), board, chess.Move.from_uci("e2e4"))
        emulator.play(sc.sorted_actions())
        expected = {(52, 0), (36, 1)}
        got = await _read_messages(
            reader,
            decoder,
            lambda ms: expected <= {(m.field, m.piece) for m in ms if isinstance(m, FieldUpdate)},
            5,
        )
        assert expected <= {(m.field, m.piece) for m in got if isinstance(m, FieldUpdate)}
        writer.close()
    finally:
        emulator.close()


async def test_unplug_is_seen_by_the_reader_and_replug_brings_a_new_device(tmp_path):
    board = EmulatedBoard(BoardConfig(), random.Random(1))
    link = tmp_path / "board-a"
    emulator = PtyEmulator(board, symlink=link)
    first_path = emulator.path
    try:
        reader, writer = await serial_asyncio_fast.open_serial_connection(
            url=str(link), baudrate=9600
        )
        emulator.unplug()
        with pytest.raises(serial.SerialException, match="returned no data"):
            async with asyncio.timeout(3):
                await reader.read(100)
        writer.close()
        with pytest.raises(serial.SerialException):
            serial.Serial(first_path, 9600)
        assert not link.exists()  # as udev removes the by-id name: no stale pty number to open

        emulator.replug()
        assert link.resolve() == Path(emulator.path)
        with serial.Serial(str(link), 9600, timeout=2) as port:
            port.write(b"\x55")
            decoder = DgtDecoder()
            messages = decoder.feed(await asyncio.to_thread(port.read, 13))
        assert messages == [LongSerialNumber("3000123456")]
    finally:
        emulator.close()


async def test_a_pull_applied_late_still_lasts_as_long_as_asked(tmp_path):
    """A busy loop runs the unplug late; the replug moves by as much, or every pull on a busy
    machine would be shorter than asked (``emulate --unplug``)."""
    emulator = PtyEmulator(EmulatedBoard(BoardConfig(), random.Random(1)), link="A")
    pulls: list[float] = []  # when the cable went out and came back, emulator time
    for name in ("unplug", "replug"):
        action = getattr(emulator, name)
        setattr(emulator, name, lambda action=action: (pulls.append(emulator.now()), action()))
    try:
        now = emulator.now()
        late, asked = 0.3, 0.6
        emulator.play(
            [
                TimedAction(now - late, 1, "A", Unplug()),
                TimedAction(now - late + asked, 2, "A", Replug()),
            ]
        )
        await asyncio.wait_for(emulator.finished(), 5)
        assert emulator.connected
        unplugged, replugged = pulls
        assert replugged - unplugged >= asked - 0.01
    finally:
        emulator.close()


@pytest.mark.slow
def test_the_emulate_command_plays_a_game_a_pyserial_host_can_follow(tmp_path):
    game_file = tmp_path / "1283326.bpgn"
    game_file.write_text(bundled_game("1283326"))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bughouse_bridge",
            "emulate",
            str(game_file),
            "--speed",
            "20",
            "--wait-host",
            "5",
            "--link-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        paths = {line.split(":")[0].split()[1]: line.split()[2] for line in lines}
        ports = {name: serial.Serial(path, 9600, timeout=0) for name, path in paths.items()}
        for port in ports.values():
            port.write(b"\x40\x42\x4b")
        decoders = {name: DgtDecoder() for name in ports}
        states: dict[str, list[int]] = {}
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            for name, port in ports.items():
                try:
                    data = port.read(4096)
                except serial.SerialException:  # the emulator exits and closes its ptys
                    data = b""
                for message in decoders[name].feed(data):
                    if isinstance(message, BoardDump):
                        states[name] = list(message.squares)
                    elif isinstance(message, FieldUpdate) and name in states:
                        states[name][message.field] = message.piece
            time.sleep(0.02)
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
    match = Match(get_preset("fics"))
    replay(parse_bpgn(game_file.read_text())[0], match)
    for name in ("A", "B"):
        board = dump_to_board(BoardDump(tuple(states[name])))
        assert board.board_fen() == match.board_fen(BoardId(name))
