"""Each benchmark rewrites its own section of bench/README.md: one helper for all of them."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).with_name("README.md")


def write_section(heading: str, text: str, readme: Path = README) -> None:
    """Replace the section that starts with ``heading`` (up to the next ``## `` heading) by
    ``text``, or append ``text`` when the README has no such section yet."""
    current = readme.read_text(encoding="utf-8") if readme.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    body = text.rstrip("\n") + "\n\n"
    if pattern.search(current):
        new = pattern.sub(lambda _match: body, current, count=1)
    else:
        new = current.rstrip("\n") + "\n\n" + body
    readme.write_text(new.rstrip("\n") + "\n", encoding="utf-8")
