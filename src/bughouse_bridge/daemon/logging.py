"""Logging set-up: journald priorities under systemd, a readable format on a terminal.

Under systemd (``JOURNAL_STREAM`` set and matching stderr) each line starts with ``<N>``, the
syslog priority journald reads from the stream, and carries no timestamp (journald adds one).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

# Python level -> syslog priority (sd-daemon(3)).
_PRIORITIES = (
    (logging.CRITICAL, 2),
    (logging.ERROR, 3),
    (logging.WARNING, 4),
    (logging.INFO, 6),
)
_DEBUG_PRIORITY = 7
_HUMAN_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
# Libraries that are chatty at INFO and would drown the bridge's own lines.
_QUIET = ("amqtt", "transitions", "aiomqtt", "paho")


def syslog_priority(levelno: int) -> int:
    return next((prio for level, prio in _PRIORITIES if levelno >= level), _DEBUG_PRIORITY)


class JournalFormatter(logging.Formatter):
    """``<N>logger: message``; continuation lines of tracebacks get the prefix too."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{syslog_priority(record.levelno)}>"
        text = f"{record.name}: {super().format(record)}"
        return "\n".join(prefix + line for line in text.splitlines())


def stderr_is_journal(stream: TextIO | None = None) -> bool:
    """True when stderr is the journal stream systemd connected (``JOURNAL_STREAM=dev:inode``)."""
    value = os.environ.get("JOURNAL_STREAM")
    if not value:
        return False
    target = stream or sys.stderr
    try:
        device, inode = (int(part) for part in value.split(":"))
        info = os.fstat(target.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (info.st_dev, info.st_ino) == (device, inode)


def setup_logging(level: str | int = "info", *, stream: TextIO | None = None) -> logging.Handler:
    """Configure the root logger once; return the handler (tests may remove it)."""
    target = stream or sys.stderr
    handler = logging.StreamHandler(target)
    if stderr_is_journal(target):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter(_HUMAN_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    root.setLevel(numeric)
    if root.level > logging.DEBUG:
        for name in _QUIET:
            logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    return handler
