"""`symattn sweep SPEC --vary NAME=FROM:TO [--step S --at ROW,COL ...] -o plot.svg|png`:
the exact curve of entries of a step as one input moves (the articles' sliders), with the
spec's printed numbers drawn at the input's value in the spec."""

from __future__ import annotations

import re

from ..errors import InputError, SpecError

_VARY = re.compile(r"\s*([^\[\]=\s]+)\s*(?:\[\s*([^\],]+?)\s*,\s*([^\]]+?)\s*\])?\s*=\s*"
                   r"([^:]+):([^:]+)\s*")


def configure(p):
    p.add_argument("spec", metavar="SPEC", help="a spec file or a bundled example name")
    p.add_argument("--vary", required=True, metavar="NAME=FROM:TO",
                   help="the input that moves: a 1×1 input or symbol (t=0:1), or one entry "
                        "of an input matrix (W_Q[1,0]=0:1); FROM and TO are decimals")
    p.add_argument("--step", default=None, metavar="S",
                   help="the step whose entries are drawn (default: the step of the first claim)")
    p.add_argument("--at", action="append", default=[], metavar="ROW,COL",
                   help="an entry of the step by its labels (repeat; default: the entries the "
                        "spec's claims print, else all)")
    p.add_argument("--points", type=int, default=81, metavar="N",
                   help="values of the input from FROM to TO (default 81)")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the picture: .svg or .png")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")


def parse_vary(text: str):
    """``NAME=FROM:TO`` or ``NAME[ROW,COL]=FROM:TO`` -> (name, cell keys or None, from, to)."""
    m = _VARY.fullmatch(text)
    if not m:
        raise InputError(f"--vary '{text}': write NAME=FROM:TO or NAME[ROW,COL]=FROM:TO",
                         hint="e.g. --vary 'W_Q[1,0]=0:1'")
    name, r, c, a, b = m.groups()
    return name, (None if r is None else (r, c)), a.strip(), b.strip()


def _key(t, key: str, axis: str) -> int:
    """A row or column by its label, else by its 0-based index."""
    from ..errors import SymattnError
    try:
        return t.row_index(key) if axis == "row" else t.col_index(key)
    except SymattnError:
        if key.isascii() and key.isdigit() and int(key) < t.shape[0 if axis == "row" else 1]:
            return int(key)
        raise


def run(args) -> int:
    from .check import resolve_spec
    from .output import write_output, say
    from ..spec.load import load
    from .. import plot
    suffix = args.output.lower().rsplit(".", 1)[-1]
    if suffix not in ("svg", "png"):
        raise InputError(f"-o {args.output}: give a file ending in .svg or .png")
    spec = load(resolve_spec(args.spec))
    name, cell, frm, to = parse_vary(args.vary)
    if name not in spec.inputs:
        from ..suggest import with_suggestion
        raise SpecError(f"--vary: no input named '{name}'", where=spec.path,
                        hint=with_suggestion("inputs: " + ", ".join(spec.inputs), name, spec.inputs)
                        if spec.inputs else None)
    x = spec.tensors[name]
    where = None if cell is None else (_key(x, cell[0], "row"), _key(x, cell[1], "col"))
    step = args.step or (spec.claims[0].step if spec.claims else None)
    if step is None or spec.step(step) is None:
        from ..suggest import with_suggestion
        steps = [s.name for s in spec.steps]
        raise SpecError(f"--step: no step named '{step}'" if step else "--step: name a step",
                        where=spec.path, hint=with_suggestion("steps: " + ", ".join(steps), step or "", steps))
    y = spec.tensors[step]
    entries = [(_key(y, a.split(",")[0].strip(), "row"), _key(y, a.split(",", 1)[-1].strip(), "col"))
               for a in args.at] or _claimed(spec, step) or None
    points = _printed_points(spec, step, x, where, entries)
    label = name if cell is None else f"{name}[{x.row_label(where[0])}, {x.col_label(where[1])}]"
    fig = plot.sweep(y, x, frm, to, points=args.points, entries=entries, cell=where,
                     printed=points, xlabel=label, title=f"{spec.id}: {step} as {label} moves")
    if suffix == "svg":
        data = plot.svg_text(fig) + "\n"
    else:
        data = plot.png_bytes(fig)
    write_output(args.output, data, args.force)
    n = len(entries) if entries else y.shape[0] * y.shape[1]
    from ..render.report import counted
    say(f"wrote {args.output} ({counted(n, 'curve')}, {counted(len(points), 'printed point')})",
        prefix="")
    return 0


def _claimed(spec, step) -> list:
    from ..claims.check import resolve
    out = []
    for c in spec.claims:
        if c.step == step:
            out += [(e.i, e.j) for e in resolve(spec, c) if (e.i, e.j) not in out]
    return out


def _printed_points(spec, step, x, cell, entries) -> list:
    """The spec's printed numbers of those entries, at the input's value in the spec."""
    from ..claims.check import resolve
    from ..tensor import NEG_INF
    if x.op != "const":
        return []                                  # a symbol: no value in the spec
    v = x.params["entries"][cell[0]][cell[1]] if cell else x.params["entries"][0][0]
    out = []
    for c in spec.claims:
        if c.step != step:
            continue
        for e in resolve(spec, c):
            if entries and (e.i, e.j) not in entries or e.number.value is NEG_INF:
                continue
            value = e.number.value / 100 if e.number.percent else e.number.value
            out.append((v, value, f"{e.number.text} (line {c.line})"))
    return out
