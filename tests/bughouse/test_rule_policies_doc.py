"""docs/rule-policies.md is generated from the rules core and must match it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_rule_policies_page_is_up_to_date():
    generated = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "rules_table.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    page = (ROOT / "docs" / "rule-policies.md").read_text(encoding="utf-8")
    assert page == generated, "run: .venv/bin/python scripts/rules_table.py > docs/rule-policies.md"
