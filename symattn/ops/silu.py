"""SiLU (swish with β = 1): x·σ(x), elementwise, the gate of LLaMA's SwiGLU."""

from __future__ import annotations

from . import primitives as P
from .elementwise import exp
from .operation import declare, Presentation, Search
from ..steps import Steps
from ..tensor import Tensor


def silu_steps(x) -> Steps:
    """sigmoid σ(x) = 1/(1 + e^(−x)), then output x·σ(x); both the shape of x."""
    x = P.as_tensor(x)
    st = Steps()
    st["sigmoid"] = 1 / (1 + exp(-x))
    st["output"] = x * st["sigmoid"]
    return st


def silu(x) -> Tensor:
    """SiLU(x) = x·σ(x) = x / (1 + e^(−x)) elementwise (PyTorch ``F.silu``).

    >>> import symattn
    >>> symattn.silu(symattn.matrix([[0, 1]])).exact()
    Matrix([[0, 1/(exp(-1) + 1)]])
    """
    return silu_steps(x)["output"]


# -- LaTeX: x / (1 + e^(−x)), entry by entry -------------------------------------------

def _show(v, a) -> list[str]:
    X = v.value(a["x"])
    xs = v.tex(a["x"]).text
    d = v.Display().add(v.lhs, "=", rf"{v.operator('silu')}\left({xs}\right)")
    minus_x = v.f.paren(v.tex(a["x"]), v.f.POW)
    out = [v.finish(d.cont("=", rf"\frac{{{xs}}}{{1 + e^{{-{minus_x}}}}}"), own=True).latex()]
    f = v.f
    for i, key in v.rows():
        ents = [f.over(f.cell_tex(c), rf"1 + e^{{-{f.paren(f.cell_tex(c), f.POW)}}}")
                for c in v.row_cells(X, i, a["x"])]
        di = v.Display().add_lines(v.row_lhs(key), "=", v.row_lines(ents))
        out.append(v.finish(di, row=i, own=True).latex())
    return out


# -- the common mistake: the sigmoid alone ----------------------------------------------

def sigmoid_tree(x):
    """σ(x) as a spec tree."""
    from ..spec import expr as E
    return E.Call("sigmoid", (x,), ())


def _mistakes(call, spec) -> list:
    if len(call.args) != 1 or call.kwargs:
        return []
    return [("σ(x) instead of SiLU x·σ(x)", sigmoid_tree(call.args[0]))]


SILU = declare("silu", silu, steps=silu_steps,
               latex=Presentation("SiLU", _show, rows="first"), mistakes=_mistakes,
               search=Search("n d -> n d"))
