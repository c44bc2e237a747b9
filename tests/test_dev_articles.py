"""Issue 20's measure: `check --article` on the ten development articles by other authors,
scored by their own independent key (../shared/dev-articles/score.py, not symattn's code).

The figures are floors: reading may find more, never fewer; there is no false alarm (a
wrong record that no row of the key explains). A wrong number printed again for the same
entry restates it and is listed apart (``"restated"``), as the key counts it once."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "dev-articles"
SCORER = DEV / "score.py"

FOUND, FLAGGED = 897, 171            # of 897 printed numbers and of their 171 incorrect ones


@pytest.mark.skipif(not SCORER.is_file(), reason="../shared/dev-articles is not beside the repo")
def test_development_articles_found_flagged_and_no_false_alarm():
    r = subprocess.run([sys.executable, str(SCORER), f"{sys.executable} -m symattn", "-v"],
                       capture_output=True, text=True, timeout=1200)
    last = r.stdout.strip().splitlines()[-1]
    m = re.search(r"found (\d+)/(\d+) .* incorrect found (\d+)/(\d+), false alarms (\d+), "
                  r"unmatched \d+, errors (\d+)", last)
    assert m, r.stdout[-2000:] + r.stderr[-2000:]
    found, total, flagged, incorrect, false_alarms, errors = map(int, m.groups())
    assert (total, incorrect) == (897, 171) and errors == 0, last
    assert found >= FOUND and flagged >= FLAGGED, last
    assert false_alarms == 0, "\n".join(l for l in r.stdout.splitlines() if "false alarm" in l)
