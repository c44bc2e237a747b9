"""RMSNorm, per row (token), as LLaMA normalises: no mean is subtracted, no bias added.
The function, its steps and their LaTeX, declared once (:data:`RMS_NORM`)."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import sqrt, mean
from .norm import _eps as eps_scalar   # one rule for ε (a number ≥ 0, or a Tensor)
from .operation import declare, Presentation, Search
from ..steps import Steps
from ..tensor import Tensor

# LLaMA's RMSNorm default (Meta's model.py: ``RMSNorm(dim, eps=1e-6)``; LLaMA 2 checkpoints
# set norm_eps = 1e-5: pass it). PyTorch's nn.RMSNorm defaults to the dtype's machine epsilon.
RMS_EPS = Fraction(1, 1000000)


def rms_norm_steps(x, eps=RMS_EPS, gamma=None) -> Steps:
    """Each step of RMSNorm of every row of x (T×d):

    mean square mean(x²) (T×1), rms = √(mean(x²) + ε) (T×1), normalised x / rms,
    output normalised · γ (γ a 1×d gain; None: no gain).
    """
    x = P.as_tensor(x)
    st = Steps()
    st["mean_square"] = mean(x * x)
    st["rms"] = sqrt(st["mean_square"] + eps_scalar(eps))
    y = P.div(x, st["rms"])
    y.params["zero"] = "rms_norm: a row is all zeros and eps = 0; give eps > 0"
    st["normalised"] = y
    st["output"] = y if gamma is None else y * gamma
    return st


def rms_norm(x, eps=RMS_EPS, gamma=None) -> Tensor:
    """RMSNorm per row: x / √(mean(x²) + ε) · γ (Zhang & Sennrich 2019; LLaMA).

    >>> import symattn
    >>> symattn.rms_norm(symattn.matrix([[3, 4]]), eps=0).exact()
    Matrix([[3*sqrt(2)/5, 4*sqrt(2)/5]])
    """
    return rms_norm_steps(x, eps, gamma)["output"]


# -- LaTeX: the mean square, the root and the quotients of each written-out row -----------

def _show(v, a) -> list[str]:
    X = v.value(a["x"])
    eps, eps_s, eps_prec = v.eps(a, P.scalar(RMS_EPS))
    gamma = v.value(a["gamma"]) if "gamma" in a else None
    st = v.steps(rms_norm_steps, X, eps, gamma)
    xs = v.tex(a["x"]).text
    formula = rf"\frac{{{xs}}}{{\sqrt{{\frac{{1}}{{d}} \sum_{{j}} x_{{j}}^{{2}} + {eps_s}}}}}"
    if gamma is not None:
        formula = rf"{formula} \odot {v.tex(a['gamma']).text}"
    d = v.Display().add(v.lhs, "=", rf"{v.operator('rms_norm')}\left({xs}\right)")
    out = [v.finish(d.cont("=", formula), own=True).latex()]
    f, n = v.f, X.shape[1]
    for i, key in v.rows():
        xc = v.row_cells(X, i, a["x"])
        ms, rms = (v.row_cells(st[k], i)[0] for k in ("mean_square", "rms"))
        eps_c = v.row_cells(eps, 0, prec=eps_prec)[0]
        ms_l = rf"\overline{{x^{{2}}}}_{{{key}}}" if key else r"\overline{x^{2}}"
        squares = f.join_sum([f.square(c) for c in xc]).text
        di = v.Display().add(ms_l, "=", rf"\frac{{{squares}}}{{{n}}}")
        di.cont(v.rel(ms.rounded), ms.text)
        di.add(rf"\sqrt{{{ms_l} + {eps_s}}}", "=", rf"\sqrt{{{ms.text} + {eps_c.text}}}")
        di.cont(v.rel(rms.rounded), rms.text)
        ents = [f.over(f.cell_tex(c), rms.text) for c in xc]
        if gamma is not None:
            gc = v.row_cells(gamma, i, a["gamma"])
            ents = [f.times(e, gc[j if len(gc) > 1 else 0]) for j, e in enumerate(ents)]
        di.add_lines(v.row_lhs(key), "=", v.row_lines(ents))
        out.append(v.finish(di, row=i, own=True).latex())
    return out


# -- the common mistakes: another divisor (the L2 norm, the standard deviation), ε, γ -------

def _mistakes(call, spec) -> list:
    """RMSNorm done wrong, each written out in the spec language: x divided by the L2 norm
    √Σx², by the population standard deviation (LayerNorm without subtracting the mean), by
    √mean(x²) + ε (ε outside the root), or without the gain γ."""
    from ..spec import calls as C, expr as E
    try:
        a = RMS_NORM.bind(call.args, dict(call.kwargs))
    except TypeError:
        return []
    x, gamma = a["x"], a.get("gamma")
    eps = a.get("eps", C.num(RMS_EPS))

    def gained(y):
        return y if gamma is None else E.BinOp("*", y, gamma)

    def root(z):
        return E.Call("sqrt", (z,), ())
    square_mean = E.Call("mean", (E.BinOp("**", x, C.num(2)),), ())
    out = [("RMSNorm dividing by the L2 norm √(Σx²) instead of the RMS √(mean(x²) + ε)",
            gained(E.BinOp("/", x, root(E.Call("sum", (E.BinOp("**", x, C.num(2)),), ()))))),
           ("RMSNorm dividing by the standard deviation (LayerNorm without subtracting the mean)",
            gained(E.BinOp("/", x, root(E.BinOp("+", E.Call("var", (x,), ()), eps))))),
           ("RMSNorm with eps outside the square root",
            gained(E.BinOp("/", x, E.BinOp("+", root(square_mean), eps))))]
    if gamma is not None:
        kept = tuple((k, v) for k, v in call.kwargs if k != "gamma")
        args = call.args[:2]
        out.append(("RMSNorm without the gain γ", E.Call(call.name, args, kept)))
    return out


RMS_NORM = declare("rms_norm", rms_norm, steps=rms_norm_steps,
                   latex=Presentation("RMSNorm", _show, rows="first"), mistakes=_mistakes,
                   symbols=("RMSNorm", "rmsnorm", "normalized"),
                   search=Search("n d -> n d", params={"eps": ("0.000001", "0", "0.00001", "0.00000001")},
                                 words={"eps": ("eps", "epsilon", "ε", "\\epsilon", "\\varepsilon")}))
