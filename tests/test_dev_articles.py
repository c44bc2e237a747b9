"""Issue 20's measure: `check --article` on the ten development articles by other authors,
scored by their own independent key (../shared/dev-articles/score.py, not symattn's code).

The figures are floors: reading may find more, never fewer. A "false alarm" of the scorer
is a wrong record that no row of the key explains; the only ones allowed are restatements:
a wrong number printed again for the same entry (a final table repeating the steps), which
the key counts once."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "dev-articles"
SCORER = DEV / "score.py"

FOUND, FLAGGED = 866, 144            # of 897 printed numbers and of their 171 incorrect ones
ALARM = re.compile(r"false alarm (\S+) line (\d+): (\S+) (\[.*\]) printed (\S+)")


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
    alarms = ALARM.findall(r.stdout)
    assert len(alarms) == false_alarms
    for spec, line, step, at, printed in alarms:
        earlier = _records(spec)
        assert any(c["step"] == step and str(c["at"]).replace('"', "'") == at and c["printed"] == printed
                   and c["verdict"] == "wrong" and c["line"] < int(line) for c in earlier), \
            f"{spec} line {line}: {step} {at} {printed} is not a restated wrong number"


def _records(spec: str) -> list:
    out = []
    for part in sorted((DEV / "articles").glob(spec.split("-")[0] + "*")):
        if part.suffix in (".md", ".txt", ".ipynb"):
            r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json",
                                str(DEV / "specs" / f"{spec}.toml"), "--article", str(part)],
                               capture_output=True, text=True, timeout=600)
            if r.returncode in (0, 1):
                out += json.loads(r.stdout)["claims"]
    return out
