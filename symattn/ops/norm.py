"""Layer normalisation, per row (token), as in the post-norm Transformer."""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .elementwise import sqrt, mean
from .steps import Steps
from ..errors import DomainError, InputError
from ..numbers import exact
from ..tensor import Tensor

EPS = Fraction(1, 100000)


def layer_norm_steps(X, eps=EPS, gamma=None, beta=None, *, variance: str = "biased",
                     eps_inside: bool = True) -> Steps:
    """Each step of LayerNorm of every row of X (T×d):

    mean μ (T×1), deviations x − μ, squared deviations, variance σ² (biased: ÷d),
    std = √(σ² + ε), normalised (x − μ)/std, output γ·normalised + β.

    ``variance="unbiased"`` (÷(d−1)) and ``eps_inside=False`` (÷(√σ² + ε)) are the common
    mistakes, kept for diagnosis.
    """
    X = P.as_tensor(X)
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


def layer_norm(X, eps=EPS, gamma=None, beta=None, **variant) -> Tensor:
    """LayerNorm per row: γ·(x − μ)/√(σ² + ε) + β with the biased variance σ².

    >>> import symattn
    >>> symattn.layer_norm(symattn.matrix([[1, 3]]), eps=0).exact()
    Matrix([[-1, 1]])
    """
    return layer_norm_steps(X, eps, gamma, beta, **variant)["output"]


def _eps(eps) -> Tensor:
    if isinstance(eps, Tensor):
        return eps
    v = exact(eps)
    if isinstance(v, Fraction) and v < 0:
        raise DomainError(f"eps = {v} must be ≥ 0")
    return P.scalar(v)
