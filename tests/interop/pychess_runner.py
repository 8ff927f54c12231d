"""Run pychess-variants' own BPGN importer on one game, outside its web server.

Usage: ``python pychess_runner.py PYCHESS_SERVER_DIR < game.bpgn`` prints one JSON object: what
pychess.org would store (``moves`` per board in UCI, ``order`` the board of each half-move in
file order, ``result`` "a" = 1-0 = White A and Black B won, "b" = 0-1, "c" draw, "d" unknown,
``players``) or ``{"response": {"error": ...}}``. With ``--serve`` it reads one JSON string (a
game's text) per line and answers each with one line, for tests that import many games.

PYCHESS_SERVER_DIR holds pychess-variants' ``bug/`` and ``bugchess/`` packages (its ``server/``
folder, or the vendored copy). They are AGPL-3.0 and stay outside this repository; only their
collaborators (database, users, HTTP request, a few constants) are replaced here by stand-ins.
This runs in its own process because the stand-ins take module names such as ``const``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import types
from typing import Any

RESULT_CODES = {"1-0": "a", "0-1": "b", "1/2-1/2": "c", "*": "d"}  # pychess' R2C


def _module(name: str, **attributes: Any) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module


class _Store:
    """The ``game`` collection: remembers the document the importer inserts."""

    def __init__(self) -> None:
        self.document: dict[str, Any] | None = None

    async def find_one(self, _query: object) -> None:
        return None

    async def insert_one(self, document: dict[str, Any]) -> types.SimpleNamespace:
        self.document = document
        return types.SimpleNamespace(inserted_id=document["_id"])


def _install_stand_ins(store: _Store) -> None:
    async def get_user(name: str) -> types.SimpleNamespace:
        return types.SimpleNamespace(username=name)

    async def new_id(_collection: object) -> str:
        return "imported"

    async def read_post_data(request: types.SimpleNamespace) -> object:
        return request.data

    app = types.SimpleNamespace(
        db=types.SimpleNamespace(game=store), users=types.SimpleNamespace(get=get_user)
    )
    _module("compress", R2C=RESULT_CODES, encode_move_standard=lambda move: move)
    _module("const", IMPORTED=2, UNKNOWNFINISH=-1)
    _module("json_utils", json_response=lambda data: data)
    _module("newid", new_id=new_id)
    _module("pychess_global_app_state_utils", get_app_state=lambda _app: app)
    _module("request_utils", read_post_data=read_post_data)
    _module("variants", get_server_variant=lambda *_: types.SimpleNamespace(code="B"))

    async def init_players(_state: object, *names: str) -> list[types.SimpleNamespace]:
        return [await get_user(name) for name in names]

    import bug  # noqa: F401, PLC0415 - the real package must exist before its submodule is replaced

    _module("bug.utils_bug", init_players=init_players)


_STORES: list[_Store] = []  # the stand-ins are installed once; the importer keeps them


def run(text: str) -> dict[str, Any]:
    if not _STORES:
        _STORES.append(_Store())
        _install_stand_ins(_STORES[0])
    store = _STORES[0]
    store.document = None
    from bug.import_bugh_game import import_game_bpgn  # noqa: PLC0415 - after the stand-ins

    request = types.SimpleNamespace(app=None, data={"pgn": text})
    answer: dict[str, Any] = {"response": asyncio.run(import_game_bpgn(request))}
    document = store.document
    if document is not None:
        moves: dict[str, list[str]] = {"A": [], "B": []}
        for move, board in zip(document["m"], document["o"], strict=True):
            moves["AB"[board]].append(move)
        order = ["AB"[board] for board in document["o"]]
        answer |= {
            "moves": moves,
            "order": order,
            "result": document["r"],
            "players": document["us"],
        }
    return answer


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    if sys.argv[2:] == ["--serve"]:
        for line in sys.stdin:
            print(json.dumps(run(json.loads(line))), flush=True)
    else:
        print(json.dumps(run(sys.stdin.read())))
