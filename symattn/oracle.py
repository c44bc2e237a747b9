"""The float oracle: how far a float implementation is from the certified values.

``compare(node, reference)`` takes the values a float implementation computed for the same
layer (a NumPy array or a PyTorch tensor of float64, float32, float16 or bfloat16, as
T×n or with leading dimensions of size 1, e.g. ``(1, 1, T, d)`` from
``scaled_dot_product_attention``) or the name of symattn's own NumPy path (``"float64"``,
``"float32"``), and measures each entry against the exact value enclosed in a ball of
``digits`` certified digits:

- ``abs_err``: |reference − exact| (an upper bound, right to many digits);
- ``rel_err``: abs_err / |exact| (``inf`` where the exact value is 0 and the reference is
  not; ``nan`` where a ball cannot tell the exact value from 0);
- ``digits``: correct significant digits, −log10(rel_err) (≥ 0; ``inf`` when exact);
- ``status``: ``"ok"``; ``"nan"``, ``"inf"``, ``"-inf"`` for a non-finite reference entry
  (its error is ``inf``: reported, never a crash); ``"masked"`` where the exact value is
  −∞ (a masked score) and the reference too, ``"not -inf"`` where only the exact value is;
- ``summary()``: the largest and mean error in units of the dtype's machine epsilon
  (rel_err / ε), the fewest and mean correct digits; ``worst(k)``: the k worst entries with
  their positions and labels.

>>> import numpy as np, symattn as sa
>>> w = sa.softmax(sa.matrix([["0", "1/2"]]))
>>> c = sa.compare(w, np.array([[0.3775407, 0.6224593]], dtype=np.float32))
>>> c.dtype, c.summary()["min_digits"] > 6
('float32', True)
"""

from __future__ import annotations

import math

from .errors import InputError, ShapeError
from .tensor import Tensor, NEG_INF

EPSILON = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10,
           "bfloat16": 2.0 ** -7}
DEFAULT_DIGITS = 30
WORST = 10
MAX_PROOFS = 10_000        # entries whose equality with the reference is proven formally


def compare(node: Tensor, reference="float64", digits: int = DEFAULT_DIGITS,
            evaluator=None) -> "Comparison":
    """Each entry of ``reference`` against the certified value of ``node`` (see module doc);
    an ``evaluator`` (:class:`~symattn.evaluation.evaluator.Evaluator`) that has the
    values already is reused."""
    from .evaluation.evaluator import Evaluator, start_precision
    if not isinstance(node, Tensor):
        raise InputError("compare takes a symattn Tensor (the computation) first")
    if not isinstance(digits, int) or isinstance(digits, bool) or not 10 <= digits <= 1000:
        raise InputError(f"digits={digits!r}: give a whole number from 10 to 1000")
    ev = evaluator or Evaluator()
    if isinstance(reference, str):
        if reference not in ("float64", "float32"):
            raise InputError(f"'{reference}' is not symattn's float path",
                             hint="name float64 or float32, or pass your own values as a "
                                  "NumPy array or a torch tensor")
        values, dtype = ev.float(node, reference).astype("float64"), reference
    else:
        values, dtype = as_float64(reference, node.shape)
    prec = start_precision(digits=digits)
    balls = ev.ball(node, prec)
    return Comparison(node, dtype, values, balls, prec, ev, digits)


def as_float64(reference, shape: tuple[int, int]):
    """``(values, dtype name)``: the reference as an m×n float64 NumPy array (exact: every
    float16, bfloat16 and float32 is a float64) and the name of its own dtype."""
    import numpy as np
    kind = type(reference).__module__.split(".")[0]
    if kind == "torch":
        import torch
        names = {torch.float64: "float64", torch.float32: "float32", torch.float16: "float16",
                 torch.bfloat16: "bfloat16"}
        dtype = names.get(reference.dtype)
        if dtype is None:
            raise InputError(f"the reference is a torch tensor of {reference.dtype}",
                             hint="give float64, float32, float16 or bfloat16 values")
        values = reference.detach().cpu().to(torch.float64).numpy()
    elif isinstance(reference, np.ndarray):
        dtype = reference.dtype.name
        if dtype not in EPSILON:
            raise InputError(f"the reference is a NumPy array of {dtype}",
                             hint="give float64, float32, float16 or bfloat16 values")
        values = reference.astype(np.float64)
    else:
        raise InputError(f"the reference is a {type(reference).__name__}",
                         hint="give a NumPy array or a torch tensor of floats")
    return _fit(values, shape, dtype), dtype


def _fit(values, shape: tuple[int, int], dtype: str):
    """``values`` as m×n: leading dimensions of size 1 dropped, a vector as one row or column."""
    got = values.shape
    while values.ndim > 2 and values.shape[0] == 1:
        values = values[0]
    if values.ndim == 1 and 1 in shape and values.shape[0] == max(shape):
        values = values.reshape(shape)
    if values.shape != tuple(shape):
        g = "×".join(map(str, got)) or "a scalar"
        raise ShapeError(f"the reference is {g} ({dtype}) but the computation is "
                         f"{shape[0]}×{shape[1]}", hint="pass the values of the same node")
    return values


class Comparison:
    """A reference's entries against certified values (fields in the module doc)."""

    def __init__(self, node: Tensor, dtype: str, values, balls, prec: int, ev, digits: int):
        import numpy as np
        from flint import arb
        from .evaluation.ball import precision
        self.node, self.dtype, self.values, self.prec = node, dtype, values, prec
        self.eps = EPSILON[dtype]
        self.certified_digits = digits
        self._ev = ev
        m, n = node.shape
        self.abs_err = np.zeros((m, n))
        self.rel_err = np.zeros((m, n))
        self.exact_values = np.zeros((m, n))            # the exact values rounded to float64
        self.status = np.full((m, n), "ok", dtype=object)
        self._equal: list = []                          # a ball holding the reference value
        with precision(prec):
            for i in range(m):
                row, vals = balls[i], values[i]
                for j in range(n):
                    self._entry(i, j, row[j], float(vals[j]), arb)
        self._prove_equal()
        with np.errstate(divide="ignore", invalid="ignore"):
            d = -np.log10(self.rel_err)
        self.digits = np.where(np.isnan(d), np.nan, np.maximum(d, 0.0))

    def _entry(self, i: int, j: int, x, r: float, arb) -> None:
        if x is NEG_INF:
            self.exact_values[i, j] = -math.inf
            if r == -math.inf:
                self.status[i, j] = "masked"
            else:
                self.status[i, j] = "nan" if r != r else "not -inf"
                self.abs_err[i, j] = self.rel_err[i, j] = math.inf
            return
        self.exact_values[i, j] = float(x)
        if not math.isfinite(r):
            self.status[i, j] = "nan" if r != r else "inf" if r > 0 else "-inf"
            self.abs_err[i, j] = self.rel_err[i, j] = math.inf
            return
        err = abs(arb(r) - x)
        self.abs_err[i, j] = float(err.upper())
        if x.is_zero():
            self.rel_err[i, j] = 0.0 if r == 0 else math.inf
        elif x.contains(0):
            self.rel_err[i, j] = math.nan                   # cannot tell it from 0 here
        else:
            self.rel_err[i, j] = float((err / abs(x)).upper())
        if self.abs_err[i, j] and x.contains(arb(r)):
            self._equal.append((i, j))

    def _prove_equal(self) -> None:
        """Entries whose ball holds the reference value are exact when value − reference is
        proven 0 (a weight of exactly 1 behind a causal mask is exact, not 41 digits right)."""
        if not self._equal or len(self._equal) > MAX_PROOFS:
            return
        from fractions import Fraction
        import sympy
        from .ops.primitives import const
        m, n = self.node.shape
        ref = const([[sympy.Rational(Fraction(float(self.values[i][j]))) if (i, j) in self._equal
                      else sympy.Integer(0) for j in range(n)] for i in range(m)])
        diff = self.node - ref
        self._ev.ball(diff, self.prec)
        for i, j in self._equal:
            if self._ev.proven_zero(diff, i, j, self.prec):
                self.abs_err[i, j] = self.rel_err[i, j] = 0.0

    # -- what the README and the older API read --------------------------------------
    @property
    def float_values(self):
        return self.values

    @property
    def reference(self) -> list:
        """The certified values as decimal strings (``certified_digits`` digits)."""
        rows = self._ev.rounded_matrix(self.node, digits=self.certified_digits, mode="half-even")
        return [["-inf" if r is None else str(r) for r in row] for row in rows]

    def max_abs_err(self) -> float:
        return float(self.abs_err.max())

    def max_rel_err(self) -> float:
        return float(self.rel_err[~self._undecided()].max(initial=0.0))

    def _undecided(self):
        import numpy as np
        return np.isnan(self.rel_err)

    # -- the oracle's report ---------------------------------------------------------
    def nonfinite(self) -> list[dict]:
        """Every entry that is NaN or ±inf in the reference and not in the exact values
        (or finite where the exact value is −∞)."""
        import numpy as np
        bad = np.isin(self.status, ["nan", "inf", "-inf", "not -inf"])
        return [self._where(int(i), int(j)) for i, j in zip(*np.nonzero(bad))]

    def worst(self, k: int = WORST) -> list[dict]:
        """The k finite entries with the largest relative error (then absolute), worst first."""
        import numpy as np
        ok = (self.status == "ok") & np.isfinite(self.abs_err)
        idx = np.argwhere(ok)
        if not len(idx):
            return []
        rel = np.nan_to_num(self.rel_err[ok], nan=-1.0, posinf=np.finfo(float).max)
        order = np.lexsort((-self.abs_err[ok], -rel))[:k]
        return [self._where(int(idx[o][0]), int(idx[o][1])) for o in order]

    def _largest_abs(self) -> dict:
        import numpy as np
        ok = (self.status == "ok") & np.isfinite(self.abs_err)
        i, j = np.unravel_index(np.argmax(np.where(ok, self.abs_err, -1.0)), self.abs_err.shape)
        return self._where(int(i), int(j))

    def _where(self, i: int, j: int) -> dict:
        rel = float(self.rel_err[i, j])
        dg = float(self.digits[i, j])
        return {"row": i, "col": j, "row_label": self.node.row_label(i),
                "col_label": self.node.col_label(j), "status": str(self.status[i, j]),
                "reference": _num(float(self.values[i, j])), "exact": self._exact(i, j),
                "abs_err": _num(float(self.abs_err[i, j])), "rel_err": _num(rel),
                "eps": _num(rel / self.eps), "digits": _num(dg)}

    def _exact(self, i: int, j: int) -> str:
        """The exact value of entry (i, j), 20 certified significant digits."""
        r = self._ev.rounded(self.node, i, j, digits=20, mode="half-even")
        if r is None:
            return "-inf"
        if self.abs_err[i, j] == 0 and self.status[i, j] == "ok":  # proven equal to the float
            from fractions import Fraction
            short = str(r).rstrip("0").rstrip(".") if "." in str(r) and "e" not in str(r) else str(r)
            if Fraction(short) == Fraction(float(self.values[i][j])):
                return short
        return str(r)

    def summary(self) -> dict:
        """Largest and mean error (absolute; relative in units of ε), correct digits."""
        import numpy as np
        ok = (self.status == "ok") & np.isfinite(self.abs_err)
        rel = self.rel_err[ok & ~np.isnan(self.rel_err) & np.isfinite(self.rel_err)]
        dg = self.digits[ok & ~np.isnan(self.digits)]
        return {"dtype": self.dtype, "epsilon": self.eps,
                "shape": list(self.node.shape), "entries": int(self.status.size),
                "certified_digits": self.certified_digits,
                "compared": int(ok.sum()), "nonfinite": len(self.nonfinite()),
                "masked": int((self.status == "masked").sum()),
                "exact": int(np.isinf(dg).sum()),
                "max_abs_err": _num(float(self.abs_err[ok].max(initial=0.0))),
                "mean_abs_err": _num(float(self.abs_err[ok].mean()) if ok.any() else 0.0),
                "max_eps": _num(float(rel.max(initial=0.0)) / self.eps),
                "mean_eps": _num(float(rel.mean()) / self.eps if rel.size else 0.0),
                "min_digits": _num(float(dg.min()) if dg.size else math.nan),
                "median_digits": _num(float(np.median(dg)) if dg.size else math.nan)}

    def to_json(self, worst: int = WORST) -> dict:
        return {"summary": self.summary(), "worst": self.worst(worst),
                "nonfinite": self.nonfinite()}

    def __repr__(self) -> str:
        return self.text().rstrip("\n")

    def _repr_html_(self) -> str:
        """Jupyter's display: the summary, the worst entries, what is not finite."""
        from .render.html.jinja import render
        s = self.summary()
        rows = [("largest error", f"{_g(s['max_abs_err'])} absolute, {_g(s['max_eps'])} ε"),
                ("mean error", f"{_g(s['mean_abs_err'])} absolute, {_g(s['mean_eps'])} ε"),
                ("ε", _g(self.eps)),
                ("correct significant digits", f"fewest {_g(s['min_digits'], 3)}, "
                                               f"median {_g(s['median_digits'], 3)}"),
                ("exact entries", s["exact"]), ("masked entries", s["masked"]),
                ("entries not finite", s["nonfinite"])]
        worst = [dict(w, abs_err=_g(w["abs_err"]), eps=_g(w["eps"]), digits=_g(w["digits"], 3))
                 for w in self.worst()]
        return render("jupyter.html.j2", what="compare", s=s, rows=rows, worst=worst,
                      nonfinite=self.nonfinite())

    def text(self, worst: int = WORST) -> str:
        """The report ``symattn compare`` prints."""
        s = self.summary()
        m, n = s["shape"]
        w = self.worst(max(worst, 1))
        lines = [f"{self.dtype} reference against {s['certified_digits']} certified digits, "
                 f"{m}×{n} entries"]
        if w:                                       # the worst entry, the first one listed below
            top = w[0]
            lines.append(f"  max error  {_g(top['eps'])} ε = {_g(top['abs_err'])} absolute "
                         f"(ε = {_g(self.eps)}) at [{top['row_label']}, {top['col_label']}]")
            if s["max_abs_err"] > top["abs_err"]:
                big = self._largest_abs()
                lines.append(f"  largest absolute error {_g(big['abs_err'])} "
                             f"= {_g(big['eps'])} ε at [{big['row_label']}, {big['col_label']}]")
        lines += [f"  mean error {_g(s['mean_abs_err'])} absolute, {_g(s['mean_eps'])} ε",
                  f"  correct significant digits: fewest {_g(s['min_digits'], 3)}, "
                  f"median {_g(s['median_digits'], 3)}; exact entries: {s['exact']}"]
        if s["masked"]:
            lines.append(f"  masked (−∞ in both): {s['masked']}")
        bad = self.nonfinite()
        if bad:
            lines.append(f"  not finite in the reference: {len(bad)} entries")
            lines += [f"    [{b['row_label']}, {b['col_label']}] (row {b['row']}, col {b['col']}): "
                      f"{b['status']}, exact {b['exact']}" for b in bad[:worst]]
        w = w[:worst]
        if w:
            lines.append(f"  worst {len(w)} entries:" if len(w) > 1 else "  worst entry:")
            lines += [f"    [{e['row_label']}, {e['col_label']}] (row {e['row']}, col {e['col']}): "
                      f"reference {_g(e['reference'], 17)}, exact {e['exact']}, "
                      f"error {_g(e['abs_err'])} = {_g(e['eps'])} ε, {_g(e['digits'], 3)} digits"
                      for e in w]
        return "\n".join(lines) + "\n"

    def plot(self, path: str | None = None):
        """The distribution of the errors (in units of ε) and of the correct digits, drawn
        with matplotlib (Agg); written to ``path`` (PNG, SVG, PDF by its suffix) if given.
        Returns the figure."""
        import numpy as np
        import matplotlib
        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
        fig = Figure(figsize=(9, 3.4), layout="constrained")
        a, b = fig.subplots(1, 2)
        ok = (self.status == "ok") & np.isfinite(self.rel_err) & ~np.isnan(self.rel_err)
        e = self.rel_err[ok] / self.eps
        pos = e[e > 0]
        if pos.size:
            lo, hi = np.log10(pos.min()), np.log10(pos.max())
            bins = np.logspace(lo, hi if hi > lo else lo + 1, 50)
            a.hist(pos, bins=bins, color="#4a78b0")
            a.set_xscale("log")
        a.set_xlabel(f"relative error / ε ({self.dtype}, ε = {self.eps:g})")
        a.set_ylabel("entries")
        a.set_title(f"{int((e == 0).sum())} exact, {int(pos.size)} with an error", fontsize=9)
        d = self.digits[ok]
        d = d[np.isfinite(d)]
        if d.size:
            b.hist(d, bins=40, color="#b0784a")
        b.set_xlabel("correct significant digits")
        b.set_title(f"{self.node.shape[0]}×{self.node.shape[1]} against certified values",
                    fontsize=9)
        if path is not None:
            fig.savefig(path)
        return fig


def _num(x: float):
    """A float for JSON: None for NaN, the strings 'inf'/'-inf' for infinities."""
    if x != x:
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _g(x, digits: int = 3) -> str:
    if x is None:
        return "undecided"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}g}"
