"""The checkout under test is the one its subprocesses import.

CLI tests run ``python -m symattn`` in temporary folders; with the checkout's root first on
PYTHONPATH they run this checkout's code, installed (``pip install -e .``) or not, and never
another copy that happens to be installed."""

import os
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])


def check_post(folder, text: str, name: str = "post.md") -> dict:
    """``symattn check --json`` of an article written into ``folder`` (no spec: inferred),
    its JSON; an exit status other than 0 or 1 fails the test with the error line."""
    import json
    import subprocess
    import sys
    path = Path(folder) / name
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def causal_softmax(rows):
    """The causally masked softmax of ``rows`` (decimal strings), in mpmath at its current
    precision: row i over its first i + 1 entries, 0 after them (the truth, never symattn)."""
    import mpmath
    out = []
    for i, row in enumerate(rows):
        e = [mpmath.exp(mpmath.mpf(v)) if j <= i else mpmath.mpf(0) for j, v in enumerate(row)]
        out.append([x / sum(e) for x in e])
    return out
