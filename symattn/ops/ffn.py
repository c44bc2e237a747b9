"""Linear layers, the position-wise feed-forward network and the residual connection,
declared with the FFN's steps and how they are shown (:data:`FFN`)."""

from __future__ import annotations

from . import primitives as P
from .elementwise import relu
from .operation import declare, Presentation, Search
from ..primitives import FUNCTION_TEX
from ..steps import Steps
from ..tensor import Tensor


def linear(x, W, b=None) -> Tensor:
    """``x·W + b``: x is T×d_in, W is d_in×d_out (as printed), b is 1×d_out.

    For a PyTorch ``nn.Linear`` pass ``W = weight.T``.
    """
    y = P.matmul(x, W)
    return y if b is None else y + b


def ffn_steps(x, W1, b1, W2, b2) -> Steps:
    """Linear → ReLU → Linear, each step named: hidden, activated, output."""
    st = Steps()
    st["hidden"] = linear(x, W1, b1)
    st["activated"] = relu(st["hidden"])
    st["output"] = linear(st["activated"], W2, b2)
    return st


def ffn(x, W1, b1, W2, b2) -> Tensor:
    """FFN(x) = ReLU(x·W1 + b1)·W2 + b2."""
    return ffn_steps(x, W1, b1, W2, b2)["output"]


def residual(x, fx) -> Tensor:
    """The residual connection x + f(x)."""
    return P.add(x, fx)


# -- LaTeX: each linear layer as sums of products, ReLU as max(0, ·) -------------------

def _linear_entries(v, x, x_node, W_node, b_node, i: int) -> list:
    r"""Row i of ``x·W + b``, each entry written as ``x_1 \cdot W_1j + … + b_j``."""
    W = v.value(W_node)
    Wc, xc = v.cells(W, W_node), v.row_cells(x, i, x_node)
    bc = v.row_cells(v.value(b_node), i, b_node)
    return [v.f.dot(xc, [Wc[k][j] for k in range(W.shape[0])], bc[j if len(bc) > 1 else 0])
            for j in range(W.shape[1])]


def _show(v, a) -> list[str]:
    st = v.steps(ffn_steps, **{k: v.value(n) for k, n in a.items()})
    x, W1, b1, W2, b2 = (v.tex(a[k]).text for k in ("x", "W1", "b1", "W2", "b2"))
    relu_op = v.operator("relu")
    d = v.Display().add(v.lhs, "=", rf"{relu_op}\left({x} {W1} + {b1}\right) {W2} + {b2}")
    out = [v.finish(d, own=True).latex()]
    one = v.t.shape[0] == 1
    for i, key in v.rows():
        h, r = ("h", "r") if not key else (f"h_{{{key}}}", f"r_{{{key}}}")
        di = v.Display().add(h, "=", f"{v.tex(a['x'], i).text} {W1} + {b1}")
        di.lines("=", v.row_lines(_linear_entries(v, v.value(a["x"]), a["x"], a["W1"], a["b1"], i)))
        v.finish(di, st["hidden"], 0 if one else i)
        di.add(r, "=", rf"{relu_op}\left({h}\right)")
        relu_tex = FUNCTION_TEX["relu"]
        di.lines("=", v.row_lines([v.f.entry(relu_tex, c) for c in v.row_cells(st["hidden"], i)]))
        v.finish(di, st["activated"], 0 if one else i)
        di.add(v.row_lhs(key), "=", f"{r} {W2} + {b2}")
        di.lines("=", v.row_lines(_linear_entries(v, st["activated"], None, a["W2"], a["b2"], i)))
        out.append(v.finish(di, row=i, own=True).latex())
    return out


def _linear_formula(show, a, f):
    """``x W + b``: the input restricted to the row shown, W whole."""
    x, W = show(a["x"]), show(a["W"], False)
    out = f.Tex(f"{f.paren(x, f.MUL)} {f.paren(W, f.MUL)}", f.MUL, x.leaves + W.leaves)
    if a.get("b") is None:
        return out
    b = show(a["b"])
    return f.Tex(f"{out.text} + {f.paren(b, f.NEG)}", f.ADD, out.leaves + b.leaves)


def _residual_formula(show, a, f):
    x, fx = show(a["x"]), show(a["fx"])
    return f.Tex(f"{x.text} + {f.paren(fx, f.NEG)}", f.ADD, x.leaves + fx.leaves)


LINEAR = declare("linear", linear, latex=Presentation("Linear", formula=_linear_formula),
                 search=Search("n d, d h, 1 h -> n h"))
FFN = declare("ffn", ffn, steps=ffn_steps, latex=Presentation("FFN", _show, rows="first"),
              search=Search("n d, d h, 1 h, h d, 1 d -> n d", absent={"b1": "0", "b2": "0"}))
RESIDUAL = declare("residual", residual, latex=Presentation("Residual", formula=_residual_formula))
