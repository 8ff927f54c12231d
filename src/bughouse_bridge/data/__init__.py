"""Real bughouse games bundled as package data, so the demo and tests work offline.

The games are bughousedb exports (FICS), see ``shared/research/bughouse-engines.md`` §4.3:
``1934301`` (2021, 110 half-moves, ends ``23B. B@g7#``) and ``1283326`` (2014, aborted).
"""

from __future__ import annotations

from importlib import resources
from typing import Final

DEFAULT_GAME: Final = "1934301"
_GAMES_FOLDER: Final = "games"
_SUFFIX: Final = ".bpgn"


def bundled_game_names() -> list[str]:
    """Names of the bundled games (bughousedb game numbers), sorted."""
    folder = resources.files(__package__).joinpath(_GAMES_FOLDER)
    return sorted(
        entry.name.removesuffix(_SUFFIX)
        for entry in folder.iterdir()
        if entry.name.endswith(_SUFFIX)
    )


def bundled_game(name: str | None = None) -> str:
    """The BPGN text of a bundled game; by default the long decisive game 1934301.

    Raises ``ValueError`` naming the available games when ``name`` is unknown.
    """
    wanted = (name or DEFAULT_GAME).removesuffix(_SUFFIX)
    available = bundled_game_names()
    if wanted not in available:
        raise ValueError(f"no bundled game {wanted!r}; available: {', '.join(available)}")
    resource = resources.files(__package__).joinpath(_GAMES_FOLDER, wanted + _SUFFIX)
    return resource.read_text(encoding="utf-8")
