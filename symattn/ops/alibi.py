"""ALiBi (Press et al. 2022): a linear bias on the attention scores in place of positions.

Head h (1 … n_heads) adds m_h·(j − i) to the score of query i and key j: −m_h times the
distance to each earlier key. Above the diagonal (later keys, which a causal mask removes)
the same formula goes on; softmax is blind to a constant per row, so the bias m_h·j of the
paper's code gives the same weights.

Shape: the heads' n×n biases one above the other, (n_heads·n)×n; ``multi_head(…,
bias=alibi_bias(h, n))`` gives head h rows h·n … h·n + n − 1.
"""

from __future__ import annotations

from fractions import Fraction

from . import primitives as P
from .operation import declare, Presentation
from ..errors import InputError
from ..tensor import Tensor


def alibi_slopes(n_heads: int) -> list[Tensor]:
    """The slopes m_1 … m_n_heads, each an exact 1×1 power of 2.

    A power of two n: m_h = 2^(−8h/n). Otherwise (the paper's rule) the n' = 2^⌊log₂ n⌋
    slopes 2^(−8h/n') and then the odd-numbered ones of 2n', 2^(−4h/n') for h = 1, 3, 5, …
    """
    n = _positive(n_heads, "n_heads")
    c = 1 << (n.bit_length() - 1)                 # the largest power of two ≤ n
    exps = [Fraction(-8 * h, c) for h in range(1, c + 1)]
    exps += [Fraction(-4 * h, c) for h in range(1, 2 * (n - c), 2)]
    return [P.power(2, e) for e in exps]


def alibi_bias(n_heads: int, n: int) -> Tensor:
    """(n_heads·n)×n: head h's bias m_h·(j − i) in rows h·n … h·n + n − 1.

    >>> import symattn
    >>> symattn.alibi_bias(1, 2).exact()
    Matrix([[0, 1/256], [-1/256, 0]])
    """
    n = _positive(n, "n")
    P.check_entries(_positive(n_heads, "n_heads") * n, n)
    distance = P.const([[j - i for j in range(n)] for i in range(n)])
    return P.vcat([distance * m for m in alibi_slopes(n_heads)]).named("alibi_bias")


def _positive(v, what: str) -> int:
    if isinstance(v, Fraction) and v.denominator == 1:
        v = int(v)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise InputError(f"alibi: {what} = {v!r} must be a positive whole number")
    return v


# -- LaTeX: the slopes, then each head's m_h·(j − i) ------------------------------------

def _show(v, a) -> list[str]:
    h, n = (int(v.value(a[k]).params["entries"][0][0]) for k in ("n_heads", "n"))
    d = v.Display().add(v.lhs, "=", rf"{v.operator('alibi_bias')}\left({h},\ {n}\right)")
    d.cont("=", r"\left[m_{h}\,(j - i)\right]_{h,\,i,\,j} \text{ (the heads one above the other)}")
    out = [v.finish(d, own=True).latex()]
    slopes = alibi_slopes(h)
    v.keep(*slopes)
    c = 1 << (h.bit_length() - 1)
    ds = v.Display()
    for k, m in enumerate(slopes, 1):
        e = f"-8 \\cdot {k}/{c}" if k <= c else f"-4 \\cdot {2 * (k - c) - 1}/{c}"
        ds.add(f"m_{{{k}}}", "=", f"2^{{{e}}}")
        v.finish(ds, m)
    return out + [ds.latex()]


ALIBI_BIAS = declare("alibi_bias", alibi_bias, convert={"n_heads": "whole", "n": "whole"},
                     latex=Presentation("ALiBi", _show))
