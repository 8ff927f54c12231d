"""Run an emulated DGT board on a pseudo-terminal, so a real reader opens it through pyserial.

``os.openpty()`` gives the pair; the slave is put in raw mode and its path (``os.ttyname``) is
what the reader opens, optionally through a stable symlink (like ``/dev/serial/by-id``). Host
bytes are read from the master with ``loop.add_reader`` and fed to the pure board model; board
bytes are written to the master when ``poll`` releases them; one timer follows
``next_deadline()`` and the scenario's actions. ``unplug()`` closes the master and the slave
(the reader gets pyserial's "device reports readiness to read but returned no data", the path
and the symlink disappear, ecosystem.md §4.2); ``replug()`` opens a new pty and a new symlink.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import tty
from dataclasses import replace
from typing import TYPE_CHECKING

from bughouse_bridge.emulator.actions import HostWrite, Replug, TimedAction, Unplug, apply_action
from bughouse_bridge.trace import TraceRecord

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from bughouse_bridge.emulator.board import EmulatedBoard
    from bughouse_bridge.trace import Direction

logger = logging.getLogger(__name__)

_READ_SIZE = 4096
_LATE_TOLERANCE = 0.0005


class PtyEmulator:
    """One emulated board (and its clock) behind a pty. Use inside a running event loop."""

    def __init__(
        self,
        board: EmulatedBoard,
        *,
        link: str = "A",
        symlink: Path | None = None,
        record: bool = False,
    ) -> None:
        self.board = board
        self.link = link
        self.symlink = symlink
        self.records: list[TraceRecord] | None = [] if record else None
        self.host_seen = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._origin = self._loop.time()
        self._master: int | None = None
        self._slave: int | None = None
        self._path = ""
        self._pending_write = bytearray()
        self._actions: list[TimedAction] = []
        self._timer: asyncio.TimerHandle | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._open()

    # --- public -------------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The slave device a reader opens (``/dev/pts/N``)."""
        return self._path

    @property
    def connected(self) -> bool:
        return self._master is not None

    def now(self) -> float:
        """Emulator time: seconds since this runner started (the board model's clock)."""
        return self._loop.time() - self._origin

    def play(self, actions: Iterable[TimedAction], *, offset: float = 0.0) -> None:
        """Schedule scenario actions for this link at ``offset + action.t`` (emulator time)."""
        for action in actions:
            if action.link == self.link:
                self._actions.append(
                    TimedAction(action.t + offset, action.seq, action.link, action.action)
                )
        self._actions.sort(key=lambda action: (action.t, action.seq))
        if self._actions:
            self._idle.clear()
        self._reschedule()

    async def finished(self) -> None:
        """Until every scheduled action has been applied."""
        await self._idle.wait()

    def unplug(self) -> None:
        """Pull the cable: the reader sees the device vanish, and so does its stable name (udev
        removes the ``/dev/serial/by-id`` link). Left pointing at the closed pty, the name would
        let a reader open whatever pty the kernel hands out next under that number — another
        emulated board's, when tests run side by side."""
        self.board.unplug(self.now())
        self._close_pty()
        if self.symlink is not None:
            with contextlib.suppress(FileNotFoundError):
                self.symlink.unlink()

    def replug(self) -> None:
        """Plug it back in: a new pty (new path), the symlink follows, the board boots."""
        if self._master is None:
            self._open()
        self.board.replug(self.now())
        self._reschedule()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._close_pty()
        if self.symlink is not None:
            with contextlib.suppress(FileNotFoundError):
                self.symlink.unlink()
        self._idle.set()

    # --- the pty ------------------------------------------------------------------------------

    def _open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._path = os.ttyname(slave)
        self._loop.add_reader(master, self._on_readable)
        if self.symlink is not None:
            temporary = self.symlink.with_name(self.symlink.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(self._path)
            temporary.replace(self.symlink)
        logger.info("emulated board %s on %s", self.link, self._path)

    def _close_pty(self) -> None:
        master, slave = self._master, self._slave
        self._master = self._slave = None
        self._pending_write.clear()
        if master is not None:
            self._loop.remove_reader(master)
            self._loop.remove_writer(master)
            os.close(master)
        if slave is not None:
            os.close(slave)

    def _on_readable(self) -> None:
        master = self._master
        if master is None:
            return
        try:
            data = os.read(master, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError as error:
            if error.errno != errno.EIO:  # EIO: no reader has the slave open right now
                raise
            return
        if not data:
            return
        now = self.now()
        self.host_seen.set()
        self._record(now, "tx", data)
        self.board.receive(data, now)
        self._tick()

    def _write(self, data: bytes) -> None:
        master = self._master
        if master is None:
            return
        self._pending_write += data
        self._flush()

    def _flush(self) -> None:
        master = self._master
        if master is None:
            return
        try:
            written = os.write(master, self._pending_write)
        except BlockingIOError:
            written = 0
        except OSError as error:
            logger.debug("write to %s failed: %s", self._path, error)
            self._pending_write.clear()
            return
        del self._pending_write[:written]
        if self._pending_write:
            self._loop.add_writer(master, self._flush)
        else:
            self._loop.remove_writer(master)

    def _record(self, t: float, direction: Direction, data: bytes) -> None:
        if self.records is not None:
            self.records.append(TraceRecord(t, self.link, direction, data))

    # --- time ---------------------------------------------------------------------------------

    def _tick(self) -> None:
        self._timer = None
        now = self.now()
        while self._actions and self._actions[0].t <= now + _LATE_TOLERANCE:
            timed = self._actions.pop(0)
            self._apply(timed, now)
        for t, data in self.board.poll(now):
            self._record(t, "rx", data)
            self._write(data)
        if not self._actions:
            self._idle.set()
        self._reschedule()

    def _apply(self, timed: TimedAction, now: float) -> None:
        when = min(timed.t, now)
        if isinstance(timed.action, Unplug):
            self.unplug()
            self._keep_out(late=now - timed.t)
        elif isinstance(timed.action, Replug):
            self.replug()
        else:
            if isinstance(timed.action, HostWrite):
                self._record(when, "tx", timed.action.data)
            apply_action(self.board, timed.action, when)

    def _keep_out(self, *, late: float) -> None:
        """A cable pulled late (the loop was busy) stays out as long as asked: the next replug
        moves by as much, or a busy machine would shorten every pull."""
        if late <= 0:
            return
        for index, timed in enumerate(self._actions):
            if isinstance(timed.action, Replug):
                self._actions[index] = replace(timed, t=timed.t + late)
                self._actions.sort(key=lambda action: (action.t, action.seq))
                return

    def _reschedule(self) -> None:
        candidates = [self.board.next_deadline()]
        if self._actions:
            candidates.append(self._actions[0].t)
        due = [t for t in candidates if t is not None]
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if due:
            self._timer = self._loop.call_at(self._origin + min(due), self._tick)
