"""How one entry of a step is written out: the generic forms a presentation composes.

Each form takes certified cells (:class:`~symattn.render.latex_values.Cell`) or LaTeX
fragments (:class:`Tex`) and returns a ``Tex`` carrying its
precedence, so a negative operand is parenthesised only where it must be.
"""

from __future__ import annotations

from dataclasses import dataclass

from .latex_values import layout

__all__ = ["Tex", "paren", "cell_tex", "join_sum", "ADD", "NEG", "MUL", "FRAC", "POW", "ATOM",
           "fn", "texts", "weighted_rows", "dot", "plus", "minus", "times", "over", "square", "function",
           "entry", "total"]

# precedence of a LaTeX fragment, loosest first
ADD, NEG, MUL, FRAC, POW, ATOM = 1, 2, 3, 4, 5, 6


@dataclass(frozen=True)
class Tex:
    text: str
    level: int = ATOM
    leaves: int = 1
    terms: tuple = ()          # a sum's terms (texts, "+ " joined), so a long sum can break


def paren(t: Tex, below: int) -> str:
    """``t`` in parentheses when its precedence is at most ``below``."""
    return rf"\left({t.text}\right)" if t.level <= below else t.text


def cell_tex(c) -> Tex:
    """A certified cell as a fragment (negative: parenthesised after an operator)."""
    return Tex(c.text, NEG if c.negative else ATOM)


def fn(name: str, arg: Tex) -> Tex:
    """``name\\left(arg\\right)``."""
    return Tex(rf"{name}\left({arg.text}\right)", ATOM, arg.leaves)


def join_sum(terms: list[Tex]) -> Tex:
    """``a + b + c``, a negative term written as ``+ (-b)``."""
    if not terms:
        return Tex("0")
    if len(terms) == 1:
        return terms[0]
    parts = [terms[0].text] + [paren(t, NEG) for t in terms[1:]]
    return Tex(" + ".join(parts), ADD, sum(t.leaves for t in terms),
               tuple((p, t.leaves) for p, t in zip(parts, terms)))


def texts(cells) -> list[str]:
    """The printed text of each cell of a row."""
    return [c.text for c in cells]


def dot(xs, ys, bias=None) -> Tex:
    """``x_1 \\cdot y_1 + x_2 \\cdot y_2 + … (+ b)``: one entry of a matrix product."""
    terms = [Tex(f"{paren(cell_tex(x), NEG)} \\cdot {paren(cell_tex(y), NEG)}", MUL, 2)
             for x, y in zip(xs, ys)]
    if bias is not None:
        terms.append(cell_tex(bias))
    return join_sum(terms)


def plus(a, b) -> Tex:
    """``a + (b)``: an addition of two cells (a mask entry, a bias)."""
    return Tex(f"{a.text} + {paren(cell_tex(b), NEG)}", ADD, 2)


def minus(a, b) -> Tex:
    """``a - (b)``: a deviation."""
    return Tex(f"{a.text} - {paren(cell_tex(b), NEG)}", ADD, 2)


def times(a, b) -> Tex:
    """``(a) \\cdot (b)``: a cell scaled by a factor (a Tex or a cell)."""
    a = a if isinstance(a, Tex) else cell_tex(a)
    b = b if isinstance(b, Tex) else cell_tex(b)
    return Tex(f"{paren(a, NEG)} \\cdot {paren(b, NEG)}", MUL)


def over(a, b: str, leaves: int = 1) -> Tex:
    """``\\frac{a}{b}``: a quotient of a cell (or Tex) by a denominator's LaTeX."""
    return Tex(rf"\frac{{{a.text}}}{{{b}}}", FRAC, leaves)


def square(a) -> Tex:
    """``{(a)}^{2}``."""
    return Tex(f"{{{paren(cell_tex(a), FRAC)}}}^{{2}}", POW)


def function(form, a: Tex) -> Tex:
    """A declared function of ``a`` in symbols (``form``: its declared LaTeX,
    :data:`symattn.primitives.FUNCTION_TEX`): ``\\exp(a)``, ``\\sqrt{a}``."""
    if form.wrap:
        return Tex(form.wrap % a.text, ATOM, getattr(a, "leaves", 1))
    return fn(form.fn, a)


def entry(form, a) -> Tex:
    """A declared function of one entry written out with numbers: ``e^{a}``,
    ``\\max(0, a)``; as in symbols where the declaration gives no other form."""
    leaves = getattr(a, "leaves", 1)
    if form.power:
        return Tex(form.power % a.text, POW, leaves)
    if form.entry:
        return Tex(form.entry % a.text, ATOM, leaves)
    return function(form, a)


def total(cells) -> Tex:
    """``a + b + c``: the sum of a row's cells."""
    return join_sum([cell_tex(c) for c in cells])


def weighted_rows(weights, rows) -> list[str]:
    r"""``w_1 \cdot [v_1] + w_2 \cdot [v_2] + …``, one line per row of V: a row of A·V."""
    lines = []
    for k, w in enumerate(weights):
        term = f"{paren(cell_tex(w), NEG)} \\cdot {layout([texts(rows[k])])}"
        lines.append(term if k == 0 else "+ " + term)
    return lines
