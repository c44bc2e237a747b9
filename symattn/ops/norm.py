"""Layer normalisation, per row (token), as in the post-norm Transformer: the function,
its steps, how they are shown in LaTeX and its common mistakes, declared once
(:data:`LAYER_NORM`)."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import sqrt, mean
from .operation import declare, Presentation, Search
from ..errors import DomainError, InputError
from ..numbers import exact
from ..steps import Steps
from ..tensor import Tensor

EPS = Fraction(1, 100000)


def layer_norm_steps(x, eps=EPS, gamma=None, beta=None, *, variance: str = "biased",
                     eps_inside: bool = True) -> Steps:
    """Each step of LayerNorm of every row of X (T×d):

    mean μ (T×1), deviations x − μ, squared deviations, variance σ² (biased: ÷d),
    std = √(σ² + ε), normalised (x − μ)/std, output γ·normalised + β.

    ``variance="unbiased"`` (÷(d−1)) and ``eps_inside=False`` (÷(√σ² + ε)) are the common
    mistakes, kept for diagnosis.
    """
    X = P.as_tensor(x)
    d = X.shape[1]
    if variance not in ("biased", "unbiased"):
        raise InputError(f"variance={variance!r}: use 'biased' or 'unbiased'")
    e = _eps(eps)
    st = Steps()
    st["mean"] = mean(X)
    st["deviations"] = X - st["mean"]
    st["squared_deviations"] = st["deviations"] * st["deviations"]
    st["variance"] = P.row_sum(st["squared_deviations"]) / (d if variance == "biased" else d - 1)
    st["std"] = sqrt(st["variance"] + e) if eps_inside else sqrt(st["variance"])
    denom = st["std"] if eps_inside else st["std"] + e
    y = P.div(st["deviations"], denom)
    y.params["zero"] = ("layer_norm: a row is constant (variance 0) and eps = 0; "
                        "give eps > 0")
    st["normalised"] = y
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    st["output"] = y
    return st


def layer_norm(x, eps=EPS, gamma=None, beta=None, *, variance: str = "biased",
               eps_inside: bool = True) -> Tensor:
    """LayerNorm per row: γ·(x − μ)/√(σ² + ε) + β with the biased variance σ².

    >>> import symattn
    >>> symattn.layer_norm(symattn.matrix([[1, 3]]), eps=0).exact()
    Matrix([[-1, 1]])
    """
    return layer_norm_steps(x, eps, gamma, beta, variance=variance,
                            eps_inside=eps_inside)["output"]


def _eps(eps) -> Tensor:
    if isinstance(eps, Tensor):
        return eps
    v = exact(eps)
    if isinstance(v, Fraction) and v < 0:
        raise DomainError(f"eps = {v} must be ≥ 0")
    return P.scalar(v)


# -- LaTeX: μ, the deviations, σ², √(σ² + ε) and the quotients of each written-out row --

def _show(v, a) -> list[str] | None:
    if "variance" in a or "eps_inside" in a:          # a variant: the generic display
        return None
    X = v.value(a["x"])
    eps, eps_s, eps_prec = v.eps(a, P.scalar(EPS))
    gamma, beta = (v.value(a[k]) if k in a else None for k in ("gamma", "beta"))
    st = v.steps(layer_norm_steps, X, eps, gamma, beta)
    xs = v.tex(a["x"]).text
    formula = rf"\frac{{{xs} - \mu}}{{\sqrt{{\sigma^{{2}} + {eps_s}}}}}"
    if gamma is not None:
        formula = rf"{v.tex(a['gamma']).text} \odot {formula}"
    if beta is not None:
        formula = rf"{formula} + {v.tex(a['beta']).text}"
    d = v.Display().add(v.lhs, "=", rf"{v.operator('layer_norm')}\left({xs}\right)")
    out = [v.finish(d.cont("=", formula), own=True).latex()]
    f, n = v.f, X.shape[1]
    for i, key in v.rows():
        sub = (lambda s: f"{s}_{{{key}}}") if key else (lambda s: s)
        xc = v.row_cells(X, i, a["x"])
        mu, var, std = (v.row_cells(st[k], i)[0] for k in ("mean", "variance", "std"))
        dev = v.row_cells(st["deviations"], i)
        eps_c = v.row_cells(eps, 0, prec=eps_prec)[0]
        di, mu_l = v.Display(), sub(r"\mu")
        di.add(mu_l, "=", rf"\frac{{{f.total(xc).text}}}{{{n}}}")
        di.cont(v.rel(mu.rounded), mu.text)
        di.add_lines(rf"{v.tex(a['x'], i).text} - {mu_l}", "=",
                     v.row_lines([f.minus(c, mu) for c in xc]))
        v.finish(di, st["deviations"], i)
        sig = rf"\sigma^{{2}}_{{{key}}}" if key else r"\sigma^{2}"
        di.add(sig, "=", rf"\frac{{{f.join_sum([f.square(c) for c in dev]).text}}}{{{n}}}")
        di.cont(v.rel(var.rounded), var.text)
        di.add(rf"\sqrt{{{sig} + {eps_s}}}", "=", rf"\sqrt{{{var.text} + {eps_c.text}}}")
        di.cont(v.rel(std.rounded), std.text)
        ents = []
        for j, c in enumerate(dev):
            e = f.over(c, std.text)
            if gamma is not None:
                gc = v.row_cells(gamma, i, a["gamma"])
                e = f.Tex(f"{f.paren(f.cell_tex(gc[j if len(gc) > 1 else 0]), f.NEG)} \\cdot "
                          f"{e.text}", f.MUL)
            if beta is not None:
                bc = v.row_cells(beta, i, a["beta"])
                e = f.Tex(f"{e.text} + {f.paren(f.cell_tex(bc[j if len(bc) > 1 else 0]), f.NEG)}",
                          f.ADD)
            ents.append(e)
        di.add_lines(v.row_lhs(key), "=", v.row_lines(ents))
        out.append(v.finish(di, row=i, own=True).latex())
    return out


# -- the common mistakes: the other divisor, eps left out or outside the root ----------

UNBIASED = "LayerNorm with the unbiased variance (÷(d−1))"
# where an article says it divides by d − 1, that is its convention rather than a mistake
SAYS_UNBIASED = (r"unbiased|bessel|ddof\s*=\s*1|correction\s*=\s*1|\b[nNdD]\s*[-−]\s*1\b|"
                 r"sample (?:variance|standard deviation)|torch\.std|\.std\(\s*(?:dim|-1)|不偏")

def _mistakes(call, spec) -> list:
    from ..spec import calls as C
    out = []
    if C.get(call, "variance") == C.text("unbiased"):
        out.append(("LayerNorm with the biased variance (÷d) instead of the unbiased one",
                    C.with_kw(call, "variance", C.text("biased"))))
    else:
        out.append((UNBIASED, C.with_kw(call, "variance", C.text("unbiased"))))
    out.append(("LayerNorm without eps", C.with_kw(call, "eps", C.ZERO)))
    out.append(("LayerNorm with eps outside the square root", C.with_kw(call, "eps_inside", C.ZERO)))
    return out


LAYER_NORM = declare(
    "layer_norm", layer_norm, steps=layer_norm_steps, convert={"eps_inside": "flag"},
    latex=Presentation("LayerNorm", _show, rows="first"), mistakes=_mistakes,
    symbols=("LN", "LayerNorm", "layernorm", "normalized"),
    search=Search("n d -> n d", params={"eps": ("0.00001", "0", "0.000001", "0.000000000001"),
                                        "variance": ('"biased"', '"unbiased"')},
                  words={"eps": ("eps", "epsilon", "ε", "\\epsilon", "\\varepsilon")},
                  unless_said={"variance": ('"unbiased"', SAYS_UNBIASED, UNBIASED)},
                  by_hand={"eps": "0"}))
