"""The operations of the articles, each written once over the primitives.

Row-vector convention throughout: tokens are rows, ``y = x·W + b``, weights stored
input-rows × output-columns exactly as the articles print them.

Every module of this package is imported here and each :class:`~.operation.Operation` it
declares is collected into :data:`OPERATIONS` and its function exported: a new operation is
one new module (see docs/operations.md), listed nowhere else.
"""

import importlib as _importlib
import os as _os

from .operation import Operation, collect as _collect

from .primitives import const, matmul, transpose, hcat as concat, vcat as stack, take
from . import elementwise
from .elementwise import *  # noqa: F401,F403  (exp, log, ..., erf, tanh, pi: declared)
from .softmax import softmax, softmax_steps, probabilities
from .masks import causal_mask, padding_mask
from .attention import scores, weights, attention, attention_steps, default_scale
from .multi_head import multi_head, self_attention, cross_attention, Head
from .norm import layer_norm, layer_norm_steps, EPS
from .ffn import linear, ffn, ffn_steps, residual
from .layers import (encoder_layer, decoder_layer, encoder, decoder, EncoderLayerParams,
                     DecoderLayerParams, FFNParams)
from .embedding import embed, positional_encoding, learned_positional_encoding
from .output import logits, cross_entropy, label_smoothing_loss, greedy
from .steps import Steps

__all__ = [
    "const", "matmul", "transpose", "concat", "stack", "take",
    *elementwise.__all__,
    "softmax", "softmax_steps", "causal_mask", "padding_mask", "scores", "weights", "attention",
    "attention_steps", "multi_head", "self_attention", "cross_attention", "Head",
    "default_scale", "layer_norm", "layer_norm_steps", "EPS", "linear", "ffn", "ffn_steps",
    "residual", "encoder_layer", "decoder_layer", "encoder", "decoder", "EncoderLayerParams",
    "DecoderLayerParams", "FFNParams", "embed", "positional_encoding",
    "learned_positional_encoding", "logits", "probabilities", "cross_entropy",
    "label_smoothing_loss", "greedy", "Steps",
]

OPERATIONS: dict[str, Operation] = {}


def register(op: Operation) -> Operation:
    """Add a declaration to :data:`OPERATIONS` (the modules of this package are registered
    when it is imported; a notebook or a test may register its own)."""
    if op.name in OPERATIONS and OPERATIONS[op.name] is not op:
        raise ValueError(f"operation '{op.name}' is declared twice")
    OPERATIONS[op.name] = op
    return op


for _m in sorted(f[:-3] for f in _os.listdir(__path__[0]) if f.endswith(".py") and f != "__init__.py"):
    for _op in _collect(vars(_importlib.import_module(f"{__name__}.{_m}"))).values():
        register(_op)
        if not callable(globals().get(_op.name)):       # unbound, or hidden by a submodule
            globals()[_op.name] = _op.function
        if _op.name not in __all__:
            __all__.append(_op.name)


def group(name: str) -> tuple[str, ...]:
    """The names of the declared operations in a family ("attention", "softmax", "mask")."""
    return tuple(n for n, op in OPERATIONS.items() if name in op.groups)
