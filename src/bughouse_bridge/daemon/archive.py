"""Every finished game as a BPGN file under ``<state_dir>/games/`` (issue 9).

A game is archived when it is decided and rewritten whenever its record changes after that
(moves played after the result, a takeback, a removal, a revoked result), so the file always
holds the game's last record, also when the retained ``bpgn`` message has moved on to the next
game. The name says when and where: ``2026-11-23_round-1-table-1_round-3_table-2_game-1.bpgn``
(the match's start date in UTC, the match id, the configured round and table if any, the game's
number within the match). Journal replay rebuilds the same numbers, so a resumed daemon keeps
writing the same files.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from bughouse_bridge.bridge import Bridge, Output
    from bughouse_bridge.config import Settings

logger = logging.getLogger(__name__)

GAMES_FOLDER = "games"


def archive_name(
    *, origin_epoch: float, match_id: str, round_: str | None, table: str | None, game: int
) -> str:
    date = datetime.fromtimestamp(origin_epoch, tz=UTC).strftime("%Y-%m-%d")
    parts = [date, match_id]
    if round_ is not None:
        parts.append(f"round-{_file_safe(round_)}")
    if table is not None:
        parts.append(f"table-{_file_safe(table)}")
    parts.append(f"game-{game}")
    return "_".join(parts) + ".bpgn"


def _file_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-") or "x"


class GameArchive:
    """Writes the bridge's BPGN to the current game's file once the game is decided."""

    def __init__(self, settings: Settings, origin_epoch: float) -> None:
        self.folder = settings.state_dir / GAMES_FOLDER
        self._settings = settings
        self._origin_epoch = origin_epoch

    def path_of(self, game: int) -> Path:
        event = self._settings.event
        name = archive_name(
            origin_epoch=self._origin_epoch,
            match_id=self._settings.match_id,
            round_=event.round,
            table=event.table,
            game=game,
        )
        return self.folder / name

    def update(self, bridge: Bridge, output: Output) -> Path | None:
        """Archive after ``output`` if it changed a decided (or already archived) game's record.

        Returns the file written, or None. A write that fails is logged, never raised: the game
        stays on the retained topic and in the journal, and the next change tries again.
        """
        if not any(p.topic == bridge.topics.bpgn for p in output.publications):
            return None
        path = self.path_of(bridge.game_number)
        if not bridge.game_decided and not path.exists():
            return None
        try:
            _write_atomically(path, bridge.bpgn_text())
        except OSError as error:
            logger.error("cannot archive game %d to %s: %s", bridge.game_number, path, error)  # noqa: TRY400 - the reason is enough
            return None
        logger.info("archived game %d to %s", bridge.game_number, path)
        return path


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    with partial.open("w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    partial.replace(path)
