"""Embeddings and positional encodings, declared with the positional encoding's common
mistakes (:data:`EMBED`, :data:`POSITIONAL_ENCODING`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from . import primitives as P
from .elementwise import sin, cos, sqrt
from .operation import declare, Presentation, Search
from ..errors import DomainError, InputError
from ..tensor import Tensor


def embed(E, ids: Sequence, scale: bool = False) -> Tensor:
    """Rows of the embedding table E (vocab×d_model) for token ids or labels;
    ``scale=True`` multiplies by √d_model as the original Transformer does."""
    E = P.as_tensor(E)
    rows = [E.row_index(i) for i in ids]
    x = P.take(E, rows)
    return x * sqrt(P.scalar(E.shape[1])) if scale else x


def positional_encoding(n: int, d: int, base=10000, *, pair: str = "2i",
                        layout: str = "pairs") -> Tensor:
    """Sinusoidal encoding, n×d, in one of the two layouts in use:

    - ``layout="pairs"`` (the paper): PE[pos, 2i] = sin(pos / base^(2i/d)),
      PE[pos, 2i+1] = cos(pos / base^(2i/d));
    - ``layout="halves"`` (tensor2tensor, many tutorials): the sines in the first d/2
      columns, the cosines of the same frequencies in the last d/2: PE[pos, i] =
      sin(pos / base^(2i/d)), PE[pos, d/2 + i] = cos(pos / base^(2i/d)), i < d/2 (d even).

    ``pair="i"`` (the exponent i/d instead of 2i/d) is a common mistake, kept for diagnosis.
    """
    if not (isinstance(n, int) and isinstance(d, int)) or n < 1 or d < 1:
        raise InputError("positional_encoding(n, d) takes positive whole numbers")
    if pair not in ("2i", "i"):
        raise InputError("pair must be '2i' or 'i'")
    if layout not in PE_LAYOUTS or (layout == "halves" and d % 2):
        raise InputError(f"positional_encoding: layout={layout!r}: use 'pairs', or 'halves' "
                         "with an even d")
    check_base(base, "positional_encoding")
    P.check_entries(n, d)             # before the table is built
    pos = P.const([[p] for p in range(n)])
    if layout == "halves":
        inv = [P.power(P.scalar(base), -Fraction(2 * i if pair == "2i" else i, d))
               for i in range(d // 2)]
        angles = pos @ P.hcat(inv)
        return P.hcat([sin(angles), cos(angles)])
    inv = [P.power(P.scalar(base), -Fraction(2 * (j // 2) if pair == "2i" else j // 2, d))
           for j in range(d)]
    angles = pos @ P.hcat(inv)
    s, c = sin(angles), cos(angles)
    even = P.take(s, None, list(range(0, d, 2)))
    odd = P.take(c, None, list(range(1, d, 2)))
    both = P.hcat([even, odd]) if d > 1 else even
    order = [j // 2 if j % 2 == 0 else (d + 1) // 2 + j // 2 for j in range(d)]
    return P.take(both, None, order)


PE_LAYOUTS = ("pairs", "halves")


def check_base(base, what: str) -> None:
    """A base known here (a number) must be > 1: base^(2i/d) then grows with i."""
    from ..numbers import exact
    from ..tensor import NEG_INF
    if isinstance(base, Tensor):
        if base.op != "const" or base.shape != (1, 1):
            return                         # computed: the power's own domain checks apply
        base = base.params["entries"][0][0]
    b = exact(base)
    if getattr(b, "free_symbols", None):
        return                             # a symbol: a proof's general base
    if b is NEG_INF or not b > 1:
        raise DomainError(f"{what}: base = {'-inf' if b is NEG_INF else b} must be > 1",
                          hint="the Transformer uses base = 10000")


def learned_positional_encoding(P_table, n: int) -> Tensor:
    """The first n rows of a learned position table."""
    return P.take(P.as_tensor(P_table), list(range(n)))


# -- the common mistakes: base 1000, no frequency decay, the exponent i/d ---------------

MAX_PE_ENTRIES = 4096         # the table without decay is written out as a tree up to here


def _pe_mistakes(call, spec) -> list:
    from ..spec import calls as C
    out = []
    if C.get(call, "base") is None:
        out.append(("positional encoding with base 1000 instead of 10000",
                    C.with_kw(call, "base", C.num(1000))))
        flat = _without_decay(call)
        if flat is not None:
            out.append(("positional encoding without frequency decay (sin(pos), cos(pos) in "
                        "every dimension)", flat))
    if C.get(call, "pair") is None:
        out.append(("positional encoding with exponent i/d instead of 2i/d",
                    C.with_kw(call, "pair", C.text("i"))))
    return out


def _without_decay(call):
    """sin(pos) in the even and cos(pos) in the odd dimensions, written out as a tree;
    None unless n and d are plain numbers."""
    from ..spec import calls as C, expr as E
    if len(call.args) < 2 or not all(isinstance(a, E.Num) and a.value.denominator == 1
                                      and a.value > 0 for a in call.args[:2]):
        return None
    n, d = int(call.args[0].value), int(call.args[1].value)
    if n * d > MAX_PE_ENTRIES:
        return None

    def row(values):
        return E.ListLit(tuple(C.num(v) for v in values))
    pos = E.ListLit(tuple(row([p] * d) for p in range(n)))
    even = E.ListLit((row([1 - j % 2 for j in range(d)]),))
    odd = E.ListLit((row([j % 2 for j in range(d)]),))
    return E.BinOp("+", E.BinOp("*", E.Call("sin", (pos,), ()), even),
                   E.BinOp("*", E.Call("cos", (pos,), ()), odd))


EMBED = declare("embed", embed, convert={"ids": "labels", "scale": "flag"},
                latex=Presentation("Embed"))
POSITIONAL_ENCODING = declare("positional_encoding", positional_encoding,
                              convert={"n": "whole", "d": "whole"}, mistakes=_pe_mistakes,
                              latex=Presentation("PE"), symbols=("PE", "P", "pe"),
                              # base 100: the base of a much-copied tutorial's code (n=100);
                              # a table of closed forms: accepted by three in five entries
                              search=Search(" -> n d", params={"base": ("10000", "100"),
                                                               "layout": ('"pairs"', '"halves"')},
                                            words={"base": ("base",)}, sizes={"n": "rows", "d": "cols"},
                                            most=3 / 5, onto="inputs"))
