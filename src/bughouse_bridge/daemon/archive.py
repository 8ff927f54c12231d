"""Every game played as a BPGN file under ``<state_dir>/games/`` (issue 9, issue 20).

The pure core says which file holds what (``Output.files``, names from
``pipeline.lifecycle.archive_name``): a game is written when it is decided and rewritten at every
change of its record after that (a takeback, a revoked result, the next decision), and once more
when the next game begins — also a game that was played but never decided. The name says when
and where: ``2026-11-23_r1-t2_round-1_table-2_game-1.bpgn`` (the box's start date in UTC, the
game's match id, its round and table, its number under that match id), so no game overwrites
another. Journal replay rebuilds the same names, so a resumed daemon keeps writing the same files.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from bughouse_bridge.pipeline.lifecycle import archive_name

if TYPE_CHECKING:
    from pathlib import Path

    from bughouse_bridge.pipeline.output import Output

__all__ = ["GAMES_FOLDER", "GameArchive", "archive_name"]

logger = logging.getLogger(__name__)

GAMES_FOLDER = "games"


class GameArchive:
    """Writes the games' files that the core hands out."""

    def __init__(self, state_dir: Path) -> None:
        self.folder = state_dir / GAMES_FOLDER

    def update(self, output: Output) -> list[Path]:
        """Write the files of ``output``; returns those written. A write that fails is logged,
        never raised: the game stays on the retained topics and in the journal, and the next
        change (or the next game) tries again."""
        written = []
        for game_file in output.files:
            path = self.folder / game_file.name
            try:
                _write_atomically(path, game_file.text)
            except OSError as error:
                logger.error("cannot archive %s to %s: %s", game_file.name, path, error)  # noqa: TRY400 - the reason is enough
                continue
            logger.info("archived %s", path)
            written.append(path)
        return written


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    with partial.open("w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    partial.replace(path)
