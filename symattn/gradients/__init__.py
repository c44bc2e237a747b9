"""Exact gradients of a scalar loss built with the engine.

``grad(loss, wrt)`` gives ∂loss/∂w for every entry w of ``wrt``:

- ``wrt`` a matrix of SymPy symbols (``symattn.symbols``): SymPy differentiates the closed
  form of the loss; the answer is a formula in the symbols.
- ``wrt`` a Tensor of numbers that the loss was built from (an input, a weight), or an
  intermediate node of the loss (``∂L/∂scores``, treating that node as an independent
  variable): the exact gradient *at that point*, as closed forms in exp, log and sqrt of
  rationals. It is computed by reverse mode over the graph: each primitive's derivative
  rule is applied to the values of an evaluation context. In the exact context (SymPy)
  that gives the closed form; in the ball context (Arb) it gives certified enclosures, so
  digits come fast at any size without building or walking one giant SymPy tree.
  ``method="symbolic"`` takes the other route (replace the entries by symbols, let SymPy
  differentiate the closed form, substitute the numbers back); both give the same exact
  values and the tests hold them against each other.

Where a function has no derivative the rules follow PyTorch and say so in
:attr:`Gradient.notes`: ReLU and |x| at exactly 0 get slope 0. A maximum that is tied, or
√ at exactly 0, has none: :class:`~symattn.errors.DomainError`. (SymPy's own derivative of
ReLU at 0, used by ``method="symbolic"``, is Heaviside(0) = 1/2.)

>>> import symattn as sa
>>> z = sa.symbols("z", 1, 3)
>>> g = sa.grad(sa.cross_entropy(z, 0), z)
>>> import sympy; sympy.simplify(g[0] + g[1] + g[2])
0
>>> logits = sa.matrix([[-1, 1, 2, 1, -2]])       # article 003, chapter 8
>>> g = sa.grad(sa.cross_entropy(logits, 2), logits)   # p - onehot, exactly
>>> g[2]
-(1 + E + 2*exp(3))/(1 + E + 2*exp(3) + exp(4))
>>> g                                              # prints as a Tensor: certified digits
Gradient 1×5, 6 significant digits (certified):
  0.0276003  0.203940  -0.445634  0.203940  0.0101536
>>> sa.grad(sa.cross_entropy(logits, 2), logits, digits=6)[0]   # rows of strings
['0.0276003', '0.203940', '-0.445634', '0.203940', '0.0101536']
"""

from __future__ import annotations

from .api import grad, gradient, Gradient, METHODS, MAX_CLOSED_FORM  # noqa: F401
from .reverse import substitute
from .closed import tree_size, tidy_expr, exact_rational  # noqa: F401

__all__ = ["grad", "gradient", "Gradient", "substitute"]
