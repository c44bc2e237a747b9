"""Rotary position embedding (RoPE, Su et al. 2021), in the two layouts in use.

Row i of x is position i (or ``positions[i]``). With d the width and k = 0 … d/2 − 1,
θ_k = base^(−2k/d), and the k-th pair of row i is rotated by the angle i·θ_k:

- ``layout="pairs"``: the pair (x_2k, x_2k+1), adjacent entries (the paper; Meta's LLaMA
  code, which reads each pair as one complex number);
- ``layout="halves"``: the pair (x_k, x_k+d/2), an entry and the one half a row away
  (Hugging Face's ``rotate_half``: GPT-NeoX, LLaMA in transformers).

Both rotate (a, b) to (a·cos − b·sin, a·sin + b·cos). The same weights give different
numbers in the two layouts; mixing them up is a mistake the diagnosis knows.
"""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import sin, cos
from .embedding import check_base
from .operation import declare, Presentation, Search
from ..steps import Steps
from ..errors import ShapeError, InputError
from ..tensor import Tensor

LAYOUTS = ("pairs", "halves")


def rope_steps(x, base=10000, layout: str = "pairs", positions=None, theta=None,
               start=0) -> Steps:
    """Each step of RoPE on the rows of x (T×d, d even):

    frequencies θ_k = base^(−2k/d) (1×d/2), angles position·θ_k (T×d/2), their cos and
    sin, and the output (T×d, the labels of x). ``positions``: a T×1 column of positions
    (numbers or symbols) in place of start … start + T − 1 (``start``: 0, or 1 for an
    article counting from 1). ``theta``: the frequencies given in place of base^(−2k/d),
    one number for every pair (one angle per position, θ = 0.1·m) or a 1×d/2 row.
    """
    x = P.as_tensor(x)
    T, d = x.shape
    if layout not in LAYOUTS:
        raise InputError(f"rope: layout={layout!r}: use 'pairs' or 'halves'")
    if d % 2:
        raise ShapeError(f"rope: a row of width {d} has no pairs: the width must be even")
    check_base(base, "rope")
    half = d // 2
    pos = P.const([[start + i] for i in range(T)]) if positions is None else P.as_tensor(positions)
    if pos.shape != (T, 1):
        raise ShapeError(f"rope: {T} rows need a {T}×1 column of positions, "
                         f"not {pos.shape[0]}×{pos.shape[1]}")
    st = Steps()
    st["frequencies"] = _frequencies(base, d, theta)
    st["angles"] = pos @ st["frequencies"]
    st["cos"], st["sin"] = cos(st["angles"]), sin(st["angles"])
    if layout == "pairs":
        a, b = P.take(x, None, range(0, d, 2)), P.take(x, None, range(1, d, 2))
    else:
        a, b = P.take(x, None, range(half)), P.take(x, None, range(half, d))
    c, s = st["cos"], st["sin"]
    both = P.hcat([a * c - b * s, a * s + b * c])
    if layout == "pairs":                      # back to x_2k, x_2k+1 side by side
        both = P.take(both, None, [j // 2 + (j % 2) * half for j in range(d)])
    st["output"] = both.named(None, x.rows, x.cols)
    return st


def _frequencies(base, d: int, theta) -> Tensor:
    """θ_k = base^(−2k/d), k = 0 … d/2 − 1, or the ``theta`` given (1×1: every pair)."""
    half = d // 2
    if theta is None:
        return P.hcat([P.power(base, -Fraction(2 * k, d)) for k in range(half)])
    t = P.as_tensor(theta)
    if t.shape == (1, 1):
        return P.hcat([t] * half)
    if t.shape != (1, half):
        raise ShapeError(f"rope: theta is {t.shape[0]}×{t.shape[1]}: give one number or a "
                         f"1×{half} row (one frequency per pair)")
    return t


def rope(x, base=10000, layout: str = "pairs", positions=None, theta=None, start=0) -> Tensor:
    """x with the k-th pair of row i rotated by the angle i·base^(−2k/d) (or i·theta).

    >>> import symattn
    >>> symattn.rope(symattn.matrix([[1, 0], [1, 0]])).exact()
    Matrix([[1, 0], [cos(1), sin(1)]])
    """
    return rope_steps(x, base, layout, positions, theta, start)["output"]


def rope_matrix(d: int, position=0, base=10000, layout: str = "pairs", theta=None) -> Tensor:
    """R_m, the d×d matrix that RoPE multiplies a column vector at position m by
    (x' = R_m x, the same numbers as :func:`rope` on the row xᵀ): pair k turns by m·θ_k,
    [[cos, −sin], [sin, cos]] on its two coordinates ((2k, 2k+1), or (k, k + d/2) with
    ``layout="halves"``); of an odd d, the last coordinate stays and the others turn as in
    a d − 1 example (a 3×3 example rotates its first two by m). θ_k and ``theta`` as in
    :func:`rope`.

    >>> import symattn
    >>> symattn.rope_matrix(2, 1).exact()
    Matrix([[cos(1), -sin(1)], [sin(1), cos(1)]])
    """
    if not isinstance(d, int) or d < 2:
        raise InputError("rope_matrix(d, position): d is a whole number of 2 or more")
    if layout not in LAYOUTS or (layout == "halves" and d % 2):
        raise InputError(f"rope_matrix: layout={layout!r}: use 'pairs', or 'halves' with an even d")
    check_base(base, "rope_matrix")
    half = d // 2
    angles = P.as_tensor(position) * _frequencies(base, 2 * half, theta)
    c, s = cos(angles), sin(angles)
    zero, one = P.scalar(0), P.scalar(1)
    entry = [[zero] * d for _ in range(d)]
    for k in range(half):
        a, b = (2 * k, 2 * k + 1) if layout == "pairs" else (k, k + half)
        ck, sk = P.take(c, [0], [k]), P.take(s, [0], [k])
        entry[a][a], entry[a][b], entry[b][a], entry[b][b] = ck, -sk, sk, ck
    if d % 2:
        entry[d - 1][d - 1] = one
    return P.vcat([P.hcat(row) for row in entry])


# -- LaTeX: the frequencies, the angles, each pair of a written-out row rotated ---------

def _show(v, a) -> list[str]:
    X = v.value(a["x"])
    base = v.value(a["base"]) if "base" in a else 10000
    layout = a["layout"].value if "layout" in a else "pairs"      # a label: "pairs"
    positions = v.value(a["positions"]) if "positions" in a else None
    theta = v.value(a["theta"]) if "theta" in a else None
    start = int(v.value(a["start"]).params["entries"][0][0]) if "start" in a else 0
    st = v.steps(rope_steps, X, base, layout, positions, theta, start)
    xs, d, f = v.tex(a["x"]).text, X.shape[1], v.f
    b = v.tex(a["base"]).text if "base" in a else "10000"
    pair = r"x_{2k}, x_{2k+1}" if layout == "pairs" else rf"x_{{k}}, x_{{k+{d // 2}}}"
    m = "m" if positions is not None else "i"
    at = r" \text{ at position } m" if positions is not None else ""
    head = v.Display().add(v.lhs, "=", rf"{v.operator('rope')}\left({xs}\right)")
    head.cont("=", rf"\text{{pairs }} ({pair}) \text{{ of row }} i{at} \text{{ rotated by }} "
                   rf"{m}\,\theta_{{k}}")
    head.add(r"\theta_{k}", "=", v.tex(a["theta"]).text if theta is not None else rf"{b}^{{-2k/{d}}}")
    v.finish(head, st["frequencies"])
    angles, approx = v.result(st["angles"])
    head.add(rf"\left[{m}\,\theta_{{k}}\right]_{{i,k}}", v.rel(approx), angles)
    out = [head.latex()]
    for i, key in v.rows():
        xc = v.row_cells(X, i, a["x"])
        cs, sn = v.row_cells(st["cos"], i), v.row_cells(st["sin"], i)
        ents = [None] * d
        for k in range(d // 2):
            p, q = (2 * k, 2 * k + 1) if layout == "pairs" else (k, k + d // 2)
            c, s = cs[k], sn[k]
            ents[p] = f.Tex(f"{f.times(xc[p], c).text} - {f.times(xc[q], s).text}", f.ADD)
            ents[q] = f.Tex(f"{f.times(xc[p], s).text} + {f.times(xc[q], c).text}", f.ADD)
        di = v.Display()
        if positions is not None:
            di.add("m", "=", v.row_cells(positions, i, a["positions"])[0].text)
        di.add_lines(v.row_lhs(key), "=", v.row_lines(ents))
        out.append(v.finish(di, row=i, own=True).latex())
    return out


# -- the common mistake: the other layout ----------------------------------------------

def _mistakes(call, spec) -> list:
    """RoPE done wrong: the other layout (adjacent pairs (2k, 2k+1) and halves (k, k + d/2)
    mixed up), the positions off by one, another base (1000 for 10000, or 10000 for the
    base given)."""
    from ..spec import calls as C, expr as E
    given = C.get(call, "layout")
    mine = "halves" if given == C.text("halves") else "pairs"
    theirs = "pairs" if mine == "halves" else "halves"
    named = {"pairs": "adjacent pairs (2k, 2k+1)", "halves": "halves (k, k+d/2)"}
    out = [(f"RoPE rotating {named[theirs]} instead of {named[mine]}",
            C.with_kw(call, "layout", C.text(theirs)))]
    pos = C.get(call, "positions")
    if pos is not None:
        out += [(f"RoPE positions off by one (m {op} 1)",
                 C.with_kw(call, "positions", E.BinOp(op, pos, C.ONE))) for op in ("+", "-")]
    elif C.get(call, "start") is None and len(call.args) < 4:
        out.append(("RoPE positions counted from 1 instead of 0",
                    C.with_kw(call, "start", C.ONE)))
    if C.get(call, "theta") is None:
        base = C.get(call, "base") or (call.args[1] if len(call.args) > 1 else None)
        if base is None or base == C.num(10000):
            out.append(("RoPE with base 1000 instead of 10000", C.with_kw(call, "base", C.num(1000))))
        elif isinstance(base, E.Num):
            out.append((f"RoPE with base 10000 instead of {base.value}",
                        C.with_kw(call, "base", C.num(10000))))
    return out


ROPE = declare("rope", rope, steps=rope_steps, convert={"start": "whole"}, latex=Presentation("RoPE", _show),
               mistakes=_mistakes, search=Search("n d -> n d", params={"base": ("10000",),
                                                                      "layout": ('"pairs"', '"halves"'),
                                                                      "start": ("0",)},
                                                 words={"base": ("base",), "start": ("m", "position", "pos")}))

# A printed rotation matrix R_m: a table of its own (no operands), its size the block's, its
# position as the text states it (``t = 1``, ``m = 2``) or one of the first few.
ROPE_MATRIX = declare("rope_matrix", rope_matrix, convert={"d": "whole"}, latex=Presentation("R"),
                      search=Search(" -> d d", params={"position": tuple(str(m) for m in range(8)),
                                                        "layout": ('"pairs"', '"halves"')},
                                    words={"position": ("m", "t", "position", "pos")}, sizes={"d": "cols"},
                                    onto="inputs", stated=("position",)))
