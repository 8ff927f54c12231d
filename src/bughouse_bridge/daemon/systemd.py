"""sd_notify without libsystemd: one AF_UNIX datagram to ``$NOTIFY_SOCKET`` per message.

Every function is a silent no-op when the process was not started by systemd (no
``NOTIFY_SOCKET``), so the daemon calls them unconditionally.
"""

from __future__ import annotations

import contextlib
import os
import socket


def notify(*assignments: str) -> bool:
    """Send ``KEY=value`` lines; True if a notification socket took them."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # abstract namespace
        address = "\0" + address[1:]
    message = "\n".join(assignments).encode()
    # Never block the event loop on a notification: a datagram socket whose reader is slow
    # holds only net.unix.max_dgram_qlen (10) messages, and a blocking sendto would then hang
    # the daemon. A full queue costs this one message (BlockingIOError is an OSError).
    with (
        contextlib.suppress(OSError),
        socket.socket(
            socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK
        ) as sock,
    ):
        sock.sendto(message, address)
        return True
    return False


def ready(status: str | None = None) -> bool:
    """READY=1: configuration checked and the loop running (not gated on boards or broker)."""
    return notify("READY=1", *([f"STATUS={status}"] if status else []))


def watchdog() -> bool:
    return notify("WATCHDOG=1")


def stopping(status: str | None = None) -> bool:
    return notify("STOPPING=1", *([f"STATUS={status}"] if status else []))


def status(text: str) -> bool:
    """One line for ``systemctl status`` (e.g. "board A ok, board B missing, broker up")."""
    return notify(f"STATUS={text.replace(chr(10), ' ')}")


def watchdog_interval() -> float | None:
    """How often to send WATCHDOG=1 (half of ``WATCHDOG_USEC``), or None without a watchdog."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2_000_000 if value > 0 else None
