"""SerialLink on pseudo-terminals: read, handshake, unplug/replug, silence, discovery."""

from __future__ import annotations

import asyncio
import time

import pytest
from shell_fakes import FakeBoard

from bughouse_bridge.dgt.commands import BoardCommand, ClockCommandMessage
from bughouse_bridge.dgt.constants import ClockCommand, Command
from bughouse_bridge.drivers.board_ports import LinkIdentity, find_port, probe_port
from bughouse_bridge.drivers.handshake import handshake
from bughouse_bridge.drivers.serial_link import Backoff, LinkPhase, LinkState, SerialLink

pytestmark = pytest.mark.pty
FAST = Backoff(initial=0.05, maximum=0.2)


class Recorder:
    def __init__(self) -> None:
        self.chunks: list[tuple[str, bytes, float]] = []
        self.states: list[LinkState] = []
        self.sent: list[bytes] = []

    def on_bytes(self, link: str, data: bytes, t: float) -> None:
        self.chunks.append((link, data, t))

    def on_state(self, state: LinkState) -> None:
        self.states.append(state)

    def on_tx(self, _link: str, data: bytes, _t: float) -> None:
        self.sent.append(data)

    @property
    def received(self) -> bytes:
        return b"".join(data for _, data, _ in self.chunks)

    def phases(self) -> list[LinkPhase]:
        return [state.phase for state in self.states]


async def wait_until(predicate, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def make_link(recorder: Recorder, port: str, **kwargs) -> SerialLink:
    kwargs.setdefault("backoff", FAST)
    kwargs.setdefault("keepalive_interval", None)
    return SerialLink(
        "A", port, recorder.on_bytes, recorder.on_state, on_tx=recorder.on_tx, **kwargs
    )


async def test_reads_chunks_with_timestamps_and_writes(fake_board: FakeBoard):
    recorder = Recorder()
    link = make_link(recorder, str(fake_board.symlink))
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: link.connected)
    before = time.monotonic()
    fake_board.send(b"\x8e\x00\x05\x34\x00")
    await wait_until(lambda: recorder.received == b"\x8e\x00\x05\x34\x00")
    assert recorder.chunks[0][0] == "A"
    assert recorder.chunks[0][2] >= before
    assert link.write(bytes([Command.SEND_BRD])) is True
    await wait_until(lambda: len(recorder.received) > 5)  # the fake answered with a dump
    assert recorder.sent == [b"\x42"]
    assert recorder.phases() == [LinkPhase.CONNECTED]
    assert recorder.states[0].port == str(fake_board.symlink)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_pulled_cable_is_reported_and_the_link_comes_back(fake_board: FakeBoard):
    recorder = Recorder()
    link = make_link(recorder, str(fake_board.symlink))
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: link.connected)
    fake_board.unplug()
    await wait_until(lambda: LinkPhase.DISCONNECTED in recorder.phases())
    assert not link.connected
    assert link.write(b"\x42") is False  # nothing is sent into the void
    lost = recorder.states[-1]
    assert lost.reason
    await asyncio.sleep(0.5)  # several failed reopen attempts while unplugged
    assert recorder.phases().count(LinkPhase.DISCONNECTED) == 1  # reported once, not per retry
    fake_board.plug()
    await wait_until(lambda: recorder.phases().count(LinkPhase.CONNECTED) == 2)
    fake_board.send(b"\x8e\x00\x05\x24\x01")
    await wait_until(lambda: recorder.received.endswith(b"\x8e\x00\x05\x24\x01"))
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_silence_counts_as_lost(fake_board: FakeBoard):
    recorder = Recorder()
    link = make_link(recorder, str(fake_board.symlink), silence_timeout=0.3)
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: LinkPhase.DISCONNECTED in recorder.phases(), 3)
    assert "silent" in (recorder.states[-1].reason or "")
    await wait_until(lambda: recorder.phases().count(LinkPhase.CONNECTED) >= 2, 3)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_keepalive_keeps_a_quiet_board_alive(fake_board: FakeBoard):
    recorder = Recorder()
    link = make_link(recorder, str(fake_board.symlink), silence_timeout=0.5, keepalive_interval=0.1)
    task = asyncio.create_task(link.run(), name="serial")
    await asyncio.sleep(1.2)
    assert recorder.phases() == [LinkPhase.CONNECTED]
    assert BoardCommand(Command.RETURN_SERIALNR) in fake_board.received
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_handshake_identifies_board_and_clock(fake_board: FakeBoard):
    recorder = Recorder()
    link = make_link(recorder, str(fake_board.symlink), handshake=handshake)
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: LinkPhase.IDENTIFIED in recorder.phases())
    assert link.identity == LinkIdentity(
        version="3.10", serial="12345", long_serial="3000147740", clock_type="DGT 3000"
    )
    assert recorder.states[-1].identity == link.identity
    sequence = [
        command.command if isinstance(command, BoardCommand | ClockCommandMessage) else command
        for command in fake_board.received
    ]
    assert sequence == [
        Command.RESET,
        Command.SEND_VERSION,
        Command.RETURN_LONG_SERIALNR,
        Command.RETURN_SERIALNR,
        Command.SEND_BRD,
        Command.SEND_UPDATE_NICE,
        ClockCommand.VERSION,
        Command.SEND_CLK,
    ]
    # The pipeline saw the answers too: the dump is its starting position.
    assert b"\x86\x00\x43" in recorder.received
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_handshake_without_clock_retries_then_reports_no_clock(fake_board: FakeBoard):
    fake_board.clock_present = False
    recorder = Recorder()
    link = make_link(recorder, str(fake_board.symlink))
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: link.connected)
    identity = await handshake(link, clock_reply_within=0.1)
    assert identity.clock_type is None
    assert identity.long_serial == "3000147740"
    clock_requests = [c for c in fake_board.received if isinstance(c, ClockCommandMessage)]
    assert len(clock_requests) == 3  # one in flight at a time, three attempts
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_device_that_is_not_a_dgt_board_is_dropped(fake_board: FakeBoard):
    fake_board._answer = lambda _command: b""  # a mute device
    recorder = Recorder()

    async def quick_handshake(link: SerialLink) -> LinkIdentity:
        return await handshake(link, reply_within=0.05, attempts=2)

    link = make_link(recorder, str(fake_board.symlink), handshake=quick_handshake)
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: LinkPhase.DISCONNECTED in recorder.phases())
    assert "not a DGT board" in (recorder.states[-1].reason or "")
    assert LinkPhase.IDENTIFIED not in recorder.phases()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_missing_port_reports_disconnected_once_and_keeps_trying(tmp_path):
    recorder = Recorder()
    link = make_link(recorder, str(tmp_path / "no-such-tty"))
    task = asyncio.create_task(link.run(), name="serial")
    await asyncio.sleep(0.4)
    assert recorder.phases() == [LinkPhase.DISCONNECTED]
    assert "cannot open" in (recorder.states[0].reason or "")
    board = FakeBoard(tmp_path / "no-such-tty")
    board.plug()  # the board turns up later
    await wait_until(lambda: link.connected)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    board.unplug()


async def test_discovery_by_serial_number_across_two_ptys(tmp_path):
    first = FakeBoard(tmp_path / "by-id-1", long_serial="3000000001", serial="00001")
    second = FakeBoard(tmp_path / "by-id-2", long_serial="3000000002", serial="00002")
    first.plug()
    second.plug()
    globs = [str(tmp_path / "by-id-*")]
    assert await find_port("3000000002", globs=globs) == str(second.symlink)
    assert await find_port("00001", globs=globs) == str(first.symlink)  # short serial works too
    assert await find_port("3999999999", globs=globs, probe_within=0.2) is None
    identity = await probe_port(str(first.symlink))
    assert identity == LinkIdentity(serial="00001", long_serial="3000000001")

    recorder = Recorder()
    link = make_link(recorder, "serial:3000000002", discovery_globs=globs)
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: link.connected)
    assert link.port == str(second.symlink)
    # While the link holds the port exclusively, probing skips it instead of stealing bytes.
    assert await probe_port(str(second.symlink), probe_within=0.2) is None
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    first.unplug()
    second.unplug()


async def test_serial_spec_not_found_is_reported(tmp_path):
    recorder = Recorder()
    link = make_link(recorder, "serial:123", discovery_globs=[str(tmp_path / "none-*")])
    task = asyncio.create_task(link.run(), name="serial")
    await wait_until(lambda: recorder.states)
    assert "no board with serial number 123" in (recorder.states[0].reason or "")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
