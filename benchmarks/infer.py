"""Issue 21's figures: `symattn check --json ARTICLE` with no spec, against the answer keys.

    python benchmarks/infer.py            # the development articles and the seed articles
    python benchmarks/infer.py -v         # and every expected number missed, every false alarm

Each article (the parts of one together: ``x.part1.ipynb x.part2.ipynb``) is checked once in a
fresh process with no spec: its example is inferred, then checked. Keys: for the development
articles ``../shared/dev-articles/expected/*.tsv`` (the rows of every spec whose ``source``
is the article), for the seeds the bundled corpus (``check --json`` of ``examples/``, its
hand-written claims). A key row is found by a record that prints the same text for the same
exact value (to 12 significant digits), one to one. Printed per article and in total: found
of expected; found with the key's verdict; incorrect ones flagged (key incorrect, record
wrong or carried); false alarms (a wrong record that no key row explains); seconds; and the
median seconds per article.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEV = SHARED / "dev-articles"
SEEDS = SHARED / "seeds"
AGREE = {"correct": ("correct",), "consistent_with_rounded_inputs": ("consistent",),
         "consistent": ("consistent",), "incorrect": ("wrong", "carried")}


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}      # this tree's symattn


def norm(s) -> str:
    return str(s).replace("\u2212", "-").replace("\u2248", "").strip()


def same_value(a: str, b: str) -> bool:
    try:
        x, y = Decimal(str(a)), Decimal(str(b))
    except InvalidOperation:
        return False
    if x.is_infinite() or y.is_infinite():        # a mask's -inf: equal or not
        return x == y
    return abs(x - y) <= Decimal("1e-12") * max(Decimal(1), abs(x))


def dev_keys() -> dict[tuple, list[dict]]:
    """(article files) -> the key rows of every spec printed in them."""
    out: dict = defaultdict(list)
    arts = sorted((DEV / "articles").iterdir())
    for spec in sorted((DEV / "specs").glob("*.toml")):
        src = re.search(r'^source\s*=\s*"([^"]+)"', spec.read_text(encoding="utf-8"), re.M).group(1)
        stem = Path(src).name.split(".part")[0].rsplit(".", 1)[0]
        files = tuple(str(p) for p in arts if p.name.split(".part")[0].rsplit(".", 1)[0] == stem)
        rows = list(csv.DictReader(open(DEV / "expected" / f"{spec.stem}.tsv", encoding="utf-8"), delimiter="\t"))
        out[files] += [{"printed": r["printed"], "exact": r["exact"], "key": r["key_verdict"],
                        "what": f"{r['step']}[{r['row']}, {r['col']}]"} for r in rows]
    return out


def seed_keys() -> dict[tuple, list[dict]]:
    """(seed file,) -> the bundled corpus's hand-written claims on it (their verdicts)."""
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json"], capture_output=True,
                       text=True, cwd=ROOT, env=ENV, timeout=900)
    out: dict = defaultdict(list)
    for c in json.loads(r.stdout)["claims"]:
        key = "incorrect" if c["verdict"] in ("wrong", "carried") else c["verdict"]
        out[(str(SEEDS / Path(c["source"]).name),)].append(
            {"printed": c["printed"], "exact": c["exact"], "key": key, "what": f"line {c.get('line', '?')}: {c['step']} {c.get('at')}"})
    return out


def score(files: tuple, key: list[dict], verbose: bool) -> dict:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", *files], capture_output=True,
                       text=True, cwd=ROOT, env=ENV, timeout=900)
    n = {"seconds": time.perf_counter() - t, "expected": len(key), "found": 0, "agree": 0,
         "incorrect": sum(k["key"] == "incorrect" for k in key), "flagged": 0, "false alarms": 0,
         "exit": r.returncode}
    if r.returncode not in (0, 1):
        n["error"] = r.stderr.strip()[-160:]
        return n
    out = json.loads(r.stdout)
    records = out["claims"] + out.get("restated", [])    # a number printed again is found too
    used: set = set()
    for k in key:
        c = next((c for c in records if id(c) not in used and norm(c["printed"]) == norm(k["printed"])
                  and same_value(c["exact"], k["exact"])), None)
        if c is None:
            if verbose:
                print(f"    missed {k['what']} printed {k['printed']} ({k['key']})")
            continue
        used.add(id(c))
        n["found"] += 1
        n["agree"] += c["verdict"] in AGREE.get(k["key"], ())
        n["flagged"] += k["key"] == "incorrect" and c["verdict"] in ("wrong", "carried")
    for c in out["claims"]:                 # a restatement of a wrong number is no new alarm
        if id(c) not in used and c["verdict"] == "wrong":
            n["false alarms"] += 1
            if verbose:
                print(f"    false alarm line {c['line']}: {c['step']} {c.get('at')} printed {c['printed']}")
    return n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    keys = {}
    if DEV.is_dir():
        keys.update(dev_keys())
    if SEEDS.is_dir():
        keys.update(seed_keys())
    total: dict = defaultdict(float)
    seconds = []
    for files, key in keys.items():
        name = Path(files[0]).name.split(".part")[0]
        n = score(files, key, args.verbose)
        seconds.append(n["seconds"])
        for k in ("expected", "found", "agree", "incorrect", "flagged", "false alarms"):
            total[k] += n[k]
        total["errors"] += "error" in n
        tail = f"  exit {n['exit']}: {n['error']}" if "error" in n else ""
        print(f"{name[:48]:48} found {n['found']:>3}/{n['expected']:<3} key verdict {n['agree']:>3}  "
              f"incorrect flagged {n['flagged']:>3}/{n['incorrect']:<3} false alarms {n['false alarms']:>2}  "
              f"{n['seconds']:.1f} s{tail}")
    e = total["expected"] or 1
    print(f"total: found {total['found']:.0f}/{total['expected']:.0f} ({total['found'] / e:.1%}), key verdict "
          f"{total['agree']:.0f} ({total['agree'] / e:.1%}), incorrect flagged {total['flagged']:.0f}/"
          f"{total['incorrect']:.0f}, false alarms {total['false alarms']:.0f}, errors {total['errors']:.0f}, "
          f"median {statistics.median(seconds):.1f} s per article")
    return 0


if __name__ == "__main__":
    sys.exit(main())
