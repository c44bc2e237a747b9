"""Linear layers and the position-wise feed-forward network."""

from __future__ import annotations

from . import primitives as P
from .elementwise import relu
from .steps import Steps
from ..tensor import Tensor


def linear(x, W, b=None) -> Tensor:
    """``x·W + b``: x is T×d_in, W is d_in×d_out (as printed), b is 1×d_out.

    For a PyTorch ``nn.Linear`` pass ``W = weight.T``.
    """
    y = P.matmul(x, W)
    return y if b is None else y + b


def ffn_steps(x, W1, b1, W2, b2) -> Steps:
    """Linear → ReLU → Linear, each step named: hidden, activated, output."""
    st = Steps()
    st["hidden"] = linear(x, W1, b1)
    st["activated"] = relu(st["hidden"])
    st["output"] = linear(st["activated"], W2, b2)
    return st


def ffn(x, W1, b1, W2, b2) -> Tensor:
    """FFN(x) = ReLU(x·W1 + b1)·W2 + b2."""
    return ffn_steps(x, W1, b1, W2, b2)["output"]


def residual(x, fx) -> Tensor:
    """The residual connection x + f(x)."""
    return P.add(x, fx)
