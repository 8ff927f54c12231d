"""Names the hall derives from table and round numbers, in one place.

Match topics must be attributable to a box for the broker's ACL, and MQTT wildcards only match
whole topic levels. So match ids are derived from round and table (``r3-t12``, a second game of
the same round at that table ``r3-t12-g2``) and the ACL lists, per box, the match ids of every
round the hall was set up for (``hall init --rounds``). Round 0 is the box's match before the
first pairing arrives.
"""

from __future__ import annotations

import re

_MATCH_ID = re.compile(r"^r(?P<round>\d+)-t(?P<table>\d+)(?:-g(?P<game>\d+))?$")


def bridge_id(table: int) -> str:
    """The box of table ``n`` is bridge (and broker user) ``table-n``."""
    return f"table-{table}"


def match_id(round_number: int, table: int, game: int = 1) -> str:
    """``r<round>-t<table>``, with ``-g<k>`` for the k-th game (k ≥ 2) of a round at a table."""
    base = f"r{round_number}-t{table}"
    return base if game == 1 else f"{base}-g{game}"


def parse_match_id(match: str) -> tuple[int, int, int] | None:
    """(round, table, game) of a hall match id, or None for any other id."""
    found = _MATCH_ID.match(match)
    if found is None:
        return None
    return int(found["round"]), int(found["table"]), int(found["game"] or 1)


def round_topic(root: str) -> str:
    """The retained pairing of the current round."""
    return f"{root}/hall/round"


def round_archive_topic(root: str, number: int | str) -> str:
    """Every round's pairing, kept retained (the standings need all rounds, not the current);
    ``number`` ``"+"`` is the filter for all of them."""
    return f"{root}/hall/rounds/{number}"


def scoring_topic(root: str) -> str:
    """The standings settings of the hall's ``hall.toml`` (:mod:`scoring`)."""
    return f"{root}/hall/scoring"
