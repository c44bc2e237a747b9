"""GELU (Hendrycks & Gimpel 2016), in its two named variants: the exact erf form and the
tanh approximation of GPT-2 and BERT. The function, its steps, their LaTeX and the mix-up
of the two variants, declared once (:data:`GELU`)."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import erf, tanh, pi, sqrt
from .operation import declare, Presentation, Search
from ..errors import InputError
from ..steps import Steps
from ..tensor import Tensor

VARIANTS = ("none", "tanh")            # PyTorch's names: F.gelu(x, approximate="none"|"tanh")
CUBIC = Fraction("0.044715")


def gelu_steps(x, approximate: str = "none") -> Steps:
    """Each step of GELU, elementwise on x:

    ``approximate="none"``: scaled x/√2, erf(x/√2), output ½·x·(1 + erf(x/√2));
    ``approximate="tanh"``: cubic x + 0.044715·x³, inner √(2/π)·cubic, tanh(inner),
    output ½·x·(1 + tanh(inner)).
    """
    x = P.as_tensor(x)
    if approximate not in VARIANTS:
        raise InputError(f"gelu: approximate={approximate!r}: use 'none' or 'tanh'")
    st = Steps()
    if approximate == "none":
        st["scaled"] = x / sqrt(P.scalar(2))
        st["erf"] = erf(st["scaled"])
        st["output"] = x * (1 + st["erf"]) / 2
    else:
        st["cubic"] = x + CUBIC * P.power(x, 3)
        st["inner"] = sqrt(2 / pi()) * st["cubic"]
        st["tanh"] = tanh(st["inner"])
        st["output"] = x * (1 + st["tanh"]) / 2
    return st


def gelu(x, approximate: str = "none") -> Tensor:
    """GELU(x) = ½·x·(1 + erf(x/√2)), or with ``approximate="tanh"``
    ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), elementwise (PyTorch ``F.gelu``).

    >>> import symattn
    >>> symattn.gelu(symattn.matrix([[0, 1]])).exact()
    Matrix([[0, erf(sqrt(2)/2)/2 + 1/2]])
    """
    return gelu_steps(x, approximate)["output"]


# -- LaTeX: the variant's formula, then each entry of a written-out row ------------------

def _show(v, a) -> list[str]:
    X = v.value(a["x"])
    variant = a["approximate"].value if "approximate" in a else "none"
    xs, f = v.tex(a["x"]).text, v.f
    d = v.Display().add(v.lhs, "=", rf"{v.operator('gelu')}\left({xs}\right)")
    d.cont("=", _formula(xs, variant))
    out = [v.finish(d, own=True).latex()]
    for i, key in v.rows():
        ents = [f.Tex(_formula(f.paren(f.cell_tex(c), f.MUL), variant), f.MUL)
                for c in v.row_cells(X, i, a["x"])]
        di = v.Display().add_lines(v.row_lhs(key), "=", v.row_lines(ents))
        out.append(v.finish(di, row=i, own=True).latex())
    return out


def _formula(x: str, variant: str) -> str:
    if variant == "none":
        return (rf"\tfrac{{1}}{{2}}\, {x} \left(1 + \operatorname{{erf}}\left("
                rf"\tfrac{{{x}}}{{\sqrt{{2}}}}\right)\right)")
    return (rf"\tfrac{{1}}{{2}}\, {x} \left(1 + \tanh\left(\sqrt{{2/\pi}}\left({x} + "
            rf"0.044715\, {x}^{{3}}\right)\right)\right)")


# -- the common mistake: the other variant ----------------------------------------------

def _mistakes(call, spec) -> list:
    from ..spec import calls as C
    tanh_given = C.get(call, "approximate") == C.text("tanh")
    if tanh_given:
        return [("GELU in its exact erf form instead of the tanh approximation",
                 C.with_kw(call, "approximate", C.text("none")))]
    return [("GELU with the tanh approximation instead of the exact erf form",
             C.with_kw(call, "approximate", C.text("tanh")))]


GELU = declare("gelu", gelu, steps=gelu_steps, latex=Presentation("GELU", _show, rows="first"),
               mistakes=_mistakes, search=Search("n d -> n d", params={"approximate": ('"none"', '"tanh"')}))
