"""Scaled dot-product attention; ``scores``, ``weights`` and ``attention`` declared with
their steps, LaTeX and common mistakes (:data:`ATTENTION`). Multi-head attention:
:mod:`.multi_head`.

Conventions: tokens are rows. ``Q`` is T_q×d_k, ``K`` is T_k×d_k, ``V`` is T_k×d_v.
``scores = Q·Kᵀ·scale`` (T_q×T_k) with ``scale=None`` meaning 1/√d_k and ``scale=1``
meaning no scaling (article 002's worked examples are unscaled). A mask is added to the
scaled scores before softmax: 0 where a key may be seen, −∞ where it may not.
"""

from __future__ import annotations


from . import primitives as P
from .elementwise import sqrt
from .masks import causal_mask, padding_mask  # noqa: F401  (their old home)
from .operation import declare, Presentation, Search
from .softmax import WEIGHT_SYMBOLS, softmax, softmax_steps, show_rows, mistakes_of as softmax_mistakes
from ..errors import ShapeError
from ..steps import Steps
from ..tensor import Tensor


def default_scale(d_k: int) -> Tensor:
    """1/√d_k as an exact expression."""
    return 1 / sqrt(P.scalar(d_k))


def scores(Q, K, scale=None) -> Tensor:
    """``Q·Kᵀ·scale``: T_q×T_k, rows labelled by Q's rows, columns by K's rows."""
    Q, K = P.as_tensor(Q), P.as_tensor(K)
    if Q.shape[1] != K.shape[1]:
        raise ShapeError(f"scores: Q is {Q.shape[0]}×{Q.shape[1]} and K is "
                         f"{K.shape[0]}×{K.shape[1]}: Q and K need the same width d_k")
    s = Q @ K.T
    if scale is None:
        return s * default_scale(Q.shape[1])
    if not isinstance(scale, Tensor) and scale == 1:
        return s
    return s * scale


def scores_steps(Q, K, scale=None, mask=None) -> Steps:
    """The scores of one head: raw_scores Q·Kᵀ, scores (scaled), masked_scores (+ mask)."""
    st = Steps()
    st["raw_scores"] = scores(Q, K, scale=1)
    st["scores"] = scores(Q, K, scale)
    if mask is not None:
        st["masked_scores"] = _masked(st["scores"], mask)
    return st


def weights_steps(Q, K, mask=None, scale=None) -> Steps:
    """The scores' steps, then the weights: softmax of each row of the (masked) scores."""
    st = scores_steps(Q, K, scale, mask)
    st["weights"] = softmax(st["masked_scores"] if mask is not None else st["scores"])
    return st


def attention_steps(Q, K, V, mask=None, scale=None) -> Steps:
    """Every step of one head: raw scores, scaled, masked, weights, output Z."""
    Q, K, V = P.as_tensor(Q), P.as_tensor(K), P.as_tensor(V)
    if K.shape[0] != V.shape[0]:
        raise ShapeError(f"attention: K has {K.shape[0]} rows and V has {V.shape[0]}: "
                         "one value row per key")
    if mask is not None:
        mask, m, n = P.as_tensor(mask), Q.shape[0], K.shape[0]
        if mask.shape != (m, n) and mask.shape not in ((1, n), (m, 1)):
            raise ShapeError(f"mask is {mask.shape[0]}×{mask.shape[1]} but the scores are "
                             f"{m}×{n}")
    st = weights_steps(Q, K, mask, scale)
    st["output"] = st["weights"] @ V
    return st


def _masked(z: Tensor, mask) -> Tensor:
    """The scores with the mask added (0 keeps a key, −∞ hides it)."""
    return z + P.as_tensor(mask)


def weights(Q, K, mask=None, scale=None) -> Tensor:
    """softmax(Q·Kᵀ·scale + mask), T_q×T_k: the attention weights A."""
    z = scores(Q, K, scale)
    return softmax(z if mask is None else _masked(z, mask))


def attention(Q, K, V, mask=None, scale=None) -> tuple[Tensor, Tensor]:
    """``(Z, A)``: the output ``A·V`` (T_q×d_v) and the weights ``A`` (T_q×T_k)."""
    st = attention_steps(Q, K, V, mask, scale)
    return st["output"], st["weights"]


def attention_output(Q, K, V, mask=None, scale=None) -> Tensor:
    """``Z = A·V`` alone: what ``attention(...)`` is in the spec language."""
    return attention_steps(Q, K, V, mask, scale)["output"]


# -- LaTeX: Q·Kᵀ as dot products, the scaling, the mask, softmax, the weighted sum -----

def _formulas(v, a, default: bool, unscaled: bool) -> tuple[str, str, str]:
    """(Kᵀ, the scaled scores, the step's formula) in symbols."""
    f, name = v.f, v.tree.name
    kt = rf"{f.paren(v.tex(a['K']), f.POW)}^{{\top}}"
    raw = rf"{v.tex(a['Q']).text} {kt}"
    if default:
        scaled = rf"\frac{{{raw}}}{{\sqrt{{d_k}}}}"
    else:
        scaled = raw if unscaled else rf"{raw} \cdot {f.paren(v.tex(a['scale']), f.NEG)}"
    if name == "scores":
        return kt, scaled, scaled
    z = scaled + (f" + {v.tex(a['mask']).text}" if "mask" in a else "")
    formula = rf"{v.operator('softmax')}\left({z}\right)"
    return kt, scaled, formula + (" " + v.tex(a["V"]).text if name == "attention" else "")


def _show(v, a) -> list[str]:
    f, name, t = v.f, v.tree.name, v.t
    st = v.steps(v.op.steps, **{k: v.value(n) for k, n in a.items()})
    Q, K = v.value(a["Q"]), v.value(a["K"])
    d_k, n_k = Q.shape[1], K.shape[0]
    default = "scale" not in a
    unscaled = not default and _is_one(v.value(a["scale"]))
    kt, _, formula = _formulas(v, a, default, unscaled)
    head = v.Display().add(v.lhs, "=", formula)
    if default:
        head.add("d_k", "=", str(d_k))
    if t.shape[0] > 1:
        res, approx = v.result(own=True)
        head.add(v.lhs, v.rel(approx), res)
    out = [head.latex()]
    Qc, Kc = v.cells(Q, a["Q"]), v.cells(K, a["K"])
    for i, key in v.rows():
        qi = i if Q.shape[0] > 1 else 0
        key = key or (v.row_key(Q, 0) if Q.rows else None)
        sub = (lambda s: v.Sym(s, (key,))) if key else (lambda s: v.Sym(s))
        d = v.Display()
        raw_row = rf"{v.tex(a['Q'], qi).text} {kt}"
        d.add(raw_row, "=", v.layout([f.texts(Qc[qi])]) + " " +
              v.layout([f.texts([Kc[j][k] for j in range(n_k)]) for k in range(d_k)]))
        d.lines("=", v.row_lines([f.dot(Qc[qi], Kc[j]) for j in range(n_k)]))
        v.finish(d, st["raw_scores"], qi)
        zsym = None
        if not unscaled:
            rc = v.row_cells(st["raw_scores"], qi)
            if default:
                ents = [f.over(c, rf"\sqrt{{{d_k}}}") for c in rc]
                rhs = rf"\frac{{{raw_row}}}{{\sqrt{{d_k}}}}"
            else:
                sv = v.row_cells(v.value(a["scale"]), 0, a["scale"])[0]
                ents = [f.times(c, sv) for c in rc]
                rhs = rf"{raw_row} \cdot {f.paren(v.tex(a['scale']), f.NEG)}"
            zsym = sub("s")
            d.add(zsym.latex(), "=", rhs).lines("=", v.row_lines(ents))
            v.finish(d, st["scores"], qi)
        if "mask" in a:
            sc = v.row_cells(st["scores"], qi)
            mt = v.value(a["mask"])
            mc = v.row_cells(mt, qi, a["mask"])
            mc = mc if len(mc) == len(sc) else mc * len(sc)
            prev = zsym.latex() if zsym else raw_row
            zsym = sub("z")
            d.add(zsym.latex(), "=", f"{prev} + {v.tex(a['mask'], qi if mt.shape[0] > 1 else None).text}")
            d.lines("=", v.row_lines([f.plus(x, m) for x, m in zip(sc, mc)]))
            v.finish(d, st["masked_scores"], qi)
        if zsym is None:
            zsym = sub("s")
            d.add(zsym.latex(), "=", raw_row)
        if name != "scores":
            _weights_rows(v, a, d, st, sub, key, qi, i)
        out.append(d.latex())
    return out


def _weights_rows(v, a, d, st, sub, key, qi, i) -> None:
    """Softmax of row qi of the scores (as softmax shows it) and, for attention, A·V."""
    f, name, t = v.f, v.tree.name, v.t
    z = st["masked_scores"] if "mask" in a else st["scores"]
    w = st["weights"] if name == "attention" else t
    w_lhs = sub("A").latex() if name == "attention" else (
        v.symbol(v.name).sub(key).latex() if t.shape[0] > 1 else v.lhs)
    show_rows(v, d, v.steps(softmax_steps, z), w, w_lhs, None, sub("z") if "mask" in a
              else sub("s"), qi)
    if name == "attention":
        V = v.value(a["V"])
        d.add(v.symbol(v.name).sub(key).latex() if t.shape[0] > 1 else v.lhs, "=",
              w_lhs + " " + v.tex(a["V"]).text)
        d.lines("=", f.weighted_rows(v.row_cells(st["weights"], qi), v.cells(V, a["V"])))
        v.finish(d, row=i, own=True)


def _is_one(t: Tensor) -> bool:
    from fractions import Fraction
    return t.op == "const" and t.shape == (1, 1) and t.params["entries"][0][0] == Fraction(1)


# -- the common mistakes: the scaling missing or squared, and softmax's ----------------

def _mistakes(call, spec) -> list:
    from ..spec import calls as C, expr as E
    out = []
    K = call.args[1] if len(call.args) > 1 else None
    if not C.has_kw(call, "scale"):
        out.append(("scaling 1/√d_k missing", C.with_kw(call, "scale", C.ONE)))
        if K is not None:
            out.append(("scaled by 1/d_k instead of 1/√d_k (1/√d_k applied twice)",
                        C.with_kw(call, "scale", E.BinOp("/", C.ONE, E.Call("width", (K,), ())))))
    if call.name in ("weights", "attention") and len(call.args) >= 2:
        s_kw = tuple((k, x) for k, x in call.kwargs if k == "scale")
        z = E.Call("scores", call.args[:2], s_kw)
        for desc, w in softmax_mistakes(z, C.get(call, "mask"), (), spec):
            if call.name == "weights":
                out.append((desc, w))
            elif len(call.args) == 3:
                out.append((desc, E.BinOp("@", w, call.args[2])))
    return out


_GROUP = frozenset({"attention"})
SCORE_SYMBOLS = ("S", "scores", "attn_scores", "attention_scores")   # names articles write
# not searched: Q Kᵀ is the operator form, and scaled by 1/√d_k it is also a product with
# a halved weight (W_O = 1/2 · […], d = 4): the search takes the scaling as its own step
SCORES = declare("scores", scores, steps=scores_steps, latex=Presentation("scores", _show, rows="first"),
                 mistakes=_mistakes, groups=_GROUP, symbols=SCORE_SYMBOLS)
# searched: weights printed from Q and K whose scores are not (causal: a decoder's); scaled
# only, as the paper's (unscaled weights are a mistake the search diagnoses, not a form)
WEIGHTS = declare("weights", weights, steps=weights_steps, latex=Presentation("weights", _show, rows="first"),
                  mistakes=_mistakes, groups=_GROUP | {"weights"}, symbols=WEIGHT_SYMBOLS,
                  search=Search("n d, m d -> n m", params={"mask": ("None", "causal_mask({rows})")},
                                within=(0, 1), scales=True))
# searched: a context matrix printed alone, its scores and weights not (an exercise's answer)
ATTENTION = declare("attention", attention, steps=attention_steps, value=attention_output,
                    latex=Presentation("Attention", _show, rows="first"), mistakes=_mistakes, groups=_GROUP,
                    search=Search("n d, m d, m v -> n v", params={"mask": ("None", "causal_mask({rows})")},
                                  scales=True, last=True, unless=("exp(", "softmax(", "weights(")))
