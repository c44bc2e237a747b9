"""`symattn check [SPEC ...]`: a verdict for every printed number."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import deadline
from ..errors import SpecError
from .output import progress
from ..spec.files import read_stdin


def configure(p):
    p.add_argument("paths", nargs="*", metavar="SPEC",
                   help="spec files, folders, bundled example names or - for standard input "
                        "(default: the bundled corpus of the three articles); an article "
                        "(.md, .tex, .ipynb, .html, .txt) or a folder of them: its example is "
                        "inferred and checked (-o FILE writes the inferred spec)")
    p.add_argument("--json", action="store_true", help="print one JSON object: summary and claims")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every printed number, the correct ones too")
    p.add_argument("--problems", action="store_true",
                   help="list only carried and wrong numbers, the default (the summary counts all)")
    p.add_argument("--no-diagnosis", action="store_true", help="skip the search for the mistake")
    p.add_argument("--article", action="append", metavar="FILE",
                   help="find the printed numbers in this article (Markdown, LaTeX, notebook, "
                        "HTML, text) and check them too; repeat for several articles")
    from . import fix, gate
    fix.configure(p)
    gate.configure(p)


def bundled() -> list[Path]:
    """The corpus shipped with the package (examples/ of the repository)."""
    from importlib import resources
    try:
        root = Path(str(resources.files("symattn.examples")))
    except ModuleNotFoundError:                 # running from a source tree, not installed
        root = Path(__file__).resolve().parents[2] / "examples"
    return sorted(root.glob("*.toml"), key=lambda p: p.name)


def resolve_spec(name: str) -> str:
    """A path as given, or a bundled example by its file stem."""
    p = Path(name)
    if p.exists() or p.suffix == ".toml" or "/" in name or "\\" in name:
        return name
    for path in bundled():
        if path.stem == name:
            return str(path)
    return name


def spec_paths(paths: list[str]) -> list[Path]:
    if not paths:
        return bundled()
    out = []
    for p in paths:
        path = Path(resolve_spec(p))
        if path.is_dir():
            found = sorted(path.glob("*.toml"))
            if not found:
                raise SpecError("no .toml spec files in this folder", where=p)
            out += found
        else:
            out.append(path)
    return out


def run(args) -> int:
    from ..claims.check import Summary
    from ..render.report import format_report
    from . import fix
    from .flow import articles_to_read, checked_something
    from .inferred import inferred_specs, split
    if args.article and not args.paths:
        raise SpecError("--article needs the spec of the example it prints", where=f"{args.article[0]}:1",
                        hint=f"symattn check SPEC --article {args.article[0]}, or let symattn infer "
                             f"the example: symattn check {args.article[0]}")
    given, to_infer = split(args.paths)
    specs = load_specs(spec_paths(given), show=not args.json) if given or not to_infer else []
    if to_infer:
        specs += inferred_specs(args, to_infer, show=not args.json)
    articles = articles_to_read(specs, args.article)
    args.article = articles               # the articles read: those given, else the sources
    fixing = fix.wanted(args)
    records, unmatched = check_all(specs, articles, diagnose=not args.no_diagnosis)
    checked_something(specs, records, articles, unmatched)
    if fixing:
        fix.run(args, records)
        if args.diff:
            return 1 if any(r.verdict == "wrong" for r in records) else 0
    summary, per_example = Summary(examples=len(specs)), {s.id: Summary(examples=1) for s in specs}
    for r in records:
        summary.add(r)
        per_example[r.example].add(r)
    summary.unverified = len(unmatched)
    from . import gate
    gate.write_files(args, records)
    if args.format == "github":
        from ..render.report import summary_line
        gate.github(args, records, summary_line(summary))
    elif args.json:
        out = {"summary": summary.to_json(),
               "claims": [r.to_json() for r in records if not r.restates]}
        if summary.restated:
            out["restated"] = [r.to_json() for r in records if r.restates]
        if articles:
            out["unmatched"] = [u.to_json() for u in unmatched]
        if to_infer:
            from .inferred import derivations
            out["inferred"] = derivations(specs)
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    else:
        from .terminal import write_report
        write_report(format_report(records, summary, only_problems=not args.verbose,
                                   per_example=per_example))
        if unmatched:
            sys.stdout.write(format_unmatched(unmatched))
        if to_infer:
            from .inferred import describe
            sys.stdout.write(describe(specs))
    return 1 if summary.wrong or summary.restated else 0


def load_specs(paths: list[Path], show: bool = False) -> list:
    """The specs of ``paths``, each example id once."""
    from ..spec.load import load
    specs, seen_ids = [], {}
    from .flow import not_an_article
    for k, path in enumerate(paths):
        deadline.check(f"{path}:1")
        not_an_article(path)
        if show:
            progress(f"reading {k + 1}/{len(paths)} {path.name[:40]}")
        spec = load("<stdin>", read_stdin("a spec")) if str(path) == "-" else load(str(path))
        if spec.id in seen_ids:
            raise SpecError(f"example id '{spec.id}' is also used by {seen_ids[spec.id]}",
                            where=str(path))
        seen_ids[spec.id] = str(path)
        specs.append(spec)
    if show:
        progress("")
    return specs


def check_all(specs: list, articles: list | None, diagnose: bool = True):
    """Records of every spec, and with ``articles`` the numbers found there (and those left
    unmatched)."""
    from ..claims.check import check_spec
    from .terminal import working
    if not articles:
        records = []
        with working("checking", total=len(specs)) as bar:
            for spec in specs:
                records += check_spec(spec, diagnose=diagnose)
                bar.advance()
        return records, []
    from ..article.check import check_articles, read
    with working("checking the articles"):
        result = check_articles(specs, read(articles), diagnose=diagnose)
    return result.records, result.unmatched


def format_unmatched(unmatched: list) -> str:
    from ..numbers import shown
    lines = [f"\n{len(unmatched)} printed number{'s' if len(unmatched) != 1 else ''} unverified "
             f"(near an entry, but which one the text does not say; no verdict):"]
    several = len({u.where for u in unmatched}) > 1
    for u in unmatched:
        likely = "; ".join(f"{shown(e['step'], 40)} {shown(e['at'], 40)} = {e['exact']}"
                           for e in (u.likely or [u.nearest] if u.nearest else []))
        hint = f"   likely: {likely}" if likely else ""
        where = f"{shown(u.where, 60)} " if several else ""
        lines.append(f"  ? {where}line {u.line:<5} col {u.column:<4} {shown(u.text, 60)}{hint}")
    return "\n".join(lines) + "\n"
