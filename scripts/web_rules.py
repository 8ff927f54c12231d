"""Writes the web console's article texts (src/bughouse_bridge/web/static/rules.json) from the
rule texts in ../shared/seeds, for exactly the articles the rules core cites (rules.ARTICLES).

Run: .venv/bin/python scripts/web_rules.py [SEEDS_DIR]
(tests/shell/test_web_rules.py checks that every cited article has its text).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from bughouse_bridge.bughouse import rules
from bughouse_bridge.web import STATIC_DIR

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {  # preset -> seed file (see ../shared/docs/rules.md)
    "dsb": "000_0e8bc2f0c674ba24.txt",
    "dsj": "001_7f68a3551fbe909a.txt",
    "olite": "004_b661d2bc8b05be37.txt",
}
NUMBERED = re.compile(r"^\s*(?:-\s*)?(\d+(?:\.\d+)*)\.?\s+(\S.*)$")
LETTERED = re.compile(r"^\s*-?\s*([a-z])[.)]\s+(\S.*)$")


def paragraphs(text: str) -> dict[str, str]:
    """Numbered paragraphs ("3.2", "11") and their lettered items ("6b", "7.1d")."""
    found: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if match := NUMBERED.match(line):
            current = match.group(1)
            found[current] = match.group(2).strip()
        elif current and (match := LETTERED.match(line)):
            found[f"{current}{match.group(1)}"] = match.group(2).strip()
    return found


def article_text(found: dict[str, str], ref: str) -> str:
    if ref in found:
        return found[ref]
    if "-" in ref:  # a range of rules, e.g. "7-8"
        low, high = (int(part) for part in ref.split("-"))
        return " ".join(found[str(n)] for n in range(low, high + 1))
    raise KeyError(ref)


def main() -> None:
    seeds = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "seeds"
    texts: dict[str, dict[str, str]] = {}
    for preset, seed in SEEDS.items():
        found = paragraphs((seeds / seed).read_text(encoding="utf-8"))
        refs = sorted(set(rules.ARTICLES.get(preset, {}).values()))
        texts[preset] = {ref: re.sub(r"\*\*", "", article_text(found, ref)) for ref in refs}
    out = STATIC_DIR / "rules.json"
    out.write_text(json.dumps(texts, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
