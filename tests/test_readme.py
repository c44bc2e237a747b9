"""The README's Python example runs as printed and prints what it says."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_example_prints_what_the_readme_says():
    text = README.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.splitlines()
    assert out[0].startswith("exp(669*sqrt(2)/625)/(exp(579*sqrt(2)/1000)")
    assert "'0.338238038393064236814115264836'" in out[1]
    assert out[2] == "[['0.8933', '0.9295', '0.8176']]"
    assert out[3] == "True"


def test_quick_start_is_two_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n+```\w*\n(.*?)```", text, re.S).group(1)
    lines = [l for l in block.splitlines() if l.strip()]
    assert len(lines) == 2
    assert "symattn check" in lines[0] and "pytest" in lines[1]
