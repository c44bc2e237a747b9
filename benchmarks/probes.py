"""Score `symattn check --json ARTICLE` (no spec) against the probes' independent answer keys.

    python benchmarks/probes.py [-v] [DIR ...]

Probes: worked examples written for issue 21 with keys computed independently (mpmath at
60 digits, checked against decimal at 40; symattn never imported): a second measure
beside the development articles (symattn was developed against both). DIR defaults to
every subfolder of benchmarks/probes holding .tsv files. In a DIR, each ``NAME.tsv``
(columns: line step row col printed exact key_verdict note) keys the article ``NAME.<ext>``
beside it (any extension but .tsv). Each article is checked once in a fresh
process (PYTHONPATH: this tree, timeout 120 s); exit status 2, a timeout or output that is
not JSON counts as nothing found, and the error line is printed.

Matching, one to one (modelled on benchmarks/infer.py): a key row is found by a record of
``claims`` or ``restated`` that prints the same text (unicode minus, a trailing '.', '≈'
normalised; a percent sign dropped, as the keys print a percent in its units) for the same
exact value to 12 significant digits, preferring a record on the key row's line; a record
with no exact value is matched by the same printed text alone, in the order of the article. Per article and in total:

- found: key rows matched;
- key verdict: matched with the key's verdict (correct <-> correct,
  consistent_with_rounded_inputs <-> consistent, incorrect <-> wrong or carried);
- incorrect flagged: key incorrect and the record wrong or carried;
- false alarms: claim records wrong or carried that match no key row whose key is
  incorrect (records matching no key row at all included; a record that only restates a
  key-incorrect number, same printed text and exact value, is no new alarm);
- seconds.

With -v: every key row missed, every false alarm, and every found row whose verdict
disagrees with the key.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path

MAIN = Path(__file__).resolve().parents[1]
PROBES = MAIN / "benchmarks" / "probes"
ENV = {**os.environ, "PYTHONPATH": str(MAIN)}
TIMEOUT = 120
AGREE = {"correct": ("correct",), "consistent_with_rounded_inputs": ("consistent",),
         "consistent": ("consistent",), "incorrect": ("wrong", "carried")}
FLAGS = ("wrong", "carried")


def norm(s) -> str:
    s = str(s).replace("\u2212", "-").replace("\u2248", "").strip()
    s = re.sub(r"\s*\\?[%％]$", "", s)          # keys print a percent in its units, unsigned
    return s.rstrip(".") if s.rstrip(".") else s


def num(s):
    if s is None:
        return None
    t = norm(s).replace("\u221e", "inf")
    if t in ("", "None", "null"):
        return None
    try:
        return Decimal(t)
    except InvalidOperation:
        return None


def same_value(a, b) -> bool:
    """Equal to 12 significant digits (infinities equal only themselves)."""
    x, y = num(a), num(b)
    if x is None or y is None:
        return False
    if x.is_infinite() or y.is_infinite():
        return x == y
    return abs(x - y) <= Decimal("1e-12") * max(abs(x), abs(y)) or abs(x - y) <= Decimal("1e-15")


def keys_in(folder: Path) -> list[tuple[Path, Path]]:
    out = []
    for tsv in sorted(folder.glob("*.tsv")):
        if tsv.name.startswith("_"):
            continue
        arts = [p for p in sorted(folder.glob(tsv.stem + ".*")) if p.suffix != ".tsv" and p.is_file()]
        if arts:
            out.append((arts[0], tsv))
        else:
            print(f"{tsv}: no article beside it", file=sys.stderr)
    return out


def run(article: Path):
    """(records dict or None, error line, seconds)."""
    t = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(article)],
                           capture_output=True, text=True, cwd=MAIN, env=ENV, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {TIMEOUT} s", time.perf_counter() - t
    secs = time.perf_counter() - t
    lines = [l for l in r.stderr.strip().splitlines() if l.strip()]
    err = lines[-1][:200] if lines else ""
    if r.returncode == 2:
        return None, f"exit 2: {err}", secs
    try:
        out = json.loads(r.stdout)
    except json.JSONDecodeError:
        return None, f"exit {r.returncode}, output is not JSON: {err or r.stdout.strip()[:160]}", secs
    return out, "", secs


def pos(c) -> tuple:
    return (c.get("line") or 0, c.get("column") or 0)


def score(article: Path, tsv: Path, verbose: bool) -> dict:
    key = list(csv.DictReader(open(tsv, encoding="utf-8"), delimiter="\t"))
    out, err, secs = run(article)
    n = {"seconds": secs, "expected": len(key), "found": 0, "agree": 0,
         "incorrect": sum(k["key_verdict"] == "incorrect" for k in key), "flagged": 0,
         "false alarms": 0, "error": err}
    if out is None:
        if verbose:
            for k in key:
                print(f"    missed line {k['line']}: {k['step']}[{k['row']}, {k['col']}] printed {k['printed']} "
                      f"({k['key_verdict']})")
        return n
    claims = sorted(out.get("claims", []), key=pos)
    records = claims + sorted(out.get("restated", []), key=pos)
    match: dict[int, dict] = {}            # key row index -> record
    used: set[int] = set()

    def take(i, cands):
        for c in cands:
            if id(c) not in used:
                used.add(id(c))
                match[i] = c
                return True
        return False

    # 1. same printed text and same exact value, on the key row's line first
    for i, k in enumerate(key):
        same = [c for c in records if norm(c.get("printed")) == norm(k["printed"])
                and same_value(c.get("exact"), k["exact"])]
        take(i, [c for c in same if str(c.get("line")) == k["line"]] + same)
    # 2. records without an exact value: same printed text, in the article's order
    for i, k in enumerate(key):
        if i not in match:
            take(i, [c for c in records if num(c.get("exact")) is None
                     and norm(c.get("printed")) == norm(k["printed"])])
    for i, k in enumerate(key):
        what = f"line {k['line']}: {k['step']}[{k['row']}, {k['col']}] printed {k['printed']}"
        c = match.get(i)
        if c is None:
            if verbose:
                print(f"    missed {what} ({k['key_verdict']}{': ' + k['note'] if k['note'] else ''})")
            continue
        n["found"] += 1
        ok = c.get("verdict") in AGREE.get(k["key_verdict"], ())
        n["agree"] += ok
        n["flagged"] += k["key_verdict"] == "incorrect" and c.get("verdict") in FLAGS
        if verbose and not ok:
            print(f"    disagrees {what}: key {k['key_verdict']}, symattn {c.get('verdict')} "
                  f"(exact {c.get('exact')}){' - ' + k['note'] if k['note'] else ''}")
    by_record = {id(c): key[i] for i, c in match.items()}
    incorrect_keys = [k for k in key if k["key_verdict"] == "incorrect"]
    for c in claims:
        if c.get("verdict") not in FLAGS:
            continue
        k = by_record.get(id(c))
        if k is not None and k["key_verdict"] == "incorrect":
            continue
        if k is None and any(norm(c.get("printed")) == norm(x["printed"]) and same_value(c.get("exact"), x["exact"])
                             for x in incorrect_keys):
            continue                       # restates a number the key calls incorrect
        n["false alarms"] += 1
        if verbose:
            why = f"key says {k['key_verdict']}" if k is not None else "matches no key row"
            near = [x for x in incorrect_keys if x["line"] == str(c.get("line")) and norm(x["printed"]) == norm(c.get("printed"))]
            if k is None and near:
                why += f"; the key calls this print incorrect with exact {near[0]['exact']} ({near[0]['step']})"
            print(f"    false alarm line {c.get('line')}: {c.get('step')} {c.get('at')} printed {c.get('printed')} "
                  f"exact {c.get('exact')} -> {c.get('verdict')} ({why})")
    return n


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("dirs", nargs="*", type=Path)
    args = p.parse_args(argv)
    dirs = args.dirs or sorted(d for d in PROBES.iterdir() if d.is_dir() and any(d.glob("*.tsv")))
    total: dict = defaultdict(float)
    for d in dirs:
        pairs = keys_in(d.resolve())
        print(f"{d}:")
        for article, tsv in pairs:
            if args.verbose:
                print(f"  {article.name}")
            n = score(article, tsv, args.verbose)
            for k in ("expected", "found", "agree", "incorrect", "flagged", "false alarms", "seconds"):
                total[k] += n[k]
            total["articles"] += 1
            total["errors"] += bool(n["error"])
            tail = f"  ERROR {n['error']}" if n["error"] else ""
            print(f"  {article.name[:40]:40} found {n['found']:>3}/{n['expected']:<3} key verdict {n['agree']:>3}  "
                  f"incorrect flagged {n['flagged']:>3}/{n['incorrect']:<3} false alarms {n['false alarms']:>2}  "
                  f"{n['seconds']:5.1f} s{tail}")
    e = total["expected"] or 1
    print(f"total: {total['articles']:.0f} articles, found {total['found']:.0f}/{total['expected']:.0f} "
          f"({total['found'] / e:.1%}), key verdict {total['agree']:.0f} ({total['agree'] / e:.1%}), "
          f"incorrect flagged {total['flagged']:.0f}/{total['incorrect']:.0f}, false alarms "
          f"{total['false alarms']:.0f}, errors {total['errors']:.0f}, {total['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
