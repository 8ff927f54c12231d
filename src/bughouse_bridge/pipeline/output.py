"""What one step of the pure core hands to the shell."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bughouse_bridge.topics import Publication


@dataclass(frozen=True, slots=True)
class GameFile:
    """A game's record to keep as a file (``<state_dir>/games/<name>``), replacing any older."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Output:
    publications: tuple[Publication, ...] = ()
    writes: tuple[tuple[str, bytes], ...] = ()  # (link, bytes for the board)
    events: tuple[dict[str, Any], ...] = ()  # the event payloads, in order (for replay output)
    files: tuple[GameFile, ...] = ()  # finished games to archive

    def __add__(self, other: Output) -> Output:
        return Output(
            self.publications + other.publications,
            self.writes + other.writes,
            self.events + other.events,
            self.files + other.files,
        )
