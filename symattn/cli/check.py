"""`symattn check [SPEC ...]`: a verdict for every printed number."""

from __future__ import annotations

import json
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from ..errors import LimitError, SpecError


def configure(p):
    p.add_argument("paths", nargs="*", metavar="SPEC",
                   help="spec files or folders (default: the bundled corpus of the three articles)")
    p.add_argument("--json", action="store_true", help="print one JSON object: summary and claims")
    p.add_argument("--problems", action="store_true",
                   help="list only carried and wrong numbers (the summary counts all)")
    p.add_argument("--no-diagnosis", action="store_true", help="skip the search for the mistake")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="give up after S seconds (exit 2)")


def bundled() -> list[Path]:
    """The corpus shipped with the package (examples/ of the repository)."""
    from importlib import resources
    try:
        root = Path(str(resources.files("symattn.examples")))
    except ModuleNotFoundError:                 # running from a source tree, not installed
        root = Path(__file__).resolve().parents[2] / "examples"
    return sorted(root.glob("*.toml"), key=lambda p: p.name)


def spec_paths(paths: list[str]) -> list[Path]:
    if not paths:
        return bundled()
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.glob("*.toml"))
            if not found:
                raise SpecError("no .toml spec files in this folder", where=p)
            out += found
        else:
            out.append(path)
    return out


@contextmanager
def time_limit(seconds: float | None):
    if seconds is None:
        yield
        return
    import math
    if not math.isfinite(seconds) or not 0 < seconds <= 1e6:
        raise LimitError(f"--timeout {seconds:g}: give a number of seconds from 0 to 1000000")

    def on_alarm(signum, frame):
        raise LimitError(f"check took longer than {seconds:g} s (--timeout)",
                         hint="raise --timeout or check fewer specs")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run(args) -> int:
    from ..spec.load import load
    from ..claims.check import check_spec, Summary
    from ..render.report import format_report
    paths = spec_paths(args.paths)
    records, summary, per_example = [], Summary(), {}
    progress = sys.stderr.isatty() and not args.json
    seen_ids: dict = {}
    with time_limit(args.timeout):
        for k, path in enumerate(paths):
            if progress:
                print(f"\rchecking {k + 1}/{len(paths)} {path.name[:40]:<40}", end="", file=sys.stderr)
            spec = load(str(path))
            if spec.id in seen_ids:
                raise SpecError(f"example id '{spec.id}' is also used by {seen_ids[spec.id]}",
                                where=str(path))
            seen_ids[spec.id] = str(path)
            rs = check_spec(spec, diagnose=not args.no_diagnosis)
            summary.examples += 1
            mine = Summary(examples=1)
            for r in rs:
                summary.add(r)
                mine.add(r)
            per_example[spec.id] = mine
            records += rs
    if progress:
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    if args.json:
        out = {"summary": summary.to_json(), "claims": [r.to_json() for r in records]}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    else:
        sys.stdout.write(format_report(records, summary, only_problems=args.problems,
                                       per_example=per_example))
    return 1 if summary.wrong else 0
