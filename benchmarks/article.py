"""Issue 10's speed figure: finding and checking the claims of an article's example, cold from
the command line, against checking the same example with its hand-written claims.

    python benchmarks/article.py                  # article 003's largest example, 5 runs each
    python benchmarks/article.py --example 000-self-attention --runs 9

Both commands run interleaved in fresh processes (cold: imports, evaluation, diagnosis);
the figure is the ratio of their medians (target ≤ 2×).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--example", default="003-ch6-decoder-attention")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    spec = ROOT / "examples" / f"{args.example}.toml"
    text = spec.read_text(encoding="utf-8")
    source = re.search(r'^source = "([^"]+)"', text, re.M).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / spec.name
        cut = re.search(r"^\[\[claims\]\]", text, re.M)
        bare.write_text(text[:cut.start()] if cut else text, encoding="utf-8")
        cmd = [sys.executable, "-m", "symattn", "check", "--json"]
        hand = cmd + [str(spec)]
        found = cmd + [str(bare), "--article", str(SEEDS / source)]
        times = {"hand": [], "article": []}
        for _ in range(args.runs):
            for name, c in (("hand", hand), ("article", found)):
                t = time.perf_counter()
                r = subprocess.run(c, capture_output=True, cwd=tmp)
                times[name].append(time.perf_counter() - t)
                if r.returncode not in (0, 1):
                    sys.exit(f"{name} failed: {r.stderr.decode()[:300]}")
    h, a = statistics.median(times["hand"]), statistics.median(times["article"])
    print(f"{args.example}: hand-written claims {h:.2f} s, found in the article {a:.2f} s "
          f"(medians of {args.runs}, cold): {a / h:.2f}× (target ≤ 2×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
