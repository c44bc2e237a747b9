"""The README's Quick start is the two commands .ci/run executes. (Every other block of the
README and docs/, the Python example included, is run by tests/test_docs.py.)"""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_quick_start_is_two_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n+(?:<!-- no-run -->\n)?```\w*\n(.*?)```", text, re.S).group(1)
    lines = [l for l in block.splitlines() if l.strip()]
    assert len(lines) == 2
    assert "symattn check" in lines[0] and "pytest" in lines[1]
