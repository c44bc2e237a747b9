"""Softmax over rows, with temperature: the one definition every context evaluates, its
steps (the exponentials and their row sum), how they are shown and its common mistakes
(:data:`SOFTMAX`, :data:`PROBABILITIES`)."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import exp
from .masks import is_mask
from .operation import declare, Presentation, Search
from ..errors import DomainError, InputError
from ..numbers import exact
from ..primitives import FUNCTION_TEX
from ..steps import Steps
from ..tensor import Tensor


def softmax(x, T=1, axis: int = -1) -> Tensor:
    """``exp(x_ij / T) / Σ_k exp(x_ik / T)`` for each row (``axis=0``: each column).

    A −∞ entry (a mask) gets exactly 0 weight; a row that is entirely −∞ is an error.
    T must be > 0 (a symbol is allowed for exact work).

    >>> import symattn
    >>> symattn.softmax(symattn.matrix([[0, 0]])).exact()
    Matrix([[1/2, 1/2]])
    """
    x = P.as_tensor(x)
    if axis in (0, -2):
        return P.transpose(softmax(P.transpose(x), T))
    if axis not in (1, -1):
        raise InputError(f"softmax axis={axis}: a matrix has axis 0 (columns) or 1 (rows)")
    return _parts(x, T)[3]


def softmax_steps(x, T=1) -> Steps:
    """Softmax of each row of x, step by step: z = x/T, the exponentials e^z, their row
    sums (m×1) and the output e^z / Σ e^z."""
    return Steps(**dict(zip(("z", "exponentials", "sums", "output"), _parts(P.as_tensor(x), T))))


def _parts(x: Tensor, T) -> tuple:
    z = x if _is_one(T) else x / _temperature(T)
    e = exp(P.stabilize(z))
    s = P.row_sum(e)
    return z, e, s, _divide(e, s, "softmax: every entry of a row is masked (−∞); "
                            "nothing is left to attend to")


def _divide(a, b, message: str) -> Tensor:
    t = P.div(a, b)
    t.params["zero"] = message
    return t


def _is_one(T) -> bool:
    return not isinstance(T, Tensor) and not hasattr(T, "free_symbols") and exact(T) == 1


def _temperature(T) -> Tensor:
    if isinstance(T, Tensor):
        return T
    v = exact(T)
    if isinstance(v, Fraction) and v <= 0:
        raise DomainError(f"temperature T = {v} must be > 0",
                          hint="T → 0⁺ is greedy choice (argmax); use a small positive T")
    return P.scalar(v)


def probabilities(z, T=1) -> Tensor:
    """softmax(z / T) over the vocabulary."""
    return softmax(z, T)


# -- LaTeX: each exponential, their sum and the quotients ------------------------------

def show_rows(v, d, st: Steps, w, w_lhs: str, z_prec, zsym, i: int) -> None:
    """Continue display ``d`` with row i of softmax: ``exp(z)``, ``Σ_j e^{z_j}`` and the
    quotients giving ``w_lhs`` (``w``: the weights, ``st``: :func:`softmax_steps`)."""
    f = v.f
    z, e, s = st["z"], st["exponentials"], st["sums"]
    zi = i if z.shape[0] > 1 else 0
    zc, ec = v.row_cells(z, zi, prec=z_prec), v.row_cells(e, zi)
    sc = v.row_cells(s, zi)[0]
    e = FUNCTION_TEX["exp"]
    d.add_lines(f.function(e, f.Tex(zsym.latex())).text, "=",
                v.row_lines([f.entry(e, c) for c in zc]))
    d.cont(v.rel(any(c.rounded for c in ec)), v.layout([f.texts(ec)]))
    d.add_lines(rf"\sum_{{j}} e^{{{zsym.sub('j').latex()}}}", "=", v.row_lines([f.total(ec)]))
    d.cont(v.rel(sc.rounded), sc.text)
    d.add_lines(w_lhs, "=", v.row_lines([f.over(c, sc.text, 2) for c in ec]))
    v.finish(d, w, i if w.shape[0] > 1 else 0)


def _by_rows(axis) -> bool:
    """``axis`` (a spec node, or None) is the rows' axis: 1 or −1."""
    from ..spec import calls as C, expr as E
    return axis is None or axis in (C.ONE, E.Neg(C.ONE))


def _formula(show, a, f):
    """``softmax(x)``, or ``softmax(x / T)`` with a temperature."""
    from ..spec import expr as E
    x, T = show(a.get("x", a.get("z"))), a.get("T")
    if T is not None and not (isinstance(T, E.Num) and T.value == 1):
        t = show(T, False)
        x = f.Tex(rf"\frac{{{x.text}}}{{{t.text}}}", f.FRAC, x.leaves + t.leaves)
    return f.fn(r"\operatorname{softmax}", x)


def _show(v, a) -> list[str] | None:
    from ..spec import expr as E
    if not _by_rows(a.get("axis")):                   # down the columns: the generic display
        return None
    x, T = a.get("x", a.get("z")), a.get("T")
    d = v.Display().add(v.lhs, "=", v.show(v.tree).text).cont("=", v.show(v.tree, True).text)
    many = v.t.shape[0] > 1
    if many:
        v.finish(d)
    out = [d] if many else []
    scaled = T is not None and not (isinstance(T, E.Num) and T.value == 1)
    st = v.steps(softmax_steps, v.value(x), v.value(T) if scaled else 1)
    z_prec = v.precision(x) if not scaled else None
    z_formula = v.tex(x)
    if scaled:
        z_formula = v.f.Tex(rf"\frac{{{z_formula.text}}}{{{v.tex(T).text}}}", v.f.FRAC)
    for i, key in v.rows():
        di = v.Display() if many else d
        if isinstance(x, E.Name) and not scaled:
            zsym, xt = v.symbol(x.id), v.value(x)
            zsym = zsym.sub(v.row_key(xt, i)) if xt.shape[0] > 1 else zsym
        else:
            zsym = v.Sym("z", (key,) if key else ())
            zf = z_formula.text if not key else rf"\left({z_formula.text}\right)_{{{key}}}"
            z = st["z"]
            v.finish(di.add(zsym.latex(), "=", zf), z, i if z.shape[0] > 1 else 0, prec=z_prec)
        show_rows(v, di, st, v.t, v.row_lhs(key), z_prec, zsym, i)
        if many:
            out.append(di)
    if not many:
        out.insert(0, d)
    return [x.latex() for x in out]


# -- the common mistakes: over the columns, the mask after softmax, 0 for −∞ -----------

def mistakes_of(scores, mask, kwargs, spec) -> list:
    """softmax(scores + mask) done wrong: over columns, masked afterwards, 0 for −∞."""
    from ..spec import calls as C, expr as E
    z = scores if mask is None else E.BinOp("+", scores, mask)
    out = [("softmax over columns instead of rows",
            E.Call("softmax", (z,), kwargs + (("axis", C.ZERO),)))]
    if mask is not None and is_mask(mask, spec):
        out.append(("mask applied after softmax (weights zeroed, not renormalised)",
                    E.BinOp("*", E.Call("softmax", (scores,), kwargs),
                            E.Call("keep_mask", (mask,), ()))))
        if not isinstance(mask, E.Call):
            out.append(("0 instead of −∞ in the mask", E.Call("softmax", (scores,), kwargs)))
    return out


def _mistakes(call, spec) -> list:
    from ..spec import calls as C, expr as E
    if C.has_kw(call, "axis") or not call.args:
        return []
    arg = call.args[0]
    if isinstance(arg, E.BinOp) and arg.op == "+" and is_mask(arg.right, spec):
        return mistakes_of(arg.left, arg.right, call.kwargs, spec)
    return mistakes_of(arg, None, call.kwargs, spec)


# The names articles write for attention weights (a label naming one names such a step;
# values choose among several).
WEIGHT_SYMBOLS = ("A", "α", "P", "weights", "attn_weights", "attention_weights", "attn")
SOFTMAX = declare("softmax", softmax, steps=softmax_steps, convert={"axis": "axis"},
                  latex=Presentation("softmax", _show, _formula), mistakes=_mistakes,
                  groups=frozenset({"softmax", "weights"}), symbols=WEIGHT_SYMBOLS + ("p", "probs"),
                  search=Search("n m -> n m", params={"T": ("1",)},
                                words={"T": ("T", "temperature", "τ")}, scaled=True))
PROBABILITIES = declare("probabilities", probabilities, steps=softmax_steps,
                        latex=Presentation("softmax", _show, _formula), groups=frozenset({"softmax", "weights"}),
                        symbols=("P", "p", "probs", "probabilities"))
