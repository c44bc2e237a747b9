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


SCHEDULES = ("paper", "geometric", "halving")


def alibi_slopes(n_heads: int, schedule: str = "paper") -> list[Tensor]:
    """The slopes m_1 … m_n_heads, each an exact 1×1 power of 2.

    ``"paper"``: for a power of two n, m_h = 2^(−8h/n); otherwise (the paper's rule) the
    n' = 2^⌊log₂ n⌋ slopes 2^(−8h/n') and then the odd-numbered ones of 2n', 2^(−4h/n')
    for h = 1, 3, 5, … ``"geometric"``: 2^(−8h/n) for every n (the power-of-two rule
    applied to any n); ``"halving"``: 2^(−h) (the 8-head slopes 1/2, 1/4, … for any n).
    """
    n = _positive(n_heads, "n_heads")
    if schedule not in SCHEDULES:
        raise InputError(f"alibi: schedule={schedule!r}: use one of {', '.join(SCHEDULES)}")
    if schedule == "geometric":
        return [P.power(2, Fraction(-8 * h, n)) for h in range(1, n + 1)]
    if schedule == "halving":
        return [P.power(2, -h) for h in range(1, n + 1)]
    c = 1 << (n.bit_length() - 1)                 # the largest power of two ≤ n
    exps = [Fraction(-8 * h, c) for h in range(1, c + 1)]
    exps += [Fraction(-4 * h, c) for h in range(1, 2 * (n - c), 2)]
    return [P.power(2, e) for e in exps]


def alibi_bias(n_heads: int, n: int, slope=None, symmetric: bool = False,
               schedule: str = "paper") -> Tensor:
    """(n_heads·n)×n: head h's bias m_h·(j − i) in rows h·n … h·n + n − 1.

    ``slope``: the slopes given (a number for every head, or a 1×n_heads row) in place of
    the schedule's; ``symmetric``: the bidirectional form −m_h·|i − j|.

    >>> import symattn
    >>> symattn.alibi_bias(1, 2).exact()
    Matrix([[0, 1/256], [-1/256, 0]])
    >>> symattn.alibi_bias(1, 2, slope=symattn.matrix([["0.5"]]), symmetric=True).exact()
    Matrix([[0, -1/2], [-1/2, 0]])
    """
    n = _positive(n, "n")
    heads = _positive(n_heads, "n_heads")
    P.check_entries(heads * n, n)
    dist = [[-abs(j - i) if symmetric else j - i for j in range(n)] for i in range(n)]
    distance = P.const(dist)
    return P.vcat([distance * m for m in given_slopes(heads, slope, schedule)]).named("alibi_bias")


def given_slopes(n_heads: int, slope, schedule: str = "paper") -> list[Tensor]:
    """The slopes of the heads: the schedule's, or ``slope`` (a number, a 1×1 or a
    1×n_heads row) given."""
    if slope is None:
        return alibi_slopes(n_heads, schedule)
    t = P.as_tensor(slope)
    if t.shape == (1, 1):
        return [t] * n_heads
    if t.shape != (1, n_heads):
        raise InputError(f"alibi: slope is {t.shape[0]}×{t.shape[1]}: give one number or a "
                         f"1×{n_heads} row (one slope per head)")
    return [P.take(t, [0], [h]) for h in range(n_heads)]


def _exponents(n: int, schedule: str) -> list:
    """The slopes' exponents of 2 (to tell schedules that agree for this n: all do for 8)."""
    return [m.params["k"] for m in alibi_slopes(n, schedule)]


def _positive(v, what: str) -> int:
    if isinstance(v, Fraction) and v.denominator == 1:
        v = int(v)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise InputError(f"alibi: {what} = {v!r} must be a positive whole number")
    return v


# -- LaTeX: the slopes, then each head's m_h·(j − i) ------------------------------------

def _show(v, a) -> list[str]:
    h, n = (int(v.value(a[k]).params["entries"][0][0]) for k in ("n_heads", "n"))
    symmetric = "symmetric" in a and bool(v.value(a["symmetric"]).params["entries"][0][0])
    schedule = a["schedule"].value if "schedule" in a else "paper"
    d = v.Display().add(v.lhs, "=", rf"{v.operator('alibi_bias')}\left({h},\ {n}\right)")
    form = r"-m_{h}\,\lvert i - j\rvert" if symmetric else r"m_{h}\,(j - i)"
    d.cont("=", rf"\left[{form}\right]_{{h,\,i,\,j}} \text{{ (the heads one above the other)}}")
    out = [v.finish(d, own=True).latex()]
    slopes = given_slopes(h, v.value(a["slope"]) if "slope" in a else None, schedule)
    v.keep(*slopes)
    c = 1 << (h.bit_length() - 1)
    ds = v.Display()
    for k, m in enumerate(slopes, 1):
        if "slope" in a:                           # given: its value, head by head
            text, approx = v.result(m)
            ds.add(f"m_{{{k}}}", v.rel(approx), text)
            continue
        e = (f"-8 \\cdot {k}/{h}" if schedule == "geometric" else f"-{k}" if schedule == "halving"
             else f"-8 \\cdot {k}/{c}" if k <= c else f"-4 \\cdot {2 * (k - c) - 1}/{c}")
        ds.add(f"m_{{{k}}}", "=", f"2^{{{e}}}")
        v.finish(ds, m)
    return out + [ds.latex()]


# -- the common mistakes: the sign, the symmetric form, another slope schedule ------------

def _mistakes(call, spec) -> list:
    from ..spec import calls as C, expr as E
    out = [("ALiBi with the sign flipped: +m·(i − j) instead of m·(j − i)", E.Neg(call))]
    if C.get(call, "symmetric") is None:
        out.append(("ALiBi's symmetric form −m·|i − j| instead of m·(j − i)",
                    C.with_kw(call, "symmetric", C.ONE)))
    if C.get(call, "slope") is None:
        mine = C.get(call, "schedule")
        mine = mine.value if isinstance(mine, E.Str) else "paper"
        said = {"paper": "the paper's slopes", "geometric": "slopes 2^(−8h/n) for every n",
                "halving": "slopes 2^(−h)"}
        n = call.args[0] if call.args else C.get(call, "n_heads")
        n = int(n.value) if isinstance(n, E.Num) and n.value.denominator == 1 and n.value > 0 else None
        out += [(f"ALiBi with {said[s]} instead of {said[mine]}",
                 C.with_kw(call, "schedule", C.text(s))) for s in SCHEDULES
                if s != mine and (n is None or _exponents(n, s) != _exponents(n, mine))]
    return out


ALIBI_BIAS = declare("alibi_bias", alibi_bias, convert={"n_heads": "whole", "n": "whole",
                                                        "symmetric": "flag"},
                     latex=Presentation("ALiBi", _show), mistakes=_mistakes)
