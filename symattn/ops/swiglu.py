"""The SwiGLU feed-forward of LLaMA (Shazeer 2020): a SiLU-gated linear unit, no biases."""

from __future__ import annotations

from . import primitives as P
from .silu import silu
from .operation import declare, Presentation, Search
from ..steps import Steps
from ..errors import ShapeError
from ..tensor import Tensor, describe


def swiglu_steps(x, W_gate, W_up, W_down) -> Steps:
    """Each step of SwiGLU for the rows of x (T×d):

    gate x·W_gate and up x·W_up (T×d_ff each), activated SiLU(gate), hidden
    activated ⊙ up, output hidden·W_down (T×d). Weights as printed, d_in×d_out (row
    vectors; for PyTorch's ``nn.Linear`` weights pass ``w1.weight.T`` …): LLaMA's w1 is
    W_gate, w3 is W_up, w2 is W_down.
    """
    W_gate, W_up = P.as_tensor(W_gate), P.as_tensor(W_up)
    if W_gate.shape != W_up.shape:
        raise ShapeError(f"swiglu: W_gate is {describe(W_gate)} and W_up is {describe(W_up)}: "
                         "the gate and the up projection need the same shape")
    st = Steps()
    st["gate"] = P.matmul(x, W_gate)
    st["up"] = P.matmul(x, W_up)
    st["activated"] = silu(st["gate"])
    st["hidden"] = st["activated"] * st["up"]
    st["output"] = P.matmul(st["hidden"], W_down)
    return st


def swiglu(x, W_gate, W_up, W_down) -> Tensor:
    """SwiGLU(x) = (SiLU(x·W_gate) ⊙ (x·W_up))·W_down.

    >>> import symattn
    >>> one = symattn.matrix([[1]])
    >>> symattn.swiglu(symattn.matrix([[0]]), one, one, one).exact()
    Matrix([[0]])
    """
    return swiglu_steps(x, W_gate, W_up, W_down)["output"]


# -- LaTeX: the gate, the up projection, their product, the down projection ------------

def _show(v, a) -> list[str]:
    st = v.steps(swiglu_steps, *(v.value(a[k]) for k in ("x", "W_gate", "W_up", "W_down")))
    x, wg, wu, wd = (v.tex(a[k]).text for k in ("x", "W_gate", "W_up", "W_down"))
    d = v.Display().add(v.lhs, "=", rf"{v.operator('swiglu')}\left({x}\right)")
    d.cont("=", rf"\left({v.operator('silu')}\left({x} {wg}\right) \odot {x} {wu}\right) {wd}")
    out = [v.finish(d, own=True).latex()]
    g, u, h = r"G", r"U", r"H"
    parts = v.Display()
    for sym, rhs, step in ((g, f"{x} {wg}", "gate"), (u, f"{x} {wu}", "up"),
                           (h, rf"{v.operator('silu')}\left({g}\right) \odot {u}", "hidden")):
        parts.add(sym, "=", rhs)
        v.finish(parts, st[step])
    parts.add(v.lhs, "=", f"{h} {wd}")
    out.append(v.finish(parts, own=True).latex())
    return out


# -- the common mistakes: GLU's sigmoid for SiLU, the SiLU on the other projection -------

def _mistakes(call, spec) -> list:
    """SwiGLU done wrong: the GLU form σ(x·W_gate) ⊙ x·W_up (the sigmoid, not SiLU), and
    SiLU on the up projection instead of the gate (gate and up swapped: the same numbers)."""
    from ..spec import expr as E
    from .silu import sigmoid_tree
    try:
        a = SWIGLU.bind(call.args, dict(call.kwargs))
    except TypeError:
        return []
    x, wg, wu, wd = (a[k] for k in ("x", "W_gate", "W_up", "W_down"))
    gate, up = E.BinOp("@", x, wg), E.BinOp("@", x, wu)
    out = [("GLU form σ(x·W_gate) ⊙ x·W_up instead of SiLU(x·W_gate) ⊙ x·W_up",
            E.BinOp("@", E.BinOp("*", sigmoid_tree(gate), up), wd))]
    if wg != wu:                                   # the same weight twice: nothing to swap
        out.append(("SiLU on the up projection instead of the gate (W_gate and W_up swapped)",
                    E.Call(call.name, (x, wu, wg, wd), ())))
    return out


SWIGLU = declare("swiglu", swiglu, steps=swiglu_steps,
                 latex=Presentation("SwiGLU", _show, rows="first"), mistakes=_mistakes,
                 search=Search("n d, d h, d h, h d -> n d"))   # its output printed, its steps not
