"""`symattn latex SPEC`: every step of a spec as LaTeX with the numbers substituted."""

from __future__ import annotations

import sys
from pathlib import Path


def configure(p):
    p.add_argument("spec", metavar="SPEC",
                   help="a spec file, or the name of a bundled example (e.g. 000-self-attention)")
    p.add_argument("--step", action="append", metavar="NAME", dest="steps",
                   help="only this step (repeat for several)")
    p.add_argument("--format", choices=("markdown", "tex"), default=None,
                   help="markdown with $$ blocks for KaTeX/MathJax (default), or a standalone "
                        "LaTeX document for LuaLaTeX (default when -o ends in .tex)")
    p.add_argument("--digits", type=int, default=4, metavar="N",
                   help="decimals for steps the article prints no number of (default 4); "
                        "printed steps use the article's precision and rounding")
    p.add_argument("--exact", action="store_true", help="closed forms (exp, sqrt) instead of decimals")
    p.add_argument("--corrections", action="store_true",
                   help="strike out each printed number that `symattn check` finds wrong and "
                        "show the correct one")
    p.add_argument("--rows", choices=("claimed", "all", "first"), default="claimed",
                   help="rows of a many-row step written out term by term: those the article "
                        "prints (default), all, or the first")
    p.add_argument("--max-rows", type=int, default=4, metavar="N",
                   help="at most N rows written out per step (default 4)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")


def run(args) -> int:
    from .check import resolve_spec
    from ..render.latex import document
    from ..render.latex_config import LatexConfig
    from ..errors import InputError
    from .output import say
    fmt = args.format
    if fmt is None:
        fmt = "tex" if args.output and args.output.endswith(".tex") else "markdown"
    if args.digits < 0:
        raise InputError(f"--digits {args.digits}: give a whole number ≥ 0")
    cfg = LatexConfig(format=fmt, digits=args.digits, exact=args.exact,
                      corrections=args.corrections,
                      steps=tuple(args.steps) if args.steps else None,
                      rows=args.rows, max_rows=args.max_rows)
    from .. import deadline
    deadline.check(f"{resolve_spec(args.spec)}:1")       # the place a MemoryError names
    doc = document(resolve_spec(args.spec), cfg)
    text = doc.text()
    if args.output:
        from .output import write_output
        write_output(args.output, text, args.force)
        extra = f"; {len(doc.wrong)} printed numbers corrected" if args.corrections else ""
        say(f"wrote {args.output} ({len(doc.formulas())} formulas{extra})", prefix="")
    else:
        sys.stdout.write(text)
    return 0
